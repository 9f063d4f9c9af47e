//===- WebGPU.td - The WebGPU target backend -----------------*- tablegen -*-===//
//
// Target kind `webgpu`: WGSL compute shaders. The webgpu execution backend
// creates the shader module when loading it and launches from the
// artifact's launch descriptions, so the backend generates no host code.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "WebGPUOps.td"

def WebGPUKind : TargetKind<"webgpu"> {
  let Summary = "WebGPU devices, through WGSL";
  let Attrs = [
    TargetAttr<"f16", TargetBool, "false", [],
               "use f16 (WGSL 'enable f16'; the device needs shader-f16)">,
    TargetAttr<"subgroups", TargetBool, "false", [],
               "use subgroup operations (WGSL 'enable subgroups'; the device "
               "needs the subgroups feature)">,
    TargetAttr<"max_workgroup_storage", TargetInt, "16384", [],
               "bytes of workgroup memory a kernel may use (WebGPU's default limit)">,
    TargetAttr<"max_workgroup_size", TargetInt, "256", [],
               "threads per workgroup a kernel may use (WebGPU's default limit)">,
  ];
}

def FeatureShaderF16 : TargetFeature<"shader_f16", "f16 in WGSL (the shader-f16 extension)">;
def FeatureSubgroups
    : TargetFeature<"subgroups", "subgroupAdd, subgroupMax, ... in WGSL (the subgroups extension)">;

def WebGPUBackend : TargetBackend<"WebGPU"> {
  let Summary = "WebGPU: WGSL compute shaders";
  let Kinds = [WebGPUKind];
  let Features = [FeatureWhen<FeatureShaderF16, AttrIn<"f16", ["true"]>>,
                  FeatureWhen<FeatureSubgroups, AttrIn<"subgroups", ["true"]>>];
  let Dialects = [WebGPUDialect];
  let PassPipeline = "buildWebGPUPipeline";
  let DeviceCodeGen = "generateWebGPUDeviceCode";
  let StorageBytes = "getWebGPUStorageBytes";
  let Outputs = [DeviceOutput<FormatWGSL, SourceOnly>];
  let ExecutionBackends = [WebGPUExec];
  // WebGPU's default limits; the target attributes raise or lower the first
  // two for a known adapter.
  let Limits = [
    ResourceLimitFromAttr<ThreadsPerBlock, "max_workgroup_size", 256>,
    ResourceLimitFromAttr<SharedMemoryPerBlock, "max_workgroup_storage", 16384,
                          "fragments that other invocations read live in " #
                          "workgroup memory (-pass-remarks-missed=" #
                          "tile-lower-to-simt says which); use smaller " #
                          "tiles or a target with more">,
    ResourceLimit<GridDimX, 65535>,
    ResourceLimit<GridDimY, 65535>,
    ResourceLimit<GridDimZ, 65535>,
  ];
}

def : OpNeedsFeatures<WebGPUSubgroupReduceOp, [FeatureSubgroups]>;
