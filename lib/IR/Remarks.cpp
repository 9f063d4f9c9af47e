//===- Remarks.cpp - Optimization remarks ---------------------------------===//

#include "tile/IR/Remarks.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"
#include <memory>

using namespace tile;

llvm::StringRef tile::getRemarkKindName(RemarkKind K) {
  switch (K) {
  case RemarkKind::Passed:
    return "passed";
  case RemarkKind::Missed:
    return "missed";
  case RemarkKind::Analysis:
    return "analysis";
  }
  llvm_unreachable("unknown remark kind");
}

/// The option of LLVM's tools that enables remarks of kind \p K.
static llvm::StringRef getRemarkOptionName(RemarkKind K) {
  switch (K) {
  case RemarkKind::Passed:
    return "pass-remarks";
  case RemarkKind::Missed:
    return "pass-remarks-missed";
  case RemarkKind::Analysis:
    return "pass-remarks-analysis";
  }
  llvm_unreachable("unknown remark kind");
}

bool RemarkFilter::isEnabled(RemarkKind K, llvm::StringRef PassName) const {
  const Predicate &P = K == RemarkKind::Passed   ? Passed
                       : K == RemarkKind::Missed ? Missed
                                                 : Analysis;
  return P && P(PassName);
}

llvm::Expected<RemarkFilter>
RemarkFilter::fromPatterns(llvm::StringRef Passed, llvm::StringRef Missed,
                           llvm::StringRef Analysis) {
  RemarkFilter F;
  auto Make = [](RemarkKind K, llvm::StringRef Pattern,
                 Predicate &Out) -> llvm::Error {
    if (Pattern.empty())
      return llvm::Error::success();
    auto R = std::make_shared<llvm::Regex>(Pattern);
    std::string Why;
    if (!R->isValid(Why))
      return llvm::createStringError("invalid regular expression '" + Pattern +
                                     "' for -" + getRemarkOptionName(K) +
                                     ": " + Why);
    Out = [R](llvm::StringRef Name) { return R->match(Name); };
    return llvm::Error::success();
  };
  if (llvm::Error E = Make(RemarkKind::Passed, Passed, F.Passed))
    return std::move(E);
  if (llvm::Error E = Make(RemarkKind::Missed, Missed, F.Missed))
    return std::move(E);
  if (llvm::Error E = Make(RemarkKind::Analysis, Analysis, F.Analysis))
    return std::move(E);
  return F;
}

void RemarkEngine::emit(RemarkKind K, llvm::StringRef PassName,
                        llvm::SMLoc Loc, const llvm::Twine &Message) {
  if (!isEnabled(K, PassName))
    return;
  emit(Remark{K, PassName.str(), Loc, Message.str()});
}

void RemarkEngine::emit(const Remark &R) {
  if (!isEnabled(R.Kind, R.PassName))
    return;
  std::lock_guard<std::mutex> Guard(EmitLock);
  ++NumEmitted;
  if (Hook) {
    Hook(R);
    return;
  }
  llvm::raw_ostream &Out = OS ? *OS : llvm::errs();
  // As clang does: the message, then the option that enabled it.
  std::string Text = R.Message + " [-" + getRemarkOptionName(R.Kind).str() +
                     "=" + R.PassName + "]";
  if (SM && R.Loc.isValid() && SM->FindBufferContainingLoc(R.Loc)) {
    SM->PrintMessage(Out, R.Loc, llvm::SourceMgr::DK_Remark, Text);
    return;
  }
  Out << "<unknown>: remark: " << Text << "\n";
}
