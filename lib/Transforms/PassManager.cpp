//===- PassManager.cpp - Running pipelines of passes ----------------------===//

#include "tile/Transforms/PassManager.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Timer.h"

using namespace tile;

void PassManager::addPass(std::unique_ptr<Pass> P,
                          llvm::ArrayRef<PassOptionValue> Options) {
  for (const PassOptionValue &O : Options)
    llvm::cantFail(P->setOption(O.Name, O.Value));
  addPass(std::move(P));
}

bool PassManager::run(Module &M, PassState &S) {
  llvm::raw_ostream &OS = Instr.OS ? *Instr.OS : llvm::errs();
  std::unique_ptr<llvm::TimerGroup> TG;
  std::vector<std::unique_ptr<llvm::Timer>> Timers;
  if (Instr.TimePasses)
    TG = std::make_unique<llvm::TimerGroup>("tile-passes", "Tile pass timing");
  auto Dump = [&](llvm::StringRef When, const Pass &P) {
    OS << "// -----// IR Dump " << When << " " << P.getName() << " //----- //\n";
    printModule(M, OS);
  };
  // Function attributes that set options of these passes have the
  // options' types.
  bool OK = true;
  llvm::StringSet<> Checked;
  for (const std::unique_ptr<Pass> &P : Passes)
    OK &= P->checkFunctionOptions(M, S.Diag, Checked);
  if (!OK)
    return false;
  for (const std::unique_ptr<Pass> &P : Passes) {
    if (Instr.PrintBeforeAll || llvm::is_contained(Instr.PrintBefore, P->getName()))
      Dump("Before", *P);
    llvm::Timer *T = nullptr;
    if (TG) {
      Timers.push_back(std::make_unique<llvm::Timer>(P->getName(), P->getName(), *TG));
      T = Timers.back().get();
      T->startTimer();
    }
    bool Ran = P->run(M, S);
    if (T)
      T->stopTimer();
    if (!Ran) {
      OK = false;
      break;
    }
    if (Instr.VerifyEach && !verifyModule(M, S.Diag)) {
      S.Diag.error(llvm::SMLoc(), "IR produced by pass '" + P->getName() +
                                      "' does not verify");
      OK = false;
      break;
    }
    if (Instr.PrintAfterAll || llvm::is_contained(Instr.PrintAfter, P->getName()))
      Dump("After", *P);
  }
  if (TG)
    TG->print(OS, /*ResetAfterPrint=*/true);
  return OK;
}

std::string PassManager::getPipelineText() const {
  std::string S;
  for (const std::unique_ptr<Pass> &P : Passes)
    S += (S.empty() ? "" : ",") + P->getPipelineText();
  return S;
}

llvm::Error tile::parsePassPipeline(llvm::StringRef Text, const PassRegistry &R,
                                    PassManager &PM) {
  Text = Text.trim();
  while (!Text.empty()) {
    size_t End = Text.find_first_of(",{");
    llvm::StringRef Name = Text.substr(0, End).trim();
    Text = End == llvm::StringRef::npos ? llvm::StringRef() : Text.substr(End);
    if (Name.empty())
      return llvm::createStringError("empty pass name in pipeline");
    const PassInfo *Info = R.lookup(Name);
    if (!Info) {
      std::string Known;
      for (const PassInfo *P : R.getPasses())
        Known += (Known.empty() ? "" : ", ") + std::string(P->Name);
      return llvm::createStringError("unknown pass '" + Name +
                                     "'; registered passes: " + Known);
    }
    std::unique_ptr<Pass> P = Info->Create();
    if (Text.starts_with("{")) {
      size_t Close = Text.find('}');
      if (Close == llvm::StringRef::npos)
        return llvm::createStringError("missing '}' after the options of '" +
                                       Name + "'");
      llvm::SmallVector<llvm::StringRef> Opts;
      Text.substr(1, Close - 1).split(Opts, ',', -1, false);
      for (llvm::StringRef O : Opts) {
        auto [K, V] = O.split('=');
        if (!O.contains('='))
          return llvm::createStringError("option '" + O.trim() + "' of '" +
                                         Name + "' needs a value: name=value");
        if (llvm::Error E = P->setOption(K.trim(), V.trim()))
          return E;
      }
      Text = Text.substr(Close + 1);
    }
    PM.addPass(std::move(P));
    Text = Text.trim();
    if (Text.starts_with(","))
      Text = Text.drop_front().trim();
    else if (!Text.empty())
      return llvm::createStringError("expected ',' between passes, found '" +
                                     Text + "'");
  }
  return llvm::Error::success();
}

llvm::Error tile::runBackendPipeline(const BackendContext &Ctx, Module &M,
                                     void (*Build)(const BackendContext &,
                                                   PassManager &),
                                     llvm::StringRef Name) {
  DiagnosticCollector DC(M.getContext().getSourceMgr());
  DiagnosticEngine &Diag = DC.getEngine();
  PassManager PM;
  Build(Ctx, PM);
  PassInstrumentation I;
  I.PrintAfterAll = llvm::shouldPrintAfterAll();
  I.PrintBeforeAll = llvm::shouldPrintBeforeAll();
  I.PrintAfter = llvm::printAfterPasses();
  I.PrintBefore = llvm::printBeforePasses();
  I.VerifyEach = true;
  PM.setInstrumentation(I);
  PassState S{Diag, &Ctx};
  if (!PM.run(M, S))
    return DC.takeError(ErrorCategory::Unsupported,
                        "the " + Name + " pipeline failed");
  return llvm::Error::success();
}

RemarkFilter tile::getRemarkFilterFromLLVMOptions() {
  // The patterns live in libLLVM (DiagnosticHandler.cpp) and are reachable
  // only through DiagnosticHandler's predicates; an option not given leaves
  // its kind off.
  auto &Opts = llvm::cl::getRegisteredOptions();
  auto Given = [&](llvm::StringRef Name) {
    auto It = Opts.find(Name);
    return It != Opts.end() && It->second->getNumOccurrences() > 0;
  };
  auto Handler = std::make_shared<llvm::DiagnosticHandler>();
  RemarkFilter F;
  if (Given("pass-remarks"))
    F.Passed = [Handler](llvm::StringRef Name) {
      return Handler->isPassedOptRemarkEnabled(Name);
    };
  if (Given("pass-remarks-missed"))
    F.Missed = [Handler](llvm::StringRef Name) {
      return Handler->isMissedOptRemarkEnabled(Name);
    };
  if (Given("pass-remarks-analysis"))
    F.Analysis = [Handler](llvm::StringRef Name) {
      return Handler->isAnalysisRemarkEnabled(Name);
    };
  return F;
}
