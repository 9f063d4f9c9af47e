//===- LLCTool.cpp - The logic of tile-llc --------------------------------===//
//
// Lists targets, resolves the BackendContext once, and compiles a .tile
// file through the selected backend: parse (with every registered dialect),
// check dialect ops against the target, run the backend's pipeline.
//
//===----------------------------------------------------------------------===//

#include "tile/Tools/LLCTool.h"
#include "tile/Driver/CompileModule.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Specialize.h"
#include "tile/Transforms/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "tile/Target/DialectCheck.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Target/TargetListing.h"
#include "tile/Target/TargetRegistry.h"
#include "tile/Tools/CompileHeap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace tile;

static int fail(llvm::raw_ostream &Err, const llvm::Twine &Msg) {
  llvm::WithColor::error(Err, "tile-llc") << Msg << "\n";
  return 1;
}


static int writeOutput(const LLCOptions &Opts, llvm::raw_ostream &Err,
                       llvm::function_ref<void(llvm::raw_ostream &)> Fn) {
  std::error_code EC;
  llvm::ToolOutputFile Out(Opts.OutputFile, EC, llvm::sys::fs::OF_None);
  if (EC)
    return fail(Err, "cannot write '" + Opts.OutputFile + "': " + EC.message());
  Fn(Out.os());
  Out.keep();
  return 0;
}

int tile::runLLC(const LLCOptions &Opts, const TargetRegistry &Registry,
                 llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  if (Opts.PrintTargets) {
    printTargets(Registry, Out, /*ProbeAvailability=*/true);
    if (!Opts.PrintBackendContext && Opts.InputFile.empty())
      return 0;
  }
  if (!Opts.PrintBackendContext && !Opts.PrintPipeline &&
      Opts.InputFile.empty())
    return fail(Err, "nothing to do; give an input file, -print-targets, "
                     "-print-pipeline or -print-backend-context");
  if (Opts.Target.empty())
    return fail(Err, "no target given; pass -target='<kind> [-attr=value]...' "
                     "with a kind from: " +
                         Registry.listKinds() + " (see -print-targets)");

  reserveCompileHeap();
  ResolveOptions RO;
  RO.RequireAvailable = Opts.CheckExecAvailable;
  RO.KeepAssembly = Opts.Emit == "asm" || Opts.Emit.empty();
  llvm::Expected<BackendContext> Ctx = resolveBackendContext(
      Registry, Opts.Target, Opts.HostTarget, Opts.ExecBackend, RO);
  if (!Ctx)
    return fail(Err, llvm::toString(Ctx.takeError()));
  if (Opts.PrintBackendContext)
    Ctx->print(Out);
  if (Opts.PrintPipeline) {
    const TargetBackendInfo &B = Ctx->getBackend();
    if (!B.PassPipeline)
      return fail(Err, "backend " + llvm::Twine(B.Name) +
                           " has no pass pipeline yet (its entry point " +
                           B.PipelineName + " reports what it lacks)");
    PassManager PM;
    B.PassPipeline(*Ctx, PM);
    Out << "pipeline of backend " << B.Name << " for '" << Ctx->getTarget().str()
        << "':\n";
    for (const std::unique_ptr<Pass> &P : PM.getPasses())
      Out << "  " << P->getPipelineText() << "\n";
  }
  if (Opts.InputFile.empty())
    return 0;
  static const char *const EmitKinds[] = {"",          "tile",     "device",
                                          "device-llvm", "host-llvm", "asm",
                                          "obj",       "artifact", "deferred"};
  if (!llvm::is_contained(EmitKinds, Opts.Emit))
    return fail(Err, "unknown -emit=" + Opts.Emit +
                         "; expected tile, device, device-llvm, host-llvm, asm, "
                         "obj, artifact or deferred");

  TileContext TC;
  TC.getRemarks().setFilter(Opts.Remarks);
  TC.getRemarks().setOutput(&Err);
  if (Opts.PrintLayouts)
    TC.setLayoutOutput(&Out);
  Registry.registerDialects(TC.getOpRegistry());
  llvm::SourceMgr SM;
  DiagnosticEngine Diag(&SM, &Err);
  std::unique_ptr<Module> M = parseSourceFile(Opts.InputFile, SM, TC, Diag);
  if (!M)
    return 1;
  llvm::Expected<TunableConfig> Config = parseParamAssignments(Opts.Params);
  if (!Config)
    return fail(Err, llvm::toString(Config.takeError()));
  if (llvm::Error E = specializeAndVerifyModule(*M, *Config, Diag)) {
    std::string Msg = llvm::toString(std::move(E));
    return Diag.hadError() ? 1 : fail(Err, Msg);
  }
  if (Opts.PrintResourceUsage) {
    if (!verifyDialectUse(Registry, *Ctx, *M, Diag))
      return 1;
    if (llvm::Error E = Ctx->getBackend().Pipeline(*Ctx, *M))
      return reportToolError(std::move(E), "tile-llc", Err);
    std::vector<KernelResourceUsage> Usage = measureModuleResources(*M, &*Ctx);
    bool OK = checkResourceLimits(*Ctx, *M, Diag);
    // Within the limits the IR shows, device code generation adds what
    // its toolchain reports (registers per thread).
    if (OK) {
      KernelArtifact A;
      A.Target = Ctx->getTarget().str();
      if (llvm::Error E = Ctx->getBackend().DeviceCodeGen(*Ctx, *M, A))
        return reportToolError(std::move(E), "tile-llc", Err);
      if (llvm::Error E = A.finishDeviceCode())
        return reportToolError(std::move(E), "tile-llc", Err);
      addToolchainResources(Usage, A);
      OK = checkToolchainResourceLimits(*Ctx, Usage, Diag);
    } else {
      for (KernelResourceUsage &U : Usage)
        U.RegisterReport = "not measured: no device code is generated for a "
                           "module over a limit";
    }
    printResourceUsage(*Ctx, Usage, Out);
    return OK ? 0 : 1;
  }
  if (Opts.Emit == "tile") {
    if (llvm::Error E = lowerModule(Registry, *Ctx, *M, Diag))
      return reportToolError(std::move(E), "tile-llc", Err);
    return writeOutput(Opts, Err, [&](llvm::raw_ostream &OS) { printModule(*M, OS); });
  }
  CompileTimings Timings;
  llvm::Expected<KernelArtifact> A = compileModule(Registry, *Ctx, *M, Diag, &Timings);
  if (!A)
    return reportToolError(A.takeError(), "tile-llc", Err);
  if (Opts.PrintCompileTime) {
    Err << describeCompileHeap() << "\n";
    Err << "compile time (" << Ctx->getTarget().str() << "):\n";
    Timings.print(Err);
  }
  auto Emit = [&](llvm::StringRef Text, llvm::StringRef What) {
    if (Text.empty())
      return fail(Err, "target '" + Ctx->getTarget().str() + "' produced no " +
                           What);
    return writeOutput(Opts, Err, [&](llvm::raw_ostream &OS) { OS << Text; });
  };
  if (Opts.Emit.empty()) {
    // As llc does: the target's device code as text. Assembly where the
    // backend keeps it (x86, AMDGPU), else its textual device code (PTX,
    // SPIR-V assembly, MSL, WGSL).
    if (auto It = A->Notes.find("device-asm"); It != A->Notes.end())
      return Emit(It->second, "device assembly");
    if (!A->DeviceSource.empty())
      return Emit(A->DeviceSource, "device code");
    const DeviceFormatInfo &Fmt = getDeviceFormatInfo(A->DeviceFmt);
    if (Fmt.IsText)
      return Emit(A->DeviceCode, "device code");
    return fail(Err, "target '" + Ctx->getTarget().str() +
                         "' produces binary device code only (" + Fmt.Name +
                         "); write it with -emit=obj -o FILE");
  }
  if (Opts.Emit == "device")
    return Emit(A->DeviceSource.empty() ? A->DeviceCode : A->DeviceSource,
                "device code");
  if (Opts.Emit == "device-llvm") {
    auto It = A->Notes.find("device-llvm");
    return Emit(It != A->Notes.end() ? It->second : A->DeviceSource,
                "device LLVM IR");
  }
  if (Opts.Emit == "host-llvm")
    return Emit(A->HostIR, "host LLVM IR");
  if (Opts.Emit == "asm") {
    auto It = A->Notes.find("device-asm");
    return Emit(It != A->Notes.end() ? It->second : "", "device assembly");
  }
  if (Opts.Emit == "obj")
    return Emit(A->DeviceCode, "device binary");
  if (Opts.Emit == "artifact")
    return Emit(A->serialize(), "artifact");
  if (Opts.Emit == "deferred")
    return Emit(A->DeferredDeviceSource,
                "deferred device code (no kernel of it is compiled at its "
                "first launch)");
  return 0;
}
