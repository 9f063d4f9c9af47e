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
                              "AMDGPU processor">];
}

def FeatureMFMA : TargetFeature<"mfma", "matrix-core multiply-accumulate (v_mfma)">;
def FeatureXF32 : TargetFeature<"xf32", "xf32 MFMA inputs (gfx942 only)", [FeatureMFMA]>;

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
  let Pipeline = "runROCmPipeline";
  let PassPipeline = "buildROCmPipeline";
  let DeviceCodeGen = "generateROCmDeviceCode";
  let HostCodeGen = "generateROCmHostCode";
  let Outputs = [DeviceOutput<FormatLLVMIR, SourceOnly>,
                 DeviceOutput<FormatHSACO, Compiled>];
  let ExecutionBackends = [HsaExec];
}

def : OpNeedsFeatures<ROCmMfmaOp, [FeatureMFMA]>;
def : OpNeedsFeatures<ROCmMfmaLaneOp, [FeatureMFMA]>;
