//===- HoistRowInvariant.cpp - cpu-hoist-row-invariant --------------------===//
//
// After cpu-coarsen-grid a task runs its blocks one after another in a
// serial loop over %v. A block of RMSNorm or LayerNorm normalizes one row
// and reads the weight vector (and LayerNorm's bias) at the column alone,
// converting each f16 element to f32 again for every row. This pass
// converts such a vector once per task, into a local f32 array, and lets
// every row read the array:
//
//   for %v in serial(lo, hi) { ... cast<f32>(%W[idx]) ... }
// becomes
//   %W_f32 = alloc local f32[C]
//   if N <= C && lo + 2 <= hi {
//     for %i in serial(0, N) { %W_f32[%i] = cast<f32>(%W[%i]) }
//     for %v in serial(lo, hi) { ... %W_f32[idx] ... }
//   } else {
//     for %v in serial(lo, hi) { ... cast<f32>(%W[idx]) ... }
//   }
//
// where N is %W's extent and C = `max-elements`. A conversion qualifies
// when it widens a one-dimensional global tensor of a narrower float type
// that the kernel never writes, at an index that uses neither %v nor
// values computed in the loop (loop variables of the loop's own nests,
// symbolic dimensions and scalar parameters only). Every load executed
// reads an element of [0, N), so the array holds each element read.
// A passed remark names each tensor converted once per task; a missed
// remark says why a widening load at a %v-free index does not qualify.
//
//===----------------------------------------------------------------------===//

#include "CPUPassUtils.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace tile;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

/// Calls \p Fn on every cast in \p B, its nested blocks included.
void forEachCast(Block &B, llvm::function_ref<void(CastExpr &)> Fn) {
  std::function<void(ExprPtr &)> Visit = [&](ExprPtr &E) {
    rewriteExpr(E, [&](ExprPtr X) {
      if (auto *C = dyn_cast<CastExpr>(X.get()))
        Fn(*C);
      return X;
    });
  };
  walkStmts(B, [&](Stmt &S) { forEachExprSlot(S, Visit); });
}

/// Buffers that a statement of \p B stores to or names in an op.
llvm::DenseSet<const BufferValue *> writtenIn(Block &B) {
  llvm::DenseSet<const BufferValue *> Out;
  walkStmts(B, [&](Stmt &S) {
    if (auto *St = dyn_cast<StoreStmt>(&S))
      Out.insert(St->getBuffer());
    else if (auto *Op = dyn_cast<OpStmt>(&S))
      for (const OpOperand &O : Op->getOperands())
        if (O.Kind == OperandKind::Region)
          Out.insert(O.R.Buf);
  });
  return Out;
}

class Hoister {
public:
  Hoister(Function &F, KernelStmt &K, int64_t Cap, const RemarkEmitter &Remarks)
      : Names(F), K(K), Cap(Cap), Remarks(Remarks) {}

  void run() {
    Written = writtenIn(K.getBodyMutable());
    std::vector<StmtPtr> &Top = K.getBodyMutable().Stmts;
    for (size_t I = 0; I != Top.size(); ++I) {
      auto *L = dyn_cast<ForStmt>(Top[I].get());
      if (!L || L->getLoopKind() != LoopKind::Serial || L->getDims().size() != 1 ||
          L->getStep())
        continue;
      visit(Top[I]);
    }
    // The arrays go at the top of the task, with its other allocations.
    std::vector<StmtPtr> Out = std::move(NewAllocs);
    for (StmtPtr &S : Top)
      Out.push_back(std::move(S));
    Top = std::move(Out);
  }

private:
  /// Why the widening of the load \p Ld from a global tensor at a %v-free index
  /// cannot read a per-task array, or the empty string when it can.
  std::string reject(const LoadExpr &Ld,
                     const llvm::SetVector<const Value *> &Inner) {
    const BufferValue *B = Ld.getBuffer();
    if (B->getRank() != 1 || !B->getStrides().empty())
      return "the tensor has " + std::to_string(B->getRank()) +
             " dimensions or strides (only contiguous vectors are converted)";
    if (Written.count(B))
      return "the kernel writes the tensor";
    if (std::optional<int64_t> N = B->getShape()[0]->getConstInt(); N && *N > Cap)
      return "its " + std::to_string(*N) + " elements exceed max-elements=" +
             std::to_string(Cap);
    std::string Why;
    forEachUse(*Ld.getIndices()[0], [&](const Value *U) {
      if (!Why.empty())
        return;
      switch (U->getKind()) {
      case Value::Kind::LoopVar:
        if (!Inner.count(U))
          Why = "its index uses %" + U->getName().str() + ", a loop variable outside the loop";
        return;
      case Value::Kind::Dim:
      case Value::Kind::Param:
      case Value::Kind::Tunable:
        return;
      default:
        Why = "its index uses %" + U->getName().str() +
              ", not a loop variable of the loop's nests, a dimension or a parameter";
      }
    });
    bool Loads = false;
    std::function<void(const Expr &)> Find = [&](const Expr &E) {
      Loads |= isa<LoadExpr>(E);
      forEachChild(E, Find);
    };
    Find(*Ld.getIndices()[0]);
    if (Why.empty() && Loads)
      Why = "its index reads memory";
    return Why;
  }

  /// Where a remark about the conversion \p C of \p Ld points.
  static llvm::SMLoc locOf(const CastExpr &C, const LoadExpr &Ld, const ForStmt &L) {
    for (llvm::SMLoc Loc : {C.getLoc(), Ld.getLoc(), L.getLoc(), Ld.getBuffer()->getLoc()})
      if (Loc.isValid())
        return Loc;
    return llvm::SMLoc();
  }

  static bool widens(const CastExpr &C, const LoadExpr *&Ld) {
    Ld = dyn_cast<LoadExpr>(C.getOperand());
    if (!Ld)
      return false;
    DType From = Ld->getDType(), To = C.getDType();
    const BufferValue *B = Ld->getBuffer();
    return B->getScope() == MemScope::Global && isFloat(From) && isFloat(To) &&
           getDTypeBytes(From) < getDTypeBytes(To);
  }

  void visit(StmtPtr &Slot) {
    auto &L = *llvm::cast<ForStmt>(Slot.get());
    const Value *V = L.getDims()[0].Var.get();
    llvm::SetVector<const Value *> Inner = definedIn(L.getBodyMutable());
    // The tensors to convert, with the type each converts to.
    llvm::MapVector<BufferValue *, DType> Hoist;
    llvm::DenseMap<const BufferValue *, llvm::SMLoc> At;
    llvm::DenseSet<const BufferValue *> Rejected;
    forEachCast(L.getBodyMutable(), [&](CastExpr &C) {
      const LoadExpr *Ld;
      if (!widens(C, Ld))
        return;
      bool UsesV = false;
      for (const ExprPtr &E : Ld->getIndices())
        forEachUse(*E, [&](const Value *U) { UsesV |= U == V; });
      if (UsesV)
        return;
      BufferValue *B = Ld->getBuffer();
      std::string Why = reject(*Ld, Inner);
      auto It = Hoist.find(B);
      if (Why.empty() && It != Hoist.end() && It->second != C.getDType())
        Why = "it is converted to two types";
      if (!Why.empty()) {
        if (Rejected.insert(B).second)
          Remarks.missed(locOf(C, *Ld, L),
                         "%" + B->getName() + " is read at an index without %" +
                             V->getName() + " but converted again in every iteration: " +
                             Why);
        return;
      }
      Hoist.insert({B, C.getDType()});
      At.insert({B, locOf(C, *Ld, L)});
    });
    for (const BufferValue *B : Rejected)
      Hoist.remove_if([&](const auto &E) { return E.first == B; });
    if (Hoist.empty())
      return;

    // The loop as it is, for tasks of one block and longer tensors.
    StmtPtr Orig = L.clone();
    renameLoopCopy(*Orig, Names);
    std::vector<StmtPtr> Then;
    llvm::DenseMap<const BufferValue *, BufferValue *> Array;
    ExprPtr Fits;
    for (auto &[B, Ty] : Hoist) {
      std::vector<ExprPtr> Shape;
      Shape.push_back(ex::intLit(Cap));
      auto Buf = std::make_unique<BufferValue>(
          Names.fresh(B->getName().str() + "_" + getDTypeName(Ty).str()), Ty,
          MemScope::Local, std::move(Shape), std::vector<ExprPtr>(), false, B->getLoc());
      Array[B] = Buf.get();
      const Expr &N = *B->getShape()[0];
      ExprPtr Le = ex::le(N.clone(), ex::intLit(Cap, N.getDType()));
      Fits = Fits ? ex::land(std::move(Fits), std::move(Le)) : std::move(Le);
      // for %i in serial(0, N) { %B_f32[%i] = cast<f32>(%B[%i]) }
      auto I = std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh("i"), DType::I32,
                                       llvm::SMLoc());
      std::vector<ExprPtr> Idx, Src;
      Idx.push_back(ex::ref(I.get()));
      Src.push_back(ex::castTo(ex::ref(I.get()), B->getShape()[0]->getDType()));
      Block Fill;
      Fill.Stmts.push_back(std::make_unique<StoreStmt>(
          Buf.get(), std::move(Idx), ex::castTo(ex::load(B, std::move(Src)), Ty)));
      LoopDim D;
      D.Var = std::move(I);
      D.Lo = ex::intLit(0, N.getDType());
      D.Hi = N.clone();
      std::vector<LoopDim> Dims;
      Dims.push_back(std::move(D));
      Then.push_back(std::make_unique<ForStmt>(LoopKind::Serial, std::move(Dims), nullptr,
                                               AttributeList(), std::move(Fill)));
      NewAllocs.push_back(std::make_unique<AllocStmt>(std::move(Buf), AttributeList()));
      Remarks.passed(At.lookup(B),
                     "%" + B->getName() + " (" + getDTypeName(B->getDType()) +
                         ", read at an index without %" + V->getName() +
                         ") is converted to " + getDTypeName(Ty) +
                         " once per task into a local array of " + std::to_string(Cap) +
                         " elements instead of once per iteration (when it fits)");
    }
    // The rewritten loop reads the arrays.
    walkStmts(L.getBodyMutable(), [&](Stmt &S) {
      forEachExprSlot(S, [&](ExprPtr &E) {
        rewriteExpr(E, [&](ExprPtr X) -> ExprPtr {
          auto *C = dyn_cast<CastExpr>(X.get());
          const LoadExpr *Ld;
          if (!C || !widens(*C, Ld))
            return X;
          auto It = Array.find(Ld->getBuffer());
          if (It == Array.end() || It->second->getDType() != C->getDType())
            return X;
          std::vector<ExprPtr> Idx;
          Idx.push_back(Ld->getIndices()[0]->clone());
          return ex::load(It->second, std::move(Idx));
        });
      });
    });
    // At least two iterations: one conversion per task then saves some.
    const LoopDim &D = L.getDims()[0];
    ExprPtr Lo = D.Lo ? D.Lo->clone() : ex::intLit(0);
    ExprPtr Many = ex::le(ex::add(std::move(Lo), ex::intLit(2)), D.Hi->clone());
    ExprPtr Cond = ex::land(std::move(Fits), std::move(Many));
    Then.push_back(std::move(Slot));
    Block ThenB, ElseB;
    ThenB.Stmts = std::move(Then);
    ElseB.Stmts.push_back(std::move(Orig));
    Slot = std::make_unique<IfStmt>(std::move(Cond), std::move(ThenB), std::move(ElseB));
  }

  NameGenerator Names;
  KernelStmt &K;
  int64_t Cap;
  const RemarkEmitter &Remarks;
  llvm::DenseSet<const BufferValue *> Written;
  std::vector<StmtPtr> NewAllocs;
};

class HoistRowInvariantPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    int64_t Cap = getIntOption("max-elements");
    if (Cap < 1) {
      S.Diag.error(llvm::SMLoc(), "cpu-hoist-row-invariant: max-elements must be at "
                                  "least 1, got " + std::to_string(Cap));
      return false;
    }
    RemarkEmitter Remarks = getRemarks(M);
    forEachKernel(M, [&](Function &F, KernelStmt &K) { Hoister(F, K, Cap, Remarks).run(); });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createCPUHoistRowInvariantPass() {
  return std::make_unique<HoistRowInvariantPass>(getCPUHoistRowInvariantPassInfo());
}
