//===- Metal.td - The Metal target backend -------------------*- tablegen -*-===//
//
// Target kind `metal`: Apple GPUs through Metal Shading Language. The metal
// execution backend compiles MSL when loading it and launches from the
// artifact's metadata, so the backend generates no host code.
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
  let Pipeline = "runMetalPipeline";
  let DeviceCodeGen = "generateMetalDeviceCode";
  let Outputs = [DeviceOutput<FormatMSL, SourceOnly>,
                 DeviceOutput<FormatMetallib, Compiled>];
  let ExecutionBackends = [MetalExec];
}

def : OpNeedsFeatures<MetalSimdgroupMmaOp, [FeatureSimdgroupMatrix]>;
