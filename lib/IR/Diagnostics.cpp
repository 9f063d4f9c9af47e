//===- Diagnostics.cpp - Located errors -----------------------------------===//

#include "tile/IR/Diagnostics.h"
#include "llvm/Support/WithColor.h"

using namespace tile;

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr *SM, llvm::raw_ostream *OS)
    : SM(SM), OS(OS ? OS : &llvm::errs()) {}

void DiagnosticEngine::error(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  report(Severity::Error, Loc, Msg);
}
void DiagnosticEngine::warning(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  report(Severity::Warning, Loc, Msg);
}
void DiagnosticEngine::note(llvm::SMLoc Loc, const llvm::Twine &Msg) {
  report(Severity::Note, Loc, Msg);
}

void DiagnosticEngine::report(Severity Sev, llvm::SMLoc Loc,
                              const llvm::Twine &Msg) {
  if (Sev == Severity::Error)
    ++NumErrors;
  if (Hook) {
    Hook(Diagnostic{Sev, Loc, Msg.str()});
    return;
  }
  llvm::SourceMgr::DiagKind K = Sev == Severity::Error ? llvm::SourceMgr::DK_Error
                                : Sev == Severity::Warning
                                    ? llvm::SourceMgr::DK_Warning
                                    : llvm::SourceMgr::DK_Note;
  if (SM && Loc.isValid() && SM->FindBufferContainingLoc(Loc)) {
    SM->PrintMessage(*OS, Loc, K, Msg);
    return;
  }
  // No source (IR built in C++): the message alone.
  const char *Prefix = Sev == Severity::Error     ? "error: "
                       : Sev == Severity::Warning ? "warning: "
                                                  : "note: ";
  *OS << "<unknown>: " << Prefix << Msg << "\n";
}
