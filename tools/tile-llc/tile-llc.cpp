//===- tile-llc.cpp - The Tile compiler driver ----------------------------===//
//
// Registers the built-in target backends and hands the options to runLLC
// (lib/Tools/LLCTool.cpp).
//
//===----------------------------------------------------------------------===//

#include "tile/Target/AllTargets.h"
#include "tile/Tools/LLCTool.h"
#include "tile/Tools/ToolOptions.h"
#include "tile/Transforms/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

static cl::OptionCategory LLCCat("tile-llc options");
static cl::opt<std::string> InputFile(cl::Positional, cl::desc("[input.tile]"),
                                      cl::cat(LLCCat));
static cl::opt<std::string>
    Target("target", cl::desc("Target string, e.g. 'cuda -arch=sm_90a'"),
           cl::value_desc("kind [-attr=value]..."), cl::cat(LLCCat));
static cl::opt<std::string>
    HostTarget("host-target",
               cl::desc("Target of the host code (default: the target when "
                        "it can be a host, else the default host kind)"),
               cl::cat(LLCCat));
static cl::opt<std::string>
    ExecBackend("exec-backend",
                cl::desc("Execution backend: auto (first compatible in the "
                         "backend's order) or a name"),
                cl::init("auto"), cl::cat(LLCCat));
static cl::opt<bool>
    CheckExecAvailable("check-exec-available",
                       cl::desc("Require the execution backend to be "
                                "available on this machine (probe it)"),
                       cl::cat(LLCCat));
static cl::opt<bool> PrintTargets(
    "print-targets",
    cl::desc("List target kinds, backends and execution backends"),
    cl::cat(LLCCat));
static cl::opt<bool>
    PrintBackendContext("print-backend-context",
                        cl::desc("Print the BackendContext resolved for "
                                 "-target"),
                        cl::cat(LLCCat));

static cl::opt<bool> PrintPipeline(
    "print-pipeline", cl::desc("Print the target backend's ordered passes"),
    cl::cat(LLCCat));
static cl::opt<std::string> Emit(
    "emit",
    cl::desc("What to write instead of the device code as text "
             "(assembly, PTX, SPIR-V, MSL, WGSL): tile (IR after the "
             "pipeline), device, device-llvm, host-llvm, asm, obj, "
             "artifact"),
    cl::cat(LLCCat));
static cl::opt<std::string> OutputFile("o", cl::desc("Output file"),
                                       cl::init("-"), cl::cat(LLCCat));
static cl::opt<bool> PrintLayouts(
    "print-layouts",
    cl::desc("Print the fragment layouts the pipeline infers, per kernel"),
    cl::cat(LLCCat));
static cl::list<std::string>
    Params("param", cl::desc("NAME=V: the value of a tunable parameter"),
           cl::cat(LLCCat));
static cl::opt<bool> PrintCompileTime("print-compile-time",
                                      cl::desc("Print compile time by stage"),
                                      cl::cat(LLCCat));

static cl::opt<bool> PrintResourceUsage(
    "print-resource-usage",
    cl::desc("Print each kernel's use of the target's resource limits"),
    cl::cat(LLCCat));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tile::initToolOptions({&LLCCat});
  cl::ParseCommandLineOptions(argc, argv, "Tile compiler\n");

  tile::TargetRegistry Registry;
  if (Error E = tile::registerAllTargetBackends(Registry)) {
    WithColor::error(errs(), "tile-llc") << toString(std::move(E)) << "\n";
    return 1;
  }
  tile::LLCOptions Opts;
  Opts.InputFile = InputFile;
  Opts.Target = Target;
  Opts.HostTarget = HostTarget;
  Opts.ExecBackend = ExecBackend;
  Opts.CheckExecAvailable = CheckExecAvailable;
  Opts.PrintTargets = PrintTargets;
  Opts.PrintBackendContext = PrintBackendContext;
  Opts.PrintPipeline = PrintPipeline;
  Opts.Emit = Emit;
  Opts.OutputFile = OutputFile;
  Opts.PrintCompileTime = PrintCompileTime;
  // -pass-remarks* are LLVM's own options (libLLVM registers them).
  Opts.Remarks = tile::getRemarkFilterFromLLVMOptions();
  Opts.PrintLayouts = PrintLayouts;
  Opts.Params.assign(Params.begin(), Params.end());
  Opts.PrintResourceUsage = PrintResourceUsage;
  return tile::runLLC(Opts, Registry, outs(), errs());
}
