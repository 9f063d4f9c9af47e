//===- LLCDriver.cpp - The logic of tile-llc ------------------------------===//
//
// Lists targets, resolves the BackendContext once, and compiles a .tile
// file through the selected backend: parse (with every registered dialect),
// check dialect ops against the target, run the backend's pipeline.
//
//===----------------------------------------------------------------------===//

#include "tile/Tools/LLCDriver.h"
#include "tile/IR/Parser.h"
#include "tile/Target/DialectCheck.h"
#include "tile/Target/TargetListing.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace tile;

static int fail(llvm::raw_ostream &Err, const llvm::Twine &Msg) {
  llvm::WithColor::error(Err, "tile-llc") << Msg << "\n";
  return 1;
}

int tile::runLLC(const LLCOptions &Opts, const TargetRegistry &Registry,
                 llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  if (Opts.PrintTargets) {
    printTargets(Registry, Out, /*ProbeAvailability=*/true);
    if (!Opts.PrintBackendContext && Opts.InputFile.empty())
      return 0;
  }
  if (!Opts.PrintBackendContext && Opts.InputFile.empty())
    return fail(Err, "nothing to do; give an input file, -print-targets or "
                     "-print-backend-context");
  if (Opts.Target.empty())
    return fail(Err, "no target given; pass -target='<kind> [-attr=value]...' "
                     "with a kind from: " +
                         Registry.listKinds() + " (see -print-targets)");

  ResolveOptions RO;
  RO.RequireAvailable = Opts.CheckExecAvailable;
  llvm::Expected<BackendContext> Ctx = resolveBackendContext(
      Registry, Opts.Target, Opts.HostTarget, Opts.ExecBackend, RO);
  if (!Ctx)
    return fail(Err, llvm::toString(Ctx.takeError()));
  if (Opts.PrintBackendContext)
    Ctx->print(Out);
  if (Opts.InputFile.empty())
    return 0;

  TileContext TC;
  Registry.registerDialects(TC.getOpRegistry());
  llvm::SourceMgr SM;
  DiagnosticEngine Diag(&SM, &Err);
  std::unique_ptr<Module> M = parseSourceFile(Opts.InputFile, SM, TC, Diag);
  if (!M)
    return 1;
  if (!verifyDialectUse(Registry, *Ctx, *M, Diag))
    return 1;
  if (llvm::Error E = Ctx->getBackend().Pipeline(*Ctx, *M))
    return fail(Err, llvm::toString(std::move(E)));
  return 0;
}
