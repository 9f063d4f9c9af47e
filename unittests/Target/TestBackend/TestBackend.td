//===- TestBackend.td - A target backend that lives in unittests -*- tablegen -*-===//
//
// Proves that a backend is added with a .td and a folder of its own and no
// edit to shared code: this folder generates its own table and
// registration function (registerTestTargetBackends), which the unit tests
// call next to registerAllTargetBackends.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "TestDevOps.td"

def TestDevKind : TargetKind<"testdev"> {
  let Summary = "a device that exists only in unit tests";
  let Aliases = ["tdev"];
  let Attrs = [TargetEnumAttr<"model", ["m1", "m2", "m3"], "m1", "device model">,
               TargetAttr<"fast", TargetBool, "false", [], "take the fast path">,
               TargetAttr<"lanes", TargetInt, "32", [], "SIMD lanes">];
}

def FeatureTestVector : TargetFeature<"test_vector", "a vector unit">;
def FeatureTestMagic : TargetFeature<"test_magic", "the magic unit",
                                     [FeatureTestVector]>;

def TestDevBackend : TargetBackend<"TestDev"> {
  let Summary = "unit-test device: PTX for cuda, LLVM IR for orc";
  let Kinds = [TestDevKind];
  let Features = [
    FeatureWhen<FeatureTestMagic,
                AttrAllOf<[AttrAtLeast<"model", "m2">, AttrIn<"fast", ["true"]>]>>,
  ];
  let Dialects = [TestDevDialect];
  let Pipeline = "runTestDevPipeline";
  let DeviceCodeGen = "generateTestDevDeviceCode";
  let HostCodeGen = "generateTestDevHostCode";
  let Outputs = [DeviceOutput<FormatPTX, SourceOnly>,
                 DeviceOutput<FormatLLVMIR, SourceOnly>];
  // auto tries cuda first, then orc.
  let ExecutionBackends = [CudaExec, OrcExec];
}

def : OpNeedsFeatures<TestDevMagicOp, [FeatureTestMagic]>;
