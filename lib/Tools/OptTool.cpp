//===- OptTool.cpp - The logic of tile-opt --------------------------------===//
//
// Parse (with every registered dialect), verify, run -passes and print; or
// check the expected-* comments; chunk by chunk with -split-input-file.
//
//===----------------------------------------------------------------------===//

#include "tile/Tools/OptTool.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Verifier.h"
#include "tile/IR/VerifyDiagnostics.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace tile;

namespace {

class Opt {
public:
  Opt(const OptOptions &O, const TargetRegistry &R, llvm::raw_ostream &Err)
      : Opts(O), Registry(R), Err(Err) {
    registerTransformsPasses(Passes);
    // Each backend's own passes, as its .td declares them.
    for (const TargetBackendInfo *B : Registry.getBackends())
      if (B->RegisterPasses)
        B->RegisterPasses(Passes);
  }

  const PassRegistry &getPasses() const { return Passes; }
  /// Processes one buffer. Returns true on success.
  bool processBuffer(std::unique_ptr<llvm::MemoryBuffer> Buf,
                     llvm::raw_ostream &OS);

private:
  const OptOptions &Opts;
  const TargetRegistry &Registry;
  llvm::raw_ostream &Err;
  PassRegistry Passes;
};

} // namespace

bool Opt::processBuffer(std::unique_ptr<llvm::MemoryBuffer> Buf,
                        llvm::raw_ostream &OS) {
  llvm::SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(std::move(Buf), llvm::SMLoc());
  TileContext Ctx;
  Ctx.getRemarks().setFilter(Opts.Remarks);
  Ctx.getRemarks().setOutput(&Err);
  if (Opts.PrintLayouts)
    Ctx.setLayoutOutput(&OS);
  // Every backend's dialect ops: backend passes produce them.
  Registry.registerDialects(Ctx.getOpRegistry());
  DiagnosticEngine Diag(&SM, &Err);
  std::unique_ptr<ExpectedDiagnostics> Expect;
  if (Opts.VerifyDiagnostics)
    Expect = std::make_unique<ExpectedDiagnostics>(SM, ID, Diag);
  std::unique_ptr<Module> M = parseModule(SM, ID, Ctx, Diag);
  bool OK = M != nullptr;
  if (M && !Opts.NoVerify)
    OK = verifyModule(*M, Diag);
  if (OK && (!Opts.Passes.empty() || !Opts.Params.empty())) {
    llvm::Expected<TunableConfig> C = parseParamAssignments(Opts.Params);
    if (!C) {
      Err << "tile-opt: error: " << llvm::toString(C.takeError()) << "\n";
      return false;
    }
    if (llvm::Error E = specializeAndVerifyModule(*M, *C, Diag)) {
      std::string Msg = llvm::toString(std::move(E));
      if (!Diag.hadError())
        Err << "tile-opt: error: " << Msg << "\n";
      OK = false;
    }
  }
  if (OK && !Opts.Passes.empty()) {
    PassManager PM;
    if (llvm::Error E = parsePassPipeline(Opts.Passes, Passes, PM)) {
      Err << "tile-opt: error: " << llvm::toString(std::move(E)) << "\n";
      return false;
    }
    PM.setInstrumentation(Opts.Instrumentation);
    PassState State{Diag};
    OK = PM.run(*M, State);
  }
  if (Expect)
    return Expect->check(Err);
  if (!OK)
    return false;
  printModule(*M, OS);
  return true;
}

int tile::runOpt(const OptOptions &Opts, const TargetRegistry &Registry,
                 llvm::raw_ostream &Out, llvm::raw_ostream &Err) {
  Opt O(Opts, Registry, Err);
  if (Opts.ListPasses) {
    for (const PassInfo *P : O.getPasses().getPasses())
      Out << P->Name << " - " << P->Summary << "\n";
    return 0;
  }
  auto BufOrErr =
      llvm::MemoryBuffer::getFileOrSTDIN(Opts.InputFile, /*IsText=*/true);
  if (!BufOrErr) {
    Err << "tile-opt: error: cannot read '" << Opts.InputFile
        << "': " << BufOrErr.getError().message() << "\n";
    return 1;
  }
  std::error_code EC;
  llvm::ToolOutputFile File(Opts.OutputFile, EC, llvm::sys::fs::OF_Text);
  if (EC) {
    Err << "tile-opt: error: cannot open '" << Opts.OutputFile
        << "': " << EC.message() << "\n";
    return 1;
  }
  llvm::StringRef Name = (*BufOrErr)->getBufferIdentifier();
  llvm::StringRef Text = (*BufOrErr)->getBuffer();

  bool OK = true;
  if (!Opts.SplitInputFile) {
    OK = O.processBuffer(llvm::MemoryBuffer::getMemBufferCopy(Text, Name),
                         File.os());
  } else {
    // Split on lines that are exactly `// -----`; pad each chunk with the
    // newlines before it so that its diagnostics keep the file's lines.
    llvm::SmallVector<llvm::StringRef> Lines;
    Text.split(Lines, '\n');
    std::string Chunk;
    unsigned ChunkStart = 0;
    bool First = true;
    auto Flush = [&]() {
      if (!First)
        File.os() << "// -----\n";
      First = false;
      std::string Padded(ChunkStart, '\n');
      Padded += Chunk;
      OK &= O.processBuffer(llvm::MemoryBuffer::getMemBufferCopy(Padded, Name),
                            File.os());
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
  File.keep();
  return 0;
}
