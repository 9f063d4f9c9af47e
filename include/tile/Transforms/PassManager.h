//===- PassManager.h - Running pipelines of passes --------------*- C++ -*-===//
//
// An ordered list of passes with instrumentation: printing the IR before or
// after chosen passes, timing each pass, and verifying the IR after each
// pass (on by default in builds with assertions).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSMANAGER_H
#define TILE_TRANSFORMS_PASSMANAGER_H

#include "tile/Transforms/Pass.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace tile {

struct PassInstrumentation {
  bool PrintBeforeAll = false;
  bool PrintAfterAll = false;
  std::vector<std::string> PrintBefore;
  std::vector<std::string> PrintAfter;
  bool TimePasses = false;
#ifndef NDEBUG
  bool VerifyEach = true;
#else
  bool VerifyEach = false;
#endif
  /// Where IR dumps and timing go (stderr when null).
  llvm::raw_ostream *OS = nullptr;
};

/// An option of a pass as a pipeline written in C++ sets it.
struct PassOptionValue {
  llvm::StringRef Name;
  std::string Value;
};

class PassManager {
public:
  void addPass(std::unique_ptr<Pass> P) { Passes.push_back(std::move(P)); }
  /// Adds \p P with \p Options set, as a pipeline written in C++
  /// configures a pass: an option the pass does not declare, or a value it
  /// rejects, is a bug of that pipeline (llvm::cantFail).
  void addPass(std::unique_ptr<Pass> P, llvm::ArrayRef<PassOptionValue> Options);
  llvm::ArrayRef<std::unique_ptr<Pass>> getPasses() const { return Passes; }
  void setInstrumentation(PassInstrumentation I) { Instr = std::move(I); }

  /// Runs every pass in order; stops at the first that fails (or whose
  /// output does not verify). Returns false after reporting errors.
  bool run(Module &M, PassState &S);

  /// The pipeline as text that parsePassPipeline accepts.
  std::string getPipelineText() const;

private:
  std::vector<std::unique_ptr<Pass>> Passes;
  PassInstrumentation Instr;
};

/// Runs a target backend's pipeline: the passes \p Build appends to a
/// fresh PassManager, over \p M, with LLVM's -print-before/-print-after
/// flags honoured and the IR verified after each pass. Located errors are
/// rendered with the module's SourceMgr into the returned error; \p Name
/// names the pipeline when there is no diagnostic.
llvm::Error runBackendPipeline(const BackendContext &Ctx, Module &M,
                               void (*Build)(const BackendContext &,
                                             PassManager &),
                               llvm::StringRef Name);

/// The remark filter that LLVM's -pass-remarks=, -pass-remarks-missed= and
/// -pass-remarks-analysis= options (registered by libLLVM, so every tool
/// linked to it accepts them) ask for; enables nothing when none is given.
/// Tools hand it to their context's RemarkEngine.
RemarkFilter getRemarkFilterFromLLVMOptions();

/// Parses `name,name{opt=value,opt=value},...` and appends the passes to
/// \p PM. Errors name the unknown pass or option and list what exists.
llvm::Error parsePassPipeline(llvm::StringRef Text, const PassRegistry &R,
                              PassManager &PM);

} // namespace tile

#endif // TILE_TRANSFORMS_PASSMANAGER_H
