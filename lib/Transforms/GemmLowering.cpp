//===- GemmLowering.cpp - What register-level gemm lowerings share --------===//

#include "tile/Transforms/GemmLowering.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>

using namespace tile;
using llvm::dyn_cast;

std::optional<std::pair<unsigned, unsigned>>
tile::getAccumulatorCopyDims(const OpStmt &Copy) {
  const Region &Src = Copy.getOperand("src").R, &Dst = Copy.getOperand("dst").R;
  std::optional<std::vector<int64_t>> Shape = Src.Buf->getConstShape();
  if (!Shape || Shape->size() != 2)
    return std::nullopt;
  std::vector<const Expr *> Ext = getRegionExtentExprs(Dst, &Src);
  std::vector<unsigned> Dims;
  for (unsigned D = 0; D != Ext.size(); ++D)
    if (Ext[D] && !ex::isConst(*Ext[D], 1))
      Dims.push_back(D);
  if (Dims.size() != 2 || !ex::isConst(*Ext[Dims[0]], (*Shape)[0]) ||
      !ex::isConst(*Ext[Dims[1]], (*Shape)[1]))
    return std::nullopt;
  return std::make_pair(Dims[0], Dims[1]);
}

/// Whether \p Idx is exactly the variables of 2-D loop \p F, in order.
static bool atLoopVars(llvm::ArrayRef<ExprPtr> Idx, const ForStmt &F) {
  if (Idx.size() != 2)
    return false;
  for (unsigned D = 0; D != 2; ++D) {
    const auto *R = dyn_cast<RefExpr>(Idx[D].get());
    if (!R || R->getValue() != F.getDims()[D].Var.get())
      return false;
  }
  return true;
}

/// Whether \p Idx is one variable of \p F (a 1-D fragment broadcast along
/// the other).
static bool atOneLoopVar(llvm::ArrayRef<ExprPtr> Idx, const ForStmt &F) {
  if (Idx.size() != 1)
    return false;
  const auto *R = dyn_cast<RefExpr>(Idx[0].get());
  return R && (R->getValue() == F.getDims()[0].Var.get() ||
               R->getValue() == F.getDims()[1].Var.get());
}

namespace {
/// What an epilogue candidate touches.
struct EpilogueScan {
  bool OK = true;
  /// 2-D fragments read or written at the loop variables.
  llvm::SmallPtrSet<const BufferValue *, 4> Elementwise;
  /// Fragments written.
  llvm::SmallPtrSet<const BufferValue *, 4> Written;
  /// 1-D fragments read at one variable.
  llvm::SmallPtrSet<const BufferValue *, 4> Broadcast;
};
} // namespace

/// Scans parallel loop \p F for the shape of an epilogue over fragments of
/// \p Shape: fragments touched only elementwise at the loop variables or
/// (1-D, read only) at one of them; stores only to those fragments and to
/// vars and locals; no ops or nested parallel loops.
static EpilogueScan scanEpilogue(const ForStmt &F,
                                 llvm::ArrayRef<int64_t> Shape) {
  EpilogueScan R;
  auto IsFrag = [](const BufferValue *B) {
    return B->getScope() == MemScope::Fragment;
  };
  auto Elementwise = [&](const BufferValue *B) {
    std::optional<std::vector<int64_t>> S = B->getConstShape();
    return S && llvm::ArrayRef<int64_t>(*S) == Shape;
  };
  std::function<void(const Expr &)> Visit = [&](const Expr &E) {
    if (const auto *L = dyn_cast<LoadExpr>(&E); L && IsFrag(L->getBuffer())) {
      if (atLoopVars(L->getIndices(), F) && Elementwise(L->getBuffer()))
        R.Elementwise.insert(L->getBuffer());
      else if (atOneLoopVar(L->getIndices(), F))
        R.Broadcast.insert(L->getBuffer());
      else
        R.OK = false;
    }
    forEachChild(E, Visit);
  };
  walkStmts(F.getBody(), [&](const Stmt &S) {
    if (llvm::isa<OpStmt>(S))
      R.OK = false;
    if (const auto *Fo = dyn_cast<ForStmt>(&S);
        Fo && Fo->getLoopKind() == LoopKind::Parallel)
      R.OK = false;
    if (const auto *St = dyn_cast<StoreStmt>(&S)) {
      const BufferValue *B = St->getBuffer();
      if (IsFrag(B)) {
        if (atLoopVars(St->getIndices(), F) && Elementwise(B)) {
          R.Elementwise.insert(B);
          R.Written.insert(B);
        } else {
          R.OK = false;
        }
      } else if (B->getScope() != MemScope::Var &&
                 B->getScope() != MemScope::Local) {
        R.OK = false;
      }
    }
    forEachExprSlot(const_cast<Stmt &>(S), [&](ExprPtr &E) { Visit(*E); });
  });
  for (const BufferValue *B : R.Broadcast)
    R.OK &= !R.Written.count(B);
  return R;
}

AccumulatorUses
tile::classifyAccumulatorUses(KernelStmt &K,
                              const llvm::DenseSet<const OpStmt *> &Gemms,
                              bool Epilogues,
                              const llvm::DenseSet<const OpStmt *> *Reductions) {
  AccumulatorUses U;
  // Epilogue candidates: parallel loops over the whole shape of one of the
  // gemms' accumulators that touch it elementwise.
  llvm::DenseMap<const ForStmt *, EpilogueScan> Scans;
  if (Epilogues) {
    llvm::DenseSet<const BufferValue *> Accs;
    for (const OpStmt *G : Gemms)
      Accs.insert(G->getOperand("c").R.Buf);
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *F = dyn_cast<ForStmt>(&S);
      if (!F || F->getLoopKind() != LoopKind::Parallel ||
          F->getDims().size() != 2)
        return;
      std::vector<int64_t> Ext;
      for (const LoopDim &D : F->getDims())
        if (std::optional<int64_t> C = D.Hi->getConstInt())
          Ext.push_back(*C);
      if (Ext.size() != 2)
        return;
      EpilogueScan R = scanEpilogue(*F, Ext);
      if (!R.OK)
        return;
      const BufferValue *Acc = nullptr;
      unsigned NumAccs = 0;
      for (const BufferValue *B : R.Elementwise)
        if (Accs.count(B)) {
          Acc = B;
          ++NumAccs;
        }
      if (NumAccs != 1)
        return;
      U.Epilogues[F] = Acc;
      for (const BufferValue *B : R.Elementwise)
        if (B != Acc)
          U.Companions[B] = Acc;
      Scans[F] = std::move(R);
    });
  }
  // Statements inside epilogues touch their fragments as the epilogue
  // lowering expects; everything else is checked as before.
  llvm::SmallPtrSet<const Stmt *, 16> InEpilogue;
  for (auto &[F, Acc] : U.Epilogues)
    walkStmts(F->getBody(), [&](const Stmt &S) { InEpilogue.insert(&S); });
  auto Elementwise = [&](const Stmt &S, const BufferValue *B) {
    if (!InEpilogue.count(&S))
      return false;
    for (auto &[F, R] : Scans)
      if (R.Elementwise.count(B))
        return true;
    return false;
  };
  walkStmts(K.getBodyMutable(), [&](Stmt &S) {
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *V) {
        if (const auto *B = dyn_cast<BufferValue>(V))
          if (!Elementwise(S, B))
            U.Rejected.insert(B);
      });
    });
    if (auto *St = dyn_cast<StoreStmt>(&S))
      if (!Elementwise(S, St->getBuffer()))
        U.Rejected.insert(St->getBuffer());
    auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op)
      return;
    bool Lowered = Gemms.count(Op);
    for (unsigned I = 0; I != Op->getOperands().size(); ++I) {
      const OpOperand &O = Op->getOperand(I);
      if (O.Kind != OperandKind::Region)
        continue;
      llvm::StringRef Name = Op->getInfo().Operands[I].Name;
      bool Fine = (Lowered && Name == "c") ||
                  (Reductions && Reductions->count(Op) && Name == "src") ||
                  ((Op->getName() == "clear" || Op->getName() == "fill") &&
                   O.R.isWholeBuffer());
      if (Op->getName() == "copy" && Name == "src" && O.R.isWholeBuffer())
        if (auto Dims = getAccumulatorCopyDims(*Op)) {
          U.CopyDims[Op] = *Dims;
          Fine = true;
        }
      if (!Fine)
        U.Rejected.insert(O.R.Buf);
    }
  });
  // An epilogue whose accumulator or companions are rejected is not one;
  // a companion shared by two accumulators belongs to neither.
  llvm::DenseMap<const BufferValue *, const BufferValue *> Owner;
  for (auto &[F, Acc] : U.Epilogues)
    for (const BufferValue *B : Scans[F].Elementwise)
      if (B != Acc) {
        auto [It, New] = Owner.try_emplace(B, Acc);
        if (!New && It->second != Acc)
          U.Rejected.insert(B);
      }
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (auto It = U.Epilogues.begin(); It != U.Epilogues.end();) {
      bool Bad = false;
      for (const BufferValue *B : Scans[It->first].Elementwise)
        Bad |= U.Rejected.count(B) > 0;
      if (!Bad) {
        ++It;
        continue;
      }
      for (const BufferValue *B : Scans[It->first].Elementwise)
        Changed |= U.Rejected.insert(B).second;
      U.Epilogues.erase(It++);
    }
  }
  for (auto It = U.Companions.begin(); It != U.Companions.end();) {
    if (U.Rejected.count(It->first))
      U.Companions.erase(It++);
    else
      ++It;
  }
  return U;
}

std::vector<StmtPtr>
tile::lowerEpilogue(const ForStmt &F, const LinearLayout &L, Value *Tid,
                    int64_t WarpSize,
                    const llvm::DenseSet<const BufferValue *> &RegFrags,
                    NameGenerator &Names) {
  assert(L.isBitDisjoint() && "epilogue coordinates need bit-disjoint bases");
  auto NewVar = [&](Value::Kind Kd, llvm::StringRef Name) {
    return std::make_unique<Value>(Kd, Names.fresh(Name), DType::I32,
                                   llvm::SMLoc());
  };
  std::vector<StmtPtr> Out;
  auto Let = [&](std::vector<StmtPtr> &Into, llvm::StringRef Name, ExprPtr E) {
    auto V = NewVar(Value::Kind::Let, Name);
    Value *P = V.get();
    Into.push_back(std::make_unique<LetStmt>(std::move(V), std::move(E)));
    return P;
  };
  Value *Lane = Let(Out, "lane", ex::binary(BinaryOp::Rem, ex::ref(Tid),
                                            ex::intLit(WarpSize)));
  Value *Warp = Let(Out, "warp", ex::binary(BinaryOp::Div, ex::ref(Tid),
                                            ex::intLit(WarpSize)));
  LoopDim D;
  D.Var = NewVar(Value::Kind::LoopVar, "r");
  D.Lo = ex::intLit(0);
  D.Hi = ex::intLit(L.getSize(HwDim::Register));
  Value *R = D.Var.get();
  Block Body;
  Value *Row = Let(Body.Stmts, "row",
                   L.buildCoordinate(0, *ex::ref(R), *ex::ref(Lane),
                                     *ex::ref(Warp)));
  Value *Col = Let(Body.Stmts, "col",
                   L.buildCoordinate(1, *ex::ref(R), *ex::ref(Lane),
                                     *ex::ref(Warp)));
  // The loop's body for element (row, col): its variables replaced, its
  // register fragments indexed by r.
  Block Copy = F.getBody().clone();
  const Value *V0 = F.getDims()[0].Var.get(), *V1 = F.getDims()[1].Var.get();
  auto Rewrite = [&](ExprPtr E) -> ExprPtr {
    if (auto *X = dyn_cast<RefExpr>(E.get())) {
      if (X->getValue() == V0)
        return ex::ref(Row);
      if (X->getValue() == V1)
        return ex::ref(Col);
    }
    if (auto *X = dyn_cast<LoadExpr>(E.get()); X && RegFrags.count(X->getBuffer())) {
      std::vector<ExprPtr> I;
      I.push_back(ex::ref(R));
      return ex::load(X->getBuffer(), std::move(I));
    }
    return E;
  };
  walkStmts(Copy, [&](Stmt &S) {
    forEachExprSlot(S, [&](ExprPtr &E) { rewriteExpr(E, Rewrite); });
    if (auto *St = dyn_cast<StoreStmt>(&S); St && RegFrags.count(St->getBuffer())) {
      St->getIndicesMutable().clear();
      St->getIndicesMutable().push_back(ex::ref(R));
    }
  });
  for (StmtPtr &S : Copy.Stmts)
    Body.Stmts.push_back(std::move(S));
  std::vector<LoopDim> Dims;
  Dims.push_back(std::move(D));
  Out.push_back(std::make_unique<ForStmt>(LoopKind::Unroll, std::move(Dims),
                                          nullptr, AttributeList(),
                                          std::move(Body), F.getLoc()));
  return Out;
}

StmtPtr tile::storeAccumulatorElement(const Region &Dst, unsigned RowDim,
                                      unsigned ColDim, const Expr &Row,
                                      const Expr &Col, ExprPtr V) {
  std::vector<ExprPtr> Idx;
  ExprPtr InRange;
  for (unsigned D = 0; D != Dst.Buf->getRank(); ++D) {
    ExprPtr I = Dst.isWholeBuffer() ? ex::intLit(0) : Dst.Indices[D].Offset->clone();
    if (D == RowDim)
      I = ex::add(std::move(I), Row.clone());
    else if (D == ColDim)
      I = ex::add(std::move(I), Col.clone());
    if (Dst.Buf->getScope() == MemScope::Global) {
      InRange = ex::land(std::move(InRange), ex::ge(I->clone(), ex::intLit(0)));
      InRange = ex::land(std::move(InRange),
                         ex::lt(I->clone(), Dst.Buf->getShape()[D]->clone()));
    }
    Idx.push_back(std::move(I));
  }
  StmtPtr St = std::make_unique<StoreStmt>(
      Dst.Buf, std::move(Idx), ex::castTo(std::move(V), Dst.Buf->getDType()));
  if (!InRange)
    return St;
  Block Then;
  Then.Stmts.push_back(std::move(St));
  return std::make_unique<IfStmt>(std::move(InRange), std::move(Then), std::nullopt);
}
