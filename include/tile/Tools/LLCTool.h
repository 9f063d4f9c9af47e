//===- LLCTool.h - The logic of tile-llc ------------------------*- C++ -*-===//
//
// tile-llc's main parses options and calls runLLC; keeping the work here
// lets unit tests drive it with any TargetRegistry (including test
// backends) and capture its output.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_LLCTOOL_H
#define TILE_TOOLS_LLCTOOL_H

#include "tile/IR/Remarks.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace tile {

class TargetRegistry;

struct LLCOptions {
  /// A .tile file to compile; empty for none.
  std::string InputFile;
  /// A target string: "cuda -arch=sm_90a".
  std::string Target;
  /// Empty: the target itself when host-capable, else the default host.
  std::string HostTarget;
  /// "auto" or an execution backend name.
  std::string ExecBackend = "auto";
  bool PrintTargets = false;
  bool PrintBackendContext = false;
  /// Require the execution backend to be available here. tile-llc is a
  /// compiler, so by default it resolves for compilation only.
  bool CheckExecAvailable = false;
  /// Print the backend's ordered pass pipeline.
  bool PrintPipeline = false;
  /// What to write for the input: "tile" (IR after the pipeline),
  /// "device" (device code as text: LLVM IR, PTX, ...), "device-llvm",
  /// "host-llvm", "asm" (device assembly), "obj" (device binary),
  /// "artifact" (the exported KernelArtifact). Empty, as llc: the device
  /// code as text (x86 or AMDGPU assembly, PTX, SPIR-V, MSL, WGSL).
  std::string Emit;
  /// Where to write; "-" is standard output.
  std::string OutputFile = "-";
  /// Print compile time by stage to the error stream.
  bool PrintCompileTime = false;
  /// Which optimization remarks of the pipeline and codegen to print (to
  /// the error stream).
  RemarkFilter Remarks;
  /// Print each kernel's inferred fragment layouts (to the output stream,
  /// before anything -emit writes).
  bool PrintLayouts = false;
  /// `BM=64`: values of tunable parameters (the others keep their
  /// defaults).
  std::vector<std::string> Params;
  /// After the pipeline, print each kernel's use of the target's resource
  /// limits (then check them).
  bool PrintResourceUsage = false;
};

/// Runs tile-llc. Results go to \p Out, diagnostics to \p Err. Returns the
/// process exit code.
int runLLC(const LLCOptions &Opts, const TargetRegistry &Registry,
           llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace tile

#endif // TILE_TOOLS_LLCTOOL_H
