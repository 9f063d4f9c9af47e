//===- LevelZeroDialect.cpp - The level_zero dialect: op table, verifiers -===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Transforms/SubgroupReduce.h"

using namespace tile;

namespace tile {

bool verifyLevelZeroSubGroupReduceOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifySubgroupReduceDst(Op, Diag, "the work-item's private memory");
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "LevelZeroOps.inc"
