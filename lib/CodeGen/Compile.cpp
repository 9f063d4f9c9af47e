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
#include "llvm/Passes/StandardInstrumentations.h"
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

namespace {

/// The passes of O3 that the kernel pipeline skips (by their class names,
/// through the pass instrumentation's should-run callback). Dead store
/// elimination took a quarter of O3 (~35 ms of ~135) on the fully
/// unrolled micro-kernel of bench/cpu/gemm_f32.tile (-time-passes); the
/// others are inter-procedural, profile-driven or library-call passes,
/// which a module of kernels calling no function of its own gives
/// nothing to, and function and loop passes that changed no instruction
/// of the 14 CPU kernels of examples/ and bench/cpu/ (their assembly under
/// O3 and under this pipeline is byte-identical). Tail call marking
/// stays: it is cheap and tests read it in the IR.
constexpr llvm::StringLiteral kSkippedInKernels[] = {
    "DSEPass",
    "ADCEPass",
    "AggressiveInstCombinePass",
    "ArgumentPromotionPass",
    "CGProfilePass",
    "CallSiteSplittingPass",
    "CalledValuePropagationPass",
    "ConstantMergePass",
    "ControlHeightReductionPass",
    "CorrelatedValuePropagationPass",
    "DeadArgumentEliminationPass",
    "DivRemPairsPass",
    "EliminateAvailableExternallyPass",
    "Float2IntPass",
    "GlobalDCEPass",
    "GlobalOptPass",
    "InferFunctionAttrsPass",
    "LibCallsShrinkWrapPass",
    "LoopDeletionPass",
    "LoopDistributePass",
    "LoopInstSimplifyPass",
    "LoopLoadEliminationPass",
    "LoopSimplifyCFGPass",
    "LoopSinkPass",
    "MemCpyOptPass",
    "MergedLoadStoreMotionPass",
    "OpenMPOptCGSCCPass",
    "OpenMPOptPass",
    "PostOrderFunctionAttrsPass",
    "RelLookupTableConverterPass",
    "ReversePostOrderFunctionAttrsPass",
};

/// Runs \p Level's default pipeline on \p M for \p TM, without the
/// passes of kSkippedInKernels when \p Kernel.
void runPipeline(llvm::Module &M, llvm::TargetMachine &TM,
                 const llvm::TargetLibraryInfoImpl *Libraries,
                 llvm::OptimizationLevel Level, bool Kernel) {
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
  // LLVM's instrumentation options (-time-passes, -print-after-all, ...)
  // apply to this pipeline as to opt's.
  llvm::PassInstrumentationCallbacks PIC;
  llvm::StandardInstrumentations SI(M.getContext(), /*DebugLogging=*/false);
  SI.registerCallbacks(PIC, &MAM);
  if (Kernel)
    PIC.registerShouldRunOptionalPassCallback(
        [&](llvm::StringRef Pass, llvm::Any) {
          return !llvm::is_contained(kSkippedInKernels, Pass);
        });
  llvm::PassBuilder PB(&TM, PTO, std::nullopt, &PIC);
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

} // namespace

void tile::optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                          const llvm::TargetLibraryInfoImpl *Libraries,
                          llvm::OptimizationLevel Level) {
  runPipeline(M, TM, Libraries, Level, /*Kernel=*/false);
}

void tile::optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                          const llvm::TargetLibraryInfoImpl *Libraries,
                          LLVMPipeline Pipeline) {
  runPipeline(M, TM, Libraries, llvm::OptimizationLevel::O3,
              Pipeline == LLVMPipeline::Kernel);
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
