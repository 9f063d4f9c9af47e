//===- CUDA.td - The CUDA target backends --------------------*- tablegen -*-===//
//
// Target kind `cuda` (alias `nvidia`) and the two backends that share it:
// CUDA for architectures before sm_90a, and Hopper (Hopper.td) for sm_90a.
// Both lower the cuda dialect and share device and host codegen; each owns
// its pass pipeline.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "CUDAOps.td"

def CudaKind : TargetKind<"cuda"> {
  let Summary = "NVIDIA GPUs, through PTX";
  let Aliases = ["nvidia"];
  let Attrs = [TargetEnumAttr<"arch", ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"],
                              "sm_80", "SM architecture">,
               // Unset: kernel on Hopper, O3 before (CUDACodeGen.cpp,
               // LLVMPipeline).
               TargetEnumAttr<"llvm_opt", ["kernel", "O3"], "",
                              "LLVM middle-end pipeline: O3, or kernel (O3's "
                              "passes without those that changed no kernel's "
                              "code); unset: kernel for sm_90a, O3 before">];
}

def FeatureMmaSync : TargetFeature<"mma_sync", "warp-level tensor core MMA (mma.sync)">;
def FeatureLdmatrix : TargetFeature<"ldmatrix", "fragment loads from shared memory (ldmatrix)">;
def FeatureCpAsync : TargetFeature<"cp_async", "asynchronous global-to-shared copies (cp.async)">;
def FeatureMbarrier : TargetFeature<"mbarrier", "shared-memory barriers with phases (mbarrier)">;
def FeatureTMA : TargetFeature<"tma", "bulk tensor copies through the Tensor Memory Accelerator",
                               [FeatureMbarrier]>;
def FeatureWGMMA : TargetFeature<"wgmma", "warpgroup-level asynchronous MMA (wgmma.mma_async)">;
def FeatureSetmaxnreg : TargetFeature<"setmaxnreg", "per-warpgroup register reallocation">;
def FeatureWarpSpecialization
    : TargetFeature<"warp_specialization",
                    "producer and consumer warpgroups with register reallocation",
                    [FeatureTMA, FeatureWGMMA, FeatureSetmaxnreg]>;

defvar CudaCommonFeatures = [
  FeatureWhen<FeatureMmaSync>,
  FeatureWhen<FeatureLdmatrix>,
  FeatureWhen<FeatureCpAsync>,
  FeatureWhen<FeatureMbarrier>,
  FeatureWhen<FeatureBF16>,
  FeatureWhen<FeatureFP8, AttrAtLeast<"arch", "sm_89">>,
];

// Per architecture (CUDA C Programming Guide, "Compute Capabilities"):
// shared memory per block with the opt-in the cuda execution backend makes
// (cuFuncSetAttribute) is 163 KiB on sm_80, 99 KiB on sm_86 and sm_89 and
// 227 KiB on sm_90; 48 KiB without it everywhere.
defvar CudaCommonLimits = [
  ResourceLimit<ThreadsPerBlock, 1024>,
  ResourceLimit<SharedMemoryWithoutOptIn, 49152>,
  ResourceLimit<RegistersPerThread, 255>,
  ResourceLimit<LocalMemoryPerThread, 524288, AttrAlways,
                "fragments are spread over the block's threads: use smaller " #
                "fragments or more threads">,
  ResourceLimit<GridDimX, 2147483647>,
  ResourceLimit<GridDimY, 65535>,
  ResourceLimit<GridDimZ, 65535>,
];
defvar CudaLimits = !listconcat([
  ResourceLimit<SharedMemoryPerBlock, 232448, AttrAtLeast<"arch", "sm_90">>,
  ResourceLimit<SharedMemoryPerBlock, 101376, AttrIn<"arch", ["sm_86", "sm_89"]>>,
  ResourceLimit<SharedMemoryPerBlock, 166912>,
], CudaCommonLimits);

def CUDABackend : TargetBackend<"CUDA"> {
  let Summary = "NVIDIA GPUs before sm_90a: mma.sync tensor cores, cp.async pipelines";
  let Kinds = [CudaKind];
  let Variant = AttrBelow<"arch", "sm_90a">;
  let Features = CudaCommonFeatures;
  let Dialects = [CUDADialect];
  let PassPipeline = "buildCUDAPipeline";
  let RegisterPasses = "registerCUDAPasses";
  let DeviceCodeGen = "generateCUDADeviceCode";
  let HostCodeGen = "generateCUDAHostCode";
  let Emulator = "emulateCUDA";
  let Outputs = [DeviceOutput<FormatPTX, SourceOnly>,
                 DeviceOutput<FormatCubin, Compiled>];
  let ExecutionBackends = [CudaExec];
  let Limits = CudaLimits;
}

def : OpNeedsFeatures<CUDAWgmmaOp, [FeatureWGMMA]>;
def : OpNeedsFeatures<CUDATmaCopyOp, [FeatureTMA]>;
def : OpNeedsFeatures<CUDASetmaxnregOp, [FeatureSetmaxnreg]>;
def : OpNeedsFeatures<CUDAMbarrierInitOp, [FeatureMbarrier]>;
def : OpNeedsFeatures<CUDAMbarrierArriveOp, [FeatureMbarrier]>;
def : OpNeedsFeatures<CUDAMbarrierWaitOp, [FeatureMbarrier]>;
def : OpNeedsFeatures<CUDALdmatrixOp, [FeatureLdmatrix]>;
def : OpNeedsFeatures<CUDAMmaSyncOp, [FeatureMmaSync]>;
def : OpNeedsFeatures<CUDACpAsyncOp, [FeatureCpAsync]>;
def : OpNeedsFeatures<CUDACpAsyncCommitOp, [FeatureCpAsync]>;
def : OpNeedsFeatures<CUDACpAsyncWaitOp, [FeatureCpAsync]>;
def : OpNeedsFeatures<CUDAWgmmaMmaOp, [FeatureWGMMA]>;
def : OpNeedsFeatures<CUDAWgmmaFenceOp, [FeatureWGMMA]>;
def : OpNeedsFeatures<CUDAWgmmaCommitOp, [FeatureWGMMA]>;
def : OpNeedsFeatures<CUDAWgmmaWaitOp, [FeatureWGMMA]>;
def : OpNeedsFeatures<CUDAFenceProxyAsyncOp, [FeatureWGMMA]>;
def : OpNeedsFeatures<CUDALdgstsOp, [FeatureCpAsync]>;
def : OpNeedsFeatures<CUDALdgstsCommitOp, [FeatureCpAsync]>;
def : OpNeedsFeatures<CUDALdgstsWaitOp, [FeatureCpAsync]>;
def : OpNeedsFeatures<CUDAFenceMbarrierInitOp, [FeatureMbarrier]>;
def : OpNeedsFeatures<CUDATmaLoadOp, [FeatureTMA]>;
def : OpNeedsFeatures<CUDATmaReadyOp, [FeatureTMA]>;
def : OpNeedsFeatures<CUDALdgstsArriveOp, [FeatureCpAsync, FeatureMbarrier]>;

include "Hopper.td"
