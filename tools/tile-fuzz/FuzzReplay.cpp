//===- FuzzReplay.cpp - Run the fuzz target over saved inputs -------------===//
//
// tile-fuzz-replay FILE-OR-DIR...: calls LLVMFuzzerTestOneInput on every file
// named, and on every file under every directory named (in sorted order), so
// that normal builds, without libFuzzer, replay the seed corpus and the crash
// reproducers in CI. A broken property aborts inside the target; a clean run
// prints how many inputs were replayed.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

/// Appends \p Path, or the regular files below it when it is a directory.
static bool collect(llvm::StringRef Path, std::vector<std::string> &Files) {
  if (!llvm::sys::fs::is_directory(Path)) {
    Files.push_back(Path.str());
    return true;
  }
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(Path, EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::sys::fs::is_regular_file(It->path()))
      Files.push_back(It->path());
  if (EC) {
    llvm::errs() << "tile-fuzz-replay: error: cannot list '" << Path
                 << "': " << EC.message() << "\n";
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  if (argc < 2) {
    llvm::errs() << "usage: tile-fuzz-replay FILE-OR-DIR...\n";
    return 2;
  }
  std::vector<std::string> Files;
  for (int I = 1; I != argc; ++I)
    if (!collect(argv[I], Files))
      return 1;
  llvm::sort(Files);
  for (const std::string &F : Files) {
    auto BufOrErr = llvm::MemoryBuffer::getFile(
        F, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!BufOrErr) {
      llvm::errs() << "tile-fuzz-replay: error: cannot read '" << F
                   << "': " << BufOrErr.getError().message() << "\n";
      return 1;
    }
    llvm::StringRef Data = (*BufOrErr)->getBuffer();
    // Names the input in the stack dump if the target aborts or crashes.
    llvm::PrettyStackTraceFormat Entry("replaying '%s'", F.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(Data.data()),
                           Data.size());
  }
  llvm::outs() << "tile-fuzz-replay: " << Files.size()
               << " inputs replayed, no failure\n";
  return 0;
}
