//===- ROCmDialect.cpp - The rocm dialect: op table and verifiers ---------===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"

using namespace tile;

namespace tile {

bool verifyROCmMfmaOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &C = Op.getOperand("c");
  if (C.R.Buf->getScope() == MemScope::Fragment)
    return true;
  Diag.error(C.getLoc(), "'rocm.mfma' accumulates into a fragment, but %" +
                             C.R.Buf->getName() + " is " +
                             getScopeName(C.R.Buf->getScope()));
  return false;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "ROCmOps.inc"
