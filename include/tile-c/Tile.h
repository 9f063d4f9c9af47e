/*===- tile-c/Tile.h - The C API of Tile ---------------------------*- C -*-===*\
|*                                                                            *|
|* A stable C interface to Tile, in the style of LLVM-C and MLIR-C, for      *|
|* programs and languages that cannot use the C++ libraries: parse a module, *|
|* resolve a target, compile to an artifact (in memory or a file), load an   *|
|* artifact on an execution backend and launch its functions with DLPack     *|
|* tensors and scalars. libTileCAPI (a shared library) implements it.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* Conventions.
 *
 * - Objects are opaque handles (`TileXxxRef`), created by a function of
 *   this header and released by the matching `...Destroy`, which accepts
 *   NULL.
 * - A function that can fail returns a TileErrorRef: NULL on success, or an
 *   error the caller owns and releases with tileErrorDestroy. Its message
 *   says what went wrong; for errors in Tile source it is located
 *   (`file:line:col: error: ...`, the source line and a caret), exactly as
 *   the tools print it. No function aborts on bad input.
 * - Results come back through out-parameters, which are written only on
 *   success.
 * - Strings passed in are NUL-terminated UTF-8 and are copied; strings
 *   returned stay valid as long as the object they come from.
 * - Handles are not thread-safe: use one from one thread at a time.
 */

#ifndef TILE_C_TILE_H
#define TILE_C_TILE_H

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#include "tile/Exec/RuntimeABI.h" /* TileArg */

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define TILE_CAPI_EXPORT __attribute__((visibility("default")))
#else
#define TILE_CAPI_EXPORT
#endif

/*===-- Errors and version ------------------------------------------------===*/

typedef struct TileOpaqueError *TileErrorRef;

/** What kind of failure an error is. */
typedef enum TileErrorKind {
  /** The Tile source is malformed or invalid (the message is located). */
  TILE_ERROR_SOURCE = 1,
  /** The target string, execution backend name or entry name is unknown
   *  or invalid. */
  TILE_ERROR_TARGET = 2,
  /** The pipeline or code generation failed for a valid module. */
  TILE_ERROR_COMPILE = 3,
  /** A file could not be read or written, or an artifact is corrupt. */
  TILE_ERROR_IO = 4,
  /** An execution backend is unavailable or failed (driver, memory). */
  TILE_ERROR_EXECUTION = 5,
  /** A launch was refused: the arguments do not match the entry point
   *  (count, kind, dtype, rank, shape, strides, device, alignment). */
  TILE_ERROR_ARGUMENT = 6,
  /** A NULL handle or pointer was passed where one is required. */
  TILE_ERROR_INVALID_CALL = 7,
} TileErrorKind;

TILE_CAPI_EXPORT TileErrorKind tileErrorGetKind(TileErrorRef Error);
/** The message; valid until the error is destroyed. */
TILE_CAPI_EXPORT const char *tileErrorGetMessage(TileErrorRef Error);
TILE_CAPI_EXPORT void tileErrorDestroy(TileErrorRef Error);

/** Tile's version and the commit it was built from ("0.1.0 (abc1234)"). */
TILE_CAPI_EXPORT const char *tileGetVersion(void);

/*===-- Compiling: context, module, target, artifact ----------------------===*/

typedef struct TileOpaqueContext *TileContextRef;
typedef struct TileOpaqueModule *TileModuleRef;
typedef struct TileOpaqueTarget *TileTargetRef;
typedef struct TileOpaqueArtifact *TileArtifactRef;

/** A context holds the registered target backends (every built-in one).
 *  Modules and targets made from it must be destroyed before it. */
TILE_CAPI_EXPORT TileErrorRef tileContextCreate(TileContextRef *Out);
TILE_CAPI_EXPORT void tileContextDestroy(TileContextRef Ctx);

/** Parses and verifies Tile source text of \p Length bytes; \p Name names
 *  it in diagnostics (NULL: "<string>"). */
TILE_CAPI_EXPORT TileErrorRef tileModuleParseString(TileContextRef Ctx,
                                                    const char *Source,
                                                    size_t Length,
                                                    const char *Name,
                                                    TileModuleRef *Out);
/** Reads, parses and verifies a .tile file. */
TILE_CAPI_EXPORT TileErrorRef tileModuleParseFile(TileContextRef Ctx,
                                                  const char *Path,
                                                  TileModuleRef *Out);
TILE_CAPI_EXPORT void tileModuleDestroy(TileModuleRef M);
TILE_CAPI_EXPORT size_t tileModuleGetNumFunctions(TileModuleRef M);
/** The name of function \p Index (without '@'); NULL when out of range. */
TILE_CAPI_EXPORT const char *tileModuleGetFunctionName(TileModuleRef M,
                                                       size_t Index);

/** Resolves a target string ("cpu", "cuda -arch=sm_90a", "hip
 *  -mcpu=gfx942", ...) and an execution backend (NULL or "auto": the
 *  first compatible one in the backend's order) to one target backend.
 *  Resolution is for compilation: the execution backend need not be
 *  available on this machine. */
TILE_CAPI_EXPORT TileErrorRef tileTargetResolve(TileContextRef Ctx,
                                                const char *Target,
                                                const char *ExecBackend,
                                                TileTargetRef *Out);
TILE_CAPI_EXPORT void tileTargetDestroy(TileTargetRef T);
/** The canonical target string, with every attribute ("cpu -mcpu=..."). */
TILE_CAPI_EXPORT const char *tileTargetGetName(TileTargetRef T);
/** The execution backend the artifacts of this target run on ("orc"). */
TILE_CAPI_EXPORT const char *tileTargetGetExecBackend(TileTargetRef T);

/** Compiles function \p Entry of \p M (NULL: every function) for \p T;
 *  a function with tunable parameters compiles in their default config.
 *  \p M is not changed: it can be compiled again, for other targets. */
TILE_CAPI_EXPORT TileErrorRef tileCompile(TileModuleRef M, TileTargetRef T,
                                          const char *Entry,
                                          TileArtifactRef *Out);

/*===-- Artifacts ----------------------------------------------------------===*/

/** Reads an artifact written by tileArtifactWriteToFile or
 *  `tile-llc -emit=artifact`. Corrupt files are TILE_ERROR_IO. */
TILE_CAPI_EXPORT TileErrorRef tileArtifactReadFromFile(const char *Path,
                                                       TileArtifactRef *Out);
TILE_CAPI_EXPORT TileErrorRef tileArtifactReadFromMemory(const void *Data,
                                                         size_t Size,
                                                         TileArtifactRef *Out);
TILE_CAPI_EXPORT TileErrorRef tileArtifactWriteToFile(TileArtifactRef A,
                                                      const char *Path);
/** The serialized artifact (the bytes of its file), valid as long as \p A. */
TILE_CAPI_EXPORT void tileArtifactGetData(TileArtifactRef A, const void **Data,
                                          size_t *Size);
TILE_CAPI_EXPORT void tileArtifactDestroy(TileArtifactRef A);

/** The canonical target string and execution backend it was compiled for. */
TILE_CAPI_EXPORT const char *tileArtifactGetTarget(TileArtifactRef A);
TILE_CAPI_EXPORT const char *tileArtifactGetExecBackend(TileArtifactRef A);

/** Entry points (one per compiled function) and their parameters. Index
 *  arguments out of range give NULL, or -1 for the integer getters. */
TILE_CAPI_EXPORT size_t tileArtifactGetNumEntries(TileArtifactRef A);
TILE_CAPI_EXPORT const char *tileArtifactGetEntryName(TileArtifactRef A,
                                                      size_t Entry);
TILE_CAPI_EXPORT int64_t tileArtifactGetNumParams(TileArtifactRef A,
                                                  size_t Entry);
TILE_CAPI_EXPORT const char *tileArtifactGetParamName(TileArtifactRef A,
                                                      size_t Entry,
                                                      size_t Param);
/** enum TileArgKind: TILE_ARG_TENSOR, TILE_ARG_INT or TILE_ARG_FLOAT. */
TILE_CAPI_EXPORT int32_t tileArtifactGetParamKind(TileArtifactRef A,
                                                  size_t Entry, size_t Param);
/** The Tile dtype's spelling ("f16", "i32"). */
TILE_CAPI_EXPORT const char *tileArtifactGetParamDType(TileArtifactRef A,
                                                       size_t Entry,
                                                       size_t Param);
/** The declared rank of a tensor parameter (0 for scalars). */
TILE_CAPI_EXPORT int64_t tileArtifactGetParamRank(TileArtifactRef A,
                                                  size_t Entry, size_t Param);
/** How many strides a tensor parameter declares (`strides(S, 1)`): 0 for
 *  one without, which takes a row-major tensor (a DLTensor whose strides
 *  are NULL, or row-major wherever an extent is not 1); otherwise its
 *  rank. 0 for scalars. */
TILE_CAPI_EXPORT int64_t tileArtifactGetParamNumStrides(TileArtifactRef A,
                                                        size_t Entry,
                                                        size_t Param);

/*===-- Running: executor, program, launch --------------------------------===*/

typedef struct TileOpaqueExecutor *TileExecutorRef;
typedef struct TileOpaqueProgram *TileProgramRef;

/** Starts execution backend \p Backend ("orc", "cuda", "hsa", ...; see
 *  `tile-llc -print-targets`). Fails with the probe's reason when it is not
 *  available here. \p NumThreads: worker threads of host backends (0: one
 *  per hardware thread). */
TILE_CAPI_EXPORT TileErrorRef tileExecutorCreate(const char *Backend,
                                                 unsigned NumThreads,
                                                 TileExecutorRef *Out);
/** Programs loaded on \p E must be destroyed before it. */
TILE_CAPI_EXPORT void tileExecutorDestroy(TileExecutorRef E);
/** The DLPack device type of the executor's memory (kDLCPU, kDLCUDA, ...):
 *  tensors passed to its programs must be on it. */
TILE_CAPI_EXPORT int32_t tileExecutorGetDeviceType(TileExecutorRef E);
/** Waits for all work launched on \p E. */
TILE_CAPI_EXPORT TileErrorRef tileExecutorSynchronize(TileExecutorRef E);
/** Device memory of the executor, for callers that have none of their own. */
TILE_CAPI_EXPORT TileErrorRef tileExecutorAllocate(TileExecutorRef E,
                                                   size_t Bytes, void **Out);
TILE_CAPI_EXPORT void tileExecutorFree(TileExecutorRef E, void *Ptr);
TILE_CAPI_EXPORT TileErrorRef tileExecutorCopyToDevice(TileExecutorRef E,
                                                       void *Dst,
                                                       const void *Src,
                                                       size_t Bytes);
TILE_CAPI_EXPORT TileErrorRef tileExecutorCopyFromDevice(TileExecutorRef E,
                                                         void *Dst,
                                                         const void *Src,
                                                         size_t Bytes);

/** Builds and loads \p A on \p E (the artifact is copied). */
TILE_CAPI_EXPORT TileErrorRef tileProgramLoad(TileExecutorRef E,
                                              TileArtifactRef A,
                                              TileProgramRef *Out);
TILE_CAPI_EXPORT void tileProgramDestroy(TileProgramRef P);

/** Calls entry point \p Entry with \p NumArgs arguments in parameter order:
 *  tensors as DLTensor pointers (tileArgTensor), integer and float scalars
 *  by value. The generated entry point checks every argument (count, kind,
 *  device, rank, dtype, shape, strides, alignment) before anything runs and
 *  a mismatch is a TILE_ERROR_ARGUMENT naming the parameter. On GPU
 *  backends the launch is asynchronous (the default stream): call
 *  tileExecutorSynchronize before reading results. Outputs are written in
 *  place, into the tensors' memory. */
TILE_CAPI_EXPORT TileErrorRef tileProgramLaunch(TileProgramRef P,
                                                const char *Entry,
                                                const TileArg *Args,
                                                size_t NumArgs);

/*===-- Prepared launches --------------------------------------------------===*/

typedef struct TileOpaqueLaunch *TileLaunchRef;

/** Entry point \p Entry of \p P (NULL: its only one) made ready for
 *  repeated launches: the entry, its host function and its kernels are
 *  looked up here once, so that tileLaunchCall does only what each launch
 *  needs. Destroy it before \p P. */
TILE_CAPI_EXPORT TileErrorRef tileProgramPrepareLaunch(TileProgramRef P,
                                                       const char *Entry,
                                                       TileLaunchRef *Out);
TILE_CAPI_EXPORT void tileLaunchDestroy(TileLaunchRef L);

/** Calls the prepared entry point, as tileProgramLaunch does: every
 *  argument is checked by the entry point before anything runs, and a
 *  mismatch is a TILE_ERROR_ARGUMENT naming the parameter. */
TILE_CAPI_EXPORT TileErrorRef tileLaunchCall(TileLaunchRef L,
                                             const TileArg *Args,
                                             size_t NumArgs);

/** tileLaunchCall's arguments in memory, for tileLaunchCallPacked. */
typedef struct TileLaunchCallArgs {
  TileLaunchRef Launch;
  const TileArg *Args;
  size_t NumArgs;
} TileLaunchCallArgs;

/** tileLaunchCall(Call->Launch, Call->Args, Call->NumArgs): the same call
 *  with one argument, for bindings that pay for each argument they pass
 *  (Python's ctypes: about 0.12 us an argument on the H200 machine's CPU,
 *  bench/gpu/python_h200.py), which can then keep the three in memory. */
TILE_CAPI_EXPORT TileErrorRef
tileLaunchCallPacked(const TileLaunchCallArgs *Call);

/** Argument constructors. A DLManagedTensor is passed as
 *  tileArgTensor(&Managed->dl_tensor); ownership stays with the caller. */
static inline TileArg tileArgTensor(DLTensor *T) {
  TileArg A;
  A.value.tensor = T;
  A.kind = TILE_ARG_TENSOR;
  A.reserved = 0;
  return A;
}
static inline TileArg tileArgInt(int64_t V) {
  TileArg A;
  A.value.i64 = V;
  A.kind = TILE_ARG_INT;
  A.reserved = 0;
  return A;
}
static inline TileArg tileArgFloat(double V) {
  TileArg A;
  A.value.f64 = V;
  A.kind = TILE_ARG_FLOAT;
  A.reserved = 0;
  return A;
}

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_TILE_H */
