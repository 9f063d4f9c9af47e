//===- DiffTest.cpp - Generated kernels against the reference interpreter -===//
//
// tile-difftest -seed=S -count=N [-config=NAME]... [-dir=D] [-v]
//
// Writes N programs with KernelGenerator (seeds S, S+1, ...) and runs each
// through tile-jit's logic (runJit, in process) on random inputs with
// --check, once per configuration: the CPU target, and the CUDA emulator
// for sm_80 and sm_90a. Every written tensor is compared with the f64
// reference interpreter at its dtype's tolerance. Each run is a match, a
// mismatch (a FAILED check), or a rejection (a compile or run error, which
// the summary groups by message so that every kind is looked at). A
// mismatch prints the program and the check lines; the exit status is 1
// when any run mismatched or failed in the reference interpreter (the
// generator's programs must be defined).
//
//===----------------------------------------------------------------------===//

#include "KernelGenerator.h"
#include "tile/Tools/JitTool.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/AllEmulators.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <map>

using namespace llvm;

static cl::opt<uint64_t> Seed("seed", cl::desc("first seed"), cl::init(1));
static cl::opt<unsigned> Count("count", cl::desc("programs to generate"),
                               cl::init(100));
static cl::list<std::string>
    Configs("config", cl::desc("cpu, sm80-emu, sm90a-emu (default: all)"));
static cl::opt<std::string> Dir("dir", cl::desc("where programs are written"),
                                 cl::init(""));
static cl::opt<bool> Verbose("v", cl::desc("print every run"));

namespace {
struct Config {
  const char *Name;
  const char *Target;
  bool Emulate;
};
const Config AllConfigs[] = {{"cpu", "cpu", false},
                             {"sm80-emu", "cuda -arch=sm_80", true},
                             {"sm90a-emu", "cuda -arch=sm_90a", true}};

struct Tally {
  unsigned Match = 0, Mismatch = 0, Rejected = 0;
  std::map<std::string, unsigned> Reasons;
};

/// The first error line without its location, as a rejection's key.
std::string reason(StringRef Err) {
  size_t P = Err.find("error: ");
  StringRef Line = P == StringRef::npos ? Err : Err.drop_front(P + 7);
  Line = Line.take_until([](char C) { return C == '\n'; });
  return Line.take_front(160).str();
}
} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Tile differential tester\n");
  tile::TargetRegistry Registry;
  // The backends, and the emulators the CUDA configurations run in.
  if (Error E = joinErrors(tile::registerAllTargetBackends(Registry),
                           tile::registerAllTargetEmulators(Registry))) {
    errs() << toString(std::move(E)) << "\n";
    return 1;
  }
  std::vector<const Config *> Run;
  for (const Config &C : AllConfigs)
    if (Configs.empty() || is_contained(Configs, C.Name))
      Run.push_back(&C);
  SmallString<128> Folder(Dir);
  if (Folder.empty() &&
      sys::fs::createUniqueDirectory("tile-difftest", Folder)) {
    errs() << "tile-difftest: error: cannot create a scratch folder\n";
    return 1;
  }
  sys::fs::create_directories(Folder);
  std::map<std::string, Tally> Tallies;
  unsigned Bad = 0;
  for (unsigned I = 0; I != Count; ++I) {
    uint64_t S = Seed + I;
    tile::RandomChoices Choices(S);
    tile::GeneratedKernel K = tile::generateKernel(Choices);
    SmallString<128> Path(Folder);
    sys::path::append(Path, "k" + std::to_string(S) + ".tile");
    {
      std::error_code EC;
      raw_fd_ostream OS(Path, EC);
      if (EC) {
        errs() << "tile-difftest: error: cannot write '" << Path << "'\n";
        return 1;
      }
      OS << K.Text;
    }
    for (const Config *C : Run) {
      tile::JitOptions O;
      O.InputFile = Path.str().str();
      O.Target = C->Target;
      O.Emulate = C->Emulate;
      O.Random = true;
      O.Seed = S;
      O.Check = true;
      O.Threads = 1;
      for (auto &[Name, V] : K.Dims)
        O.Dims.push_back(Name + "=" + std::to_string(V));
      std::string Out, Err;
      raw_string_ostream OutOS(Out), ErrOS(Err);
      int RC = tile::runJit(O, Registry, OutOS, ErrOS);
      Tally &T = Tallies[C->Name];
      StringRef Kind;
      if (RC == 0) {
        ++T.Match;
        Kind = "match";
      } else if (StringRef(Out).contains(": FAILED at")) {
        ++T.Mismatch;
        ++Bad;
        Kind = "MISMATCH";
      } else {
        ++T.Rejected;
        ++T.Reasons[reason(Err)];
        Kind = "rejected";
        if (StringRef(Err).contains("reference interpreter"))
          ++Bad;
      }
      if (Verbose || Kind == "MISMATCH")
        outs() << "seed " << S << " " << C->Name << ": " << Kind << "\n";
      if (Kind == "MISMATCH")
        outs() << K.Text << Out << Err << "\n";
    }
  }
  outs() << "tile-difftest: " << Count << " programs (seeds " << Seed << ".."
         << Seed + Count - 1 << ") in " << Folder << "\n";
  for (const Config *C : Run) {
    Tally &T = Tallies[C->Name];
    outs() << "  " << C->Name << ": " << T.Match << " match, " << T.Mismatch
           << " mismatch, " << T.Rejected << " rejected\n";
    for (auto &[Why, N] : T.Reasons)
      outs() << "      " << N << " x " << Why << "\n";
  }
  return Bad ? 1 : 0;
}
