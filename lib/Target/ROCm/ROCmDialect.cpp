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

bool verifyROCmMfmaLaneOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
               &C = Op.getOperand("c").R;
  for (const Region *R : {&A, &B, &C})
    if (R->Buf->getScope() != MemScope::Local) {
      Diag.error(R->Loc, "'rocm.mfma_lane' operands are the lane's registers "
                         "(local buffers), but %" +
                             R->Buf->getName() + " is " +
                             getScopeName(R->Buf->getScope()));
      return false;
    }
  DType TA = A.Buf->getDType(), TB = B.Buf->getDType();
  if (TA != TB || (TA != DType::F16 && TA != DType::BF16) ||
      C.Buf->getDType() != DType::F32) {
    Diag.error(Op.getLoc(), "'rocm.mfma_lane' takes f16 or bf16 A and B and an "
                            "f32 accumulator, not " +
                                getDTypeName(TA) + " x " + getDTypeName(TB) +
                                " -> " + getDTypeName(C.Buf->getDType()));
    return false;
  }
  return true;
}

bool verifyROCmLaneXorOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &Dst = Op.getOperand("dst");
  const BufferValue *B = Dst.R.Buf;
  if (B->getScope() != MemScope::Local) {
    Diag.error(Dst.getLoc(), "'rocm.lane_xor' writes the lane's registers (a "
                             "local buffer), but %" +
                                 B->getName() + " is " +
                                 getScopeName(B->getScope()));
    return false;
  }
  if (getDTypeBits(B->getDType()) > 32) {
    Diag.error(Dst.getLoc(), "'rocm.lane_xor' moves at most 32 bits, not " +
                                 getDTypeName(B->getDType()));
    return false;
  }
  int64_t Mask = Op.getAttrOrDefault("mask").getInt();
  if (Mask < 1 || Mask > 63) {
    Diag.error(Op.getLoc(), "'rocm.lane_xor' mask must be between 1 and 63 "
                            "(a wave has 64 lanes), not " +
                                std::to_string(Mask));
    return false;
  }
  return true;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "ROCmOps.inc"
