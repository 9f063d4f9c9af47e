//===- Hopper.td - The Hopper variant of the cuda kind -------*- tablegen -*-===//
//
// A second backend for target kind `cuda`, selected when arch is sm_90a or
// later. It reuses the cuda dialect and the CUDA codegen but owns its
// pipeline (TMA, wgmma, warp specialization). Included by CUDA.td.
//
//===----------------------------------------------------------------------===//

defvar HopperArch = AttrAtLeast<"arch", "sm_90a">;

def HopperBackend : TargetBackend<"Hopper"> {
  let Summary = "NVIDIA Hopper (sm_90a): TMA, wgmma, warp specialization";
  let Kinds = [CudaKind];
  let Variant = HopperArch;
  let Features = !listconcat(CudaCommonFeatures, [
    FeatureWhen<FeatureTMA, HopperArch>,
    FeatureWhen<FeatureWGMMA, HopperArch>,
    FeatureWhen<FeatureSetmaxnreg, HopperArch>,
    FeatureWhen<FeatureWarpSpecialization, HopperArch>,
  ]);
  let Dialects = [CUDADialect];
  let PassPipeline = "buildHopperPipeline";
  let RegisterPasses = "registerCUDAPasses";
  let DeviceCodeGen = "generateCUDADeviceCode";
  let HostCodeGen = "generateCUDAHostCode";
  let Emulator = "emulateCUDA";
  let Outputs = [DeviceOutput<FormatPTX, SourceOnly>,
                 DeviceOutput<FormatCubin, Compiled>];
  let ExecutionBackends = [CudaExec];
  let Limits = !listconcat([ResourceLimit<SharedMemoryPerBlock, 232448>],
                           CudaCommonLimits);
}
