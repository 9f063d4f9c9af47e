//===- ExternalTool.cpp - Running device codegen's external programs ------===//
//
// Some device formats come from a program outside LLVM (ptxas for cubins,
// ld.lld for HSA code objects): finding it, and running it on one input
// file through temporary files, with its output and log kept.
//
//===----------------------------------------------------------------------===//

#include "tile/CodeGen/LLVMCodeGen.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace tile;

std::optional<std::string> tile::findExternalTool(const char *EnvVar,
                                                  llvm::StringRef Name,
                                                  llvm::StringRef Fallback) {
  if (const char *Env = std::getenv(EnvVar))
    return std::string(Env);
  if (auto P = llvm::sys::findProgramByName(Name))
    return *P;
  if (llvm::sys::fs::can_execute(Fallback))
    return Fallback.str();
  return std::nullopt;
}

std::string ExternalToolRun::getFailureMessage(const llvm::Twine &Tool) const {
  return (Tool + " failed (" +
          (ErrMsg.empty() ? "exit " + std::to_string(ExitCode) : ErrMsg) +
          "):\n" + Log)
      .str();
}

llvm::Expected<ExternalToolRun>
tile::runExternalTool(llvm::StringRef Program,
                      llvm::ArrayRef<llvm::StringRef> Flags,
                      llvm::StringRef Input, llvm::StringRef InExt,
                      llvm::StringRef OutExt) {
  llvm::SmallString<128> In, Out, Log;
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile("tile", InExt, In))
    return llvm::createStringError("cannot create a temporary file: " + EC.message());
  if (!OutExt.empty())
    llvm::sys::fs::createTemporaryFile("tile", OutExt, Out);
  llvm::sys::fs::createTemporaryFile("tile", "log", Log);
  llvm::scope_exit Cleanup([&] {
    llvm::sys::fs::remove(In);
    if (!Out.empty())
      llvm::sys::fs::remove(Out);
    llvm::sys::fs::remove(Log);
  });
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(In, EC, llvm::sys::fs::OF_None);
    OS << Input;
  }
  std::vector<llvm::StringRef> Args = {Program};
  Args.insert(Args.end(), Flags.begin(), Flags.end());
  Args.push_back(In.str());
  if (!Out.empty())
    Args.insert(Args.end(), {"-o", Out.str()});
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Log.str(), Log.str()};
  ExternalToolRun R;
  R.ExitCode = llvm::sys::ExecuteAndWait(Program, Args, std::nullopt, Redirects,
                                         0, 0, &R.ErrMsg);
  if (auto LogBuf = llvm::MemoryBuffer::getFile(Log))
    R.Log = (*LogBuf)->getBuffer().str();
  if (R.ExitCode == 0 && !Out.empty())
    if (auto OutBuf = llvm::MemoryBuffer::getFile(Out, /*IsText=*/false))
      R.Output = (*OutBuf)->getBuffer().str();
  return R;
}
