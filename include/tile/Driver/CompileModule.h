//===- CompileModule.h - From verified IR to a KernelArtifact ---*- C++ -*-===//
//
// The compilation flow after parsing, for a resolved BackendContext:
// dialect-use check, the backend's pipeline, device codegen, host codegen.
// Each stage is timed, so tools can report compile latency by stage.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_COMPILEMODULE_H
#define TILE_DRIVER_COMPILEMODULE_H

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "llvm/Support/raw_ostream.h"

namespace tile {

class TargetRegistry;

/// Seconds spent in each stage, in order.
struct CompileTimings {
  struct Stage {
    std::string Name;
    double Seconds;
    /// A part of the stage before it (ptxas within device codegen, say):
    /// printed indented, not counted again in the total.
    bool Part = false;
  };
  std::vector<Stage> Stages;
  void add(llvm::StringRef Name, double Seconds) {
    Stages.push_back({Name.str(), Seconds});
  }
  void addPart(llvm::StringRef Name, double Seconds) {
    Stages.push_back({Name.str(), Seconds, true});
  }
  double total() const;
  /// `stage: 1.23 ms` lines and a total.
  void print(llvm::raw_ostream &OS) const;
};

/// The stages before code generation: the dialect-use check and the
/// backend's pipeline, which transforms \p M (verified) in place.
llvm::Error lowerModule(const TargetRegistry &Registry, const BackendContext &Ctx,
                        Module &M, DiagnosticEngine &Diag,
                        CompileTimings *Timings = nullptr);

/// Compiles \p M (verified) for \p Ctx. \p M is transformed in place by the
/// pipeline. Located errors go to \p Diag; other failures are returned.
llvm::Expected<KernelArtifact> compileModule(const TargetRegistry &Registry,
                                             const BackendContext &Ctx,
                                             Module &M, DiagnosticEngine &Diag,
                                             CompileTimings *Timings = nullptr);

} // namespace tile

#endif // TILE_DRIVER_COMPILEMODULE_H
