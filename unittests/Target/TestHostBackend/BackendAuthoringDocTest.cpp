//===- BackendAuthoringDocTest.cpp - The guide quotes this folder ---------===//
//
// docs/BackendAuthoring.md walks through this backend by quoting its files.
// Each fenced block that follows a `<!-- quoted from <path> -->` line must
// still be in that file, word for word, so the guide cannot drift from the
// backend that proves it.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"
#include <string>

namespace {

std::string readSource(llvm::StringRef Path) {
  auto B = llvm::MemoryBuffer::getFile(std::string(TILE_SOURCE_DIR) + "/" +
                                       Path.str());
  return B ? (*B)->getBuffer().str() : std::string();
}

TEST(BackendAuthoringDoc, QuotesOfThisFolderAreCurrent) {
  std::string Doc = readSource("docs/BackendAuthoring.md");
  ASSERT_FALSE(Doc.empty()) << "docs/BackendAuthoring.md not found";
  llvm::StringRef Rest(Doc);
  const llvm::StringRef Marker = "<!-- quoted from ";
  unsigned Quotes = 0;
  while (true) {
    size_t At = Rest.find(Marker);
    if (At == llvm::StringRef::npos)
      break;
    Rest = Rest.drop_front(At + Marker.size());
    std::string Path = Rest.take_until([](char C) { return C == ' '; }).str();
    // The fenced block on the next lines.
    size_t Open = Rest.find("\n```");
    ASSERT_NE(Open, llvm::StringRef::npos) << Path;
    llvm::StringRef Block = Rest.drop_front(Open + 4);
    Block = Block.drop_until([](char C) { return C == '\n'; }).drop_front();
    size_t Close = Block.find("```");
    ASSERT_NE(Close, llvm::StringRef::npos) << Path;
    Block = Block.take_front(Close);
    std::string Source = readSource(Path);
    ASSERT_FALSE(Source.empty()) << Path << " not found";
    EXPECT_NE(Source.find(Block.str()), std::string::npos)
        << "docs/BackendAuthoring.md quotes " << Path
        << " with text that is not in it:\n"
        << Block.str();
    if (llvm::StringRef(Path).starts_with("unittests/Target/TestHostBackend/"))
      ++Quotes;
  }
  // The .td and the build rule of this folder are quoted.
  EXPECT_GE(Quotes, 2u);
}

} // namespace
