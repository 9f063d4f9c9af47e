//===- CountFlops.cpp - tile-jit --bench: floating-point operations -------===//
//
// The GFLOP/s figure of tile-jit --bench: gemm operations counted over the
// grid and the loops around them, with the dimension values of the run.
//
//===----------------------------------------------------------------------===//

#include "Jit.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

std::optional<double>
tile::countGemmFlops(const Function &Fn,
                     const std::map<std::string, int64_t> &DimValues) {
  // 2*M*N*K per gemm execution; executions from the grid and the trip
  // counts of enclosing loops, evaluated per block when they depend on it.
  llvm::DenseMap<const Value *, int64_t> Env;
  for (const auto &D : Fn.getDims())
    if (auto It = DimValues.find(D->getName().str()); It != DimValues.end())
      Env[D.get()] = It->second;
  bool Unknown = false;
  std::function<std::optional<int64_t>(const Expr &)> Eval =
      [&](const Expr &E) -> std::optional<int64_t> {
    if (auto C = E.getConstInt())
      return C;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      auto It = Env.find(R->getValue());
      if (It == Env.end())
        return std::nullopt;
      return It->second;
    }
    auto Two = [&](const Expr &A, const Expr &B)
        -> std::optional<std::pair<int64_t, int64_t>> {
      auto X = Eval(A), Y = Eval(B);
      if (!X || !Y)
        return std::nullopt;
      return std::make_pair(*X, *Y);
    };
    if (const auto *B = dyn_cast<BinaryExpr>(&E)) {
      auto V = Two(*B->getLHS(), *B->getRHS());
      if (!V)
        return std::nullopt;
      switch (B->getOp()) {
      case BinaryOp::Add: return V->first + V->second;
      case BinaryOp::Sub: return V->first - V->second;
      case BinaryOp::Mul: return V->first * V->second;
      case BinaryOp::Div: return V->second ? V->first / V->second : 0;
      default: return std::nullopt;
      }
    }
    if (const auto *C = dyn_cast<CallExpr>(&E)) {
      if (C->getArgs().size() != 2)
        return std::nullopt;
      auto V = Two(*C->getArgs()[0], *C->getArgs()[1]);
      if (!V)
        return std::nullopt;
      switch (C->getIntrinsic()) {
      case Intrinsic::Min: return std::min(V->first, V->second);
      case Intrinsic::Max: return std::max(V->first, V->second);
      case Intrinsic::CeilDiv:
        return V->second ? (V->first + V->second - 1) / V->second : 0;
      case Intrinsic::FloorDiv: return V->second ? V->first / V->second : 0;
      default: return std::nullopt;
      }
    }
    return std::nullopt;
  };
  std::function<double(const Block &)> Walk = [&](const Block &B) -> double {
    double Sum = 0;
    for (const StmtPtr &S : B.Stmts) {
      if (const auto *L = dyn_cast<LetStmt>(S.get())) {
        if (auto V = Eval(*L->getInit()))
          Env[L->getVar()] = *V;
        continue;
      }
      if (const auto *Op = dyn_cast<OpStmt>(S.get()); Op && Op->getName() == "gemm") {
        double P = 2;
        for (const char *N : {"a", "b"}) {
          std::vector<const Expr *> Ext = getRegionExtentExprs(Op->getOperand(N).R, nullptr);
          std::optional<int64_t> X = Eval(*Ext[Ext.size() - 2]), Y = Eval(*Ext.back());
          if (!X || !Y) {
            Unknown = true;
            return 0;
          }
          P *= N[0] == 'a' ? double(*X) * *Y : (Op->getAttrOrDefault("transpose_b").getBool() ? *X : *Y);
        }
        Sum += P;
        continue;
      }
      if (const auto *Fo = dyn_cast<ForStmt>(S.get())) {
        double Trips = 1;
        for (const LoopDim &D : Fo->getDims()) {
          auto Lo = D.Lo ? Eval(*D.Lo) : std::optional<int64_t>(0);
          auto Hi = Eval(*D.Hi);
          std::optional<int64_t> Step = Fo->getStep() ? Eval(*Fo->getStep()) : 1;
          if (!Lo || !Hi || !Step || *Step <= 0) {
            Unknown = true;
            return 0;
          }
          Trips *= std::max<int64_t>(0, (*Hi - *Lo + *Step - 1) / *Step);
        }
        Sum += Trips * Walk(Fo->getBody());
        continue;
      }
      if (const auto *K = dyn_cast<KernelStmt>(S.get())) {
        std::vector<int64_t> G;
        for (const ExprPtr &E : K->getGrid()) {
          auto V = Eval(*E);
          if (!V) {
            Unknown = true;
            return 0;
          }
          G.push_back(*V);
        }
        G.resize(3, 1);
        // Per block when cheap enough, so block-dependent bounds count.
        int64_t Blocks = G[0] * G[1] * G[2];
        if (Blocks <= 65536) {
          for (int64_t Z = 0; Z < G[2]; ++Z)
            for (int64_t Y = 0; Y < G[1]; ++Y)
              for (int64_t X = 0; X < G[0]; ++X) {
                int64_t Idx[3] = {X, Y, Z};
                for (unsigned D = 0; D != K->getBlockIndices().size(); ++D)
                  Env[K->getBlockIndices()[D].get()] = Idx[D];
                Sum += Walk(K->getBody());
              }
        } else {
          for (const auto &V : K->getBlockIndices())
            Env.erase(V.get());
          Sum += double(Blocks) * Walk(K->getBody());
        }
        continue;
      }
    }
    return Sum;
  };
  double Flops = Walk(Fn.getBody());
  if (Unknown)
    return std::nullopt;
  return Flops;
}
