//===- TestHost.td - A test backend with its own runtime ----*- tablegen -*-===//
//
// A target backend that lives in unittests and brings its own device format
// and execution backend: both are declared here, next to the backend, and
// its generated registration function (registerTestHostTargetBackends)
// adds them to libTileExec's tables before registering the backend. No
// file outside this folder names them.
//
// It compiles as the CPU backend does (its entry points call the CPU
// backend's) and runs through an executor of its own, which loads its
// format and runs it in this process.
//
//===----------------------------------------------------------------------===//

include "tile/Exec/ExecutionBackends.td"
include "CPUOps.td"

// The format and the execution backend: what this backend produces and
// what runs it. The probe and the factory are C++ in this folder.
def FormatTestHostObject : DeviceFormat<"testhost-object", 0,
    "host CPU object code, wrapped for the testhost runtime">;

def TestHostExec : ExecutionBackend<"testhost-orc"> {
  let Summary = "the testhost runtime: testhost objects run by ORC in this process";
  let Consumes = [FormatTestHostObject];
  let NeedsHostCodeGen = 1;
  let Compile = EagerCompile;
  let Probe = "probeTestHostRuntime";
  let Executor = "createTestHostExecutor";
}

def TestHostKind : TargetKind<"testhost"> {
  let Summary = "this machine's CPU, run by the testhost runtime (unit tests)";
  let Attrs = [TargetAttr<"mcpu", TargetString, "native", [],
                          "LLVM CPU name, or native for this machine">];
}

def TestHostBackend : TargetBackend<"TestHost"> {
  let Summary = "unit-test backend with a device format and runtime of its own";
  let Kinds = [TestHostKind];
  let Dialects = [CPUDialect];
  // The generated table runs these passes (runTestHostPipeline).
  let PassPipeline = "buildTestHostPipeline";
  let DeviceCodeGen = "generateTestHostDeviceCode";
  let HostCodeGen = "generateTestHostHostCode";
  let Outputs = [DeviceOutput<FormatTestHostObject, Compiled>];
  let ExecutionBackends = [TestHostExec];
  // Host code for its own kernels: the target is its own host.
  let HostCapable = 1;
}
