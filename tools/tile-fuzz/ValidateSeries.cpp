//===- ValidateSeries.cpp - Many compiles in one process, each validated --===//
//
// tile-validate-series -target=T -seed=S -count=N -validator=PROG
//                      [-validator-arg=A]... [-v]
//
// Compiles N programs written by KernelGenerator (seeds S, S+1, ...) for
// target T one after another in this one process, with the external
// toolchain on, and runs the validator on each device binary (`PROG A...
// FILE`, e.g. spirv-val --target-env opencl1.2). Then it compiles the
// first program again and requires the same bytes. A tool is one compile,
// but a program that embeds Tile (the C API, Python, the autotuner)
// compiles many kernels in a process, and a code generator that keeps
// state from one module to the next (LLVM 22's SPIR-V backend does:
// LevelZeroCodeGen.cpp) writes invalid or history-dependent code only
// there. The exit status is 1 when any binary fails validation or the
// second compile of the first program differs.
//
//===----------------------------------------------------------------------===//

#include "KernelGenerator.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/Driver/CompileModule.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>

using namespace llvm;

static cl::opt<std::string> Target("target", cl::desc("target string"),
                                   cl::Required);
static cl::opt<uint64_t> Seed("seed", cl::desc("first seed"), cl::init(1));
static cl::opt<unsigned> Count("count", cl::desc("programs to compile"),
                               cl::init(50));
static cl::opt<std::string>
    Validator("validator", cl::desc("program run on each device binary"),
              cl::Required);
static cl::list<std::string>
    ValidatorArgs("validator-arg",
                  cl::desc("an argument of the validator, before the file"));
static cl::opt<bool> Verbose("v", cl::desc("print every program's outcome"));

namespace {

/// The device binary of the generated program \p Text for \p Ctx, or the
/// compiler's error message.
Expected<std::string> compileText(const tile::TargetRegistry &Registry,
                                  const tile::BackendContext &Ctx,
                                  StringRef Text) {
  SourceMgr SM;
  tile::TileContext TC;
  Registry.registerDialects(TC.getOpRegistry());
  std::string Diags;
  raw_string_ostream DiagOS(Diags);
  tile::DiagnosticEngine Diag(&SM, &DiagOS);
  unsigned ID = SM.AddNewSourceBuffer(
      MemoryBuffer::getMemBufferCopy(Text, "generated.tile"), SMLoc());
  std::unique_ptr<tile::Module> M = tile::parseModule(SM, ID, TC, Diag);
  if (!M || !tile::verifyModule(*M, Diag))
    return createStringError("the generated program is not valid:\n" + Diags);
  Expected<tile::KernelArtifact> A = tile::compileModule(Registry, Ctx, *M, Diag);
  if (!A)
    return createStringError(toString(A.takeError()) + "\n" + Diags);
  return std::move(A->DeviceCode);
}

/// Runs the validator on \p Binary; its output when it refuses it.
std::optional<std::string> validate(StringRef Binary) {
  std::vector<StringRef> Args(ValidatorArgs.begin(), ValidatorArgs.end());
  Expected<tile::ExternalToolRun> Run =
      tile::runExternalTool(Validator, Args, Binary, "bin", "");
  if (!Run)
    return toString(Run.takeError());
  if (Run->ExitCode == 0)
    return std::nullopt;
  return Run->getFailureMessage(Validator);
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "Tile: many compiles in one process, validated\n");
  tile::TargetRegistry Registry;
  if (Error E = tile::registerAllTargetBackends(Registry)) {
    errs() << toString(std::move(E)) << "\n";
    return 1;
  }
  tile::ResolveOptions RO;
  RO.RequireAvailable = false;
  Expected<tile::BackendContext> Ctx =
      tile::resolveBackendContext(Registry, Target, "", "auto", RO);
  if (!Ctx) {
    errs() << "tile-validate-series: error: " << toString(Ctx.takeError())
           << "\n";
    return 1;
  }
  if (ErrorOr<std::string> P = sys::findProgramByName(Validator))
    Validator = *P;
  else {
    errs() << "tile-validate-series: error: validator '" << Validator
           << "' was not found: " << P.getError().message() << "\n";
    return 1;
  }
  unsigned Valid = 0, Invalid = 0;
  std::map<std::string, unsigned> Rejected;
  std::optional<std::pair<std::string, std::string>> First; // text, binary
  for (unsigned I = 0; I != Count; ++I) {
    tile::RandomChoices Choices(Seed + I);
    std::string Text = tile::generateKernel(Choices).Text;
    Expected<std::string> Bin = compileText(Registry, *Ctx, Text);
    if (!Bin) {
      std::string Msg = toString(Bin.takeError());
      if (StringRef(Msg).starts_with("the generated program is not valid")) {
        errs() << "tile-validate-series: seed " << Seed + I << ": " << Msg
               << Text << "\n";
        return 1;
      }
      ++Rejected[StringRef(Msg).take_until([](char C) { return C == '\n'; })
                     .take_front(160)
                     .str()];
      continue;
    }
    if (!First)
      First.emplace(Text, *Bin);
    if (std::optional<std::string> Why = validate(*Bin)) {
      ++Invalid;
      outs() << "seed " << Seed + I << ": INVALID after " << I
             << " earlier compiles in this process:\n"
             << *Why << "--- program ---\n"
             << Text << "\n";
      continue;
    }
    ++Valid;
    if (Verbose)
      outs() << "seed " << Seed + I << ": valid\n";
  }
  bool Same = true;
  if (First) {
    Expected<std::string> Again = compileText(Registry, *Ctx, First->first);
    Same = Again && *Again == First->second;
    if (!Again)
      consumeError(Again.takeError());
    if (!Same)
      outs() << "the first program compiled again, after the others, gives "
                "other bytes:\n"
             << First->first << "\n";
  }
  outs() << "tile-validate-series: " << Count << " programs for '" << Target
         << "': " << Valid << " valid, " << Invalid << " invalid, "
         << [&] {
              unsigned N = 0;
              for (auto &[Msg, C] : Rejected)
                N += C;
              return N;
            }()
         << " rejected; first program again: "
         << (First ? (Same ? "same bytes" : "OTHER BYTES") : "none compiled")
         << "\n";
  for (auto &[Msg, C] : Rejected)
    outs() << "  rejected " << C << "x: " << Msg << "\n";
  return Invalid || !Same || !First ? 1 : 0;
}
