//===- HsaExecutor.h - The `hsa` execution backend --------------*- C++ -*-===//

#ifndef TILE_LIB_EXEC_HSAEXECUTOR_H
#define TILE_LIB_EXEC_HSAEXECUTOR_H

#include "tile/Exec/Executor.h"

namespace tile {
/// Initializes the HSA runtime on the first GPU agent.
llvm::Expected<std::unique_ptr<Executor>> createHsaExecutor();
} // namespace tile

#endif // TILE_LIB_EXEC_HSAEXECUTOR_H
