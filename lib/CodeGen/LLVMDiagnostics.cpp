//===- LLVMDiagnostics.cpp - What LLVM reports, as Tile reports it --------===//
//
// The LLVMContext owns its DiagnosticHandler; the backend owns the
// LLVMDiagnosticHandler (its errors are read after code generation), so the
// context gets a small forwarder that points at it.
//
//===----------------------------------------------------------------------===//

#include "tile/CodeGen/LLVMDiagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile;

namespace {

class Forwarder : public llvm::DiagnosticHandler {
public:
  explicit Forwarder(LLVMDiagnosticHandler &H) : H(H) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &DI) override {
    return H.handle(DI);
  }
  bool isAnalysisRemarkEnabled(llvm::StringRef Pass) const override {
    return H.isEnabled(RemarkKind::Analysis, Pass);
  }
  bool isMissedOptRemarkEnabled(llvm::StringRef Pass) const override {
    return H.isEnabled(RemarkKind::Missed, Pass);
  }
  bool isPassedOptRemarkEnabled(llvm::StringRef Pass) const override {
    return H.isEnabled(RemarkKind::Passed, Pass);
  }
  bool isAnyRemarkEnabled() const override { return H.isAnyEnabled(); }

private:
  LLVMDiagnosticHandler &H;
};

/// The first instruction of \p F located at a line and column (its entry carries the location
/// of the kernel or function it was made for).
llvm::DiagnosticLocation getFunctionLocation(const llvm::Function &F) {
  for (const llvm::BasicBlock &BB : F)
    for (const llvm::Instruction &I : BB)
      if (I.getDebugLoc() && I.getDebugLoc().getLine() && I.getDebugLoc().getCol())
        return llvm::DiagnosticLocation(I.getDebugLoc());
  return llvm::DiagnosticLocation(F.getSubprogram());
}

} // namespace

bool tile::wantsLLVMRemarkLocations(TileContext &TC) {
  return TC.getSourceMgr() && TC.getRemarks().getFilter().isAnyEnabled();
}

LLVMDiagnosticHandler::LLVMDiagnosticHandler(llvm::LLVMContext &C,
                                             TileContext &TC,
                                             llvm::StringRef Stage)
    : C(C), TC(TC), Stage(Stage.str()) {
  C.setDiagnosticHandler(std::make_unique<Forwarder>(*this));
}

LLVMDiagnosticHandler::~LLVMDiagnosticHandler() {
  C.setDiagnosticHandler(std::make_unique<llvm::DiagnosticHandler>());
}

bool LLVMDiagnosticHandler::isEnabled(RemarkKind K,
                                      llvm::StringRef PassName) const {
  return TC.getRemarks().isEnabled(K, PassName);
}

bool LLVMDiagnosticHandler::isAnyEnabled() const {
  return TC.getRemarks().getFilter().isAnyEnabled();
}

llvm::SMLoc LLVMDiagnosticHandler::findLoc(llvm::StringRef File, unsigned Line,
                                           unsigned Col) {
  llvm::SourceMgr *SM = TC.getSourceMgr();
  if (!SM || !Line)
    return llvm::SMLoc();
  auto It = Buffers.find(File);
  if (It == Buffers.end()) {
    unsigned Id = 0;
    for (unsigned I = 1, E = SM->getNumBuffers(); I <= E; ++I)
      if (SM->getMemoryBuffer(I)->getBufferIdentifier() == File) {
        Id = I;
        break;
      }
    It = Buffers.insert({File, Id}).first;
  }
  if (!It->second)
    return llvm::SMLoc();
  return SM->FindLocForLineAndColumn(It->second, Line, Col ? Col : 1);
}

bool LLVMDiagnosticHandler::handle(const llvm::DiagnosticInfo &DI) {
  if (DI.getSeverity() == llvm::DS_Error) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    llvm::DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    Errors.push_back(S);
    return true;
  }
  const auto *Opt = llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&DI);
  if (!Opt)
    return false; // LLVM's default: warnings and notes are printed
  // A transformation the IR asked for and LLVM could not make, and the
  // reasons LLVM always gives for it, are the backend stage's: LLVM would
  // print them unasked.
  const auto *Analysis = llvm::dyn_cast<llvm::OptimizationRemarkAnalysis>(&DI);
  bool Requested = DI.getKind() == llvm::DK_OptimizationFailure ||
                   (Analysis && Analysis->shouldAlwaysPrint());
  RemarkKind Kind = Requested        ? RemarkKind::Missed
                    : Opt->isPassed() ? RemarkKind::Passed
                    : Opt->isMissed() ? RemarkKind::Missed
                                      : RemarkKind::Analysis;
  llvm::StringRef Pass = Requested ? llvm::StringRef(Stage) : Opt->getPassName();
  RemarkEngine &Remarks = TC.getRemarks();
  if (!Remarks.isEnabled(Kind, Pass))
    return true;

  llvm::SMLoc Loc;
  const auto *IROpt = llvm::dyn_cast<llvm::DiagnosticInfoIROptimization>(&DI);
  if (Locate && IROpt)
    Loc = Locate(IROpt->getCodeRegion());
  // A location without a line (instructions merged from several
  // statements) or a column (a function's, from its subprogram): the
  // function's own.
  llvm::DiagnosticLocation DL = Opt->getLocation();
  if (!Loc.isValid() && (!DL.isValid() || !DL.getLine() || !DL.getColumn()))
    if (llvm::DiagnosticLocation FL = getFunctionLocation(Opt->getFunction());
        FL.isValid() && FL.getLine())
      DL = FL;
  if (!Loc.isValid() && DL.isValid())
    Loc = findLoc(DL.getRelativePath(), DL.getLine(), DL.getColumn());
  std::string Msg = "LLVM: " + Opt->getMsg();
  if (!Loc.isValid())
    Msg += " (in " + Opt->getFunction().getName().str() + ")";
  if (Seen.insert({int(Kind), Pass.str(), Loc.getPointer(), Msg}).second)
    Remarks.emit(Kind, Pass, Loc, Msg);
  return true;
}

llvm::Error LLVMDiagnosticHandler::takeError(llvm::StringRef What) {
  if (Errors.empty())
    return llvm::Error::success();
  std::string Msg = What.str();
  for (const std::string &E : Errors)
    Msg += "\n  " + E;
  Errors.clear();
  return llvm::createStringError(Msg);
}
