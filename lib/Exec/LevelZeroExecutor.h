//===- LevelZeroExecutor.h - The `level-zero` execution backend -*- C++ -*-===//

#ifndef TILE_LIB_EXEC_LEVELZEROEXECUTOR_H
#define TILE_LIB_EXEC_LEVELZEROEXECUTOR_H

#include "tile/Exec/Executor.h"

namespace tile {
/// Initializes Level Zero on the first driver's first GPU.
llvm::Expected<std::unique_ptr<Executor>> createLevelZeroExecutor();
} // namespace tile

#endif // TILE_LIB_EXEC_LEVELZEROEXECUTOR_H
