//===- LaunchCheck.cpp - Launch sizes checked before anything runs --------===//
//
// A small evaluator of integer grid expressions in 64-bit arithmetic with
// overflow detection, over the values a launch binds: symbolic dimensions,
// integer scalar parameters and the function-level lets built from them.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/LaunchCheck.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/DenseMap.h"
#include <limits>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

namespace {

/// Either a value, "unknown" (the expression reads something the check
/// does not model), or a located failure.
struct Eval {
  enum class State { Value, Unknown, Failed } S = State::Unknown;
  int64_t V = 0;
  static Eval value(int64_t V) { return {State::Value, V}; }
  static Eval unknown() { return {}; }
};

class GridEvaluator {
public:
  GridEvaluator(const std::map<std::string, int64_t> &Dims,
                const std::map<std::string, int64_t> &Scalars,
                const llvm::SourceMgr *SM)
      : Dims(Dims), Scalars(Scalars), SM(SM) {}

  llvm::DenseMap<const Value *, const Expr *> Lets;
  /// The first failure's error.
  llvm::Error Err = llvm::Error::success();

  Eval eval(const Expr &E) {
    switch (E.getKind()) {
    case Expr::Kind::IntLit:
      return Eval::value(cast<IntLitExpr>(E).getValue());
    case Expr::Kind::Ref: {
      const Value *V = cast<RefExpr>(E).getValue();
      if (V->getKind() == Value::Kind::Dim) {
        auto It = Dims.find(V->getName().str());
        return It == Dims.end() ? Eval::unknown() : Eval::value(It->second);
      }
      if (V->getKind() == Value::Kind::Param) {
        auto It = Scalars.find(V->getName().str());
        return It == Scalars.end() ? Eval::unknown() : Eval::value(It->second);
      }
      if (V->getKind() == Value::Kind::Let)
        if (const Expr *Init = Lets.lookup(V))
          return eval(*Init);
      return Eval::unknown();
    }
    case Expr::Kind::Cast: {
      const Expr &X = *cast<CastExpr>(E).getOperand();
      if (!isInteger(E.getDType()) || !isInteger(X.getDType()))
        return Eval::unknown();
      return eval(X);
    }
    case Expr::Kind::Unary: {
      const auto &U = cast<UnaryExpr>(E);
      Eval X = eval(*U.getOperand());
      if (X.S != Eval::State::Value || U.getOp() != UnaryOp::Neg)
        return X.S == Eval::State::Failed ? X : Eval::unknown();
      return checked(E, 0, X.V, BinaryOp::Sub);
    }
    case Expr::Kind::Binary: {
      const auto &B = cast<BinaryExpr>(E);
      Eval L = eval(*B.getLHS());
      if (L.S == Eval::State::Failed)
        return L;
      Eval R = eval(*B.getRHS());
      if (R.S != Eval::State::Value || L.S != Eval::State::Value)
        return R.S == Eval::State::Failed ? R : Eval::unknown();
      return checked(E, L.V, R.V, B.getOp());
    }
    case Expr::Kind::Call:
      return call(cast<CallExpr>(E));
    default:
      return Eval::unknown();
    }
  }

  Eval fail(const Expr &At, const llvm::Twine &Msg) {
    if (!Err)
      Err = makeLocatedError(ErrorCategory::InvalidLaunch, SM, At.getLoc(), Msg);
    return {Eval::State::Failed, 0};
  }

private:
  const std::map<std::string, int64_t> &Dims;
  const std::map<std::string, int64_t> &Scalars;
  const llvm::SourceMgr *SM;

  Eval checked(const Expr &E, int64_t L, int64_t R, BinaryOp Op) {
    int64_t V = 0;
    bool Overflow = false;
    switch (Op) {
    case BinaryOp::Add: Overflow = __builtin_add_overflow(L, R, &V); break;
    case BinaryOp::Sub: Overflow = __builtin_sub_overflow(L, R, &V); break;
    case BinaryOp::Mul: Overflow = __builtin_mul_overflow(L, R, &V); break;
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (R == 0)
        return fail(E, "the grid divides by zero here (" + llvm::Twine(L) +
                           (Op == BinaryOp::Div ? " / " : " % ") + "0)");
      if (L == std::numeric_limits<int64_t>::min() && R == -1)
        Overflow = true;
      else
        V = Op == BinaryOp::Div ? L / R : L % R;
      break;
    default:
      return Eval::unknown();
    }
    if (Overflow)
      return fail(E, "the grid overflows here (" + llvm::Twine(L) + " " +
                         getBinaryOpSpelling(Op) + " " + llvm::Twine(R) + ")");
    return Eval::value(V);
  }

  Eval call(const CallExpr &C) {
    llvm::SmallVector<int64_t, 2> A;
    for (const ExprPtr &X : C.getArgs()) {
      Eval E = eval(*X);
      if (E.S != Eval::State::Value)
        return E.S == Eval::State::Failed ? E : Eval::unknown();
      A.push_back(E.V);
    }
    switch (C.getIntrinsic()) {
    case Intrinsic::Min: return Eval::value(std::min(A[0], A[1]));
    case Intrinsic::Max: return Eval::value(std::max(A[0], A[1]));
    case Intrinsic::CeilDiv:
    case Intrinsic::FloorDiv:
    case Intrinsic::FloorMod: {
      if (A[1] == 0)
        return fail(C, "the grid divides by zero here (" +
                           getIntrinsicName(C.getIntrinsic()) + "(" +
                           llvm::Twine(A[0]) + ", 0))");
      if (A[1] == -1 && A[0] == std::numeric_limits<int64_t>::min())
        return fail(C, "the grid overflows here");
      int64_t Q = A[0] / A[1], R = A[0] % A[1];
      if (R != 0 && ((R < 0) != (A[1] < 0))) {
        --Q;
        R += A[1];
      }
      if (C.getIntrinsic() == Intrinsic::FloorMod)
        return Eval::value(R);
      if (C.getIntrinsic() == Intrinsic::CeilDiv && R != 0)
        ++Q;
      return Eval::value(Q);
    }
    default:
      return Eval::unknown();
    }
  }
};

} // namespace

llvm::Error tile::checkLaunchGrids(const Function &F,
                                   const std::map<std::string, int64_t> &Dims,
                                   const std::map<std::string, int64_t> &Scalars,
                                   const llvm::SourceMgr *SM) {
  GridEvaluator G(Dims, Scalars, SM);
  for (const StmtPtr &S : F.getBody().Stmts) {
    if (const auto *L = dyn_cast<LetStmt>(S.get())) {
      G.Lets[L->getVar()] = L->getInit();
      continue;
    }
    const auto *K = dyn_cast<KernelStmt>(S.get());
    if (!K)
      continue;
    for (const ExprPtr &D : K->getGrid()) {
      Eval E = G.eval(*D);
      if (E.S == Eval::State::Failed)
        return std::move(G.Err);
      if (E.S != Eval::State::Value)
        continue;
      // The host code computes launch sizes in 32 bits.
      if (E.V < 0 || E.V > std::numeric_limits<int32_t>::max()) {
        llvm::consumeError(std::move(G.Err));
        return makeLocatedError(
            ErrorCategory::InvalidLaunch, SM, D->getLoc(),
            "grid dimension is " + llvm::Twine(E.V) + " blocks with these "
            "sizes; it must lie in [0, 2^31 - 1]");
      }
    }
  }
  return std::move(G.Err);
}
