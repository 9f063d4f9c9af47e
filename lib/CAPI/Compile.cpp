//===- Compile.cpp - Context, module, target and compile of the C API -----===//
//
// Parsing and compilation capture the located diagnostics the tools print
// into the returned error, so a C caller sees exactly what tile-llc would.
//
//===----------------------------------------------------------------------===//

#include "CAPIImpl.h"
#include "tile/Driver/CompileModule.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/AllTargets.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tile::capi;

TileErrorRef tileContextCreate(TileContextRef *Out) {
  if (!Out)
    return nullArgument("tileContextCreate", "the result pointer");
  auto Ctx = std::make_unique<TileOpaqueContext>();
  if (llvm::Error E = tile::registerAllTargetBackends(Ctx->Registry))
    return wrap(std::move(E), TILE_ERROR_TARGET);
  *Out = Ctx.release();
  return nullptr;
}

void tileContextDestroy(TileContextRef Ctx) { delete Ctx; }

/// Parses and verifies buffer \p Buf into a new module of \p Ctx.
static TileErrorRef parse(TileContextRef Ctx,
                          std::unique_ptr<llvm::MemoryBuffer> Buf,
                          TileModuleRef *Out) {
  auto M = std::make_unique<TileOpaqueModule>();
  M->Ctx = Ctx;
  Ctx->Registry.registerDialects(M->IRCtx.getOpRegistry());
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  tile::DiagnosticEngine Diag(&M->SM, &OS);
  unsigned ID = M->SM.AddNewSourceBuffer(std::move(Buf), llvm::SMLoc());
  M->M = tile::parseModule(M->SM, ID, M->IRCtx, Diag);
  if (!M->M || !tile::verifyModule(*M->M, Diag))
    return makeError(TILE_ERROR_SOURCE, llvm::StringRef(Diags).rtrim());
  *Out = M.release();
  return nullptr;
}

TileErrorRef tileModuleParseString(TileContextRef Ctx, const char *Source,
                                   size_t Length, const char *Name,
                                   TileModuleRef *Out) {
  if (!Ctx || !Source || !Out)
    return nullArgument("tileModuleParseString",
                        !Ctx ? "the context" : !Source ? "the source" : "the result pointer");
  return parse(Ctx,
               llvm::MemoryBuffer::getMemBufferCopy(
                   llvm::StringRef(Source, Length), Name ? Name : "<string>"),
               Out);
}

TileErrorRef tileModuleParseFile(TileContextRef Ctx, const char *Path,
                                 TileModuleRef *Out) {
  if (!Ctx || !Path || !Out)
    return nullArgument("tileModuleParseFile",
                        !Ctx ? "the context" : !Path ? "the path" : "the result pointer");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf)
    return makeError(TILE_ERROR_IO, "cannot read '" + llvm::Twine(Path) +
                                        "': " + Buf.getError().message());
  return parse(Ctx, std::move(*Buf), Out);
}

void tileModuleDestroy(TileModuleRef M) { delete M; }

size_t tileModuleGetNumFunctions(TileModuleRef M) {
  return M ? M->M->getFunctions().size() : 0;
}

const char *tileModuleGetFunctionName(TileModuleRef M, size_t Index) {
  if (!M || Index >= M->M->getFunctions().size())
    return nullptr;
  // Names are stored NUL-terminated in the IR.
  return M->M->getFunctions()[Index]->getName().data();
}

TileErrorRef tileTargetResolve(TileContextRef Ctx, const char *Target,
                               const char *ExecBackend, TileTargetRef *Out) {
  if (!Ctx || !Target || !Out)
    return nullArgument("tileTargetResolve",
                        !Ctx ? "the context" : !Target ? "the target" : "the result pointer");
  tile::ResolveOptions RO;
  RO.RequireAvailable = false;
  llvm::Expected<tile::BackendContext> BC = tile::resolveBackendContext(
      Ctx->Registry, Target, "", ExecBackend ? ExecBackend : "auto", RO);
  if (!BC)
    return wrap(BC.takeError(), TILE_ERROR_TARGET);
  auto T = std::make_unique<TileOpaqueTarget>();
  T->Ctx = Ctx;
  T->Name = BC->getTarget().str();
  T->BC.emplace(std::move(*BC));
  *Out = T.release();
  return nullptr;
}

void tileTargetDestroy(TileTargetRef T) { delete T; }

const char *tileTargetGetName(TileTargetRef T) {
  return T ? T->Name.c_str() : nullptr;
}

const char *tileTargetGetExecBackend(TileTargetRef T) {
  return T && T->BC->hasExecBackend() ? T->BC->getExecBackend().Name : nullptr;
}

TileErrorRef tileCompile(TileModuleRef M, TileTargetRef T, const char *Entry,
                         TileArtifactRef *Out) {
  if (!M || !T || !Out)
    return nullArgument("tileCompile",
                        !M ? "the module" : !T ? "the target" : "the result pointer");
  // The pipeline transforms the module in place: compile a copy.
  std::unique_ptr<tile::Module> Copy;
  if (Entry) {
    tile::Function *F = M->M->lookupFunction(Entry);
    if (!F) {
      std::string Names;
      for (const auto &Fn : M->M->getFunctions())
        Names += (Names.empty() ? "@" : ", @") + Fn->getName().str();
      return makeError(TILE_ERROR_TARGET, "no function '@" + llvm::Twine(Entry) +
                                              "' in the module; it has: " +
                                              (Names.empty() ? "none" : Names));
    }
    Copy = std::make_unique<tile::Module>(M->IRCtx);
    Copy->addFunction(F->clone());
  } else {
    Copy = M->M->clone();
  }
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  tile::DiagnosticEngine Diag(&M->SM, &OS);
  // Located errors were reported to Diag; the returned error repeats them
  // in short.
  auto Failed = [&](llvm::Error E) {
    std::string Msg = llvm::toString(std::move(E));
    if (Diag.hadError())
      return makeError(TILE_ERROR_SOURCE, llvm::StringRef(Diags).rtrim());
    return makeError(TILE_ERROR_COMPILE, llvm::StringRef(Msg).rtrim());
  };
  // Functions with tunable parameters compile in their default config.
  if (llvm::Error E = tile::specializeAndVerifyModule(*Copy, {}, Diag))
    return Failed(std::move(E));
  llvm::Expected<tile::KernelArtifact> A =
      tile::compileModule(T->Ctx->Registry, *T->BC, *Copy, Diag);
  if (!A)
    return Failed(A.takeError());
  auto R = std::make_unique<TileOpaqueArtifact>();
  R->A = std::move(*A);
  *Out = R.release();
  return nullptr;
}
