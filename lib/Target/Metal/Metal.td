//===- Metal.td - The Metal target backend -------------------*- tablegen -*-===//
//
// Target kind `metal`: Apple GPUs through Metal Shading Language. The metal
// execution backend would compile MSL when loading it and launch from the
// artifact's launch descriptions, so the backend generates no host code.
// MSL is generated here but neither compiled nor run (macOS only).
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "MetalOps.td"

def MetalKind : TargetKind<"metal"> {
  let Summary = "Apple GPUs, through Metal Shading Language";
}

def FeatureSimdgroupMatrix
    : TargetFeature<"simdgroup_matrix", "8x8 simdgroup matrix multiply-accumulate">;

def MetalBackend : TargetBackend<"Metal"> {
  let Summary = "Apple GPUs: MSL source, simdgroup matrices";
  let Kinds = [MetalKind];
  let Features = [FeatureWhen<FeatureSimdgroupMatrix>];
  let Dialects = [MetalDialect];
  let PassPipeline = "buildMetalPipeline";
  let DeviceCodeGen = "generateMetalDeviceCode";
  let Outputs = [DeviceOutput<FormatMSL, SourceOnly>,
                 DeviceOutput<FormatMetallib, Compiled>];
  let ExecutionBackends = [MetalExec];
  // Apple GPUs: 32 KiB of threadgroup memory, 1024 threads per threadgroup.
  let Limits = [
    ResourceLimit<ThreadsPerBlock, 1024>,
    ResourceLimit<SharedMemoryPerBlock, 32768, AttrAlways,
                  "fragments that other threads read live in threadgroup " #
                  "memory (-pass-remarks-missed=tile-lower-to-simt says " #
                  "which); use smaller tiles or a target with more">,
  ];
}

def : OpNeedsFeatures<MetalSimdgroupMmaOp, [FeatureSimdgroupMatrix]>;
