//===- Compile.cpp - Optimizing and emitting LLVM modules -----------------===//

#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/CodeGen/LLVMDiagnostics.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace tile;

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
tile::createTargetMachine(llvm::StringRef TripleStr, llvm::StringRef CPU,
                          llvm::StringRef Features, llvm::CodeGenOptLevel Level) {
  llvm::Triple T(TripleStr);
  std::string Err;
  const llvm::Target *Tgt = llvm::TargetRegistry::lookupTarget(T, Err);
  if (!Tgt)
    return llvm::createStringError("no LLVM target for '" + TripleStr +
                                   "': " + Err);
  std::string CPUName = CPU.str();
  std::string Feat = Features.str();
  if (CPU == "native") {
    CPUName = llvm::sys::getHostCPUName().str();
    if (Feat.empty()) {
      llvm::SubtargetFeatures SF;
      for (const auto &[Name, On] : llvm::sys::getHostCPUFeatures())
        SF.AddFeature(Name, On);
      Feat = SF.getString();
    }
  }
  llvm::TargetOptions Opts;
  std::unique_ptr<llvm::TargetMachine> TM(Tgt->createTargetMachine(
      T, CPUName, Feat, Opts, llvm::Reloc::PIC_, std::nullopt, Level));
  if (!TM)
    return llvm::createStringError("cannot create a target machine for '" +
                                   TripleStr + "' with CPU '" + CPUName + "'");
  return TM;
}

void tile::optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                          const llvm::TargetLibraryInfoImpl *Libraries,
                          llvm::OptimizationLevel Level) {
  M.setTargetTriple(TM.getTargetTriple());
  M.setDataLayout(TM.createDataLayout());
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PipelineTuningOptions PTO;
  PTO.LoopVectorization = true;
  PTO.SLPVectorization = true;
  PTO.LoopUnrolling = true;
  llvm::PassBuilder PB(&TM, PTO);
  // Registered first, so that registerFunctionAnalyses keeps it.
  if (Libraries)
    FAM.registerPass([&] { return llvm::TargetLibraryAnalysis(*Libraries); });
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::ModulePassManager MPM =
      Level == llvm::OptimizationLevel::O0
          ? PB.buildO0DefaultPipeline(Level)
          : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
}

void CodeGenPhaseTimer::done(llvm::StringRef Phase) {
  auto Now = std::chrono::steady_clock::now();
  Timings.push_back(
      {Phase.str(), std::chrono::duration<double>(Now - Start).count()});
  Start = Now;
}

llvm::Expected<std::string> tile::emitMachineCode(llvm::Module &M,
                                                  llvm::TargetMachine &TM,
                                                  EmitKind Kind) {
  M.setTargetTriple(TM.getTargetTriple());
  M.setDataLayout(TM.createDataLayout());
  llvm::SmallString<0> Buf;
  llvm::raw_svector_ostream OS(Buf);
  llvm::legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr,
                             Kind == EmitKind::Object
                                 ? llvm::CodeGenFileType::ObjectFile
                                 : llvm::CodeGenFileType::AssemblyFile))
    return llvm::createStringError("the target cannot emit " +
                                   llvm::Twine(Kind == EmitKind::Object
                                                   ? "object files"
                                                   : "assembly"));
  PM.run(M);
  return std::string(Buf.str());
}

std::string tile::printLLVMModule(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

llvm::Error tile::generateHostObject(const Module &M,
                                     const HostCodeGenOptions &Opts,
                                     llvm::StringRef HostCPU,
                                     KernelArtifact &Artifact) {
  llvm::LLVMContext C;
  LLVMDiagnosticHandler Diags(C, M.getContext(), "host-codegen");
  llvm::Module LM("tile-host", C);
  if (llvm::Error E = emitHostEntries(M, LM, Opts, Artifact))
    return E;
  // Argument checks and launches run once per call, beside a kernel: they
  // are compiled for compile time (no IR optimization, fast instruction
  // selection), which takes the host codegen of the f32 GEMM from ~34 to
  // ~5 ms.
  auto TM = createTargetMachine(llvm::sys::getProcessTriple(), HostCPU, "",
                                llvm::CodeGenOptLevel::None);
  if (!TM)
    return TM.takeError();
  optimizeModule(LM, **TM, nullptr, llvm::OptimizationLevel::O0);
  if (Opts.KeepIR)
    Artifact.HostIR = printLLVMModule(LM);
  auto Obj = emitMachineCode(LM, **TM, EmitKind::Object);
  if (!Obj)
    return Obj.takeError();
  if (llvm::Error E = Diags.takeError("host code generation failed:"))
    return E;
  Artifact.HostObject = std::move(*Obj);
  return llvm::Error::success();
}

llvm::Error tile::generateGPUHostObject(const Module &M, int32_t DeviceType,
                                        llvm::StringRef HostCPU,
                                        KernelArtifact &Artifact,
                                        bool KeepIR) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  HostCodeGenOptions Opts;
  Opts.DeviceType = DeviceType;
  Opts.KeepIR = KeepIR;
  return generateHostObject(M, Opts, HostCPU, Artifact);
}
