//===- tile-opt.cpp - Parse, verify, transform and print Tile IR ----------===//
//
// The workhorse of the lit tests: reads a .tile file, verifies it and
// prints it in canonical form, after the passes of -passes (the shared
// ones and every backend's own). With -verify-diagnostics it checks the
// `// expected-error {{...}}` comments in the input instead; with
// -split-input-file each `// -----` separated chunk is processed alone,
// keeping its line numbers.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Verifier.h"
#include "tile/IR/VerifyDiagnostics.h"
#include "tile/Target/AllTargets.h"
#include "tile/Transforms/PassManager.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

static cl::opt<std::string> InputFile(cl::Positional, cl::desc("<input .tile>"),
                                      cl::init("-"));
static cl::opt<std::string> OutputFile("o", cl::desc("Output file"),
                                       cl::value_desc("filename"),
                                       cl::init("-"));
static cl::opt<bool> VerifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check that the diagnostics match the expected-* comments"));
static cl::opt<bool> SplitInputFile(
    "split-input-file",
    cl::desc("Process each '// -----' separated chunk on its own"));
static cl::opt<bool> NoVerify("no-verify",
                              cl::desc("Print without running the verifier"));
static cl::opt<std::string>
    Passes("passes", cl::desc("Pipeline to run, e.g. tile-simplify,"
                              "tile-lower-tile-ops{skip-gemm=true}"));
// -print-after-all, -print-before-all, -print-after=, -print-before= and
// -time-passes are LLVM's own options (libLLVM registers them; a second
// registration would clash): Tile's pass manager reads the same flags.
static cl::opt<bool> VerifyEach(
    "verify-each", cl::desc("Verify the IR after every pass (default on in "
                            "builds with assertions)"),
    cl::init(tile::PassInstrumentation().VerifyEach));
static cl::opt<bool> ListPasses("list-passes",
                                cl::desc("List the registered passes"));

static const tile::TargetRegistry &getTargets() {
  static tile::TargetRegistry Targets = [] {
    tile::TargetRegistry T;
    if (Error E = tile::registerAllTargetBackends(T))
      report_fatal_error(std::move(E));
    return T;
  }();
  return Targets;
}

static tile::PassRegistry &getPassRegistry() {
  static tile::PassRegistry R = [] {
    tile::PassRegistry Reg;
    tile::registerTransformsPasses(Reg);
    // Each backend's own passes, as its .td declares them.
    for (const tile::TargetBackendInfo *B : getTargets().getBackends())
      if (B->RegisterPasses)
        B->RegisterPasses(Reg);
    return Reg;
  }();
  return R;
}

/// Processes one buffer. Returns true on success.
static bool processBuffer(std::unique_ptr<MemoryBuffer> Buf, raw_ostream &OS) {
  SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(std::move(Buf), SMLoc());
  tile::TileContext Ctx;
  // Every backend's dialect, so that its ops parse and its passes can
  // create them.
  getTargets().registerDialects(Ctx.getOpRegistry());
  tile::DiagnosticEngine Diag(&SM);
  std::unique_ptr<tile::ExpectedDiagnostics> Expect;
  if (VerifyDiagnostics)
    Expect = std::make_unique<tile::ExpectedDiagnostics>(SM, ID, Diag);
  std::unique_ptr<tile::Module> M = tile::parseModule(SM, ID, Ctx, Diag);
  bool OK = M != nullptr;
  if (M && !NoVerify)
    OK = tile::verifyModule(*M, Diag);
  if (OK && !Passes.empty()) {
    tile::PassManager PM;
    if (Error E = tile::parsePassPipeline(Passes, getPassRegistry(), PM)) {
      errs() << "tile-opt: error: " << toString(std::move(E)) << "\n";
      return false;
    }
    tile::PassInstrumentation I;
    I.PrintAfterAll = shouldPrintAfterAll();
    I.PrintBeforeAll = shouldPrintBeforeAll();
    I.PrintAfter = printAfterPasses();
    I.PrintBefore = printBeforePasses();
    I.TimePasses = TimePassesIsEnabled;
    I.VerifyEach = VerifyEach;
    PM.setInstrumentation(I);
    tile::PassState State{Diag};
    OK = PM.run(*M, State);
  }
  if (Expect)
    return Expect->check(errs());
  if (!OK)
    return false;
  tile::printModule(*M, OS);
  return true;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Tile IR optimizer and printer\n");

  if (ListPasses) {
    for (const tile::PassInfo *P : getPassRegistry().getPasses())
      outs() << P->Name << " - " << P->Summary << "\n";
    return 0;
  }
  auto BufOrErr = MemoryBuffer::getFileOrSTDIN(InputFile, /*IsText=*/true);
  if (!BufOrErr) {
    errs() << "tile-opt: error: cannot read '" << InputFile
           << "': " << BufOrErr.getError().message() << "\n";
    return 1;
  }
  std::error_code EC;
  ToolOutputFile Out(OutputFile, EC, sys::fs::OF_Text);
  if (EC) {
    errs() << "tile-opt: error: cannot open '" << OutputFile
           << "': " << EC.message() << "\n";
    return 1;
  }
  StringRef Name = (*BufOrErr)->getBufferIdentifier();
  StringRef Text = (*BufOrErr)->getBuffer();

  bool OK = true;
  if (!SplitInputFile) {
    OK = processBuffer(MemoryBuffer::getMemBufferCopy(Text, Name), Out.os());
  } else {
    // Split on lines that are exactly `// -----`; pad each chunk with the
    // newlines before it so that its diagnostics keep the file's lines.
    SmallVector<StringRef> Lines;
    Text.split(Lines, '\n');
    std::string Chunk;
    unsigned ChunkStart = 0;
    bool First = true;
    auto Flush = [&]() {
      if (!First)
        Out.os() << "// -----\n";
      First = false;
      std::string Padded(ChunkStart, '\n');
      Padded += Chunk;
      OK &= processBuffer(MemoryBuffer::getMemBufferCopy(Padded, Name),
                          Out.os());
    };
    for (unsigned I = 0; I != Lines.size(); ++I) {
      if (Lines[I].trim() == "// -----") {
        Flush();
        Chunk.clear();
        ChunkStart = I + 1;
        continue;
      }
      Chunk += Lines[I].str();
      Chunk += '\n';
    }
    Flush();
  }
  if (!OK)
    return 1;
  Out.keep();
  return 0;
}
