//===- VerifyDiagnostics.h - Checking expected diagnostics ------*- C++ -*-===//
//
// Reads `// expected-error {{text}}` comments (also expected-warning,
// expected-note, with an optional line offset `@+N`/`@-N`) from a source
// buffer, collects the diagnostics produced while processing it, and
// reports every expectation not met and every diagnostic not expected.
// This is what `tile-opt -verify-diagnostics` runs, as mlir-opt does.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_VERIFYDIAGNOSTICS_H
#define TILE_IR_VERIFYDIAGNOSTICS_H

#include "tile/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"
#include <vector>

namespace tile {

class ExpectedDiagnostics {
public:
  /// Scans buffer \p BufferID of \p SM for expectations and installs a
  /// handler on \p Diag that records what is reported.
  ExpectedDiagnostics(llvm::SourceMgr &SM, unsigned BufferID,
                      DiagnosticEngine &Diag);

  /// Compares expectations with what was reported. Mismatches are printed
  /// to \p OS through the SourceMgr; returns true when all matched.
  bool check(llvm::raw_ostream &OS);

private:
  struct Expected {
    Severity Sev;
    unsigned Line;
    std::string Text;
    llvm::SMLoc Loc;
    bool Matched = false;
  };
  llvm::SourceMgr &SM;
  unsigned BufferID;
  std::vector<Expected> Expectations;
  std::vector<Diagnostic> Seen;
  std::vector<std::pair<llvm::SMLoc, std::string>> Malformed;
};

} // namespace tile

#endif // TILE_IR_VERIFYDIAGNOSTICS_H
