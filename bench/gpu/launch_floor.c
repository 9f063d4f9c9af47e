/* launch_floor.c - the host time of a launch without Python, on the GPU
 * machine: tileLaunchCall of a prepared examples/elementwise_add.tile (the
 * kernel python_h200.py launches) beside cuLaunchKernel of an empty kernel
 * with the same arguments, so that what tileLaunchCall adds to the driver
 * (the entry point's checks, the runtime call) is its difference.
 *
 *   launch_floor <elementwise_add.tile> [target] [N]
 *
 * Built against include/tile-c and a TILE_BUNDLE libTileCAPI.so
 * (bench/gpu/run_python_h200.sh builds it where cc is found); libcuda.so.1
 * is opened with dlopen. Prints, per variant, host microseconds per launch
 * (median of 15 rounds) for rounds of 100 and of 2000 launches back to back,
 * synchronizing between rounds: a round of 100 stays far inside the
 * driver's queue, so the GPU's own pace does not enter it. */
#include "tile-c/Tile.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*cuLaunchKernel_t)(void *, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, unsigned, void *, void **,
                                void **);
typedef int (*cuModuleLoadData_t)(void **, const void *);
typedef int (*cuModuleGetFunction_t)(void **, void *, const char *);
typedef int (*cuCtxSynchronize_t)(void);

static const char NoopPtx[] =
    ".version 8.0\n.target sm_90a\n.address_size 64\n"
    ".visible .entry noop(.param .u64 a, .param .u64 b, .param .u64 c,\n"
    "                     .param .u32 n) { ret; }\n";

static int ok(TileErrorRef E, const char *What) {
  if (!E)
    return 1;
  fprintf(stderr, "launch_floor: %s: %s\n", What, tileErrorGetMessage(E));
  tileErrorDestroy(E);
  return 0;
}

static double now(void) {
  struct timespec T;
  clock_gettime(CLOCK_MONOTONIC, &T);
  return T.tv_sec + T.tv_nsec * 1e-9;
}

static int cmp(const void *A, const void *B) {
  double X = *(const double *)A, Y = *(const double *)B;
  return X < Y ? -1 : X > Y;
}

enum { Rounds = 15 };

/* Host seconds per call of Fn(Arg), R calls a round, median of Rounds. */
static double perCall(int (*Fn)(void *), void *Arg, int R,
                      cuCtxSynchronize_t Sync) {
  double T[Rounds];
  for (int I = 0; I != 50; ++I)
    if (Fn(Arg))
      return -1;
  Sync();
  for (int K = 0; K != Rounds; ++K) {
    double T0 = now();
    for (int I = 0; I != R; ++I)
      Fn(Arg);
    T[K] = (now() - T0) / R;
    Sync();
  }
  qsort(T, Rounds, sizeof(double), cmp);
  return T[Rounds / 2];
}

struct TileCall {
  TileLaunchRef L;
  TileArg *Args;
};
static int tileCall(void *P) {
  struct TileCall *C = P;
  TileErrorRef E = tileLaunchCall(C->L, C->Args, 3);
  return !ok(E, "tileLaunchCall");
}

struct CuCall {
  cuLaunchKernel_t Launch;
  void *Fn;
  void **Params;
};
static int cuCall(void *P) {
  struct CuCall *C = P;
  return C->Launch(C->Fn, 4, 1, 1, 256, 1, 1, 0, NULL, C->Params, NULL);
}
static int nothing(void *P) { return P == (void *)1; }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: launch_floor elementwise_add.tile [target] [N]\n");
    return 2;
  }
  const char *Target = argc > 2 ? argv[2] : "cuda -arch=sm_90a";
  int64_t N = argc > 3 ? atoll(argv[3]) : 4096;
  TileContextRef Ctx;
  TileModuleRef M;
  TileTargetRef T;
  TileArtifactRef A;
  TileExecutorRef Ex;
  TileProgramRef P;
  TileLaunchRef L;
  if (!ok(tileContextCreate(&Ctx), "context") ||
      !ok(tileModuleParseFile(Ctx, argv[1], &M), "parse") ||
      !ok(tileTargetResolve(Ctx, Target, NULL, &T), "target") ||
      !ok(tileCompile(M, T, "add", &A), "compile") ||
      !ok(tileExecutorCreate(tileArtifactGetExecBackend(A), 0, &Ex),
          "executor") ||
      !ok(tileProgramLoad(Ex, A, &P), "load") ||
      !ok(tileProgramPrepareLaunch(P, "add", &L), "prepare"))
    return 1;
  void *Buf[3];
  DLTensor Ts[3];
  int64_t Shape[1] = {N};
  TileArg Args[3];
  for (int I = 0; I != 3; ++I) {
    if (!ok(tileExecutorAllocate(Ex, N * 4, &Buf[I]), "allocate"))
      return 1;
    memset(&Ts[I], 0, sizeof(DLTensor));
    Ts[I].data = Buf[I];
    Ts[I].device.device_type = kDLCUDA;
    Ts[I].ndim = 1;
    Ts[I].dtype.code = kDLFloat;
    Ts[I].dtype.bits = 32;
    Ts[I].dtype.lanes = 1;
    Ts[I].shape = Shape;
    Args[I] = tileArgTensor(&Ts[I]);
  }

  void *Cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Cu) {
    fprintf(stderr, "launch_floor: %s\n", dlerror());
    return 1;
  }
  cuLaunchKernel_t Launch = (cuLaunchKernel_t)dlsym(Cu, "cuLaunchKernel");
  cuModuleLoadData_t LoadData = (cuModuleLoadData_t)dlsym(Cu, "cuModuleLoadData");
  cuModuleGetFunction_t GetFn =
      (cuModuleGetFunction_t)dlsym(Cu, "cuModuleGetFunction");
  cuCtxSynchronize_t Sync = (cuCtxSynchronize_t)dlsym(Cu, "cuCtxSynchronize");
  void *Mod = NULL, *Noop = NULL;
  if (LoadData(&Mod, NoopPtx) || GetFn(&Noop, Mod, "noop")) {
    fprintf(stderr, "launch_floor: cannot load the empty kernel\n");
    return 1;
  }
  unsigned Nu = (unsigned)N;
  void *Params[4] = {&Buf[0], &Buf[1], &Buf[2], &Nu};

  struct TileCall TC = {L, Args};
  struct CuCall CC = {Launch, Noop, Params};
  printf("host time per launch, C, no Python (%s, N=%lld):\n", Target,
         (long long)N);
  for (int R = 100; R <= 2000; R += 1900) {
    double Tile = perCall(tileCall, &TC, R, Sync);
    double Cuda = perCall(cuCall, &CC, R, Sync);
    double Loop = perCall(nothing, NULL, R, Sync);
    printf("  rounds of %4d: tileLaunchCall %6.2f us, cuLaunchKernel (empty "
           "kernel) %6.2f us, difference %5.2f us (loop %.3f us)\n",
           R, Tile * 1e6, Cuda * 1e6, (Tile - Cuda) * 1e6, Loop * 1e6);
  }
  tileLaunchDestroy(L);
  tileProgramDestroy(P);
  for (int I = 0; I != 3; ++I)
    tileExecutorFree(Ex, Buf[I]);
  tileExecutorDestroy(Ex);
  tileArtifactDestroy(A);
  tileTargetDestroy(T);
  tileModuleDestroy(M);
  tileContextDestroy(Ctx);
  return 0;
}
