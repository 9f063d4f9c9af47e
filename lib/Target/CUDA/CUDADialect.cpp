//===- CUDADialect.cpp - The cuda dialect: op table and verifiers ---------===//
//
// registerCUDAOps() (generated from CUDAOps.td) and the C++ checks the op
// declarations name. Registering the CUDA or Hopper backend's dialects
// registers these ops.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"

using namespace tile;

namespace {

/// Reports unless operand \p Name of \p Op is a region of a buffer in one of
/// \p Scopes.
bool expectScope(const OpStmt &Op, llvm::StringRef Name,
                 std::initializer_list<MemScope> Scopes, llvm::StringRef What,
                 DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  const BufferValue *Buf = O.R.Buf;
  for (MemScope S : Scopes)
    if (Buf->getScope() == S)
      return true;
  Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                             "' must be " + What + ", but %" +
                             Buf->getName() + " is " +
                             getScopeName(Buf->getScope()));
  return false;
}

} // namespace

namespace tile {

bool verifyCUDAWgmmaOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "a", {MemScope::Shared, MemScope::Fragment},
                        "in shared memory or a fragment", Diag);
  OK &= expectScope(Op, "b", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectScope(Op, "c", {MemScope::Fragment}, "a fragment", Diag);
  int64_t Wait = Op.getAttrOrDefault("wait").getInt();
  if (Wait < 0 || Wait > 7) {
    Diag.error(Op.getLoc(), "'cuda.wgmma' wait must be between 0 and 7, not " +
                                llvm::Twine(Wait));
    OK = false;
  }
  return OK;
}

bool verifyCUDATmaCopyOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  MemScope Src = Op.getOperand("src").R.Buf->getScope();
  MemScope Dst = Op.getOperand("dst").R.Buf->getScope();
  bool OK = true;
  if (!((Src == MemScope::Global && Dst == MemScope::Shared) ||
        (Src == MemScope::Shared && Dst == MemScope::Global))) {
    Diag.error(Op.getLoc(), "'cuda.tma_copy' copies between global and shared "
                            "memory, not from " +
                                getScopeName(Src) + " to " + getScopeName(Dst));
    OK = false;
  }
  OK &= expectScope(Op, "barrier", {MemScope::Shared},
                    "an mbarrier in shared memory", Diag);
  return OK;
}

bool verifyCUDAMbarrierOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return expectScope(Op, "barrier", {MemScope::Shared},
                     "an mbarrier in shared memory", Diag);
}

bool verifyCUDASetmaxnregOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  int64_t Count = Op.getAttrOrDefault("count").getInt();
  if (Count >= 24 && Count <= 256 && Count % 8 == 0)
    return true;
  Diag.error(Op.getLoc(), "'cuda.setmaxnreg' count must be a multiple of 8 "
                          "from 24 to 256, not " +
                              llvm::Twine(Count));
  return false;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "CUDAOps.inc"
