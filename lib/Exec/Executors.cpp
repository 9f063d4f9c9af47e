//===- Executors.cpp - Creating an execution backend's executor -----------===//

#include "CudaExecutor.h"
#include "HsaExecutor.h"
#include "LevelZeroExecutor.h"
#include "tile/Exec/Executor.h"

using namespace tile;

llvm::Expected<std::unique_ptr<Executor>>
Executor::create(ExecBackendKind K, const ExecutorOptions &Opts) {
  if (llvm::Error E = checkExecAvailable(K))
    return std::move(E);
  switch (K) {
  case ExecBackendKind::Orc:
    return createOrcExecutor(Opts);
  case ExecBackendKind::Cuda:
    return createCudaExecutor();
  case ExecBackendKind::WebGPU:
    return createWebGPUExecutor();
  case ExecBackendKind::Hsa:
    return createHsaExecutor();
  case ExecBackendKind::LevelZero:
    return createLevelZeroExecutor();
  default:
    return llvm::createStringError(
        "execution backend '" + llvm::Twine(getExecBackendInfo(K).Name) +
        "' has no executor in this build yet");
  }
}
