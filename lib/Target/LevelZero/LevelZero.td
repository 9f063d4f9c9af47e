//===- LevelZero.td - The Level Zero target backend ----------*- tablegen -*-===//
//
// Target kind `level_zero`: Intel GPUs through OpenCL-flavoured SPIR-V from
// LLVM's SPIR-V backend, run by the level-zero execution backend.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "LevelZeroOps.td"

def LevelZeroKind : TargetKind<"level_zero"> {
  let Summary = "Intel GPUs, through SPIR-V";
  let Attrs = [
    TargetAttr<"subgroups", TargetBool, "false", [],
               "use sub-group operations (SPIR-V 1.3 GroupNonUniformArithmetic; "
               "the device must accept SPIR-V 1.3)">,
    // Every Intel GPU that Level Zero drives runs sub-groups of 16 (Gen9
    // to Xe2 take 8, 16 and 32; Data Center GPU Max 16 and 32).
    TargetEnumAttr<"sub_group_size", ["16", "32"], "16",
                   "work-items per sub-group that kernels using sub-group "
                   "operations require (OpExecutionMode SubgroupSize)">,
  ];
}

def FeatureGroupNonUniformArithmetic
    : TargetFeature<"group_non_uniform_arithmetic",
                    "sub-group reductions in SPIR-V 1.3 (OpGroupNonUniformFAdd, ...)">;

def LevelZeroBackend : TargetBackend<"LevelZero"> {
  let Summary = "Intel GPUs: SPIR-V kernels through Level Zero";
  let Kinds = [LevelZeroKind];
  let Features = [FeatureWhen<FeatureGroupNonUniformArithmetic, AttrIn<"subgroups", ["true"]>>];
  let Dialects = [LevelZeroDialect];
  let PassPipeline = "buildLevelZeroPipeline";
  let DeviceCodeGen = "generateLevelZeroDeviceCode";
  let HostCodeGen = "generateLevelZeroHostCode";
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>,
                 DeviceOutput<FormatSPIRV, Compiled>];
  let ExecutionBackends = [LevelZeroExec];
  // Defaults for current Intel GPUs (zeDeviceGetComputeProperties:
  // maxTotalGroupSize 1024; maxSharedLocalMemory 128 KiB on Data Center GPU
  // Max, 64 KiB on many others, which the level-zero executor checks
  // against the device at load).
  let Limits = [
    ResourceLimit<ThreadsPerBlock, 1024>,
    ResourceLimit<SharedMemoryPerBlock, 131072>,
  ];
}

def : OpNeedsFeatures<LevelZeroSubGroupReduceOp, [FeatureGroupNonUniformArithmetic]>;
