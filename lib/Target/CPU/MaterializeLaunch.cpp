//===- MaterializeLaunch.cpp - cpu-materialize-launch ---------------------===//
//
// A block is one task on the CPU; its threads run one after another. A
// statement depends on the thread when its own expressions use the thread
// index or a value derived from it; consecutive such statements form a run
// that becomes a loop over the block's threads. Compound statements
// whose own header does not depend on the thread are entered, so that
// block-wide code inside them still runs once. Barriers only separate
// runs, which the loops already order, so they go.
//
// Between two barriers the threads of a block do not depend on each
// other through global or shared memory (a write that another thread
// reads or writes before the next barrier is a data race), so a run's loop
// is `parallel`: LLVM vectorizes it, the threads becoming vector lanes.
// What the run keeps per thread (a local buffer, a scalar variable, a
// fragment) is one stack array for all threads on the CPU, and an op
// (an atomic) may touch what another thread does: a run that uses either
// stays a `serial` loop, with a missed remark saying why
// (-pass-remarks-missed=cpu-materialize-launch).
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

class Materializer {
public:
  Materializer(Function &F, KernelStmt &K, RemarkEmitter Remarks)
      : Names(F), K(K), Remarks(Remarks),
        Threads(*K.getThreads()->getConstInt()) {
    Dep.insert(K.getThreadIndex());
  }

  void run() { processBlock(K.getBodyMutable(), {}); }

private:
  bool usesDep(const Expr &E) const {
    bool Found = false;
    forEachUse(E, [&](const Value *V) { Found |= Dep.count(V) > 0; });
    return Found;
  }

  /// Whether the statement's own expressions (not nested blocks) depend on
  /// the thread.
  bool headerDepends(Stmt &S) {
    bool Found = false;
    forEachExprSlot(S, [&](ExprPtr &E) { Found |= usesDep(*E); });
    return Found;
  }

  /// Whether anything in \p S, nested blocks included, depends on the thread.
  bool anyDepends(Stmt &S) {
    if (headerDepends(S))
      return true;
    for (Block *N : getNestedBlocks(S))
      for (StmtPtr &C : N->Stmts)
        if (anyDepends(*C))
          return true;
    return false;
  }

  static bool isBarrier(const Stmt &S) {
    const auto *Op = dyn_cast<OpStmt>(&S);
    return Op && Op->getName() == "barrier";
  }

  /// Replaces, under \p S, uses of the keys of \p Map by their values.
  static void remap(Stmt &S, const llvm::DenseMap<const Value *, Value *> &Map) {
    auto Fix = [&](ExprPtr &Slot) {
      rewriteExpr(Slot, [&](ExprPtr E) {
        if (auto *R = dyn_cast<RefExpr>(E.get()))
          if (Value *N = Map.lookup(R->getValue()))
            R->setValue(N);
        return E;
      });
    };
    forEachExprSlot(S, Fix);
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, [&](Stmt &C) { forEachExprSlot(C, Fix); });
  }

  /// Why the threads of \p Run must run one after another (empty when they
  /// may run as vector lanes), and the statement of the run that says so:
  /// it uses storage the CPU keeps once for all threads but the program
  /// keeps per thread, or runs an op.
  static std::pair<std::string, llvm::SMLoc>
  whyThreadsInOrder(llvm::ArrayRef<StmtPtr> Run) {
    llvm::DenseSet<const Value *> Inside;
    for (const StmtPtr &S : Run) {
      auto Visit = [&](const Stmt &C) {
        if (const auto *A = dyn_cast<AllocStmt>(&C))
          Inside.insert(A->getBuffer());
      };
      Visit(*S);
      for (Block *N : getNestedBlocks(*S))
        walkStmts(*N, Visit);
    }
    std::string Why;
    auto Check = [&](const Value *V) {
      const auto *Buf = dyn_cast<BufferValue>(V);
      if (!Buf || !Why.empty() || Inside.count(Buf) ||
          Buf->getScope() == MemScope::Global || Buf->getScope() == MemScope::Shared)
        return;
      Why = "it uses %" + Buf->getName().str() +
            ", kept per thread but allocated outside the run (one array for all "
            "threads on the CPU)";
    };
    auto CheckOp = [&](const Stmt &C) {
      if (const auto *Op = dyn_cast<OpStmt>(&C); Op && Why.empty())
        Why = ("it runs op '" + Op->getName() + "'").str();
    };
    for (const StmtPtr &S : Run) {
      CheckOp(*S);
      forEachExprSlot(*S, [&](ExprPtr &E) { forEachUse(*E, Check); });
      if (const auto *St = dyn_cast<StoreStmt>(S.get()))
        Check(St->getBuffer());
      for (Block *N : getNestedBlocks(*S)) {
        walkStmts(*N, CheckOp);
        forEachUse(*N, Check);
      }
      if (!Why.empty())
        return {Why, S->getLoc()};
    }
    return {};
  }

  /// Wraps \p Run in a loop over the threads, parallel unless
  /// whyThreadsInOrder says otherwise; earlier thread-dependent lets in
  /// \p Visible that the run uses are recomputed first.
  StmtPtr wrap(std::vector<StmtPtr> Run, llvm::ArrayRef<const LetStmt *> Visible) {
    LoopDim D;
    D.Var = std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh("tx"),
                                    DType::I32, llvm::SMLoc());
    D.Lo = ex::intLit(0);
    D.Hi = ex::intLit(Threads);
    llvm::DenseMap<const Value *, Value *> Map;
    // Recomputed lets may refer to the thread index or to the loop variable
    // of an earlier run; all mean this run's variable.
    Map[K.getThreadIndex()] = D.Var.get();
    for (const Value *Old : TxVars)
      Map[Old] = D.Var.get();
    TxVars.push_back(D.Var.get());
    Block Body;
    // Which earlier lets does the run need (transitively)?
    llvm::DenseSet<const Value *> Needed;
    for (StmtPtr &S : Run) {
      forEachExprSlot(*S, [&](ExprPtr &E) {
        forEachUse(*E, [&](const Value *V) { Needed.insert(V); });
      });
      for (Block *N : getNestedBlocks(*S))
        forEachUse(*N, [&](const Value *V) { Needed.insert(V); });
    }
    for (auto It = Visible.rbegin(); It != Visible.rend(); ++It)
      if (Needed.count((*It)->getVar()))
        forEachUse(*(*It)->getInit(), [&](const Value *V) { Needed.insert(V); });
    for (const LetStmt *L : Visible) {
      if (!Needed.count(L->getVar()))
        continue;
      auto NewVar = std::make_unique<Value>(Value::Kind::Let,
                                            Names.fresh(L->getVar()->getName()),
                                            L->getVar()->getDType(), L->getLoc());
      Value *NV = NewVar.get();
      auto Clone = std::make_unique<LetStmt>(std::move(NewVar),
                                             L->getInit()->clone(), L->getLoc());
      remap(*Clone, Map);
      Map[L->getVar()] = NV;
      Body.Stmts.push_back(std::move(Clone));
    }
    for (StmtPtr &S : Run) {
      remap(*S, Map);
      Body.Stmts.push_back(std::move(S));
    }
    LoopKind Kind = LoopKind::Parallel;
    if (auto [Why, Loc] = whyThreadsInOrder(Body.Stmts); !Why.empty()) {
      Kind = LoopKind::Serial;
      Remarks.missed(Loc, "the block's threads run one after another here, not as "
                          "vector lanes: " + Why);
    }
    std::vector<LoopDim> Dims;
    Dims.push_back(std::move(D));
    return std::make_unique<ForStmt>(Kind, std::move(Dims), nullptr,
                                     AttributeList(), std::move(Body));
  }

  void processBlock(Block &B, std::vector<const LetStmt *> Visible) {
    std::vector<StmtPtr> Out, Run;
    auto Flush = [&] {
      if (Run.empty())
        return;
      // Later runs recompute this run's lets from their statements.
      std::vector<const LetStmt *> RunLets;
      for (StmtPtr &S : Run)
        if (auto *L = dyn_cast<LetStmt>(S.get()))
          RunLets.push_back(L);
      Out.push_back(wrap(std::move(Run), Visible));
      Run.clear();
      for (const LetStmt *L : RunLets)
        Visible.push_back(L);
    };
    for (StmtPtr &S : B.Stmts) {
      if (isBarrier(*S)) {
        Flush();
        continue;
      }
      bool Depends = headerDepends(*S);
      if (auto *L = dyn_cast<LetStmt>(S.get()); L && Depends)
        Dep.insert(L->getVar());
      if (auto *F = dyn_cast<ForStmt>(S.get()); F && Depends)
        for (const LoopDim &D : F->getDims())
          Dep.insert(D.Var.get());
      if (Depends) {
        Run.push_back(std::move(S));
        continue;
      }
      if (anyDepends(*S)) {
        Flush();
        for (Block *N : getNestedBlocks(*S))
          processBlock(*N, Visible);
        Out.push_back(std::move(S));
        continue;
      }
      Flush();
      Out.push_back(std::move(S));
    }
    Flush();
    B.Stmts = std::move(Out);
  }

  NameGenerator Names;
  KernelStmt &K;
  RemarkEmitter Remarks;
  int64_t Threads;
  llvm::DenseSet<const Value *> Dep;
  std::vector<const Value *> TxVars;
};

/// Removes barriers from blocks that have no thread index to separate.
void dropBarriers(Block &B) {
  std::vector<StmtPtr> Out;
  for (StmtPtr &S : B.Stmts) {
    if (auto *Op = dyn_cast<OpStmt>(S.get()); Op && Op->getName() == "barrier")
      continue;
    for (Block *N : getNestedBlocks(*S))
      dropBarriers(*N);
    Out.push_back(std::move(S));
  }
  B.Stmts = std::move(Out);
}

class MaterializeLaunchPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &S) {
        auto *K = dyn_cast<KernelStmt>(&S);
        if (!K)
          return;
        if (K->getThreadIndex()) {
          Materializer(*F, *K, getRemarks(M)).run();
          K->takeThreadIndex();
        }
        dropBarriers(K->getBodyMutable());
      });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createMaterializeLaunchPass() {
  return std::make_unique<MaterializeLaunchPass>(getMaterializeLaunchPassInfo());
}
