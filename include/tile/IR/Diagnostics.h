//===- Diagnostics.h - Located errors ---------------------------*- C++ -*-===//
//
// DiagnosticEngine reports `file:line:col: error: message` followed by the
// source line and a caret, as clang does, through llvm::SourceMgr. A handler
// can capture diagnostics instead (tile-opt -verify-diagnostics, tests).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_DIAGNOSTICS_H
#define TILE_IR_DIAGNOSTICS_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include <functional>
#include <string>

namespace tile {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity Sev;
  llvm::SMLoc Loc;
  std::string Message;
};

class DiagnosticEngine {
public:
  using Handler = std::function<void(const Diagnostic &)>;

  /// \p SM may be null for IR that has no source (built in C++); messages
  /// then carry no location.
  explicit DiagnosticEngine(llvm::SourceMgr *SM = nullptr,
                            llvm::raw_ostream *OS = nullptr);

  void error(llvm::SMLoc Loc, const llvm::Twine &Msg);
  void warning(llvm::SMLoc Loc, const llvm::Twine &Msg);
  void note(llvm::SMLoc Loc, const llvm::Twine &Msg);
  void report(Severity Sev, llvm::SMLoc Loc, const llvm::Twine &Msg);

  /// Routes diagnostics to \p H instead of printing them.
  void setHandler(Handler H) { Hook = std::move(H); }
  unsigned getNumErrors() const { return NumErrors; }
  bool hadError() const { return NumErrors != 0; }
  llvm::SourceMgr *getSourceMgr() const { return SM; }

private:
  llvm::SourceMgr *SM;
  llvm::raw_ostream *OS;
  Handler Hook;
  unsigned NumErrors = 0;
};

} // namespace tile

#endif // TILE_IR_DIAGNOSTICS_H
