//===- tile-opt.cpp - Parse, verify, transform and print Tile IR ----------===//
//
// The workhorse of the lit tests: registers the built-in target backends
// and hands the options to runOpt (lib/Tools/OptTool.cpp), which parses,
// verifies, runs -passes and prints, or checks -verify-diagnostics.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetRegistry.h"
#include "tile/Tools/OptTool.h"
#include "tile/Tools/ToolOptions.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;

static cl::OptionCategory OptCat("tile-opt options");
static cl::opt<std::string> InputFile(cl::Positional, cl::desc("<input .tile>"),
                                      cl::init("-"), cl::cat(OptCat));
static cl::opt<std::string> OutputFile("o", cl::desc("Output file"),
                                       cl::value_desc("filename"),
                                       cl::init("-"), cl::cat(OptCat));
static cl::opt<bool> VerifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check that the diagnostics match the expected-* comments"), cl::cat(OptCat));
static cl::opt<bool> SplitInputFile(
    "split-input-file",
    cl::desc("Process each '// -----' separated chunk on its own"), cl::cat(OptCat));
static cl::opt<bool> NoVerify("no-verify",
                              cl::desc("Print without running the verifier"), cl::cat(OptCat));
static cl::opt<std::string>
    Passes("passes", cl::desc("Pipeline to run, e.g. tile-simplify,"
                              "tile-lower-tile-ops{skip-gemm=true}"), cl::cat(OptCat));
// -print-after-all, -print-before-all, -print-after=, -print-before= and
// -time-passes are LLVM's own options (libLLVM registers them; a second
// registration would clash): Tile's pass manager reads the same flags. So
// are -pass-remarks=, -pass-remarks-missed= and -pass-remarks-analysis=,
// which enable the passes' optimization remarks.
static cl::opt<bool> VerifyEach(
    "verify-each", cl::desc("Verify the IR after every pass (default on in "
                            "builds with assertions)"),
    cl::init(tile::PassInstrumentation().VerifyEach), cl::cat(OptCat));
static cl::opt<bool> PrintLayouts(
    "print-layouts",
    cl::desc("Print the fragment layouts that layout-inferring passes "
             "infer, before the IR"),
    cl::cat(OptCat));
static cl::list<std::string> Params(
    "param", cl::desc("NAME=V: specialize for this value of a tunable "
                      "parameter (with -passes, functions with tunables are "
                      "specialized for their defaults and these)"),
    cl::cat(OptCat));
static cl::opt<bool> ListPasses("list-passes",
                                cl::desc("List the registered passes"), cl::cat(OptCat));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tile::initToolOptions({&OptCat},
                        {"print-after-all", "print-before-all", "print-after",
                         "print-before", "time-passes"});
  cl::ParseCommandLineOptions(argc, argv, "Tile IR optimizer and printer\n");
  tile::TargetRegistry Registry;
  if (Error E = tile::registerAllTargetBackends(Registry)) {
    errs() << "tile-opt: error: " << toString(std::move(E)) << "\n";
    return 1;
  }
  tile::OptOptions O;
  O.InputFile = InputFile;
  O.OutputFile = OutputFile;
  O.VerifyDiagnostics = VerifyDiagnostics;
  O.SplitInputFile = SplitInputFile;
  O.NoVerify = NoVerify;
  O.Passes = Passes;
  O.ListPasses = ListPasses;
  O.Params.assign(Params.begin(), Params.end());
  tile::PassInstrumentation &I = O.Instrumentation;
  I.PrintAfterAll = shouldPrintAfterAll();
  I.PrintBeforeAll = shouldPrintBeforeAll();
  I.PrintAfter = printAfterPasses();
  I.PrintBefore = printBeforePasses();
  I.TimePasses = TimePassesIsEnabled;
  I.VerifyEach = VerifyEach;
  O.Remarks = tile::getRemarkFilterFromLLVMOptions();
  O.PrintLayouts = PrintLayouts;
  return tile::runOpt(O, Registry, outs(), errs());
}
