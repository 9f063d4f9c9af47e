//===- StmtBuilder.cpp - Writing per-thread code in passes ----------------===//

#include "tile/Transforms/StmtBuilder.h"

using namespace tile;

std::unique_ptr<Value> StmtBuilder::newVar(Value::Kind Kind,
                                           llvm::StringRef Base, DType Ty) {
  return std::make_unique<Value>(Kind, Names.fresh(Base), Ty, llvm::SMLoc());
}

Value *StmtBuilder::let(Stmts &Out, llvm::StringRef Name, ExprPtr Init) {
  std::unique_ptr<Value> V = newVar(Value::Kind::Let, Name, Init->getDType());
  Value *P = V.get();
  Out.push_back(std::make_unique<LetStmt>(std::move(V), std::move(Init)));
  return P;
}

Block stmt::block(std::vector<StmtPtr> S) {
  Block B;
  B.Stmts = std::move(S);
  return B;
}

StmtPtr stmt::ifThen(ExprPtr Cond, std::vector<StmtPtr> Then,
                     std::optional<std::vector<StmtPtr>> Else) {
  std::optional<Block> E;
  if (Else)
    E = block(std::move(*Else));
  return std::make_unique<IfStmt>(std::move(Cond), block(std::move(Then)),
                                  std::move(E));
}

StmtPtr StmtBuilder::loop(LoopKind Kind, llvm::StringRef Name, ExprPtr Hi,
                          llvm::function_ref<Stmts(Value *)> Body) {
  LoopDim D;
  D.Var = newVar(Value::Kind::LoopVar, Name);
  D.Lo = lit(0);
  D.Hi = std::move(Hi);
  Value *V = D.Var.get();
  std::vector<LoopDim> Dims;
  Dims.push_back(std::move(D));
  return std::make_unique<ForStmt>(Kind, std::move(Dims), nullptr,
                                   AttributeList(), block(Body(V)));
}

StmtPtr StmtBuilder::unroll(llvm::StringRef Name, int64_t N,
                            llvm::function_ref<Stmts(Value *)> Body) {
  return loop(LoopKind::Unroll, Name, lit(N), Body);
}

StmtPtr StmtBuilder::allocLocal(llvm::StringRef Name, DType Ty, int64_t N,
                                BufferValue *&Out) {
  std::vector<ExprPtr> Shape;
  Shape.push_back(lit(N));
  auto B = std::make_unique<BufferValue>(Names.fresh(Name), Ty, MemScope::Local,
                                         std::move(Shape), std::vector<ExprPtr>(),
                                         false, llvm::SMLoc());
  Out = B.get();
  return std::make_unique<AllocStmt>(std::move(B), AttributeList());
}

StmtPtr StmtBuilder::op(llvm::StringRef Name, std::vector<OpOperand> Operands,
                        AttributeList Attrs, llvm::SMLoc Loc) {
  return std::make_unique<OpStmt>(Ops.lookup(Name), std::move(Operands),
                                  std::move(Attrs), Loc);
}

bool StmtBuilder::isBarrier(const Stmt &S) {
  const auto *Op = llvm::dyn_cast<OpStmt>(&S);
  return Op && Op->getName() == "barrier";
}
