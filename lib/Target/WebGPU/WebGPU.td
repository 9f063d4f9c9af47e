//===- WebGPU.td - The WebGPU target backend -----------------*- tablegen -*-===//
//
// Target kind `webgpu`: WGSL compute shaders. The webgpu execution backend
// creates the shader module when loading it and launches from the
// artifact's metadata, so the backend generates no host code.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"

def WebGPUKind : TargetKind<"webgpu"> {
  let Summary = "WebGPU devices, through WGSL";
}

def WebGPUBackend : TargetBackend<"WebGPU"> {
  let Summary = "WebGPU: WGSL compute shaders";
  let Kinds = [WebGPUKind];
  let Pipeline = "runWebGPUPipeline";
  let DeviceCodeGen = "generateWebGPUDeviceCode";
  let Outputs = [DeviceOutput<FormatWGSL, SourceOnly>];
  let ExecutionBackends = [WebGPUExec];
}
