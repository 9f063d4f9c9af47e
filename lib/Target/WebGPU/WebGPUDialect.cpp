//===- WebGPUDialect.cpp - The webgpu dialect: op table and verifiers -----===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Transforms/SubgroupReduce.h"

using namespace tile;

namespace tile {

bool verifyWebGPUSubgroupReduceOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifySubgroupReduceDst(Op, Diag, "the invocation's own memory");
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "WebGPUOps.inc"
