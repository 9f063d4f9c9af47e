//===- DiagnosticError.cpp - Located diagnostics as an llvm::Error --------===//

#include "tile/IR/DiagnosticError.h"
#include "llvm/Support/WithColor.h"

using namespace tile;

char DiagnosticError::ID = 0;

llvm::StringRef tile::getErrorCategoryName(ErrorCategory C) {
  switch (C) {
  case ErrorCategory::InvalidProgram: return "invalid program";
  case ErrorCategory::Unsupported: return "unsupported by the target";
  case ErrorCategory::ResourceLimit: return "resource limit";
  case ErrorCategory::InvalidLaunch: return "invalid launch";
  case ErrorCategory::Runtime: return "runtime error";
  }
  llvm_unreachable("unknown error category");
}

void DiagnosticError::log(llvm::raw_ostream &OS) const {
  if (!Rendered.empty())
    OS << llvm::StringRef(Rendered).rtrim('\n');
  else
    OS << Summary;
}

llvm::Error tile::makeReportedError(ErrorCategory C, const llvm::Twine &Summary) {
  return llvm::make_error<DiagnosticError>(C, std::vector<Diagnostic>(), "",
                                           Summary.str());
}

llvm::Error tile::makeLocatedError(ErrorCategory C, const llvm::SourceMgr *SM,
                                   llvm::SMLoc Loc, const llvm::Twine &Msg) {
  DiagnosticCollector DC(const_cast<llvm::SourceMgr *>(SM));
  DC.getEngine().error(Loc, Msg);
  return DC.takeError(C, Msg);
}

DiagnosticCollector::DiagnosticCollector(llvm::SourceMgr *SM)
    : TextOS(Text), Printer(SM, &TextOS), Engine(SM, &TextOS) {
  Engine.setHandler([this](const Diagnostic &D) {
    Diags.push_back(D);
    Printer.report(D.Sev, D.Loc, D.Message);
  });
}

llvm::Error DiagnosticCollector::takeError(ErrorCategory C,
                                           const llvm::Twine &Fallback) {
  std::string Rendered = Text.empty() ? Fallback.str() : Text;
  Text.clear();
  return llvm::make_error<DiagnosticError>(C, std::move(Diags),
                                           std::move(Rendered));
}

int tile::reportToolError(llvm::Error E, llvm::StringRef Tool,
                          llvm::raw_ostream &Err, const llvm::Twine &Prefix) {
  llvm::handleAllErrors(
      std::move(E),
      [&](const DiagnosticError &D) {
        llvm::StringRef R = D.getRendered();
        if (R.empty())
          return;
        Err << R;
        if (!R.ends_with("\n"))
          Err << "\n";
      },
      [&](const llvm::ErrorInfoBase &B) {
        llvm::WithColor::error(Err, Tool) << Prefix << B.message() << "\n";
      });
  return 1;
}
