//===- ExprUtils.cpp - Building and folding expressions in passes ---------===//

#include "tile/Transforms/ExprUtils.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

ExprPtr ex::intLit(int64_t V, DType Ty) {
  return std::make_unique<IntLitExpr>(V, Ty);
}

ExprPtr ex::boolLit(bool V) { return std::make_unique<IntLitExpr>(V, DType::I1); }

ExprPtr ex::zero(DType Ty) {
  if (isFloat(Ty))
    return std::make_unique<FloatLitExpr>(0.0, Ty);
  return intLit(0, Ty);
}

static int64_t intMin(DType Ty) {
  if (isUnsigned(Ty) || isBool(Ty))
    return 0;
  unsigned B = getDTypeBits(Ty);
  return B >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (B - 1));
}

static int64_t intMax(DType Ty) {
  if (isBool(Ty))
    return 1;
  unsigned B = getDTypeBits(Ty) - (isUnsigned(Ty) ? 0 : 1);
  // u64's maximum does not fit an int64 literal: all ones is its bit pattern.
  return B >= 63 ? (isUnsigned(Ty) ? -1 : std::numeric_limits<int64_t>::max())
                 : (int64_t(1) << B) - 1;
}

ExprPtr ex::lowest(DType Ty) {
  if (isFloat(Ty))
    return neg(std::make_unique<InfExpr>(Ty));
  return intLit(intMin(Ty), Ty);
}

ExprPtr ex::highest(DType Ty) {
  if (isFloat(Ty))
    return std::make_unique<InfExpr>(Ty);
  return intLit(intMax(Ty), Ty);
}

ExprPtr ex::ref(Value *V) { return std::make_unique<RefExpr>(V); }

ExprPtr ex::load(BufferValue *B, std::vector<ExprPtr> Indices) {
  return std::make_unique<LoadExpr>(B, std::move(Indices));
}

ExprPtr ex::castTo(ExprPtr X, DType Ty) {
  if (X->getDType() == Ty)
    return X;
  if (auto *I = dyn_cast<IntLitExpr>(X.get())) {
    if (isFloat(Ty))
      return std::make_unique<FloatLitExpr>(double(I->getValue()), Ty);
    if (isInteger(Ty) && !isBool(Ty) && I->getValue() >= intMin(Ty) &&
        (isUnsigned(Ty) || I->getValue() <= intMax(Ty)))
      return intLit(I->getValue(), Ty);
  }
  if (auto *F = dyn_cast<FloatLitExpr>(X.get()); F && isFloat(Ty))
    return std::make_unique<FloatLitExpr>(F->getValue(), Ty);
  return std::make_unique<CastExpr>(Ty, std::move(X));
}

bool ex::isConst(const Expr &E, int64_t V) {
  std::optional<int64_t> C = E.getConstInt();
  return C && *C == V && E.getDType() != DType::I1;
}

ExprPtr ex::binary(BinaryOp Op, ExprPtr L, ExprPtr R) {
  DType Ty = isComparison(Op) || Op == BinaryOp::LogicalAnd ||
                     Op == BinaryOp::LogicalOr
                 ? DType::I1
                 : L->getDType();
  return fold(std::make_unique<BinaryExpr>(Op, std::move(L), std::move(R), Ty));
}

ExprPtr ex::add(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Add, std::move(L), std::move(R));
}
ExprPtr ex::sub(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Sub, std::move(L), std::move(R));
}
ExprPtr ex::mul(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Mul, std::move(L), std::move(R));
}
ExprPtr ex::lt(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Lt, std::move(L), std::move(R));
}
ExprPtr ex::le(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Le, std::move(L), std::move(R));
}
ExprPtr ex::ge(ExprPtr L, ExprPtr R) {
  return binary(BinaryOp::Ge, std::move(L), std::move(R));
}
ExprPtr ex::land(ExprPtr L, ExprPtr R) {
  if (!L)
    return R;
  if (!R)
    return L;
  return binary(BinaryOp::LogicalAnd, std::move(L), std::move(R));
}

ExprPtr ex::reduceCombine(llvm::StringRef Kind, ExprPtr A, ExprPtr B) {
  if (Kind == "sum" || Kind == "abssum")
    return add(std::move(A), std::move(B));
  std::vector<ExprPtr> Args;
  Args.push_back(std::move(A));
  Args.push_back(std::move(B));
  return call(Kind == "min" ? Intrinsic::Min : Intrinsic::Max, std::move(Args));
}

ExprPtr ex::call(Intrinsic Fn, std::vector<ExprPtr> Args) {
  DType Ty = Args[Fn == Intrinsic::Select ? 1 : 0]->getDType();
  return fold(std::make_unique<CallExpr>(Fn, std::move(Args), Ty));
}

ExprPtr ex::neg(ExprPtr X) {
  DType Ty = X->getDType();
  return fold(std::make_unique<UnaryExpr>(UnaryOp::Neg, std::move(X), Ty));
}

/// Wraps \p V to the width and signedness of \p Ty.
static int64_t wrap(int64_t V, DType Ty) {
  unsigned B = getDTypeBits(Ty);
  if (B >= 64)
    return V;
  if (isBool(Ty))
    return V & 1;
  uint64_t Mask = (uint64_t(1) << B) - 1;
  uint64_t U = uint64_t(V) & Mask;
  if (isUnsigned(Ty))
    return int64_t(U);
  return llvm::SignExtend64(U, B);
}

static std::optional<int64_t> foldInt(BinaryOp Op, int64_t A, int64_t B,
                                      DType Ty) {
  bool U = isUnsigned(Ty);
  switch (Op) {
  case BinaryOp::Add: return wrap(int64_t(uint64_t(A) + uint64_t(B)), Ty);
  case BinaryOp::Sub: return wrap(int64_t(uint64_t(A) - uint64_t(B)), Ty);
  case BinaryOp::Mul: return wrap(int64_t(uint64_t(A) * uint64_t(B)), Ty);
  case BinaryOp::Div:
    if (B == 0 || (!U && A == std::numeric_limits<int64_t>::min() && B == -1))
      return std::nullopt;
    return wrap(U ? int64_t(uint64_t(A) / uint64_t(B)) : A / B, Ty);
  case BinaryOp::Rem:
    if (B == 0 || (!U && A == std::numeric_limits<int64_t>::min() && B == -1))
      return std::nullopt;
    return wrap(U ? int64_t(uint64_t(A) % uint64_t(B)) : A % B, Ty);
  case BinaryOp::And: return A & B;
  case BinaryOp::Or: return A | B;
  case BinaryOp::Xor: return A ^ B;
  case BinaryOp::Shl:
    if (B < 0 || B >= int64_t(getDTypeBits(Ty)))
      return std::nullopt;
    return wrap(int64_t(uint64_t(A) << B), Ty);
  case BinaryOp::Shr:
    if (B < 0 || B >= int64_t(getDTypeBits(Ty)))
      return std::nullopt;
    return U ? int64_t(uint64_t(A) >> B) : A >> B;
  case BinaryOp::LogicalAnd: return (A != 0) && (B != 0);
  case BinaryOp::LogicalOr: return (A != 0) || (B != 0);
  case BinaryOp::Eq: return A == B;
  case BinaryOp::Ne: return A != B;
  case BinaryOp::Lt: return U ? uint64_t(A) < uint64_t(B) : A < B;
  case BinaryOp::Le: return U ? uint64_t(A) <= uint64_t(B) : A <= B;
  case BinaryOp::Gt: return U ? uint64_t(A) > uint64_t(B) : A > B;
  case BinaryOp::Ge: return U ? uint64_t(A) >= uint64_t(B) : A >= B;
  }
  return std::nullopt;
}

static int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

ExprPtr ex::fold(ExprPtr E) {
  if (auto *B = dyn_cast<BinaryExpr>(E.get())) {
    const Expr *L = B->getLHS(), *R = B->getRHS();
    DType OpTy = L->getDType();
    if (L->getDType() != R->getDType())
      return E;
    std::optional<int64_t> CL = L->getConstInt(), CR = R->getConstInt();
    if (CL && CR)
      if (std::optional<int64_t> V = foldInt(B->getOp(), *CL, *CR, OpTy))
        return intLit(*V, B->getDType());
    if (!isInteger(OpTy) || isBool(OpTy)) {
      // Logical identities on i1.
      if (B->getOp() == BinaryOp::LogicalAnd) {
        if (CL)
          return *CL ? std::move(B->getRHSMutable()) : boolLit(false);
        if (CR)
          return *CR ? std::move(B->getLHSMutable()) : boolLit(false);
      }
      if (B->getOp() == BinaryOp::LogicalOr) {
        if (CL)
          return *CL ? boolLit(true) : std::move(B->getRHSMutable());
        if (CR)
          return *CR ? boolLit(true) : std::move(B->getLHSMutable());
      }
      return E;
    }
    switch (B->getOp()) {
    case BinaryOp::Add:
      if (CL && *CL == 0)
        return std::move(B->getRHSMutable());
      if (CR && *CR == 0)
        return std::move(B->getLHSMutable());
      break;
    case BinaryOp::Sub:
      if (CR && *CR == 0)
        return std::move(B->getLHSMutable());
      break;
    case BinaryOp::Mul:
      if ((CL && *CL == 0) || (CR && *CR == 0))
        return intLit(0, OpTy);
      if (CL && *CL == 1)
        return std::move(B->getRHSMutable());
      if (CR && *CR == 1)
        return std::move(B->getLHSMutable());
      break;
    case BinaryOp::Div:
      if (CR && *CR == 1)
        return std::move(B->getLHSMutable());
      break;
    default:
      break;
    }
    return E;
  }
  if (auto *C = dyn_cast<CallExpr>(E.get())) {
    llvm::ArrayRef<ExprPtr> A = C->getArgs();
    if (C->getIntrinsic() == Intrinsic::Select) {
      if (std::optional<int64_t> Cond = A[0]->getConstInt())
        return std::move(C->getArgsMutable()[*Cond ? 1 : 2]);
      return E;
    }
    if (A.size() != 2 || !isInteger(A[0]->getDType()) ||
        A[0]->getDType() != A[1]->getDType())
      return E;
    std::optional<int64_t> X = A[0]->getConstInt(), Y = A[1]->getConstInt();
    if (!X || !Y)
      return E;
    DType Ty = A[0]->getDType();
    switch (C->getIntrinsic()) {
    case Intrinsic::Min: return intLit(std::min(*X, *Y), Ty);
    case Intrinsic::Max: return intLit(std::max(*X, *Y), Ty);
    case Intrinsic::CeilDiv:
      if (*Y == 0)
        return E;
      return intLit(-floorDiv(-*X, *Y), Ty);
    case Intrinsic::FloorDiv:
      if (*Y == 0)
        return E;
      return intLit(floorDiv(*X, *Y), Ty);
    case Intrinsic::FloorMod:
      if (*Y == 0)
        return E;
      return intLit(*X - floorDiv(*X, *Y) * *Y, Ty);
    default:
      return E;
    }
  }
  if (auto *U = dyn_cast<UnaryExpr>(E.get())) {
    std::optional<int64_t> X = U->getOperand()->getConstInt();
    if (!X)
      return E;
    if (U->getOp() == UnaryOp::Not && U->getOperand()->getDType() == DType::I1)
      return boolLit(!*X);
    if (U->getOp() == UnaryOp::Neg && isInteger(U->getDType()) &&
        !isBool(U->getDType()))
      return intLit(wrap(int64_t(0 - uint64_t(*X)), U->getDType()),
                    U->getDType());
    return E;
  }
  if (auto *C = dyn_cast<CastExpr>(E.get())) {
    std::optional<int64_t> X = C->getOperand()->getConstInt();
    DType To = C->getDType();
    if (X && isInteger(To) && !isBool(To) &&
        !isBool(C->getOperand()->getDType()))
      return intLit(wrap(*X, To), To);
    return E;
  }
  return E;
}
