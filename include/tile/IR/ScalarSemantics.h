//===- ScalarSemantics.h - Scalar semantics of Tile expressions -*- C++ -*-===//
//
// The meaning of Tile's scalar expressions, in one place for the evaluators
// that run them: the reference interpreter (lib/IR/Interpreter.cpp) and the
// backends' emulators (lib/Target/CUDA/Emulator/SIMTEmulator.h). Integers are exact
// 64-bit values that wrap to their type's width; floats are computed in
// f64; min/max propagate NaN; integer division by zero, signed division
// overflow and out-of-range shifts are faults, reported through a callback
// so that each evaluator can say where (and in which thread) they happen.
//
// What differs between the evaluators stays with them: how values are
// stored, whether casts round to the narrow float types, and the lazy
// operators (`&&`, `||`, `select`), which decide what is evaluated.
//
// Expressions are flattened into nodes (ExprNode) before they run;
// describeExpr gives a node's kind, types, operator and operands.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_SCALARSEMANTICS_H
#define TILE_IR_SCALARSEMANTICS_H

#include "tile/IR/IR.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <string>
#include <vector>

namespace tile {
namespace scalar {

/// A scalar at run time; expressions know statically which member is live
/// (F for float dtypes, I for integers and i1).
union Scalar {
  int64_t I;
  double F;
};

inline Scalar intScalar(int64_t V) {
  Scalar S;
  S.I = V;
  return S;
}

inline Scalar floatScalar(double V) {
  Scalar S;
  S.F = V;
  return S;
}

/// The value of type \p T whose two's-complement bits are the low bits of
/// \p Bits: sign-extended for signed types, zero-extended for unsigned ones
/// (u64 keeps its bit pattern in an int64).
int64_t wrapInt(uint64_t Bits, DType T);
/// The smallest value of the signed integer type \p T.
int64_t minSigned(DType T);
/// The number an integer of type \p T denotes.
double intToDouble(int64_t V, DType T);
/// The 64-bit pattern of an integral double (as stored in a buffer); values
/// at or above 2^63 are unsigned, out-of-range ones saturate.
int64_t doubleToIntBits(double V);
/// Float to integer: truncate toward zero, saturate to the range of \p T,
/// NaN gives 0 (LLVM's fptosi.sat / fptoui.sat, CUDA's cvt.rzi).
int64_t floatToInt(double V, DType T);
/// `A < B` for integers of type \p T.
bool lessThan(int64_t A, int64_t B, DType T);
/// max and min that propagate NaN, so that poisoned elements stay visible.
double maxOf(double A, double B);
double minOf(double A, double B);

/// `cast<To>(V)` for a value of type \p From, exactly: integer to integer
/// wraps, float to integer truncates and saturates, anything to i1 is
/// `!= 0`, and floats are not rounded to a narrower type.
Scalar castExact(Scalar V, DType From, DType To);

/// Called with the message of a run-time fault (the result is then 0).
using FaultFn = llvm::function_ref<void(const llvm::Twine &)>;

/// `-X` or `!X`, of type \p Ty.
Scalar applyUnary(UnaryOp Op, DType Ty, Scalar X);
/// `L Op R` with operands of type \p ArgTy, for every operator but the
/// lazy `&&` and `||`.
Scalar applyBinary(BinaryOp Op, DType ArgTy, Scalar L, Scalar R, FaultFn Fault);
/// \p Fn applied to \p X and, for intrinsics of two arguments, \p Y, with
/// arguments of type \p ArgTy; every intrinsic but the lazy select.
Scalar applyIntrinsic(Intrinsic Fn, DType ArgTy, Scalar X, Scalar Y,
                      FaultFn Fault);

/// "[1, 2, 3]": indices and shapes in fault messages.
std::string formatList(llvm::ArrayRef<int64_t> V);

//===----------------------------------------------------------------------===//
// Flattened expressions
//===----------------------------------------------------------------------===//

enum class NodeKind : uint8_t { Const, Slot, Load, Binary, Unary, Call, Cast };

/// One expression node; evaluators keep the children of a node in an array
/// of node ids, [FirstArg, FirstArg + NumArgs), and add what they track
/// per node (a derived struct).
struct ExprNode {
  NodeKind K;
  /// The result type, and the operands' type (binary, unary, call, cast).
  DType Ty, ArgTy;
  /// BinaryOp, UnaryOp or Intrinsic.
  uint8_t Op = 0;
  /// Slot nodes: the slot; Load nodes: the buffer.
  uint32_t Index = 0;
  uint32_t FirstArg = 0, NumArgs = 0;
  Scalar C = intScalar(0);
  llvm::SMLoc Loc;
};

/// Fills in \p N for \p E: its kind, types, location, operator and, for
/// literals, the constant of E's type; appends E's operands (a load's
/// indices, an operator's operands) to \p Operands. Index (the slot of a
/// reference, the buffer of a load) is the evaluator's to fill in.
void describeExpr(const Expr &E, ExprNode &N,
                  llvm::SmallVectorImpl<const Expr *> &Operands);

/// The common part of an evaluator's Resolve for flattenExpr: a reference
/// node's value must have an entry in \p SlotOf ("used where it is not
/// bound"), a load node's buffer one in \p BufferOf ("used before it is
/// allocated"); \p MakeError(Loc, Msg) builds the error, \p OnSlot(N,
/// Entry) and \p OnBuffer(N, Id) record what was found.
template <typename NodeT, typename SlotMapT, typename BufferMapT, typename ErrorFn,
          typename SlotFn, typename BufferFn>
llvm::Error resolveStorage(const Expr &E, NodeT &N, const SlotMapT &SlotOf,
                           const BufferMapT &BufferOf, ErrorFn MakeError,
                           SlotFn OnSlot, BufferFn OnBuffer) {
  if (N.K == NodeKind::Slot) {
    const Value *V = llvm::cast<RefExpr>(E).getValue();
    auto It = SlotOf.find(V);
    if (It == SlotOf.end())
      return MakeError(E.getLoc(), "'" + V->getName() + "' is used where it is not bound");
    OnSlot(N, It->second);
  } else if (N.K == NodeKind::Load) {
    const auto &L = llvm::cast<LoadExpr>(E);
    auto It = BufferOf.find(L.getBuffer());
    if (It == BufferOf.end())
      return MakeError(E.getLoc(), "'%" + L.getBuffer()->getName() +
                                       "' is used before it is allocated");
    OnBuffer(N, It->second);
  }
  return llvm::Error::success();
}

/// Flattens \p E into \p Nodes, operands first, their ids in \p ArgIds;
/// returns the id of E's node. \p Resolve(E, N) fills in what describeExpr
/// leaves to the evaluator (a reference's slot, a load's buffer) before
/// the operands are flattened, and may fail; \p AddOperand(N, Operand)
/// sees the node of each operand once it is flattened.
template <typename NodeT, typename ResolveFn, typename OperandFn>
llvm::Expected<uint32_t> flattenExpr(const Expr &E, std::vector<NodeT> &Nodes,
                                     std::vector<uint32_t> &ArgIds,
                                     ResolveFn Resolve, OperandFn AddOperand) {
  NodeT N;
  llvm::SmallVector<const Expr *, 3> Operands;
  describeExpr(E, N, Operands);
  if (llvm::Error Err = Resolve(E, N))
    return std::move(Err);
  llvm::SmallVector<uint32_t, 4> Ids;
  for (const Expr *O : Operands) {
    auto Id = flattenExpr(*O, Nodes, ArgIds, Resolve, AddOperand);
    if (!Id)
      return Id.takeError();
    Ids.push_back(*Id);
    AddOperand(N, Nodes[*Id]);
  }
  N.FirstArg = ArgIds.size();
  N.NumArgs = Ids.size();
  ArgIds.insert(ArgIds.end(), Ids.begin(), Ids.end());
  Nodes.push_back(N);
  return uint32_t(Nodes.size() - 1);
}

} // namespace scalar
} // namespace tile

#endif // TILE_IR_SCALARSEMANTICS_H
