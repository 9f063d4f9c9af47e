//===- ExternalTool.cpp - Running device codegen's external programs ------===//
//
// Some device formats come from a program outside LLVM (ptxas for cubins,
// ld.lld for HSA code objects and host libraries): finding it, and running
// it on input files through temporary files, with its output and log kept.
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
  if (const char *Env = std::getenv(EnvVar)) {
    if (llvm::StringRef(Env) == "none")
      return std::nullopt;
    return std::string(Env);
  }
  if (auto P = llvm::sys::findProgramByName(Name))
    return *P;
  if (llvm::sys::fs::can_execute(Fallback))
    return Fallback.str();
  return std::nullopt;
}

std::string ExternalToolRun::getFailureMessage(const llvm::Twine &Tool) const {
  std::string Why =
      ErrMsg.empty() ? "exit " + std::to_string(ExitCode) : ErrMsg;
  if (Log.empty())
    return (Tool + " failed (" + Why + ") and printed nothing").str();
  return (Tool + " failed (" + Why + "):\n" + Log).str();
}

llvm::Expected<ExternalToolRun>
tile::runExternalTool(llvm::StringRef Program,
                      llvm::ArrayRef<llvm::StringRef> Flags,
                      llvm::StringRef Input, llvm::StringRef InExt,
                      llvm::StringRef OutExt) {
  ExternalToolInput In[] = {{Input, InExt}};
  return runExternalTool(Program, Flags, In, OutExt);
}

llvm::Expected<ExternalToolRun>
tile::runExternalTool(llvm::StringRef Program,
                      llvm::ArrayRef<llvm::StringRef> Flags,
                      llvm::ArrayRef<ExternalToolInput> Inputs,
                      llvm::StringRef OutExt) {
  llvm::SmallVector<llvm::SmallString<128>, 4> In(Inputs.size());
  llvm::SmallString<128> Out, Log;
  llvm::scope_exit Cleanup([&] {
    for (const llvm::SmallString<128> &P : In)
      if (!P.empty())
        llvm::sys::fs::remove(P);
    if (!Out.empty())
      llvm::sys::fs::remove(Out);
    if (!Log.empty())
      llvm::sys::fs::remove(Log);
  });
  for (size_t I = 0; I != Inputs.size(); ++I) {
    if (std::error_code EC =
            llvm::sys::fs::createTemporaryFile("tile", Inputs[I].Ext, In[I]))
      return llvm::createStringError("cannot create a temporary file: " +
                                     EC.message());
    std::error_code EC;
    llvm::raw_fd_ostream OS(In[I], EC, llvm::sys::fs::OF_None);
    OS << Inputs[I].Data;
  }
  if (!OutExt.empty())
    llvm::sys::fs::createTemporaryFile("tile", OutExt, Out);
  llvm::sys::fs::createTemporaryFile("tile", "log", Log);
  std::vector<llvm::StringRef> Args = {Program};
  Args.insert(Args.end(), Flags.begin(), Flags.end());
  for (const llvm::SmallString<128> &P : In)
    Args.push_back(P.str());
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
