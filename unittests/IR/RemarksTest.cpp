//===- RemarksTest.cpp - Optimization remarks -----------------------------===//
//
// The filter from regular expressions (and its error on a malformed one),
// kinds that stay off, the handler, and the clang-style printing with and
// without a source location.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Remarks.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace tile;

namespace {

TEST(RemarksTest, FilterFromPatterns) {
  llvm::Expected<RemarkFilter> F =
      RemarkFilter::fromPatterns("", "gemm|mma", "plan");
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_FALSE(F->isEnabled(RemarkKind::Passed, "cuda-lower-gemm-mma"));
  EXPECT_TRUE(F->isEnabled(RemarkKind::Missed, "cuda-lower-gemm-mma"));
  EXPECT_FALSE(F->isEnabled(RemarkKind::Missed, "tile-simplify"));
  EXPECT_TRUE(F->isEnabled(RemarkKind::Analysis, "tile-plan-shared-memory"));
  EXPECT_TRUE(F->isAnyEnabled());
  EXPECT_FALSE(RemarkFilter().isAnyEnabled());
}

TEST(RemarksTest, MalformedPatternIsAnError) {
  llvm::Expected<RemarkFilter> F = RemarkFilter::fromPatterns("", "(", "");
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(llvm::toString(F.takeError()),
            "invalid regular expression '(' for -pass-remarks-missed: "
            "parentheses not balanced");
}

TEST(RemarksTest, HandlerSeesOnlyEnabledRemarks) {
  RemarkEngine E;
  std::vector<Remark> Seen;
  E.setHandler([&](const Remark &R) { Seen.push_back(R); });
  E.emit(RemarkKind::Missed, "p", llvm::SMLoc(), "dropped: no filter");
  E.setFilter(cantFail(RemarkFilter::fromPatterns("", "^p$", "")));
  RemarkEmitter P(E, "p"), Q(E, "q");
  EXPECT_TRUE(P.isEnabled(RemarkKind::Missed));
  EXPECT_FALSE(P.isEnabled(RemarkKind::Passed));
  P.missed(llvm::SMLoc(), "kept");
  P.passed(llvm::SMLoc(), "dropped: passed is off");
  Q.missed(llvm::SMLoc(), "dropped: other pass");
  ASSERT_EQ(Seen.size(), 1u);
  EXPECT_EQ(Seen[0].Message, "kept");
  EXPECT_EQ(Seen[0].PassName, "p");
  EXPECT_EQ(Seen[0].Kind, RemarkKind::Missed);
  EXPECT_EQ(E.getNumEmitted(), 1u);
}

TEST(RemarksTest, PrintsLikeClang) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer("line one\n  gemm here\n", "k.tile"),
      llvm::SMLoc());
  const char *Start = SM.getMemoryBuffer(1)->getBufferStart();
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  RemarkEngine E;
  E.setSourceMgr(&SM);
  E.setOutput(&OS);
  E.setFilter(cantFail(RemarkFilter::fromPatterns(".*", "", "")));
  E.emit(RemarkKind::Passed, "pass-a", llvm::SMLoc::getFromPointer(Start + 11),
         "did it");
  E.emit(RemarkKind::Passed, "pass-b", llvm::SMLoc(), "no location");
  EXPECT_EQ(Out, "k.tile:2:3: remark: did it [-pass-remarks=pass-a]\n"
                 "  gemm here\n"
                 "  ^\n"
                 "<unknown>: remark: no location [-pass-remarks=pass-b]\n");
}

} // namespace
