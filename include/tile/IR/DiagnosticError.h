//===- DiagnosticError.h - Located diagnostics as an llvm::Error -*- C++ -*-===//
//
// Library functions that find problems in a program report them as located
// diagnostics (`file:line:col: error: ...` with the source line and a
// caret) and return a DiagnosticError: the diagnostics, their rendered
// text and a category saying what kind of failure it was. Callers branch
// on the type and the category, never on the message text: a tool prints
// the rendered text as it is (or nothing, when the diagnostics already
// went to its own DiagnosticEngine) and exits with status 1.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_DIAGNOSTICERROR_H
#define TILE_IR_DIAGNOSTICERROR_H

#include "tile/IR/Diagnostics.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace tile {

/// What kind of failure a DiagnosticError reports.
enum class ErrorCategory : uint8_t {
  /// The program is malformed: parse, verify, dialect use.
  InvalidProgram,
  /// A valid program the target cannot compile (a lowering or a code
  /// generator rejects it).
  Unsupported,
  /// A kernel exceeds a resource limit the target declares.
  ResourceLimit,
  /// A launch or its inputs are invalid (grid sizes, allocation sizes,
  /// input files), found before anything runs.
  InvalidLaunch,
  /// The program failed while running in the interpreter or an emulator.
  Runtime,
};

/// "invalid program", "resource limit", ...
llvm::StringRef getErrorCategoryName(ErrorCategory C);

class DiagnosticError : public llvm::ErrorInfo<DiagnosticError> {
public:
  static char ID;

  /// \p Rendered is what printing \p Diags gives; empty when they were
  /// already printed (through the caller's DiagnosticEngine), in which case
  /// \p Summary says what failed for contexts that only log the error.
  DiagnosticError(ErrorCategory Category, std::vector<Diagnostic> Diags,
                  std::string Rendered, std::string Summary = "")
      : Category(Category), Diags(std::move(Diags)),
        Rendered(std::move(Rendered)), Summary(std::move(Summary)) {}

  ErrorCategory getCategory() const { return Category; }
  const std::vector<Diagnostic> &getDiagnostics() const { return Diags; }
  /// The located text to print; empty when already printed.
  llvm::StringRef getRendered() const { return Rendered; }
  bool wasReported() const { return Rendered.empty(); }

  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  ErrorCategory Category;
  std::vector<Diagnostic> Diags;
  std::string Rendered;
  std::string Summary;
};

/// An error for diagnostics the caller's DiagnosticEngine has printed.
llvm::Error makeReportedError(ErrorCategory C, const llvm::Twine &Summary);

/// One located error, rendered with \p SM (which may be null).
llvm::Error makeLocatedError(ErrorCategory C, const llvm::SourceMgr *SM,
                             llvm::SMLoc Loc, const llvm::Twine &Msg);

/// A DiagnosticEngine that keeps what is reported to it (and its rendered
/// text) to return as one DiagnosticError.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(llvm::SourceMgr *SM);
  DiagnosticEngine &getEngine() { return Engine; }
  bool hadError() const { return Engine.hadError(); }
  /// The collected diagnostics as a DiagnosticError; \p Fallback is the
  /// message when nothing was reported.
  llvm::Error takeError(ErrorCategory C, const llvm::Twine &Fallback);

private:
  std::string Text;
  llvm::raw_string_ostream TextOS;
  DiagnosticEngine Printer;
  DiagnosticEngine Engine;
  std::vector<Diagnostic> Diags;
};

/// Prints \p E for a tool named \p Tool: a DiagnosticError's rendered
/// text as it is (nothing when already reported), anything else as
/// `<tool>: error: <message>`. Returns 1, the exit status.
int reportToolError(llvm::Error E, llvm::StringRef Tool, llvm::raw_ostream &Err,
                    const llvm::Twine &Prefix = "");

} // namespace tile

#endif // TILE_IR_DIAGNOSTICERROR_H
