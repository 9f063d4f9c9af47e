//===- CPUDialect.cpp - The cpu dialect: op table and verifiers -----------===//
//
// registerCPUOps() (generated from CPUOps.td) and the C++ checks the op
// declarations name. Registering the CPU backend's dialect registers these
// ops.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"

using namespace tile;

namespace tile {

bool verifyCPUPrefetchOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &Src = Op.getOperand("src");
  bool OK = true;
  if (Src.R.Buf->getScope() != MemScope::Global) {
    Diag.error(Src.getLoc(), "'cpu.prefetch' prefetches global memory, but %" +
                                 Src.R.Buf->getName() + " is " +
                                 getScopeName(Src.R.Buf->getScope()));
    OK = false;
  }
  if (Src.R.isWholeBuffer() && Src.R.Buf->getRank() > 0) {
    Diag.error(Src.getLoc(), "'cpu.prefetch' names one element: index %" +
                                 Src.R.Buf->getName() + " in every dimension");
    OK = false;
  }
  for (const RegionIndex &I : Src.R.Indices)
    if (I.Extent) {
      Diag.error(Src.getLoc(), "'cpu.prefetch' names one element, not an extent");
      OK = false;
      break;
    }
  int64_t Locality = Op.getAttrOrDefault("locality").getInt();
  if (Locality < 0 || Locality > 3) {
    Diag.error(Op.getLoc(), "'cpu.prefetch' locality must be between 0 and 3, not " +
                                llvm::Twine(Locality));
    OK = false;
  }
  return OK;
}

namespace {

/// Whether operand \p Name of \p Op names one element of a buffer of
/// \p Want (every index given, no extent) whose elements are consecutive
/// along its last dimension; when \p OnChip, also that the buffer is
/// on-chip or local with a constant shape (a constant row stride).
bool verifyElementOperand(const OpStmt &Op, llvm::StringRef Name, DType Want,
                          bool OnChip, DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  const BufferValue &Buf = *O.R.Buf;
  std::string What = ("'" + Op.getName() + "' operand " + Name + " (%" +
                      Buf.getName() + ")")
                         .str();
  if (Buf.getDType() != Want) {
    Diag.error(O.getLoc(), What + " must be " + getDTypeName(Want).str() + ", not " +
                               getDTypeName(Buf.getDType()).str());
    return false;
  }
  if (O.R.isWholeBuffer() || llvm::any_of(O.R.Indices, [](const RegionIndex &I) {
        return I.Extent != nullptr;
      })) {
    Diag.error(O.getLoc(), What + " names its first element: index it in every "
                                 "dimension, without extents");
    return false;
  }
  if (!Buf.getStrides().empty()) {
    Diag.error(O.getLoc(), What + " must be row-major, without declared strides");
    return false;
  }
  if (OnChip && (Buf.getScope() == MemScope::Global || Buf.getRank() < 2 ||
                 llvm::any_of(Buf.getShape(), [](const ExprPtr &E) {
                   return !E->getConstInt();
                 }))) {
    Diag.error(O.getLoc(), What + " must be a shared, fragment or local buffer of at "
                                 "least two dimensions with a constant shape");
    return false;
  }
  return true;
}

} // namespace

bool verifyCPUDpbf16psOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = verifyElementOperand(Op, "c", DType::F32, false, Diag);
  OK &= verifyElementOperand(Op, "a", DType::BF16, false, Diag);
  OK &= verifyElementOperand(Op, "b", DType::BF16, false, Diag);
  return OK;
}

bool verifyCPUTransposePairsOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  DType Ty = Op.getOperand("src").R.Buf->getDType();
  if (getDTypeBits(Ty) != 16) {
    Diag.error(Op.getOperand("src").getLoc(),
               "'cpu.transpose_pairs' moves pairs of 16-bit elements, but %" +
                   Op.getOperand("src").R.Buf->getName() + " is " +
                   getDTypeName(Ty).str());
    return false;
  }
  bool OK = verifyElementOperand(Op, "dst", Ty, true, Diag);
  OK &= verifyElementOperand(Op, "src", Ty, true, Diag);
  return OK;
}

namespace {

/// Whether \p Op's `lanes` is between 1 and 64 and operand \p First
/// (the one that sets the dtype) is f32 or f64.
bool verifyLanes(const OpStmt &Op, llvm::StringRef First, DiagnosticEngine &Diag) {
  bool OK = true;
  int64_t Lanes = Op.getAttrOrDefault("lanes").getInt();
  if (Lanes < 1 || Lanes > 64) {
    Diag.error(Op.getLoc(), "'" + Op.getName() + "' lanes must be between 1 and 64, not " +
                                llvm::Twine(Lanes));
    OK = false;
  }
  const OpOperand &O = Op.getOperand(First);
  DType Ty = O.R.Buf->getDType();
  if (Ty != DType::F32 && Ty != DType::F64) {
    Diag.error(O.getLoc(), "'" + Op.getName() + "' operand " + First + " (%" +
                               O.R.Buf->getName() + ") must be f32 or f64, not " +
                               getDTypeName(Ty).str());
    OK = false;
  }
  return OK;
}

/// An op on `lanes` consecutive elements of each of \p Names, all of the
/// type of the first (f32 or f64).
bool verifyLanesOp(const OpStmt &Op, llvm::ArrayRef<const char *> Names,
                   DiagnosticEngine &Diag) {
  if (!verifyLanes(Op, Names.front(), Diag))
    return false;
  DType Ty = Op.getOperand(Names.front()).R.Buf->getDType();
  bool OK = true;
  for (const char *N : Names)
    OK &= verifyElementOperand(Op, N, Ty, false, Diag);
  return OK;
}

} // namespace

bool verifyCPUFmaOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifyLanesOp(Op, {"c", "a", "b"}, Diag);
}

bool verifyCPUCopyLanesOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifyLanesOp(Op, {"dst", "src"}, Diag);
}

bool verifyCPUWidenBF16Op(const OpStmt &Op, DiagnosticEngine &Diag) {
  int64_t Lanes = Op.getAttrOrDefault("lanes").getInt();
  if (Lanes < 1 || Lanes > 64) {
    Diag.error(Op.getLoc(), "'cpu.widen_bf16' lanes must be between 1 and 64, not " +
                                llvm::Twine(Lanes));
    return false;
  }
  bool Pairs = Op.getAttrOrDefault("pairs").getBool();
  // Pairs write two rows of dst, a constant row stride apart.
  bool OK = verifyElementOperand(Op, "dst", DType::F32, Pairs, Diag);
  OK &= verifyElementOperand(Op, "src", DType::BF16, false, Diag);
  return OK;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "CPUOps.inc"
