//===- ExecutionBackends.td - Shared execution backends ------*- tablegen -*-===//
//
// The shared device formats and execution backends of libTileExec. Target
// backends include this file and name the execution backends they are
// compatible with; libTileExec generates its tables, probes and executor
// factories from it (tile-tblgen -gen-exec-backends). A format or execution
// backend that one target backend alone uses may live in that backend's .td
// instead (docs/BackendAuthoring.md).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_EXECUTIONBACKENDS_TD
#define TILE_EXEC_EXECUTIONBACKENDS_TD

include "tile/Target/Target.td"

//===----------------------------------------------------------------------===//
// Device formats
//===----------------------------------------------------------------------===//

def FormatPTX : DeviceFormat<"ptx", 1, "NVIDIA PTX assembly"> {
  let CppName = "PTX";
}
def FormatCubin : DeviceFormat<"cubin", 0, "NVIDIA CUDA binary (ELF)"> {
  let CppName = "Cubin";
}
def FormatHSACO : DeviceFormat<"hsaco", 0, "AMD HSA code object (ELF)"> {
  let CppName = "HSACO";
}
def FormatSPIRV : DeviceFormat<"spirv", 0, "SPIR-V binary module (OpenCL flavour)"> {
  let CppName = "SPIRV";
}
def FormatMSL : DeviceFormat<"msl", 1, "Metal Shading Language source"> {
  let CppName = "MSL";
}
def FormatMetallib : DeviceFormat<"metallib", 0, "Metal library binary"> {
  let CppName = "Metallib";
}
def FormatWGSL : DeviceFormat<"wgsl", 1, "WebGPU Shading Language source"> {
  let CppName = "WGSL";
}
def FormatLLVMIR : DeviceFormat<"llvm-ir", 1, "LLVM IR for the device target"> {
  let CppName = "LLVMIR";
}
def FormatObject : DeviceFormat<"object", 0, "relocatable object for the host CPU"> {
  let CppName = "Object";
}
def FormatC : DeviceFormat<"c", 1, "C source"> {
  let CppName = "C";
}

//===----------------------------------------------------------------------===//
// Execution backends
//===----------------------------------------------------------------------===//

def OrcExec : ExecutionBackend<"orc"> {
  let Summary = "host CPU: LLVM ORC JIT in this process, blocks on a thread pool";
  let Consumes = [FormatLLVMIR, FormatObject, FormatC];
  let NeedsHostCodeGen = 1;
  let Compile = DeferredCompile;
  let Probe = "probeOrcExecution";
  let Executor = "createOrcExecutor";
  let CppName = "Orc";
}

def CudaExec : ExecutionBackend<"cuda"> {
  let Summary = "NVIDIA GPUs through the CUDA driver API (libcuda.so.1)";
  let Consumes = [FormatCubin, FormatPTX];
  let NeedsHostCodeGen = 1;
  let Compile = EagerCompile;
  let Probe = "probeCudaDriver";
  let Executor = "createCudaExecutor";
  let CppName = "Cuda";
}

def HsaExec : ExecutionBackend<"hsa"> {
  let Summary = "AMD GPUs through the HSA runtime (libhsa-runtime64.so.1)";
  let Consumes = [FormatHSACO];
  let NeedsHostCodeGen = 1;
  let Compile = EagerCompile;
  let Probe = "probeHsaRuntime";
  let Executor = "createHsaExecutor";
  let CppName = "Hsa";
}

def LevelZeroExec : ExecutionBackend<"level-zero"> {
  let Summary = "Intel GPUs through oneAPI Level Zero (libze_loader.so.1)";
  let Consumes = [FormatSPIRV];
  let NeedsHostCodeGen = 1;
  let Compile = DeferredCompile;
  let Probe = "probeLevelZero";
  let Executor = "createLevelZeroExecutor";
  let CppName = "LevelZero";
}

def MetalExec : ExecutionBackend<"metal"> {
  let Summary = "Apple GPUs through the Metal framework (macOS only)";
  let Consumes = [FormatMetallib, FormatMSL];
  let NeedsHostCodeGen = 0;
  let Compile = DeferredCompile;
  let Probe = "probeMetal";
  let CppName = "Metal";
}

def WebGPUExec : ExecutionBackend<"webgpu"> {
  let Summary = "WebGPU through Dawn for Node (npm package webgpu), run by a node helper";
  let Consumes = [FormatWGSL];
  let NeedsHostCodeGen = 0;
  let Compile = DeferredCompile;
  let Probe = "probeWebGPU";
  let Executor = "createWebGPUExecutor";
  let CppName = "WebGPU";
}

#endif // TILE_EXEC_EXECUTIONBACKENDS_TD
