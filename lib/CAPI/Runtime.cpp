//===- Runtime.cpp - Artifacts, executors and launches of the C API -------===//
//
// Everything here is libTileExec: artifacts are read and written, loaded on
// an executor and launched without the compiler.
//
//===----------------------------------------------------------------------===//

#include "CAPIImpl.h"
#include "tile/Exec/ExecutionBackend.h"

using namespace tile::capi;

static TileErrorRef takeArtifact(llvm::Expected<tile::KernelArtifact> A,
                                 TileArtifactRef *Out) {
  if (!A)
    return wrap(A.takeError(), TILE_ERROR_IO);
  auto R = std::make_unique<TileOpaqueArtifact>();
  R->A = std::move(*A);
  *Out = R.release();
  return nullptr;
}

TileErrorRef tileArtifactReadFromFile(const char *Path, TileArtifactRef *Out) {
  if (!Path || !Out)
    return nullArgument("tileArtifactReadFromFile",
                        !Path ? "the path" : "the result pointer");
  return takeArtifact(tile::KernelArtifact::readFromFile(Path), Out);
}

TileErrorRef tileArtifactReadFromMemory(const void *Data, size_t Size,
                                        TileArtifactRef *Out) {
  if ((!Data && Size) || !Out)
    return nullArgument("tileArtifactReadFromMemory",
                        !Out ? "the result pointer" : "the data");
  return takeArtifact(tile::KernelArtifact::deserialize(
                          llvm::StringRef(static_cast<const char *>(Data), Size)),
                      Out);
}

TileErrorRef tileArtifactWriteToFile(TileArtifactRef A, const char *Path) {
  if (!A || !Path)
    return nullArgument("tileArtifactWriteToFile",
                        !A ? "the artifact" : "the path");
  return wrap(A->A.writeToFile(Path), TILE_ERROR_IO);
}

void tileArtifactGetData(TileArtifactRef A, const void **Data, size_t *Size) {
  if (!A || !Data || !Size)
    return;
  if (!A->Data)
    A->Data = A->A.serialize();
  *Data = A->Data->data();
  *Size = A->Data->size();
}

void tileArtifactDestroy(TileArtifactRef A) { delete A; }

const char *tileArtifactGetTarget(TileArtifactRef A) {
  return A ? A->A.Target.c_str() : nullptr;
}

const char *tileArtifactGetExecBackend(TileArtifactRef A) {
  return A ? A->A.ExecBackend.c_str() : nullptr;
}

size_t tileArtifactGetNumEntries(TileArtifactRef A) {
  return A ? A->A.Entries.size() : 0;
}

static const tile::ArtifactEntry *getEntry(TileArtifactRef A, size_t Entry) {
  return A && Entry < A->A.Entries.size() ? &A->A.Entries[Entry] : nullptr;
}

static const tile::ArtifactParam *getParam(TileArtifactRef A, size_t Entry,
                                           size_t Param) {
  const tile::ArtifactEntry *E = getEntry(A, Entry);
  return E && Param < E->Params.size() ? &E->Params[Param] : nullptr;
}

const char *tileArtifactGetEntryName(TileArtifactRef A, size_t Entry) {
  const tile::ArtifactEntry *E = getEntry(A, Entry);
  return E ? E->Name.c_str() : nullptr;
}

int64_t tileArtifactGetNumParams(TileArtifactRef A, size_t Entry) {
  const tile::ArtifactEntry *E = getEntry(A, Entry);
  return E ? int64_t(E->Params.size()) : -1;
}

const char *tileArtifactGetParamName(TileArtifactRef A, size_t Entry,
                                     size_t Param) {
  const tile::ArtifactParam *P = getParam(A, Entry, Param);
  return P ? P->Name.c_str() : nullptr;
}

int32_t tileArtifactGetParamKind(TileArtifactRef A, size_t Entry, size_t Param) {
  const tile::ArtifactParam *P = getParam(A, Entry, Param);
  if (!P)
    return -1;
  switch (P->K) {
  case tile::ArtifactParam::Kind::Tensor:
    return TILE_ARG_TENSOR;
  case tile::ArtifactParam::Kind::Int:
    return TILE_ARG_INT;
  case tile::ArtifactParam::Kind::Float:
    return TILE_ARG_FLOAT;
  }
  return -1;
}

const char *tileArtifactGetParamDType(TileArtifactRef A, size_t Entry,
                                      size_t Param) {
  const tile::ArtifactParam *P = getParam(A, Entry, Param);
  return P ? P->DType.c_str() : nullptr;
}

int64_t tileArtifactGetParamRank(TileArtifactRef A, size_t Entry,
                                 size_t Param) {
  const tile::ArtifactParam *P = getParam(A, Entry, Param);
  return P ? int64_t(P->Shape.size()) : -1;
}

int64_t tileArtifactGetParamNumStrides(TileArtifactRef A, size_t Entry,
                                       size_t Param) {
  const tile::ArtifactParam *P = getParam(A, Entry, Param);
  return P ? int64_t(P->Strides.size()) : -1;
}

TileErrorRef tileExecutorCreate(const char *Backend, unsigned NumThreads,
                                TileExecutorRef *Out) {
  if (!Backend || !Out)
    return nullArgument("tileExecutorCreate",
                        !Backend ? "the backend name" : "the result pointer");
  const tile::ExecBackendInfo *Info = tile::lookupExecBackend(Backend);
  if (!Info) {
    std::string Names;
    for (const tile::ExecBackendInfo &I : tile::getExecBackends())
      Names += (Names.empty() ? "" : ", ") + std::string(I.Name);
    return makeError(TILE_ERROR_TARGET, "unknown execution backend '" +
                                            llvm::Twine(Backend) +
                                            "'; expected one of: " + Names);
  }
  tile::ExecutorOptions Opts;
  Opts.NumThreads = NumThreads;
  llvm::Expected<std::unique_ptr<tile::Executor>> E =
      tile::Executor::create(Info->Kind, Opts);
  if (!E)
    return wrap(E.takeError(), TILE_ERROR_EXECUTION);
  *Out = new TileOpaqueExecutor{std::move(*E)};
  return nullptr;
}

void tileExecutorDestroy(TileExecutorRef E) { delete E; }

int32_t tileExecutorGetDeviceType(TileExecutorRef E) {
  return E ? E->E->getDLDeviceType() : 0;
}

TileErrorRef tileExecutorSynchronize(TileExecutorRef E) {
  if (!E)
    return nullArgument("tileExecutorSynchronize", "the executor");
  return wrap(E->E->synchronize(), TILE_ERROR_EXECUTION);
}

TileErrorRef tileExecutorAllocate(TileExecutorRef E, size_t Bytes, void **Out) {
  if (!E || !Out)
    return nullArgument("tileExecutorAllocate",
                        !E ? "the executor" : "the result pointer");
  llvm::Expected<void *> P = E->E->allocate(Bytes);
  if (!P)
    return wrap(P.takeError(), TILE_ERROR_EXECUTION);
  *Out = *P;
  return nullptr;
}

void tileExecutorFree(TileExecutorRef E, void *Ptr) {
  if (E && Ptr)
    E->E->deallocate(Ptr);
}

TileErrorRef tileExecutorCopyToDevice(TileExecutorRef E, void *Dst,
                                      const void *Src, size_t Bytes) {
  if (!E || ((!Dst || !Src) && Bytes))
    return nullArgument("tileExecutorCopyToDevice",
                        !E ? "the executor" : "a pointer");
  return wrap(E->E->copyToDevice(Dst, Src, Bytes), TILE_ERROR_EXECUTION);
}

TileErrorRef tileExecutorCopyFromDevice(TileExecutorRef E, void *Dst,
                                        const void *Src, size_t Bytes) {
  if (!E || ((!Dst || !Src) && Bytes))
    return nullArgument("tileExecutorCopyFromDevice",
                        !E ? "the executor" : "a pointer");
  return wrap(E->E->copyFromDevice(Dst, Src, Bytes), TILE_ERROR_EXECUTION);
}

TileErrorRef tileProgramLoad(TileExecutorRef E, TileArtifactRef A,
                             TileProgramRef *Out) {
  if (!E || !A || !Out)
    return nullArgument("tileProgramLoad",
                        !E ? "the executor" : !A ? "the artifact" : "the result pointer");
  llvm::Expected<std::unique_ptr<tile::LoadedArtifact>> L = E->E->load(A->A);
  if (!L)
    return makeError(TILE_ERROR_EXECUTION,
                     "cannot load the artifact on '" +
                         llvm::Twine(tile::getExecBackendInfo(E->E->getKind()).Name) +
                         "': " + llvm::toString(L.takeError()));
  *Out = new TileOpaqueProgram{std::move(*L)};
  return nullptr;
}

void tileProgramDestroy(TileProgramRef P) { delete P; }

/// Resolves \p Entry of \p P for \p Fn: NULL names the only entry point.
static TileErrorRef resolveEntry(TileProgramRef P, const char *Fn,
                                 const char *&Entry) {
  const tile::KernelArtifact &A = P->L->getArtifact();
  if (Entry)
    return A.findEntry(Entry)
               ? nullptr
               : wrap(A.missingEntry(Entry), TILE_ERROR_TARGET);
  if (A.Entries.size() != 1)
    return makeError(TILE_ERROR_TARGET, llvm::Twine(Fn) + ": the artifact has " +
                                            llvm::Twine(A.Entries.size()) +
                                            " entry points; name one");
  Entry = A.Entries.front().Name.c_str();
  return nullptr;
}

/// The result of a launch: an argument the entry point refused is a
/// TILE_ERROR_ARGUMENT, any other failure a TILE_ERROR_EXECUTION.
static TileErrorRef wrapLaunch(llvm::Error E) {
  if (!E)
    return nullptr;
  TileErrorKind Kind = TILE_ERROR_EXECUTION;
  E = llvm::handleErrors(
      std::move(E),
      [&](std::unique_ptr<tile::ArgumentError> AE) -> llvm::Error {
        Kind = TILE_ERROR_ARGUMENT;
        return llvm::Error(std::move(AE));
      });
  return wrap(std::move(E), Kind);
}

TileErrorRef tileProgramLaunch(TileProgramRef P, const char *Entry,
                               const TileArg *Args, size_t NumArgs) {
  if (!P || (!Args && NumArgs))
    return nullArgument("tileProgramLaunch", !P ? "the program" : "the arguments");
  if (TileErrorRef Err = resolveEntry(P, "tileProgramLaunch", Entry))
    return Err;
  return wrapLaunch(P->L->call(Entry, llvm::ArrayRef<TileArg>(Args, NumArgs)));
}

TileErrorRef tileProgramPrepareLaunch(TileProgramRef P, const char *Entry,
                                      TileLaunchRef *Out) {
  if (!P || !Out)
    return nullArgument("tileProgramPrepareLaunch",
                        !P ? "the program" : "the result pointer");
  if (TileErrorRef Err = resolveEntry(P, "tileProgramPrepareLaunch", Entry))
    return Err;
  llvm::Expected<std::unique_ptr<tile::PreparedEntry>> L = P->L->prepare(Entry);
  if (!L)
    return wrap(L.takeError(), TILE_ERROR_EXECUTION);
  *Out = new TileOpaqueLaunch{std::move(*L)};
  return nullptr;
}

void tileLaunchDestroy(TileLaunchRef L) { delete L; }

TileErrorRef tileLaunchCall(TileLaunchRef L, const TileArg *Args,
                            size_t NumArgs) {
  if (!L || (!Args && NumArgs))
    return nullArgument("tileLaunchCall", !L ? "the launch" : "the arguments");
  return wrapLaunch(L->P->call(llvm::ArrayRef<TileArg>(Args, NumArgs)));
}

TileErrorRef tileLaunchCallPacked(const TileLaunchCallArgs *Call) {
  if (!Call)
    return nullArgument("tileLaunchCallPacked", "the call");
  return tileLaunchCall(Call->Launch, Call->Args, Call->NumArgs);
}
