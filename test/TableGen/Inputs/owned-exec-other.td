// A second backend's file for backend-owned-exec.td: it declares its own
// format and execution backend, which only its backend may use.

def OtherFormat : DeviceFormat<"otherbin", 0, "the other backend's binary">;
def OtherExec : ExecutionBackend<"other-rt"> {
  let Consumes = [OtherFormat];
  let Probe = "probeOtherRuntime";
}
def OtherKind : TargetKind<"other">;
def Other : TargetBackend<"Other"> {
  let Kinds = [OtherKind];
  let Pipeline = "runOtherPipeline";
  let DeviceCodeGen = "genOtherDevice";
  let Outputs = [DeviceOutput<OtherFormat, Compiled>];
  let ExecutionBackends = [OtherExec];
}
