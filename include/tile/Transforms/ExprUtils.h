//===- ExprUtils.h - Building and folding expressions in passes -*- C++ -*-===//
//
// Small constructors that passes use to emit expressions, folding
// constants as they go so that lowered IR stays readable, plus the
// constant folder behind tile-simplify.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_EXPRUTILS_H
#define TILE_TRANSFORMS_EXPRUTILS_H

#include "tile/IR/IR.h"

namespace tile {
namespace ex {

ExprPtr intLit(int64_t V, DType Ty = DType::I32);
ExprPtr boolLit(bool V);
/// Zero of any dtype (an integer or float literal).
ExprPtr zero(DType Ty);
/// The identity of max (-inf or the smallest integer) and of min.
ExprPtr lowest(DType Ty);
ExprPtr highest(DType Ty);
ExprPtr ref(Value *V);
ExprPtr load(BufferValue *B, std::vector<ExprPtr> Indices);
/// \p X converted to \p Ty (no cast when it already has that type).
ExprPtr castTo(ExprPtr X, DType Ty);
/// A binary expression with the result type the language gives it; folds
/// when both sides are integer literals and applies x+0, x*1, x*0.
ExprPtr binary(BinaryOp Op, ExprPtr L, ExprPtr R);
ExprPtr add(ExprPtr L, ExprPtr R);
ExprPtr sub(ExprPtr L, ExprPtr R);
ExprPtr mul(ExprPtr L, ExprPtr R);
ExprPtr lt(ExprPtr L, ExprPtr R);
ExprPtr le(ExprPtr L, ExprPtr R);
ExprPtr ge(ExprPtr L, ExprPtr R);
/// Logical and; a null operand stands for `true`.
ExprPtr land(ExprPtr L, ExprPtr R);
ExprPtr call(Intrinsic Fn, std::vector<ExprPtr> Args);
ExprPtr neg(ExprPtr X);
/// `A <kind> B`, the combining step of a reduce of \p Kind (sum and abssum
/// add; min takes the minimum; max and absmax the maximum). The absolute
/// value of the abs kinds is the caller's, applied to the elements read.
ExprPtr reduceCombine(llvm::StringRef Kind, ExprPtr A, ExprPtr B);

/// Folds \p E if its operands are constants (one level; use with
/// rewriteExpr for a whole tree). Returns \p E unchanged otherwise.
ExprPtr fold(ExprPtr E);

/// Whether \p E is an integer literal equal to \p V.
bool isConst(const Expr &E, int64_t V);

} // namespace ex
} // namespace tile

#endif // TILE_TRANSFORMS_EXPRUTILS_H
