//===- Remarks.h - Optimization remarks -------------------------*- C++ -*-===//
//
// Optimization remarks in the manner of LLVM's: a pass or backend says,
// located at an op, that it applied a transformation (passed), that it could
// not (missed, with the reason) or what it found (analysis). Every
// TileContext owns a RemarkEngine; it drops everything until a tool enables
// remarks for some pass names (tile-opt, tile-llc and tile-jit take LLVM's
// -pass-remarks=, -pass-remarks-missed= and -pass-remarks-analysis=
// regular expressions). Enabled remarks are printed as clang prints them,
//
//   gemm.tile:12:7: remark: gemm does not reach tensor cores: ...
//       [-pass-remarks-missed=cuda-lower-gemm-mma]
//
// (on one line) with the source line and a caret, or go to a handler.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_REMARKS_H
#define TILE_IR_REMARKS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include <functional>
#include <mutex>
#include <string>

namespace tile {

enum class RemarkKind { Passed, Missed, Analysis };

/// "passed", "missed" or "analysis".
llvm::StringRef getRemarkKindName(RemarkKind K);

/// One remark: what kind, which pass (or backend stage) emits it, where,
/// and the message.
struct Remark {
  RemarkKind Kind;
  std::string PassName;
  llvm::SMLoc Loc;
  std::string Message;
};

/// Which remarks are wanted: one predicate over pass names per kind (none
/// for a kind: no remark of that kind).
struct RemarkFilter {
  using Predicate = std::function<bool(llvm::StringRef PassName)>;
  Predicate Passed, Missed, Analysis;

  bool isEnabled(RemarkKind K, llvm::StringRef PassName) const;
  bool isAnyEnabled() const { return Passed || Missed || Analysis; }

  /// A filter from three regular expressions over pass names (LLVM's
  /// -pass-remarks* syntax); an empty pattern enables nothing of its kind.
  /// Fails on a malformed pattern, naming it.
  static llvm::Expected<RemarkFilter> fromPatterns(llvm::StringRef Passed,
                                                   llvm::StringRef Missed,
                                                   llvm::StringRef Analysis);
};

/// The sink of a context's remarks.
class RemarkEngine {
public:
  using Handler = std::function<void(const Remark &)>;

  void setFilter(RemarkFilter F) { Filter = std::move(F); }
  const RemarkFilter &getFilter() const { return Filter; }
  /// Routes enabled remarks to \p H instead of printing them.
  void setHandler(Handler H) { Hook = std::move(H); }
  /// Where printed remarks go (stderr by default).
  void setOutput(llvm::raw_ostream *O) { OS = O; }
  /// For printing locations; null prints `<unknown>:` prefixes.
  void setSourceMgr(llvm::SourceMgr *S) { SM = S; }

  /// Whether a remark of kind \p K from \p PassName would be reported;
  /// callers building costly messages check this first.
  bool isEnabled(RemarkKind K, llvm::StringRef PassName) const {
    return Filter.isEnabled(K, PassName);
  }
  /// Reports \p R if the filter enables it. Threads may report at once
  /// (compileModule generates host code beside device code): one at a
  /// time reaches the handler or the output.
  void emit(const Remark &R);
  void emit(RemarkKind K, llvm::StringRef PassName, llvm::SMLoc Loc,
            const llvm::Twine &Message);

  /// Remarks reported so far (after filtering).
  unsigned getNumEmitted() const { return NumEmitted; }

private:
  RemarkFilter Filter;
  Handler Hook;
  llvm::raw_ostream *OS = nullptr;
  llvm::SourceMgr *SM = nullptr;
  unsigned NumEmitted = 0;
  std::mutex EmitLock;
};

/// One pass's (or backend stage's) handle on a RemarkEngine: its remarks
/// carry \p PassName.
class RemarkEmitter {
public:
  RemarkEmitter(RemarkEngine &Engine, llvm::StringRef PassName)
      : Engine(&Engine), PassName(PassName) {}

  bool isEnabled(RemarkKind K) const { return Engine->isEnabled(K, PassName); }
  void passed(llvm::SMLoc Loc, const llvm::Twine &Msg) const {
    Engine->emit(RemarkKind::Passed, PassName, Loc, Msg);
  }
  void missed(llvm::SMLoc Loc, const llvm::Twine &Msg) const {
    Engine->emit(RemarkKind::Missed, PassName, Loc, Msg);
  }
  void analysis(llvm::SMLoc Loc, const llvm::Twine &Msg) const {
    Engine->emit(RemarkKind::Analysis, PassName, Loc, Msg);
  }

private:
  RemarkEngine *Engine;
  llvm::StringRef PassName;
};

} // namespace tile

#endif // TILE_IR_REMARKS_H
