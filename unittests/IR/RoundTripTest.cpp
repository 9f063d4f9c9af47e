//===- RoundTripTest.cpp - print(parse(x)) is canonical and stable --------===//
//
// For every examples/*.tile: the canonical text is a fixed point (parsing
// and printing it again gives the same text and the same IR), a clone of
// the module prints the same and is the same IR, and the canonical text is
// the file itself less its comment and blank lines.
//
//===----------------------------------------------------------------------===//

#include "IRDump.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <algorithm>

using namespace tile;
using llvm::StringRef;

namespace {

std::string examplesDir() { return TILE_SOURCE_DIR "/examples"; }

std::vector<std::string> listExamples() {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(examplesDir(), EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".tile")
      Out.push_back(llvm::sys::path::filename(It->path()).str());
  std::sort(Out.begin(), Out.end());
  return Out;
}

/// \p Text without lines that are empty or hold only a `//` comment.
std::string dropCommentAndBlankLines(StringRef Text) {
  std::string Out;
  llvm::SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    if (T.empty() || T.starts_with("//"))
      continue;
    Out += L.rtrim().str();
    Out += '\n';
  }
  return Out;
}

class RoundTripTest : public ::testing::TestWithParam<std::string> {
protected:
  std::unique_ptr<Module> parse(StringRef Text, StringRef Name) {
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diag(&SM, &OS);
    std::unique_ptr<Module> M = parseModuleString(Text, Name, SM, Ctx, Diag);
    EXPECT_TRUE(M) << Errors;
    if (M)
      EXPECT_TRUE(verifyModule(*M, Diag)) << Errors;
    return M;
  }

  TileContext Ctx;
  llvm::SourceMgr SM;
};

TEST(RoundTripExamples, AllReferenceKernelsArePresent) {
  std::vector<std::string> Files = listExamples();
  EXPECT_EQ(Files, (std::vector<std::string>{
                       "elementwise_add.tile", "flash_attention.tile",
                       "gemm.tile", "gemv.tile", "rmsnorm.tile",
                       "softmax.tile", "transpose.tile"}));
}

TEST_P(RoundTripTest, CanonicalTextIsStable) {
  std::string Path = examplesDir() + "/" + GetParam();
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  ASSERT_TRUE(bool(Buf)) << Path << ": " << Buf.getError().message();
  StringRef Source = (*Buf)->getBuffer();

  std::unique_ptr<Module> M = parse(Source, Path);
  ASSERT_TRUE(M);
  EXPECT_FALSE(M->getFunctions().empty());
  std::string Canonical = toString(*M);

  // The file is written in canonical form, comments and blank lines aside.
  EXPECT_EQ(dropCommentAndBlankLines(Canonical),
            dropCommentAndBlankLines(Source));

  // print(parse(print(parse(x)))) == print(parse(x)), and the same IR.
  std::unique_ptr<Module> Again = parse(Canonical, "canonical");
  ASSERT_TRUE(Again);
  EXPECT_EQ(toString(*Again), Canonical);
  EXPECT_EQ(unittest::dumpTyped(*Again), unittest::dumpTyped(*M));

  // A clone prints the same and is the same IR; it verifies on its own.
  std::unique_ptr<Module> Copy = M->clone();
  EXPECT_EQ(toString(*Copy), Canonical);
  EXPECT_EQ(unittest::dumpTyped(*Copy), unittest::dumpTyped(*M));
  DiagnosticEngine Diag(&SM, &llvm::errs());
  EXPECT_TRUE(verifyModule(*Copy, Diag));
  // Dropping the original leaves the clone intact (no shared values).
  M.reset();
  EXPECT_EQ(toString(*Copy), Canonical);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, RoundTripTest, ::testing::ValuesIn(listExamples()),
    [](const ::testing::TestParamInfo<std::string> &Info) {
      std::string Name = llvm::sys::path::stem(Info.param).str();
      std::replace_if(
          Name.begin(), Name.end(),
          [](char C) { return !llvm::isAlnum(C); }, '_');
      return Name;
    });

} // namespace
