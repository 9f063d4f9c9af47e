//===- Walk.cpp - Traversing and rewriting Tile IR ------------------------===//

#include "tile/IR/Walk.h"
#include "llvm/ADT/Twine.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

void tile::walkStmts(Block &B, llvm::function_ref<void(Stmt &)> Fn) {
  for (StmtPtr &S : B.Stmts) {
    Fn(*S);
    for (Block *N : getNestedBlocks(*S))
      walkStmts(*N, Fn);
  }
}

void tile::walkStmts(const Block &B,
                     llvm::function_ref<void(const Stmt &)> Fn) {
  walkStmts(const_cast<Block &>(B), [&](Stmt &S) { Fn(S); });
}

void tile::forEachKernel(
    Module &M, llvm::function_ref<void(Function &, KernelStmt &)> Fn) {
  for (const auto &F : M.getFunctions())
    walkStmts(F->getBodyMutable(), [&](Stmt &S) {
      if (auto *K = dyn_cast<KernelStmt>(&S))
        Fn(*F, *K);
    });
}

llvm::SmallVector<Block *, 2> tile::getNestedBlocks(Stmt &S) {
  llvm::SmallVector<Block *, 2> Out;
  if (auto *F = dyn_cast<ForStmt>(&S))
    Out.push_back(&F->getBodyMutable());
  else if (auto *I = dyn_cast<IfStmt>(&S)) {
    Out.push_back(&I->getThenMutable());
    if (I->hasElse())
      Out.push_back(&I->getElseMutable());
  } else if (auto *K = dyn_cast<KernelStmt>(&S))
    Out.push_back(&K->getBodyMutable());
  return Out;
}

void tile::forEachExprSlot(Stmt &S, llvm::function_ref<void(ExprPtr &)> Fn) {
  switch (S.getKind()) {
  case Stmt::Kind::Alloc:
    for (ExprPtr &D : cast<AllocStmt>(S).getBuffer()->getShapeMutable())
      Fn(D);
    return;
  case Stmt::Kind::Let:
    Fn(cast<LetStmt>(S).getInitMutable());
    return;
  case Stmt::Kind::Store: {
    auto &St = cast<StoreStmt>(S);
    for (ExprPtr &I : St.getIndicesMutable())
      Fn(I);
    Fn(St.getValueMutable());
    return;
  }
  case Stmt::Kind::For: {
    auto &F = cast<ForStmt>(S);
    for (LoopDim &D : F.getDimsMutable()) {
      if (D.Lo)
        Fn(D.Lo);
      Fn(D.Hi);
    }
    if (F.getStepMutable())
      Fn(F.getStepMutable());
    return;
  }
  case Stmt::Kind::If:
    Fn(cast<IfStmt>(S).getCondMutable());
    return;
  case Stmt::Kind::Kernel: {
    auto &K = cast<KernelStmt>(S);
    for (ExprPtr &G : K.getGridMutable())
      Fn(G);
    Fn(K.getThreadsMutable());
    return;
  }
  case Stmt::Kind::Op:
    for (OpOperand &O : cast<OpStmt>(S).getOperandsMutable()) {
      if (O.Kind == OperandKind::Expr) {
        Fn(O.E);
        continue;
      }
      for (RegionIndex &I : O.R.Indices) {
        Fn(I.Offset);
        if (I.Extent)
          Fn(I.Extent);
      }
    }
    return;
  }
}

void tile::forEachChild(Expr &E, llvm::function_ref<void(ExprPtr &)> Fn) {
  switch (E.getKind()) {
  case Expr::Kind::Load:
    for (ExprPtr &I : cast<LoadExpr>(E).getIndicesMutable())
      Fn(I);
    return;
  case Expr::Kind::Binary:
    Fn(cast<BinaryExpr>(E).getLHSMutable());
    Fn(cast<BinaryExpr>(E).getRHSMutable());
    return;
  case Expr::Kind::Unary:
    Fn(cast<UnaryExpr>(E).getOperandMutable());
    return;
  case Expr::Kind::Cast:
    Fn(cast<CastExpr>(E).getOperandMutable());
    return;
  case Expr::Kind::Call:
    for (ExprPtr &A : cast<CallExpr>(E).getArgsMutable())
      Fn(A);
    return;
  default:
    return;
  }
}

bool tile::isSameExpr(const Expr &A, const Expr &B) {
  if (A.getKind() != B.getKind() || A.getDType() != B.getDType())
    return false;
  auto SameList = [](llvm::ArrayRef<ExprPtr> X, llvm::ArrayRef<ExprPtr> Y) {
    if (X.size() != Y.size())
      return false;
    for (size_t I = 0; I != X.size(); ++I)
      if (!isSameExpr(*X[I], *Y[I]))
        return false;
    return true;
  };
  switch (A.getKind()) {
  case Expr::Kind::IntLit:
    return cast<IntLitExpr>(A).getValue() == cast<IntLitExpr>(B).getValue();
  case Expr::Kind::FloatLit:
    return cast<FloatLitExpr>(A).getValue() == cast<FloatLitExpr>(B).getValue();
  case Expr::Kind::Ref:
    return cast<RefExpr>(A).getValue() == cast<RefExpr>(B).getValue();
  case Expr::Kind::Load:
    return cast<LoadExpr>(A).getBuffer() == cast<LoadExpr>(B).getBuffer() &&
           SameList(cast<LoadExpr>(A).getIndices(), cast<LoadExpr>(B).getIndices());
  case Expr::Kind::Binary: {
    const auto &X = cast<BinaryExpr>(A), &Y = cast<BinaryExpr>(B);
    return X.getOp() == Y.getOp() && isSameExpr(*X.getLHS(), *Y.getLHS()) &&
           isSameExpr(*X.getRHS(), *Y.getRHS());
  }
  case Expr::Kind::Unary: {
    const auto &X = cast<UnaryExpr>(A), &Y = cast<UnaryExpr>(B);
    return X.getOp() == Y.getOp() && isSameExpr(*X.getOperand(), *Y.getOperand());
  }
  case Expr::Kind::Call: {
    const auto &X = cast<CallExpr>(A), &Y = cast<CallExpr>(B);
    return X.getIntrinsic() == Y.getIntrinsic() && SameList(X.getArgs(), Y.getArgs());
  }
  case Expr::Kind::Cast:
    return isSameExpr(*cast<CastExpr>(A).getOperand(), *cast<CastExpr>(B).getOperand());
  case Expr::Kind::Inf:
    return true;
  }
  return false;
}

void tile::forEachChild(const Expr &E,
                        llvm::function_ref<void(const Expr &)> Fn) {
  forEachChild(const_cast<Expr &>(E), [&](ExprPtr &C) { Fn(*C); });
}

void tile::rewriteExpr(ExprPtr &Slot,
                       llvm::function_ref<ExprPtr(ExprPtr)> Fn) {
  forEachChild(*Slot, [&](ExprPtr &C) { rewriteExpr(C, Fn); });
  Slot = Fn(std::move(Slot));
}

void tile::remapValueRefs(Stmt &S,
                          const llvm::DenseMap<const Value *, Value *> &Map) {
  auto Fix = [&](ExprPtr &Slot) {
    rewriteExpr(Slot, [&](ExprPtr E) {
      if (auto *R = dyn_cast<RefExpr>(E.get()))
        if (Value *To = Map.lookup(R->getValue()))
          R->setValue(To);
      return E;
    });
  };
  forEachExprSlot(S, Fix);
  for (Block *N : getNestedBlocks(S))
    walkStmts(*N, [&](Stmt &X) { forEachExprSlot(X, Fix); });
}

void tile::forEachUse(const Expr &E,
                      llvm::function_ref<void(const Value *)> Fn) {
  if (const auto *R = dyn_cast<RefExpr>(&E))
    Fn(R->getValue());
  else if (const auto *L = dyn_cast<LoadExpr>(&E))
    Fn(L->getBuffer());
  forEachChild(E, [&](const Expr &C) { forEachUse(C, Fn); });
}

void tile::forEachDirectUse(Stmt &S,
                            llvm::function_ref<void(const Value *)> Fn) {
  forEachExprSlot(S, [&](ExprPtr &E) { forEachUse(*E, Fn); });
  if (const auto *St = dyn_cast<StoreStmt>(&S))
    Fn(St->getBuffer());
  if (const auto *O = dyn_cast<OpStmt>(&S))
    for (const OpOperand &Opnd : O->getOperands())
      if (Opnd.Kind == OperandKind::Region)
        Fn(Opnd.R.Buf);
}

void tile::forEachUse(const Block &B,
                      llvm::function_ref<void(const Value *)> Fn) {
  // forEachDirectUse only reads the statement.
  walkStmts(B, [&](const Stmt &S) { forEachDirectUse(const_cast<Stmt &>(S), Fn); });
}

void tile::forEachUse(const Stmt &S, llvm::function_ref<void(const Value *)> Fn) {
  // Neither walk changes the statement.
  Stmt &M = const_cast<Stmt &>(S);
  forEachDirectUse(M, Fn);
  for (Block *N : getNestedBlocks(M))
    forEachUse(*N, Fn);
}

NameGenerator::NameGenerator(const Function &F) {
  for (const auto &P : F.getParams())
    Used.insert(P->getName());
  for (const auto &D : F.getDims())
    Used.insert(D->getName());
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (const auto *A = dyn_cast<AllocStmt>(&S))
      Used.insert(A->getBuffer()->getName());
    else if (const auto *L = dyn_cast<LetStmt>(&S))
      Used.insert(L->getVar()->getName());
    else if (const auto *Fo = dyn_cast<ForStmt>(&S))
      for (const LoopDim &D : Fo->getDims())
        Used.insert(D.Var->getName());
    else if (const auto *K = dyn_cast<KernelStmt>(&S)) {
      for (const auto &V : K->getBlockIndices())
        Used.insert(V->getName());
      if (K->getThreadIndex())
        Used.insert(K->getThreadIndex()->getName());
    }
  });
}

std::string NameGenerator::fresh(llvm::StringRef Base) {
  std::string Name = Base.str();
  for (unsigned I = 1; Used.contains(Name); ++I)
    Name = (Base + "_" + std::to_string(I)).str();
  Used.insert(Name);
  return Name;
}
