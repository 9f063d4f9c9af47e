//===- OptTool.h - The logic of tile-opt ------------------------*- C++ -*-===//
//
// tile-opt reads a .tile file, verifies it and prints it in canonical form
// after the passes of -passes (the shared ones and every registered
// backend's own). With VerifyDiagnostics it checks the
// `// expected-error {{...}}` comments in the input instead; with
// SplitInputFile each `// -----` separated chunk is processed alone,
// keeping its line numbers. The tool's main only fills OptOptions.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_OPTTOOL_H
#define TILE_TOOLS_OPTTOOL_H

#include "tile/Transforms/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace tile {

class TargetRegistry;

struct OptOptions {
  /// A .tile file; "-" is standard input.
  std::string InputFile = "-";
  /// Where to write; "-" is standard output.
  std::string OutputFile = "-";
  /// Check the diagnostics against the input's expected-* comments.
  bool VerifyDiagnostics = false;
  /// Process each `// -----` separated chunk on its own.
  bool SplitInputFile = false;
  /// Print without running the verifier.
  bool NoVerify = false;
  /// The pass pipeline, as parsePassPipeline reads it; empty for none.
  std::string Passes;
  /// IR dumps, timing and verification between passes.
  PassInstrumentation Instrumentation;
  /// List the registered passes and stop.
  bool ListPasses = false;
  /// Which optimization remarks of the passes to print (to the error
  /// stream).
  RemarkFilter Remarks;
  /// Print the fragment layouts that layout-inferring passes infer (as
  /// comments, before the IR).
  bool PrintLayouts = false;
  /// `BM=64`: specialize functions with tunable parameters for these
  /// values (and the defaults for the others). With Passes, functions are
  /// specialized even when this is empty: passes run on specialized IR.
  std::vector<std::string> Params;
};

/// Runs tile-opt over the backends of \p Registry (their dialects and their
/// passes). Results go to \p Out, diagnostics to \p Err. Returns the process
/// exit code.
int runOpt(const OptOptions &Opts, const TargetRegistry &Registry,
           llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace tile

#endif // TILE_TOOLS_OPTTOOL_H
