//===- PipelineFuzzer.cpp - libFuzzer target for the whole pipeline -------===//
//
// Feeds an input through everything after the parser, for every target
// backend: parse and verify (all dialects registered), then per target
// (CUDA sm_80, Hopper sm_90a, ROCm gfx942, CPU, C, Metal, WebGPU,
// Level Zero) the dialect check, the backend's pass pipeline (with IR
// verification between passes in assertion builds), device code
// generation and host code generation, and LLVM's verifier on every LLVM
// module the backends produce (device LLVM IR, host LLVM IR).
//
// An input is either Tile text (mutated from the seed corpus) or, when its
// first byte is 0xFF, a recipe: the remaining bytes drive KernelGenerator,
// which always writes a valid program, so mutations of a recipe explore
// programs the passes and code generators accept instead of stopping at the
// parser.
//
// Properties (a violation aborts, after printing the program): no crash,
// hang or sanitizer report; a rejected input has at least one error; every
// located diagnostic points into the input; every LLVM module verifies.
// Compilation stays in process: external toolchain programs (ptxas,
// ld.lld) are not run.
//
// Built as tile-pipeline-fuzz (TILE_BUILD_FUZZERS with TILE_SANITIZE) and
// linked into tile-pipeline-fuzz-replay, which ctest runs over the seeds
// and every reproducer in normal builds.
//
//===----------------------------------------------------------------------===//

#include "KernelGenerator.h"
#include "tile/Driver/CompileModule.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

using namespace tile;

namespace {

/// The targets every input is compiled for: one per backend, both CUDA
/// variants.
const char *const Targets[] = {
    "cuda -arch=sm_80", "cuda -arch=sm_90a", "hip -mcpu=gfx942",
    "cpu -mcpu=x86-64-v3", "c", "metal", "webgpu", "level_zero"};

[[noreturn]] void violation(const llvm::Twine &What, llvm::StringRef Program,
                            llvm::StringRef Detail = "") {
  llvm::errs() << "tile-pipeline-fuzz: " << What << "\n--- program ---\n"
               << Program << "\n";
  if (!Detail.empty())
    llvm::errs() << "--- detail ---\n" << Detail << "\n";
  llvm::errs().flush();
  std::abort();
}

const TargetRegistry &getRegistry() {
  static TargetRegistry *R = [] {
    auto *Reg = new TargetRegistry();
    if (llvm::Error E = registerAllTargetBackends(*Reg)) {
      llvm::errs() << llvm::toString(std::move(E)) << "\n";
      std::abort();
    }
    return Reg;
  }();
  return *R;
}

/// LLVM IR text a backend produced must parse and verify.
void verifyLLVMText(llvm::StringRef IR, llvm::StringRef What,
                    llvm::StringRef Target, llvm::StringRef Program) {
  if (IR.empty())
    return;
  llvm::LLVMContext C;
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Err, C);
  if (!M) {
    std::string Msg;
    llvm::raw_string_ostream OS(Msg);
    Err.print("ir", OS);
    violation(What + " of target '" + Target + "' does not parse", Program,
              Msg + "\n" + IR.str());
  }
  std::string Msg;
  llvm::raw_string_ostream OS(Msg);
  if (llvm::verifyModule(*M, &OS))
    violation(What + " of target '" + Target + "' does not verify", Program,
              Msg + "\n" + IR.str());
}

/// Parses and verifies \p Text; null when invalid.
std::unique_ptr<Module> parse(llvm::StringRef Text, llvm::SourceMgr &SM,
                              TileContext &Ctx, unsigned &BufferID) {
  llvm::raw_null_ostream Null;
  DiagnosticEngine Diag(&SM, &Null);
  BufferID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz.tile"), llvm::SMLoc());
  std::unique_ptr<Module> M = parseModule(SM, BufferID, Ctx, Diag);
  if (!M || !verifyModule(*M, Diag))
    return nullptr;
  return M;
}

void compileForEveryTarget(const Module &M, llvm::SourceMgr &SM,
                           unsigned BufferID, llvm::StringRef Program) {
  const TargetRegistry &Registry = getRegistry();
  ResolveOptions RO;
  RO.RequireAvailable = false;
  RO.RunToolchain = false;
  for (const char *Target : Targets) {
    llvm::Expected<BackendContext> Ctx =
        resolveBackendContext(Registry, Target, "cpu -mcpu=x86-64-v3", "auto", RO);
    if (!Ctx)
      violation("target '" + llvm::Twine(Target) + "' does not resolve: " +
                    llvm::toString(Ctx.takeError()),
                Program);
    std::unique_ptr<Module> Copy = M.clone();
    std::string Diags;
    llvm::raw_string_ostream DiagOS(Diags);
    DiagnosticEngine Diag(&SM, &DiagOS);
    Diag.setHandler([&](const Diagnostic &D) {
      if (D.Loc.isValid() && SM.FindBufferContainingLoc(D.Loc) != BufferID)
        violation("target '" + llvm::Twine(Target) +
                      "': a diagnostic points outside the input: " + D.Message,
                  Program);
      DiagOS << D.Message << "\n";
    });
    llvm::Expected<KernelArtifact> A = compileModule(Registry, *Ctx, *Copy, Diag);
    if (!A) {
      std::string Msg = llvm::toString(A.takeError());
      if (Msg.empty() && !Diag.hadError())
        violation("target '" + llvm::Twine(Target) +
                      "' rejected the program without saying why",
                  Program);
      continue;
    }
    auto It = A->Notes.find("device-llvm");
    if (It != A->Notes.end())
      verifyLLVMText(It->second, "device LLVM IR", Target, Program);
    verifyLLVMText(A->HostIR, "host LLVM IR", Target, Program);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Program;
  if (Size && Data[0] == 0xFF) {
    ByteChoices Choices(llvm::ArrayRef<uint8_t>(Data + 1, Size - 1));
    Program = generateKernel(Choices).Text;
  } else {
    Program.assign(reinterpret_cast<const char *>(Data), Size);
  }
  llvm::SourceMgr SM;
  TileContext Ctx;
  getRegistry().registerDialects(Ctx.getOpRegistry());
  unsigned BufferID = 0;
  std::unique_ptr<Module> M = parse(Program, SM, Ctx, BufferID);
  if (!M) {
    if (Size && Data[0] == 0xFF) {
      // The generator must write valid programs: show why this one is not.
      std::string Msg;
      llvm::raw_string_ostream OS(Msg);
      llvm::SourceMgr SM2;
      TileContext Ctx2;
      getRegistry().registerDialects(Ctx2.getOpRegistry());
      DiagnosticEngine Diag(&SM2, &OS);
      unsigned ID = SM2.AddNewSourceBuffer(
          llvm::MemoryBuffer::getMemBufferCopy(Program, "generated.tile"),
          llvm::SMLoc());
      if (std::unique_ptr<Module> M2 = parseModule(SM2, ID, Ctx2, Diag))
        verifyModule(*M2, Diag);
      violation("the kernel generator wrote an invalid program", Program, Msg);
    }
    return 0;
  }
  compileForEveryTarget(*M, SM, BufferID, Program);
  return 0;
}
