//===- VerifyDiagnostics.cpp - Checking expected diagnostics --------------===//

#include "tile/IR/VerifyDiagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

using namespace tile;

static llvm::StringRef severityName(Severity S) {
  switch (S) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

ExpectedDiagnostics::ExpectedDiagnostics(llvm::SourceMgr &SM,
                                         unsigned BufferID,
                                         DiagnosticEngine &Diag)
    : SM(SM), BufferID(BufferID) {
  llvm::StringRef Buf = SM.getMemoryBuffer(BufferID)->getBuffer();
  static const llvm::Regex Re(
      "expected-(error|warning|note)(@[+-][0-9]+)? *\\{\\{(.*)\\}\\}");
  llvm::SmallVector<llvm::StringRef> Lines;
  Buf.split(Lines, '\n');
  for (unsigned I = 0; I != Lines.size(); ++I) {
    llvm::StringRef L = Lines[I];
    size_t Pos = L.find("expected-");
    if (Pos == llvm::StringRef::npos || L.find("//") > Pos)
      continue;
    llvm::SmallVector<llvm::StringRef> M;
    llvm::SMLoc Loc = llvm::SMLoc::getFromPointer(L.data() + Pos);
    if (!Re.match(L.substr(Pos), &M)) {
      Malformed.push_back({Loc, "malformed expectation; write "
                                "'expected-error {{text}}' or "
                                "'expected-error@+1 {{text}}'"});
      continue;
    }
    Expected E;
    E.Sev = M[1] == "error"     ? Severity::Error
            : M[1] == "warning" ? Severity::Warning
                                : Severity::Note;
    // `@+N` or `@-N`. getAsInteger takes a leading '-' but not a '+'.
    int Offset = 0;
    if (!M[2].empty()) {
      llvm::StringRef N = M[2].drop_front();
      bool Minus = N.consume_front("-");
      N.consume_front("+");
      N.getAsInteger(10, Offset);
      if (Minus)
        Offset = -Offset;
    }
    E.Line = I + 1 + Offset;
    E.Text = M[3].str();
    E.Loc = Loc;
    Expectations.push_back(std::move(E));
  }
  Diag.setHandler([this](const Diagnostic &D) { Seen.push_back(D); });
}

bool ExpectedDiagnostics::check(llvm::raw_ostream &OS) {
  bool OK = Malformed.empty();
  for (auto &[Loc, Msg] : Malformed)
    SM.PrintMessage(OS, Loc, llvm::SourceMgr::DK_Error, Msg);
  for (const Diagnostic &D : Seen) {
    unsigned Line = 0;
    if (D.Loc.isValid() && SM.FindBufferContainingLoc(D.Loc) == BufferID)
      Line = SM.getLineAndColumn(D.Loc, BufferID).first;
    bool Found = false;
    for (Expected &E : Expectations) {
      if (E.Matched || E.Sev != D.Sev || E.Line != Line ||
          !llvm::StringRef(D.Message).contains(E.Text))
        continue;
      E.Matched = Found = true;
      break;
    }
    if (Found)
      continue;
    OK = false;
    std::string Msg =
        "unexpected " + severityName(D.Sev).str() + ": " + D.Message;
    if (Line)
      SM.PrintMessage(OS, D.Loc, llvm::SourceMgr::DK_Error, Msg);
    else
      OS << "error: " << Msg << "\n";
  }
  for (const Expected &E : Expectations) {
    if (E.Matched)
      continue;
    OK = false;
    SM.PrintMessage(OS, E.Loc, llvm::SourceMgr::DK_Error,
                    "expected " + severityName(E.Sev) + " \"" + E.Text +
                        "\" on line " + llvm::Twine(E.Line) +
                        " was not produced");
  }
  return OK;
}
