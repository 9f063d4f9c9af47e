//===- ExecutorFactories.h - Probes and factories of the executors -*- C++ -*-===//
//
// Private to libTileExec: the availability probe and executor factory of
// every shared execution backend, declared by the table generated from
// ExecutionBackends.td (its `Probe` and `Executor` fields), so that a
// definition with another signature fails to compile here rather than to
// link later.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EXEC_EXECUTORFACTORIES_H
#define TILE_LIB_EXEC_EXECUTORFACTORIES_H

#include "tile/Exec/Executor.h"

#define GET_TILE_EXEC_BACKEND_ENTRY_POINTS
#include "tile/Exec/ExecBackends.inc"

#endif // TILE_LIB_EXEC_EXECUTORFACTORIES_H
