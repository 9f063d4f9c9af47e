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
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Vectorize/VectorCombine.h"
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

/// The kernel pipeline (`-llvm_opt=kernel`), in LLVM's textual pipeline
/// syntax: O3's function simplification and optimization passes, run once
/// over each kernel instead of inside the CGSCC inliner's walk (a module
/// of kernels calls no function of its own; one function-attrs pass after
/// them still marks the kernels' read-only and write-only pointers, which
/// NVPTX turns into non-coherent loads), without dead store elimination,
/// the inter-procedural, profile-driven and library-call passes, and the
/// repetitions and passes of O3 that changed nothing (2 of its 8
/// InstCombines and of its 8 SimplifyCFGs, InstSimplify, loop deletion,
/// ADCE, the late loop rotation, vector combining, ...): the x86
/// assembly of examples/*.tile and bench/cpu/*.tile and the sm_90a PTX of
/// examples/*.tile, bench/gpu/*.tile and bench/gpu/attention/*.tile are
/// byte-identical to O3's (bench/compare_codegen.sh diffs two builds'
/// code of all of them). Found by removing O3's passes one at a time and
/// keeping each removal that left all of that code unchanged. Tail call
/// marking stays (tests read it in the IR), and so does the remark on a
/// loop whose requested vectorization did not happen.
/// tile-loop-unroll-full and tile-vector-combine-early are
/// LoopFullUnrollPass and VectorCombinePass as O3 builds them (O3's unroll
/// threshold; early folds only), which their textual names cannot say.
constexpr llvm::StringLiteral kKernelPipeline =
    // Early cleanup of the emitted IR.
    "function<eager-inv>("
      "simplifycfg,"
      "sroa<modify-cfg>,"
      "early-cse<>),"
    "ipsccp,"
    // O3's function simplification pipeline, without its CGSCC walk.
    "function<eager-inv>("
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "sroa<modify-cfg>,"
      "early-cse<memssa>,"
      "jump-threading,"
      "correlated-propagation,"
      "simplifycfg<switch-range-to-icmp>,"
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "tailcallelim,"
      "reassociate,"
      "constraint-elimination,"
      "loop-mssa("
        "licm<no-allowspeculation>,"
        "loop-rotate<header-duplication;no-prepare-for-lto>,"
        "licm<allowspeculation>,"
        "simple-loop-unswitch<nontrivial;trivial>),"
      "simplifycfg<switch-range-to-icmp>,"
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "loop("
        "loop-idiom,"
        "indvars,"
        "tile-loop-unroll-full),"
      "sroa<modify-cfg>,"
      "tile-vector-combine-early,"
      "mldst-motion<no-split-footer-bb>,"
      "gvn<>,"
      "sccp,"
      "bdce,"
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "jump-threading,"
      "correlated-propagation,"
      "loop-mssa(licm<allowspeculation>),"
      "simplifycfg<switch-range-to-icmp;switch-to-arithmetic;hoist-common-insts;sink-common-insts>),"
    "cgscc(function-attrs),"
    // O3's optimization pipeline: vectorization and unrolling.
    "function<eager-inv>("
      "inject-tli-mappings,"
      "loop-vectorize<no-interleave-forced-only;no-vectorize-forced-only;>,"
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "simplifycfg<forward-switch-cond;switch-range-to-icmp;switch-to-arithmetic;switch-to-lookup;no-keep-loops;hoist-common-insts;sink-common-insts>,"
      "slp-vectorizer,"
      "loop-unroll<O3>,"
      // Changes no code, but remarks on a loop whose forced vectorization
      // (the tile passes' metadata) did not happen.
      "transform-warning,"
      "sroa<preserve-cfg>,"
      "infer-alignment,"
      "instcombine<max-iterations=1;no-verify-fixpoint>,"
      "loop-mssa(licm<allowspeculation>),"
      "div-rem-pairs,"
      "simplifycfg<switch-range-to-icmp;switch-to-arithmetic;hoist-loads-stores-with-cond-faulting;speculate-unpredictables>)";

/// Parses the kernel pipeline's two passes of its own and
/// kKernelPipeline into \p MPM, after the target's passes for the start
/// of a pipeline (NVPTX: NVVMReflect, NVVMIntrRange).
void buildKernelPipeline(llvm::PassBuilder &PB, llvm::ModulePassManager &MPM) {
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::LoopPassManager &LPM,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (Name != "tile-loop-unroll-full")
          return false;
        LPM.addPass(llvm::LoopFullUnrollPass(/*OptLevel=*/3));
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](llvm::StringRef Name, llvm::FunctionPassManager &FPM,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (Name != "tile-vector-combine-early")
          return false;
        FPM.addPass(llvm::VectorCombinePass(/*TryEarlyFoldsOnly=*/true));
        return true;
      });
  PB.invokePipelineStartEPCallbacks(MPM, llvm::OptimizationLevel::O3);
  // A constant of this file: a failure is a bug, which every test
  // compiling for the CPU would show.
  if (llvm::Error E = PB.parsePassPipeline(MPM, kKernelPipeline))
    llvm::report_fatal_error(llvm::Twine("the kernel pipeline does not parse: ") +
                             llvm::toString(std::move(E)));
}

/// Runs \p Level's default pipeline on \p M for \p TM, or the kernel
/// pipeline when \p Kernel.
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
  llvm::PassBuilder PB(&TM, PTO, std::nullopt, &PIC);
  // Registered first, so that registerFunctionAnalyses keeps it.
  if (Libraries)
    FAM.registerPass([&] { return llvm::TargetLibraryAnalysis(*Libraries); });
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::ModulePassManager MPM;
  if (Level == llvm::OptimizationLevel::O0)
    MPM = PB.buildO0DefaultPipeline(Level);
  else if (Kernel)
    buildKernelPipeline(PB, MPM);
  else
    MPM = PB.buildPerModuleDefaultPipeline(Level);
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
