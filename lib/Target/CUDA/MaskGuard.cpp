//===- MaskGuard.cpp - Running a mask only on tiles it can change --------===//

#include "MaskGuard.h"

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace {

/// How an integer expression moves as one loop index grows (no overflow
/// assumed, as for any index arithmetic).
enum class Mono { Const, Up, Down, Unknown };

Mono flip(Mono M) {
  return M == Mono::Up ? Mono::Down : M == Mono::Down ? Mono::Up : M;
}

/// The direction of a sum of terms moving as \p A and \p B do.
Mono join(Mono A, Mono B) {
  if (A == Mono::Const)
    return B;
  if (B == Mono::Const)
    return A;
  return A == B ? A : Mono::Unknown;
}

Mono direction(const Expr &E, const Value *Var) {
  switch (E.getKind()) {
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
  case Expr::Kind::Inf:
    return Mono::Const;
  case Expr::Kind::Ref:
    return cast<RefExpr>(E).getValue() == Var ? Mono::Up : Mono::Const;
  case Expr::Kind::Load:
    return Mono::Unknown;
  case Expr::Kind::Binary: {
    const auto &B = cast<BinaryExpr>(E);
    Mono L = direction(*B.getLHS(), Var), R = direction(*B.getRHS(), Var);
    if (L == Mono::Const && R == Mono::Const)
      return Mono::Const;
    // A factor or divisor that is a literal keeps or flips the direction.
    auto Scaled = [](Mono M, std::optional<int64_t> C) {
      if (!C)
        return Mono::Unknown;
      return *C > 0 ? M : *C < 0 ? flip(M) : Mono::Const;
    };
    switch (B.getOp()) {
    case BinaryOp::Add:
      return join(L, R);
    case BinaryOp::Sub:
      return join(L, flip(R));
    case BinaryOp::Mul:
      if (R == Mono::Const)
        return Scaled(L, B.getRHS()->getConstInt());
      if (L == Mono::Const)
        return Scaled(R, B.getLHS()->getConstInt());
      return Mono::Unknown;
    case BinaryOp::Div:
      if (R == Mono::Const && B.getRHS()->getConstInt().value_or(0) > 0)
        return L;
      return Mono::Unknown;
    default:
      return Mono::Unknown;
    }
  }
  case Expr::Kind::Unary: {
    const auto &U = cast<UnaryExpr>(E);
    Mono X = direction(*U.getOperand(), Var);
    if (U.getOp() == UnaryOp::Neg)
      return flip(X);
    return X == Mono::Const ? Mono::Const : Mono::Unknown;
  }
  case Expr::Kind::Call: {
    const auto &C = cast<CallExpr>(E);
    Mono M = Mono::Const;
    bool AllConst = true;
    for (const ExprPtr &A : C.getArgs()) {
      Mono D = direction(*A, Var);
      AllConst &= D == Mono::Const;
      M = join(M, D);
    }
    if (AllConst)
      return Mono::Const;
    // min and max of terms moving one way move that way.
    if (C.getIntrinsic() == Intrinsic::Min || C.getIntrinsic() == Intrinsic::Max)
      return M;
    return Mono::Unknown;
  }
  case Expr::Kind::Cast: {
    const auto &C = cast<CastExpr>(E);
    const Expr &X = *C.getOperand();
    Mono D = direction(X, Var);
    if (D == Mono::Const)
      return D;
    // Widening integer casts keep the order.
    if (isInteger(X.getDType()) && isInteger(C.getDType()) &&
        getDTypeBits(C.getDType()) >= getDTypeBits(X.getDType()))
      return D;
    return Mono::Unknown;
  }
  }
  return Mono::Unknown;
}

/// \p E with each index of \p Dims at the end of its range that makes \p E
/// largest (\p Largest) or smallest; null if \p E is not monotone in one.
ExprPtr atCorner(const Expr &E, llvm::ArrayRef<LoopDim> Dims, bool Largest) {
  ExprPtr R = E.clone();
  for (const LoopDim &D : Dims) {
    Mono M = direction(E, D.Var.get());
    if (M == Mono::Unknown)
      return nullptr;
    if (M == Mono::Const)
      continue;
    bool High = (M == Mono::Up) == Largest;
    ExprPtr At = High ? ex::sub(D.Hi->clone(), ex::intLit(1, D.Hi->getDType()))
                 : D.Lo ? D.Lo->clone()
                        : ex::intLit(0, D.Var->getDType());
    rewriteExpr(R, [&](ExprPtr X) -> ExprPtr {
      if (auto *Ref = dyn_cast<RefExpr>(X.get()); Ref && Ref->getValue() == D.Var.get())
        return At->clone();
      return X;
    });
  }
  rewriteExpr(R, [](ExprPtr X) { return ex::fold(std::move(X)); });
  return R;
}

/// A condition true wherever \p C is false at some point of \p Dims; null
/// (with \p Why) if \p C is not a conjunction of monotone comparisons.
ExprPtr canFail(const Expr &C, llvm::ArrayRef<LoopDim> Dims, std::string &Why) {
  const auto *B = dyn_cast<BinaryExpr>(&C);
  if (!B) {
    Why = "the select's condition is not a comparison";
    return nullptr;
  }
  if (B->getOp() == BinaryOp::LogicalAnd) {
    ExprPtr L = canFail(*B->getLHS(), Dims, Why);
    if (!L)
      return nullptr;
    ExprPtr R = canFail(*B->getRHS(), Dims, Why);
    if (!R)
      return nullptr;
    return ex::binary(BinaryOp::LogicalOr, std::move(L), std::move(R));
  }
  // Small < Big (or <=) for every point when the largest Small is below
  // the smallest Big.
  const Expr *Small = B->getLHS(), *Big = B->getRHS();
  bool Strict;
  switch (B->getOp()) {
  case BinaryOp::Lt:
    Strict = true;
    break;
  case BinaryOp::Le:
    Strict = false;
    break;
  case BinaryOp::Gt:
    Strict = true;
    std::swap(Small, Big);
    break;
  case BinaryOp::Ge:
    Strict = false;
    std::swap(Small, Big);
    break;
  default:
    Why = "the select's condition is not a conjunction of <, <=, > and >= "
          "comparisons";
    return nullptr;
  }
  if (!isInteger(Small->getDType()) || !isInteger(Big->getDType())) {
    Why = "the select's condition compares other than integers";
    return nullptr;
  }
  ExprPtr Hi = atCorner(*Small, Dims, true), Lo = atCorner(*Big, Dims, false);
  if (!Hi || !Lo) {
    Why = "a side of the select's condition is not monotone in the loop's indices";
    return nullptr;
  }
  return Strict ? ex::ge(std::move(Hi), std::move(Lo))
                : ex::binary(BinaryOp::Gt, std::move(Hi), std::move(Lo));
}

bool sameRef(const Expr &A, const Expr &B) {
  const auto *RA = dyn_cast<RefExpr>(&A), *RB = dyn_cast<RefExpr>(&B);
  return RA && RB && RA->getValue() == RB->getValue();
}

} // namespace

ExprPtr tile::maskGuard(const ForStmt &L, std::string &Why) {
  Why.clear();
  // Masks only: some store of a select.
  bool Select = false;
  for (const StmtPtr &S : L.getBody().Stmts)
    if (const auto *St = dyn_cast<StoreStmt>(S.get()))
      if (const auto *C = dyn_cast<CallExpr>(St->getValue()))
        Select |= C->getIntrinsic() == Intrinsic::Select;
  if (!Select)
    return nullptr;
  llvm::DenseMap<const Value *, const Expr *> Lets;
  // \p E with the body's lets replaced by what they bind.
  std::function<ExprPtr(const Expr &)> Inline = [&](const Expr &E) {
    ExprPtr R = E.clone();
    rewriteExpr(R, [&](ExprPtr X) -> ExprPtr {
      if (auto *Ref = dyn_cast<RefExpr>(X.get()))
        if (const Expr *Init = Lets.lookup(Ref->getValue()))
          return Inline(*Init);
      return X;
    });
    return R;
  };
  ExprPtr Guard;
  for (const StmtPtr &S : L.getBody().Stmts) {
    if (const auto *Let = dyn_cast<LetStmt>(S.get())) {
      Lets[Let->getVar()] = Let->getInit();
      continue;
    }
    const auto *St = dyn_cast<StoreStmt>(S.get());
    if (!St) {
      Why = "the loop holds more than lets and stores";
      return nullptr;
    }
    // %X[idx] = select(c, %X[idx], v): unchanged where c holds.
    const auto *C = dyn_cast<CallExpr>(St->getValue());
    const LoadExpr *Kept =
        C && C->getIntrinsic() == Intrinsic::Select ? dyn_cast<LoadExpr>(C->getArgs()[1].get())
                                                    : nullptr;
    bool Same = Kept && Kept->getBuffer() == St->getBuffer() &&
                Kept->getIndices().size() == St->getIndices().size();
    for (unsigned I = 0; Same && I != St->getIndices().size(); ++I)
      Same = sameRef(*Kept->getIndices()[I], *St->getIndices()[I]);
    if (!Same) {
      Why = "a store is not a select keeping the element it stores to where "
            "its condition holds";
      return nullptr;
    }
    ExprPtr Cond = Inline(*C->getArgs()[0]);
    bool Reads = false;
    forEachUse(*Cond, [&](const Value *V) { Reads |= isa<BufferValue>(V); });
    if (Reads) {
      Why = "the select's condition reads memory";
      return nullptr;
    }
    ExprPtr G = canFail(*Cond, L.getDims(), Why);
    if (!G)
      return nullptr;
    Guard = Guard ? ex::binary(BinaryOp::LogicalOr, std::move(Guard), std::move(G))
                  : std::move(G);
  }
  return Guard;
}
