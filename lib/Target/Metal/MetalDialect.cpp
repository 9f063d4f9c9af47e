//===- MetalDialect.cpp - The metal dialect: op table and verifiers -------===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Transforms/SubgroupReduce.h"

using namespace tile;

namespace tile {

bool verifyMetalSimdReduceOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifySubgroupReduceDst(Op, Diag, "the thread's registers");
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "MetalOps.inc"
