//===- ScalarSemantics.cpp - Scalar semantics of Tile expressions ---------===//
//
// The operations of ScalarSemantics.h: integer wrapping and conversions,
// the unary and binary operators, the intrinsics and their faults, and the
// flattening of an expression into a node.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/ScalarSemantics.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <limits>

using namespace tile;
using namespace tile::scalar;
using llvm::cast;
using llvm::Twine;

int64_t scalar::wrapInt(uint64_t Bits, DType T) {
  if (isBool(T))
    return int64_t(Bits & 1);
  unsigned W = getDTypeBits(T);
  if (W >= 64)
    return int64_t(Bits);
  uint64_t Mask = (uint64_t(1) << W) - 1;
  Bits &= Mask;
  if (isSignedInteger(T) && (Bits >> (W - 1)) & 1)
    Bits |= ~Mask;
  return int64_t(Bits);
}

int64_t scalar::minSigned(DType T) {
  return -int64_t(uint64_t(1) << (getDTypeBits(T) - 1));
}

double scalar::intToDouble(int64_t V, DType T) {
  return T == DType::U64 ? double(uint64_t(V)) : double(V);
}

int64_t scalar::doubleToIntBits(double V) {
  if (V >= 0x1p64)
    return int64_t(~uint64_t(0));
  if (V >= 0x1p63)
    return int64_t(uint64_t(V));
  if (V < -0x1p63)
    return std::numeric_limits<int64_t>::min();
  return int64_t(V);
}

int64_t scalar::floatToInt(double V, DType T) {
  if (std::isnan(V))
    return 0;
  V = std::trunc(V);
  unsigned W = getDTypeBits(T);
  if (isUnsigned(T)) {
    if (V <= 0)
      return 0;
    if (V >= std::ldexp(1.0, int(W)))
      return wrapInt(~uint64_t(0), T);
    return int64_t(uint64_t(V));
  }
  double Lim = std::ldexp(1.0, int(W) - 1);
  if (V >= Lim)
    return int64_t((uint64_t(1) << (W - 1)) - 1);
  if (V < -Lim)
    return minSigned(T);
  return int64_t(V);
}

bool scalar::lessThan(int64_t A, int64_t B, DType T) {
  return isUnsigned(T) ? uint64_t(A) < uint64_t(B) : A < B;
}

double scalar::maxOf(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<double>::quiet_NaN();
  return A < B ? B : A;
}

double scalar::minOf(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<double>::quiet_NaN();
  return B < A ? B : A;
}

Scalar scalar::castExact(Scalar V, DType From, DType To) {
  if (From == To)
    return V;
  if (isFloat(From)) {
    if (isFloat(To))
      return V;
    if (isBool(To))
      return intScalar(V.F != 0);
    return intScalar(floatToInt(V.F, To));
  }
  if (isFloat(To))
    return floatScalar(intToDouble(V.I, From));
  if (isBool(To))
    return intScalar(V.I != 0);
  return intScalar(wrapInt(uint64_t(V.I), To));
}

Scalar scalar::applyUnary(UnaryOp Op, DType Ty, Scalar X) {
  if (Op == UnaryOp::Not)
    return intScalar(!X.I);
  return isFloat(Ty) ? floatScalar(-X.F)
                     : intScalar(wrapInt(0 - uint64_t(X.I), Ty));
}

Scalar scalar::applyBinary(BinaryOp Op, DType T, Scalar L, Scalar R,
                           FaultFn Fault) {
  if (isFloat(T)) {
    double X = L.F, Y = R.F;
    switch (Op) {
    case BinaryOp::Add:
      return floatScalar(X + Y);
    case BinaryOp::Sub:
      return floatScalar(X - Y);
    case BinaryOp::Mul:
      return floatScalar(X * Y);
    case BinaryOp::Div:
      return floatScalar(X / Y);
    case BinaryOp::Rem:
      return floatScalar(std::fmod(X, Y));
    case BinaryOp::Eq:
      return intScalar(X == Y);
    case BinaryOp::Ne:
      return intScalar(X != Y);
    case BinaryOp::Lt:
      return intScalar(X < Y);
    case BinaryOp::Le:
      return intScalar(X <= Y);
    case BinaryOp::Gt:
      return intScalar(X > Y);
    case BinaryOp::Ge:
      return intScalar(X >= Y);
    default:
      llvm_unreachable("bitwise operator on floats");
    }
  }
  int64_t X = L.I, Y = R.I;
  uint64_t UX = uint64_t(X), UY = uint64_t(Y);
  bool U = isUnsigned(T);
  switch (Op) {
  case BinaryOp::Add:
    return intScalar(wrapInt(UX + UY, T));
  case BinaryOp::Sub:
    return intScalar(wrapInt(UX - UY, T));
  case BinaryOp::Mul:
    return intScalar(wrapInt(UX * UY, T));
  case BinaryOp::Div:
  case BinaryOp::Rem: {
    if (Y == 0) {
      Fault("integer division by zero");
      return intScalar(0);
    }
    if (U)
      return intScalar(wrapInt(Op == BinaryOp::Div ? UX / UY : UX % UY, T));
    if (Y == -1) {
      if (Op == BinaryOp::Rem)
        return intScalar(0);
      if (X == minSigned(T)) {
        Fault("signed division overflows: " + Twine(X) +
              " / -1 is not a value of " + getDTypeName(T));
        return intScalar(0);
      }
      return intScalar(-X);
    }
    return intScalar(Op == BinaryOp::Div ? X / Y : X % Y);
  }
  case BinaryOp::And:
    return intScalar(int64_t(UX & UY));
  case BinaryOp::Or:
    return intScalar(int64_t(UX | UY));
  case BinaryOp::Xor:
    return intScalar(int64_t(UX ^ UY));
  case BinaryOp::Shl:
  case BinaryOp::Shr: {
    unsigned W = getDTypeBits(T);
    if ((!U && Y < 0) || UY >= W) {
      Fault("shift amount " + Twine(Y) + " is out of range for " +
            getDTypeName(T) + " (0 to " + Twine(W - 1) + ")");
      return intScalar(0);
    }
    if (Op == BinaryOp::Shl)
      return intScalar(wrapInt(UX << UY, T));
    return intScalar(U ? int64_t(UX >> UY) : X >> Y);
  }
  case BinaryOp::Eq:
    return intScalar(X == Y);
  case BinaryOp::Ne:
    return intScalar(X != Y);
  case BinaryOp::Lt:
    return intScalar(lessThan(X, Y, T));
  case BinaryOp::Le:
    return intScalar(!lessThan(Y, X, T));
  case BinaryOp::Gt:
    return intScalar(lessThan(Y, X, T));
  case BinaryOp::Ge:
    return intScalar(!lessThan(X, Y, T));
  case BinaryOp::LogicalAnd:
  case BinaryOp::LogicalOr:
    break;
  }
  llvm_unreachable("logical operators are evaluated lazily by the caller");
}

Scalar scalar::applyIntrinsic(Intrinsic Fn, DType T, Scalar X, Scalar Y,
                              FaultFn Fault) {
  switch (Fn) {
  case Intrinsic::Min:
  case Intrinsic::Max: {
    bool Max = Fn == Intrinsic::Max;
    if (isFloat(T))
      return floatScalar(Max ? maxOf(X.F, Y.F) : minOf(X.F, Y.F));
    return (Max ? lessThan(X.I, Y.I, T) : lessThan(Y.I, X.I, T)) ? Y : X;
  }
  case Intrinsic::Abs:
    if (isFloat(T))
      return floatScalar(std::fabs(X.F));
    if (isSignedInteger(T) && X.I < 0)
      return intScalar(wrapInt(0 - uint64_t(X.I), T));
    return X;
  case Intrinsic::Exp:
    return floatScalar(std::exp(X.F));
  case Intrinsic::Exp2:
    return floatScalar(std::exp2(X.F));
  case Intrinsic::Log:
    return floatScalar(std::log(X.F));
  case Intrinsic::Log2:
    return floatScalar(std::log2(X.F));
  case Intrinsic::Sqrt:
    return floatScalar(std::sqrt(X.F));
  case Intrinsic::Rsqrt:
    return floatScalar(1.0 / std::sqrt(X.F));
  case Intrinsic::Tanh:
    return floatScalar(std::tanh(X.F));
  case Intrinsic::CeilDiv:
  case Intrinsic::FloorDiv:
  case Intrinsic::FloorMod: {
    int64_t D = Y.I;
    if (D == 0) {
      Fault("integer division by zero in '" + getIntrinsicName(Fn) + "'");
      return intScalar(0);
    }
    if (isUnsigned(T)) {
      uint64_t UX = uint64_t(X.I), UD = uint64_t(D);
      uint64_t Q = UX / UD, R = UX % UD;
      return intScalar(wrapInt(Fn == Intrinsic::FloorMod  ? R
                               : Fn == Intrinsic::CeilDiv ? Q + (R != 0)
                                                          : Q,
                               T));
    }
    if (D == -1) {
      if (Fn == Intrinsic::FloorMod)
        return intScalar(0);
      if (X.I == minSigned(T)) {
        Fault("'" + getIntrinsicName(Fn) + "' overflows: " + Twine(X.I) +
              " / -1 is not a value of " + getDTypeName(T));
        return intScalar(0);
      }
      return intScalar(-X.I);
    }
    int64_t Q = X.I / D, R = X.I % D;
    // Truncation rounded toward zero; floor and ceil differ from it when
    // the division is inexact, on the side the signs say.
    bool Below = R != 0 && (R < 0) != (D < 0);
    bool Above = R != 0 && (R < 0) == (D < 0);
    if (Fn == Intrinsic::FloorDiv)
      return intScalar(Q - Below);
    if (Fn == Intrinsic::CeilDiv)
      return intScalar(Q + Above);
    return intScalar(Below ? R + D : R);
  }
  case Intrinsic::Select:
    break;
  }
  llvm_unreachable("select is evaluated lazily by the caller");
}

std::string scalar::formatList(llvm::ArrayRef<int64_t> V) {
  return "[" +
         llvm::join(
             llvm::map_range(V, [](int64_t X) { return llvm::itostr(X); }),
             ", ") +
         "]";
}

void scalar::describeExpr(const Expr &E, ExprNode &N,
                          llvm::SmallVectorImpl<const Expr *> &Operands) {
  N.Ty = N.ArgTy = E.getDType();
  N.Loc = E.getLoc();
  switch (E.getKind()) {
  case Expr::Kind::IntLit: {
    N.K = NodeKind::Const;
    int64_t V = cast<IntLitExpr>(E).getValue();
    N.C = isFloat(N.Ty) ? floatScalar(double(V))
                        : intScalar(wrapInt(uint64_t(V), N.Ty));
    return;
  }
  case Expr::Kind::FloatLit: {
    N.K = NodeKind::Const;
    double V = cast<FloatLitExpr>(E).getValue();
    N.C = isFloat(N.Ty) ? floatScalar(V) : intScalar(floatToInt(V, N.Ty));
    return;
  }
  case Expr::Kind::Inf:
    N.K = NodeKind::Const;
    N.C = floatScalar(std::numeric_limits<double>::infinity());
    return;
  case Expr::Kind::Ref:
    N.K = NodeKind::Slot;
    return;
  case Expr::Kind::Load:
    N.K = NodeKind::Load;
    for (const ExprPtr &I : cast<LoadExpr>(E).getIndices())
      Operands.push_back(I.get());
    return;
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    N.K = NodeKind::Binary;
    N.Op = uint8_t(B.getOp());
    N.ArgTy = B.getLHS()->getDType();
    Operands.append({B.getLHS(), B.getRHS()});
    return;
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    N.K = NodeKind::Unary;
    N.Op = uint8_t(U.getOp());
    N.ArgTy = U.getOperand()->getDType();
    Operands.push_back(U.getOperand());
    return;
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    N.K = NodeKind::Call;
    N.Op = uint8_t(C.getIntrinsic());
    // select's type is that of its values, not of its condition.
    unsigned TypeArg = C.getIntrinsic() == Intrinsic::Select ? 1 : 0;
    N.ArgTy = C.getArgs()[TypeArg]->getDType();
    for (const ExprPtr &A : C.getArgs())
      Operands.push_back(A.get());
    return;
  }
  case Expr::Kind::Cast: {
    const auto &C = cast<CastExpr>(E);
    N.K = NodeKind::Cast;
    N.ArgTy = C.getOperand()->getDType();
    Operands.push_back(C.getOperand());
    return;
  }
  }
  llvm_unreachable("unknown expression");
}
