//===- TileFuzzer.cpp - libFuzzer target for the parser and verifier ------===//
//
// Feeds arbitrary bytes to the Tile parser and verifier. Malformed input must
// be rejected with at least one located diagnostic (never a crash, a hang or
// a sanitizer report); input that parses and verifies must print in a form
// that parses and verifies again and prints identically
// (print(parse(print(x))) == print(x)), and a deep copy of the module must
// print the same text. Every diagnostic must point into the input.
// Diagnostics go to a null stream: only violations of these properties are
// reported, on stderr, before aborting.
//
// Built twice: as a libFuzzer binary (tile-fuzz, TILE_BUILD_FUZZERS=ON) and
// linked into tile-fuzz-replay, which runs the seed corpus and every crash
// reproducer in normal builds.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace tile;

namespace {

/// Reports a broken property with the texts involved, then aborts so that
/// libFuzzer records the input.
[[noreturn]] void violation(const llvm::Twine &What, llvm::StringRef Input,
                            llvm::StringRef First = "",
                            llvm::StringRef Second = "") {
  llvm::errs() << "tile-fuzz: " << What << "\n--- input ---\n"
               << Input << "\n";
  if (!First.empty())
    llvm::errs() << "--- first print ---\n" << First << "\n";
  if (!Second.empty())
    llvm::errs() << "--- second print ---\n" << Second << "\n";
  llvm::errs().flush();
  std::abort();
}

/// Parses and verifies \p Text with diagnostics going nowhere. Returns the
/// module when it is valid. \p SM must outlive the module.
std::unique_ptr<Module> parseAndVerify(llvm::StringRef Text,
                                       llvm::SourceMgr &SM, TileContext &Ctx,
                                       llvm::StringRef Input, bool &Valid,
                                       llvm::raw_ostream *DiagOS = nullptr) {
  llvm::raw_null_ostream Null;
  llvm::raw_ostream &OS = DiagOS ? *DiagOS : Null;
  DiagnosticEngine Diag(&SM, &OS);
  // getMemBufferCopy null-terminates the copy, as a file read would be.
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz.tile"), llvm::SMLoc());
  // Every diagnostic about the input must point into it.
  Diag.setHandler([&](const Diagnostic &D) {
    if (!D.Loc.isValid() || SM.FindBufferContainingLoc(D.Loc) != ID)
      violation("a diagnostic has no location in the input: " + D.Message,
                Input);
    SM.PrintMessage(OS, D.Loc,
                    D.Sev == Severity::Error  ? llvm::SourceMgr::DK_Error
                    : D.Sev == Severity::Note ? llvm::SourceMgr::DK_Note
                                              : llvm::SourceMgr::DK_Warning,
                    D.Message);
  });
  std::unique_ptr<Module> M = parseModule(SM, ID, Ctx, Diag);
  if (!M) {
    if (!Diag.hadError())
      violation("the parser rejected the input without reporting an error",
                Input);
    Valid = false;
    return nullptr;
  }
  if (Diag.hadError())
    violation("the parser reported an error but returned a module", Input);
  Valid = verifyModule(*M, Diag);
  if (Valid == Diag.hadError())
    violation(Valid ? "the verifier reported an error but accepted the module"
                    : "the verifier rejected the module without an error",
              Input);
  return M;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  llvm::SourceMgr SM;
  TileContext Ctx;
  bool Valid = false;
  std::unique_ptr<Module> M = parseAndVerify(Input, SM, Ctx, Input, Valid);
  if (!Valid)
    return 0;

  std::string First = toString(*M);
  if (toString(*M->clone()) != First)
    violation("a deep copy of the module prints differently", Input, First,
              toString(*M->clone()));

  llvm::SourceMgr SM2;
  TileContext Ctx2;
  bool Valid2 = false;
  std::unique_ptr<Module> M2 = parseAndVerify(First, SM2, Ctx2, Input, Valid2);
  if (!Valid2) {
    // Show why, then stop.
    llvm::SourceMgr SM3;
    TileContext Ctx3;
    parseAndVerify(First, SM3, Ctx3, Input, Valid2, &llvm::errs());
    violation(M2 ? "the printed module does not verify"
                 : "the printed module does not parse",
              Input, First);
  }
  std::string Second = toString(*M2);
  if (Second != First)
    violation("printing is not stable under a round trip", Input, First,
              Second);
  return 0;
}
