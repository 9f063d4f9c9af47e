//===- tile-jit.cpp - Run a .tile kernel now ------------------------------===//
//
// Compiles a function for a target, runs it through the execution backend
// on real inputs, writes outputs, checks them against the reference
// interpreter and times it. The logic is in libTileTools (JitTool.h).
//
//===----------------------------------------------------------------------===//

#include "tile/Target/AllEmulators.h"
#include "tile/Target/AllTargets.h"
#include "tile/Transforms/PassManager.h"
#include "tile/Target/TargetRegistry.h"
#include "tile/Tools/JitTool.h"
#include "tile/Tools/ToolOptions.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"

using namespace llvm;

static cl::OptionCategory JitCat("tile-jit options");
static cl::opt<std::string> Input(cl::Positional, cl::desc("<input .tile>"), cl::cat(JitCat));
static cl::opt<std::string> Target("target", cl::desc("Target, e.g. cpu or 'cuda -arch=sm_90a'"),
                                   cl::init("cpu"), cl::cat(JitCat));
static cl::opt<std::string> HostTarget("host-target", cl::desc("Host target (default: the CPU)"), cl::cat(JitCat));
static cl::opt<std::string> Exec("exec", cl::desc("Execution backend (default: auto)"),
                                 cl::init("auto"), cl::cat(JitCat));
static cl::opt<std::string> Entry("entry", cl::desc("Function to run"), cl::cat(JitCat));
static cl::list<std::string> Dims("dim", cl::desc("NAME=N: a symbolic dimension"), cl::cat(JitCat));
static cl::list<std::string> Inputs("input", cl::desc("NAME=file.npy: an input tensor"), cl::cat(JitCat));
static cl::list<std::string> Outputs("output", cl::desc("NAME=file.npy: write a tensor after the run"), cl::cat(JitCat));
static cl::list<std::string> Scalars("scalar", cl::desc("NAME=V: a scalar parameter"), cl::cat(JitCat));
static cl::opt<bool> Random("random", cl::desc("Make random inputs for tensors and scalars not given"), cl::cat(JitCat));
static cl::opt<uint64_t> Seed("seed", cl::desc("Seed of --random"), cl::init(0), cl::cat(JitCat));
static cl::opt<bool> Check("check", cl::desc("Compare every written tensor with the f64 reference interpreter"), cl::cat(JitCat));
static cl::opt<unsigned> Bench("bench", cl::desc("Time N runs after warm-up and report the median"),
                               cl::init(0), cl::cat(JitCat));
static cl::opt<unsigned> Threads("num-threads", cl::desc("Worker threads for host execution (0: all)"),
                                 cl::init(0), cl::cat(JitCat));
static cl::opt<bool> CompileTime("print-compile-time", cl::desc("Print compile time by stage"), cl::cat(JitCat));
static cl::opt<unsigned> DataOffset(
    "data-offset",
    cl::desc("Start each tensor's data this many bytes into its allocation "
             "(DLPack byte_offset), to run the paths for unaligned data"),
    cl::init(0), cl::cat(JitCat));
static cl::opt<unsigned> EmulateResidentBlocks(
    "emulate-resident-blocks",
    cl::desc("With --emulate: the blocks the device runs at once, which a "
             "persistent kernel is launched with at most (default 132, an "
             "H100's multiprocessors)"),
    cl::init(132), cl::cat(JitCat));
static cl::list<std::string> Params("param",
                                   cl::desc("NAME=V: the value of a tunable parameter"),
                                   cl::cat(JitCat));
static cl::opt<bool> NoCache("no-cache",
                             cl::desc("Compile without the kernel cache (TILE_CACHE_DIR)"),
                             cl::cat(JitCat));
static cl::opt<std::string> CacheToolVersion(
    "cache-tool-version", cl::Hidden,
    cl::desc("Testing: the tool version the kernel cache's keys use"));
static cl::opt<bool> Autotune(
    "autotune", cl::desc("Compile, time and record the fastest config of the "
                         "function's tunable parameters (--bench N: N timed runs each)"),
    cl::cat(JitCat));
static cl::opt<bool> Emulate("emulate",
                             cl::desc("Run the lowered function in the target backend's "
                                      "emulator on the host instead of on the device"), cl::cat(JitCat));

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  tile::initToolOptions({&JitCat});
  cl::ParseCommandLineOptions(argc, argv, "Tile JIT: compile and run a kernel\n");
  tile::TargetRegistry Registry;
  // The backends, and for --emulate their emulators.
  if (Error E = joinErrors(tile::registerAllTargetBackends(Registry),
                           tile::registerAllTargetEmulators(Registry))) {
    errs() << "tile-jit: error: " << toString(std::move(E)) << "\n";
    return 1;
  }
  tile::JitOptions O;
  O.InputFile = Input;
  O.Target = Target;
  O.HostTarget = HostTarget;
  O.ExecBackend = Exec;
  O.Entry = Entry;
  O.Dims.assign(Dims.begin(), Dims.end());
  O.Inputs.assign(Inputs.begin(), Inputs.end());
  O.Outputs.assign(Outputs.begin(), Outputs.end());
  O.Scalars.assign(Scalars.begin(), Scalars.end());
  O.Random = Random;
  O.Seed = Seed;
  O.Check = Check;
  O.Bench = Bench;
  O.Threads = Threads;
  O.PrintCompileTime = CompileTime;
  O.DataOffset = DataOffset;
  O.Emulate = Emulate;
  O.EmulateResidentBlocks = EmulateResidentBlocks;
  // -pass-remarks* are LLVM's own options (libLLVM registers them).
  O.Remarks = tile::getRemarkFilterFromLLVMOptions();
  O.Params.assign(Params.begin(), Params.end());
  O.NoCache = NoCache;
  O.Autotune = Autotune;
  O.CacheToolVersion = CacheToolVersion;
  return tile::runJit(O, Registry, outs(), errs());
}
