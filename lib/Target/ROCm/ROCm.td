//===- ROCm.td - The ROCm target backend ---------------------*- tablegen -*-===//
//
// Target kind `hip` (alias `rocm`): AMD Instinct GPUs, HSA code objects
// through LLVM's AMDGPU backend and ld.lld, run by the hsa execution
// backend.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "ROCmOps.td"

def HipKind : TargetKind<"hip"> {
  let Summary = "AMD GPUs, through HSA code objects";
  let Aliases = ["rocm"];
  let Attrs = [TargetEnumAttr<"mcpu", ["gfx90a", "gfx942", "gfx950"], "gfx942",
                              "AMDGPU processor">,
               TargetAttr<"max_vgprs", TargetInt, "", [],
                          "VGPRs per lane a kernel may use (the occupancy "
                          "asked for: 128 leaves room for 4 waves per SIMD); "
                          "unset: 512">];
}

def FeatureMFMA : TargetFeature<"mfma", "matrix-core multiply-accumulate (v_mfma)">;
def FeatureXF32 : TargetFeature<"xf32", "xf32 MFMA inputs (gfx942 only)", [FeatureMFMA]>;

defvar ROCmLDSHint = "on the ROCm backend fragments that other work-items " #
    "read or that per-lane MFMA code uses live in LDS " #
    "(-pass-remarks-missed=tile-lower-to-simt says which): use smaller tiles";

def ROCmBackend : TargetBackend<"ROCm"> {
  let Summary = "AMD Instinct GPUs: MFMA matrix cores, HSA code objects";
  let Kinds = [HipKind];
  let Features = [
    FeatureWhen<FeatureMFMA>,
    FeatureWhen<FeatureBF16>,
    FeatureWhen<FeatureFP8, AttrAtLeast<"mcpu", "gfx942">>,
    FeatureWhen<FeatureXF32, AttrIn<"mcpu", ["gfx942"]>>,
  ];
  let Dialects = [ROCmDialect];
  let PassPipeline = "buildROCmPipeline";
  let DeviceCodeGen = "generateROCmDeviceCode";
  let HostCodeGen = "generateROCmHostCode";
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>,
                 DeviceOutput<FormatHSACO, Compiled>];
  let ExecutionBackends = [HsaExec];
  // LDS per workgroup: 64 KiB on CDNA2 and CDNA3, 160 KiB on gfx950 (CDNA3
  // ISA and CDNA4 ISA guides); 512 VGPRs (arch and accumulation) per lane.
  let Limits = [
    ResourceLimit<ThreadsPerBlock, 1024>,
    ResourceLimit<SharedMemoryPerBlock, 163840, AttrIn<"mcpu", ["gfx950"]>, ROCmLDSHint>,
    ResourceLimit<SharedMemoryPerBlock, 65536, AttrAlways,
                  ROCmLDSHint # ", or -mcpu=gfx950">,
    ResourceLimitFromAttr<RegistersPerThread, "max_vgprs", 512,
                          "counted from the code object's .vgpr_count (arch " #
                          "and accumulation VGPRs); use smaller tiles or " #
                          "raise -max_vgprs">,
  ];
}

def : OpNeedsFeatures<ROCmMfmaOp, [FeatureMFMA]>;
def : OpNeedsFeatures<ROCmMfmaLaneOp, [FeatureMFMA]>;
