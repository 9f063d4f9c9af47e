//===- StmtBuilder.h - Writing per-thread code in passes --------*- C++ -*-===//
//
// What the passes that write per-thread code (the register-level gemm
// lowerings of the CUDA, Hopper and ROCm backends) use to build it: fresh
// names, lets, loops, ifs, per-thread arrays and ops, and integer index
// arithmetic that folds as it goes. A pass derives from StmtBuilder, which
// owns the function's name generator.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_STMTBUILDER_H
#define TILE_TRANSFORMS_STMTBUILDER_H

#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace tile {

/// Statement constructors for passes that build statements without a
/// StmtBuilder (they keep their own names and registry).
namespace stmt {
/// A block of \p S.
Block block(std::vector<StmtPtr> S);
/// `if Cond { Then }`, with `else { Else }` when \p Else is given.
StmtPtr ifThen(ExprPtr Cond, std::vector<StmtPtr> Then,
               std::optional<std::vector<StmtPtr>> Else = std::nullopt);
} // namespace stmt

class StmtBuilder {
public:
  using Stmts = std::vector<StmtPtr>;

  StmtBuilder(const Function &F, const OpRegistry &Ops) : Names(F), Ops(Ops) {}

  /// A new value named after \p Base, unique in the function.
  std::unique_ptr<Value> newVar(Value::Kind Kind, llvm::StringRef Base,
                                DType Ty = DType::I32);
  /// Appends `let %Name = Init` (of Init's dtype) to \p Out.
  Value *let(Stmts &Out, llvm::StringRef Name, ExprPtr Init);
  static Block block(Stmts S) { return stmt::block(std::move(S)); }
  static StmtPtr ifThen(ExprPtr Cond, Stmts Then) {
    return stmt::ifThen(std::move(Cond), std::move(Then));
  }
  static StmtPtr ifElse(ExprPtr Cond, Stmts Then, Stmts Else) {
    return stmt::ifThen(std::move(Cond), std::move(Then), std::move(Else));
  }
  /// `for %Var in Kind(0, Hi) { Body(%Var) }`.
  StmtPtr loop(LoopKind Kind, llvm::StringRef Name, ExprPtr Hi,
               llvm::function_ref<Stmts(Value *)> Body);
  StmtPtr unroll(llvm::StringRef Name, int64_t N,
                 llvm::function_ref<Stmts(Value *)> Body);
  /// `alloc local Ty[N]`, its buffer in \p Out.
  StmtPtr allocLocal(llvm::StringRef Name, DType Ty, int64_t N,
                     BufferValue *&Out);
  StmtPtr op(llvm::StringRef Name, std::vector<OpOperand> Operands = {},
             AttributeList Attrs = AttributeList(), llvm::SMLoc Loc = {});
  StmtPtr barrier() { return op("barrier"); }
  static bool isBarrier(const Stmt &S);

  static ExprPtr lit(int64_t V) { return ex::intLit(V); }
  static ExprPtr ref(Value *V) { return ex::ref(V); }
  static ExprPtr add(ExprPtr A, ExprPtr B) { return ex::add(std::move(A), std::move(B)); }
  static ExprPtr add(ExprPtr A, int64_t B) { return ex::add(std::move(A), lit(B)); }
  static ExprPtr mul(ExprPtr A, int64_t B) { return ex::mul(std::move(A), lit(B)); }
  static ExprPtr div(ExprPtr A, int64_t B) {
    return B == 1 ? std::move(A) : ex::binary(BinaryOp::Div, std::move(A), lit(B));
  }
  static ExprPtr rem(ExprPtr A, int64_t B) {
    return ex::binary(BinaryOp::Rem, std::move(A), lit(B));
  }

protected:
  NameGenerator Names;
  const OpRegistry &Ops;
};

} // namespace tile

#endif // TILE_TRANSFORMS_STMTBUILDER_H
