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

bool verifyCUDAWgmmaMmaOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "a", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectScope(Op, "b", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectScope(Op, "c", {MemScope::Local}, "a local array", Diag);
  if (!OK)
    return false;
  auto Fail = [&](const llvm::Twine &Msg) {
    Diag.error(Op.getLoc(), "'cuda.wgmma_mma' " + Msg);
    return false;
  };
  DType TA = Op.getOperand("a").R.Buf->getDType();
  DType TB = Op.getOperand("b").R.Buf->getDType();
  if (TA != TB || (TA != DType::F16 && TA != DType::BF16))
    return Fail("takes f16 or bf16 A and B of one type, not " +
                getDTypeName(TA) + " and " + getDTypeName(TB));
  if (Op.getOperand("c").R.Buf->getDType() != DType::F32)
    return Fail("accumulates into f32, not " +
                getDTypeName(Op.getOperand("c").R.Buf->getDType()));
  int64_t N = Op.getAttrOrDefault("n").getInt();
  if (N < 8 || N > 256 || N % 8 != 0)
    return Fail("n must be a multiple of 8 from 8 to 256, not " + llvm::Twine(N));
  for (const char *Name : {"swizzle_a", "swizzle_b"}) {
    int64_t W = Op.getAttrOrDefault(Name).getInt();
    if (W != 32 && W != 64 && W != 128)
      return Fail(llvm::Twine(Name) + " must be 32, 64 or 128, not " + llvm::Twine(W));
  }
  for (const char *Name : {"lbo_a", "sbo_a", "lbo_b", "sbo_b"}) {
    int64_t V = Op.getAttrOrDefault(Name).getInt();
    if (V <= 0 || V % 16 != 0 || V >= (int64_t(1) << 18))
      return Fail(llvm::Twine(Name) +
                  " must be a positive multiple of 16 below 2^18, not " +
                  llvm::Twine(V));
  }
  return true;
}

bool verifyCUDAPendingAttr(const OpStmt &Op, DiagnosticEngine &Diag) {
  int64_t P = Op.getAttrOrDefault("pending").getInt();
  if (P >= 0 && P <= 7)
    return true;
  Diag.error(Op.getLoc(), "'" + Op.getName() +
                              "' pending must be between 0 and 7, not " +
                              llvm::Twine(P));
  return false;
}

bool verifyCUDAWgmmaAccOperand(const OpStmt &Op, DiagnosticEngine &Diag) {
  if (!expectScope(Op, "acc", {MemScope::Local}, "a local array", Diag))
    return false;
  const Region &Acc = Op.getOperand("acc").R;
  if (!Acc.isWholeBuffer() || !Acc.Buf->getConstShape() ||
      Acc.Buf->getDType() != DType::F32) {
    Diag.error(Op.getLoc(), "'" + Op.getName() +
                                "' takes a whole local f32 array of constant "
                                "shape");
    return false;
  }
  return true;
}

bool verifyCUDAWgmmaWaitOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = verifyCUDAPendingAttr(Op, Diag);
  return verifyCUDAWgmmaAccOperand(Op, Diag) && OK;
}

bool verifyCUDALdgstsOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "src", {MemScope::Global}, "in global memory", Diag);
  OK &= expectScope(Op, "dst", {MemScope::Shared}, "in shared memory", Diag);
  if (!OK)
    return false;
  DType S = Op.getOperand("src").R.Buf->getDType();
  DType D = Op.getOperand("dst").R.Buf->getDType();
  if (S != D || getDTypeBits(S) < 8 || 128 % getDTypeBits(S) != 0) {
    Diag.error(Op.getLoc(), "'cuda.ldgsts' copies bytes without conversion: "
                            "src and dst must have one dtype of 1, 2, 4, 8 "
                            "or 16 bytes, not " +
                                getDTypeName(S) + " and " + getDTypeName(D));
    return false;
  }
  return true;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "CUDAOps.inc"
