//===- run-add.cpp - Run an exported Tile artifact with libTileExec -------===//
//
// Loads an artifact of examples/elementwise_add.tile made by
// `tile-llc -emit=artifact` (for any target whose execution backend is
// available here), runs @add on N elements and checks C = A + B.
// It links libTileExec only: no parser, no compiler.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/Executor.h"
#include "tile/Exec/KernelArtifact.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlpack/dlpack.h>
#include <string>
#include <vector>

static int fail(const std::string &Msg) {
  std::fprintf(stderr, "run-add: error: %s\n", Msg.c_str());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return fail("usage: run-add <add.tart> <N>");
  int64_t N = std::atoll(argv[2]);
  if (N <= 0)
    return fail(std::string("N must be a positive integer, got '") + argv[2] + "'");

  llvm::Expected<tile::KernelArtifact> A =
      tile::KernelArtifact::readFromFile(argv[1]);
  if (!A)
    return fail(llvm::toString(A.takeError()));
  const tile::ExecBackendInfo *Backend = tile::lookupExecBackend(A->ExecBackend);
  if (!Backend)
    return fail("the artifact names an unknown execution backend '" +
                A->ExecBackend + "'");
  llvm::Expected<std::unique_ptr<tile::Executor>> E =
      tile::Executor::create(Backend->Kind);
  if (!E)
    return fail(llvm::toString(E.takeError()));
  tile::Executor &Ex = **E;
  llvm::Expected<std::unique_ptr<tile::LoadedArtifact>> L = Ex.load(*A);
  if (!L)
    return fail(llvm::toString(L.takeError()));

  // Inputs on the host, tensors in the executor's memory.
  size_t Bytes = size_t(N) * sizeof(float);
  std::vector<float> HostA(N), HostB(N), HostC(N, NAN);
  for (int64_t I = 0; I != N; ++I) {
    HostA[I] = float(I % 1000) * 0.25f;
    HostB[I] = float(I % 7) - 3.0f;
  }
  void *Mem[3];
  for (void *&M : Mem) {
    llvm::Expected<void *> P = Ex.allocate(Bytes);
    if (!P)
      return fail(llvm::toString(P.takeError()));
    M = *P;
  }
  const float *Init[3] = {HostA.data(), HostB.data(), HostC.data()};
  for (int I = 0; I != 3; ++I)
    if (llvm::Error Err = Ex.copyToDevice(Mem[I], Init[I], Bytes))
      return fail(llvm::toString(std::move(Err)));
  int64_t Shape[1] = {N};
  DLTensor T[3];
  TileArg Args[3];
  for (int I = 0; I != 3; ++I) {
    T[I] = DLTensor{Mem[I], {DLDeviceType(Ex.getDLDeviceType()), 0}, 1,
                    {kDLFloat, 32, 1}, Shape, nullptr, 0};
    Args[I].kind = TILE_ARG_TENSOR;
    Args[I].value.tensor = &T[I];
  }

  if (llvm::Error Err = (*L)->call("add", Args))
    return fail(llvm::toString(std::move(Err)));
  if (llvm::Error Err = Ex.synchronize())
    return fail(llvm::toString(std::move(Err)));
  if (llvm::Error Err = Ex.copyFromDevice(HostC.data(), Mem[2], Bytes))
    return fail(llvm::toString(std::move(Err)));
  for (void *M : Mem)
    Ex.deallocate(M);

  for (int64_t I = 0; I != N; ++I)
    if (HostC[I] != HostA[I] + HostB[I])
      return fail("C[" + std::to_string(I) + "] = " + std::to_string(HostC[I]) +
                  ", expected " + std::to_string(HostA[I] + HostB[I]));
  std::printf("add of %lld elements on %s (%s): ok\n", (long long)N,
              A->ExecBackend.c_str(), A->Target.c_str());
  return 0;
}
