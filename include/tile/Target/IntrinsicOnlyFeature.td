//===- IntrinsicOnlyFeature.td - CPU features code never needs -*- tablegen -*-===//
//
// An artifact compiled for a CPU records the subtarget features its code
// was compiled with (KernelArtifact::kCPUFeaturesNote), and the executor
// refuses it on a host that lacks one of them rather than letting it die
// of an illegal instruction. Some features name instructions that LLVM's
// code generator emits only for an intrinsic the backend never calls
// (system instructions, cryptography, AMX): a host without them, a virtual
// machine whose hypervisor hides invpcid for instance, runs the code all
// the same. A backend's .td lists them; tile-tblgen
// -gen-intrinsic-only-features makes a sorted table of their names, which
// the backend leaves out of the note.
//
//===----------------------------------------------------------------------===//

/// Features `names` (LLVM's subtarget feature names, as -mattr takes them)
/// whose instructions only an intrinsic emits, for the reason `why`.
class IntrinsicOnlyFeatures<list<string> names, string why> {
  list<string> Names = names;
  string Why = why;
}
