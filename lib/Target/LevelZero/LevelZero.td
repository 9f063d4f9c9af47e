//===- LevelZero.td - The Level Zero target backend ----------*- tablegen -*-===//
//
// Target kind `level_zero`: Intel GPUs through OpenCL-flavoured SPIR-V from
// LLVM's SPIR-V backend, run by the level-zero execution backend.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"

def LevelZeroKind : TargetKind<"level_zero"> {
  let Summary = "Intel GPUs, through SPIR-V";
}

def LevelZeroBackend : TargetBackend<"LevelZero"> {
  let Summary = "Intel GPUs: SPIR-V kernels through Level Zero";
  let Kinds = [LevelZeroKind];
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
