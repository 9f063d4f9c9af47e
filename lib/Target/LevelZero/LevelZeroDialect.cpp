//===- LevelZeroDialect.cpp - The level_zero dialect: op table, verifiers -===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"

using namespace tile;

namespace tile {

bool verifyLevelZeroSubGroupReduceOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &Dst = Op.getOperand("dst");
  const BufferValue *B = Dst.R.Buf;
  if (B->getScope() != MemScope::Local) {
    Diag.error(Dst.getLoc(), "'level_zero.sub_group_reduce' writes the work-item's "
                             "private memory (a local buffer), but %" +
                                 B->getName() + " is " + getScopeName(B->getScope()));
    return false;
  }
  DType T = B->getDType();
  if (T != DType::F32 && T != DType::I32 && T != DType::U32) {
    Diag.error(Dst.getLoc(), "'level_zero.sub_group_reduce' combines f32, i32 or u32, not " +
                                 getDTypeName(T));
    return false;
  }
  return true;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "LevelZeroOps.inc"
