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
// (-pass-remarks-missed=cpu-materialize-launch). A run whose threads
// compute lets and then do everything under a bounds check that holds for
// all threads when it holds for the first and the last is emitted with
// and without the check (versionGuard), so that whole blocks in range run
// unmasked.
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
      remapValueRefs(*Clone, Map);
      Map[L->getVar()] = NV;
      Body.Stmts.push_back(std::move(Clone));
    }
    for (StmtPtr &S : Run) {
      remapValueRefs(*S, Map);
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
    auto Loop = std::make_unique<ForStmt>(Kind, std::move(Dims), nullptr,
                                          AttributeList(), std::move(Body));
    return versionGuard(std::move(Loop));
  }

  //===--- Guards that hold for every thread ------------------------------===//

  /// The lets of \p L's body, for expanding them.
  using LetMap = llvm::DenseMap<const Value *, const Expr *>;

  /// How \p E varies with the loop variable \p Tx: 0 (not at all), +1
  /// (non-decreasing), -1 (non-increasing), or nothing when unknown. Lets
  /// of the run are looked through; loads are unknown (the loop may write
  /// what they read).
  static std::optional<int> direction(const Expr &E, const Value *Tx, const LetMap &Lets) {
    if (E.getConstInt())
      return 0;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      if (R->getValue() == Tx)
        return 1;
      if (const Expr *Init = Lets.lookup(R->getValue()))
        return direction(*Init, Tx, Lets);
      return 0;
    }
    const auto *B = dyn_cast<BinaryExpr>(&E);
    if (!B || isFloat(E.getDType()))
      return std::nullopt;
    std::optional<int> L = direction(*B->getLHS(), Tx, Lets);
    std::optional<int> R = direction(*B->getRHS(), Tx, Lets);
    if (!L || !R)
      return std::nullopt;
    auto Join = [](int X, int Y) -> std::optional<int> {
      if (X == 0 || X == Y)
        return Y;
      if (Y == 0)
        return X;
      return std::nullopt;
    };
    switch (B->getOp()) {
    case BinaryOp::Add:
      return Join(*L, *R);
    case BinaryOp::Sub:
      return Join(*L, -*R);
    case BinaryOp::Mul: {
      if (*L == 0 && *R == 0)
        return 0;
      const Expr *C = *L == 0 ? B->getLHS() : *R == 0 ? B->getRHS() : nullptr;
      std::optional<int64_t> K = C ? C->getConstInt() : std::nullopt;
      if (!K)
        return std::nullopt;
      return *K == 0 ? 0 : (*K > 0 ? 1 : -1) * (*L == 0 ? *R : *L);
    }
    default:
      return *L == 0 && *R == 0 ? std::optional<int>(0) : std::nullopt;
    }
  }

  /// Whether \p C, a guard of the run's threads, holds for all of them
  /// when it holds for the first and the last: a conjunction of
  /// comparisons of a side that varies monotonically with \p Tx and one
  /// that does not vary (each holds for a prefix or a suffix of the
  /// threads, so all of them hold on an interval).
  static bool holdsOnInterval(const Expr &C, const Value *Tx, const LetMap &Lets) {
    const auto *B = dyn_cast<BinaryExpr>(&C);
    if (!B)
      return false;
    switch (B->getOp()) {
    case BinaryOp::LogicalAnd:
      return holdsOnInterval(*B->getLHS(), Tx, Lets) &&
             holdsOnInterval(*B->getRHS(), Tx, Lets);
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge: {
      std::optional<int> L = direction(*B->getLHS(), Tx, Lets);
      std::optional<int> R = direction(*B->getRHS(), Tx, Lets);
      return L && R && (*L == 0 || *R == 0);
    }
    default:
      return false;
    }
  }

  /// \p E with the run's lets expanded and \p Tx replaced by \p At.
  static ExprPtr substitute(const Expr &E, const Value *Tx, int64_t At, const LetMap &Lets) {
    ExprPtr Out = E.clone();
    rewriteExpr(Out, [&](ExprPtr X) -> ExprPtr {
      if (auto *R = dyn_cast<RefExpr>(X.get())) {
        if (R->getValue() == Tx)
          return ex::castTo(ex::intLit(At), R->getDType());
        if (const Expr *Init = Lets.lookup(R->getValue()))
          return substitute(*Init, Tx, At, Lets);
      }
      return X;
    });
    return Out;
  }

  /// A run whose threads compute lets and then do everything under one
  /// guard (`if %i < N`, a CUDA kernel's bounds check) whose truth for all
  /// threads follows from its truth for the first and the last becomes
  ///
  ///   if (guard for the first && guard for the last) { run without it }
  ///   else { run }
  ///
  /// so that whole blocks in range run unmasked vector code (a masked
  /// lane per thread otherwise costs a compare and mask per vector, and
  /// the stores cannot stream).
  StmtPtr versionGuard(std::unique_ptr<ForStmt> Loop) {
    std::vector<StmtPtr> &Stmts = Loop->getBodyMutable().Stmts;
    if (Stmts.empty())
      return Loop;
    auto *If = dyn_cast<IfStmt>(Stmts.back().get());
    if (!If || If->hasElse())
      return Loop;
    LetMap Lets;
    for (size_t I = 0; I + 1 < Stmts.size(); ++I) {
      auto *L = dyn_cast<LetStmt>(Stmts[I].get());
      if (!L)
        return Loop;
      Lets[L->getVar()] = L->getInit();
    }
    const Value *Tx = Loop->getDims()[0].Var.get();
    if (!holdsOnInterval(*If->getCond(), Tx, Lets))
      return Loop;
    ExprPtr Full = ex::land(substitute(*If->getCond(), Tx, 0, Lets),
                            substitute(*If->getCond(), Tx, Threads - 1, Lets));
    StmtPtr Fast = Loop->clone();
    auto &FastStmts = cast<ForStmt>(Fast.get())->getBodyMutable().Stmts;
    StmtPtr Guard = std::move(FastStmts.back());
    FastStmts.pop_back();
    for (StmtPtr &S : cast<IfStmt>(Guard.get())->getThenMutable().Stmts)
      FastStmts.push_back(std::move(S));
    Remarks.passed(If->getLoc(), "the guard holds for every thread of the block when it "
                                 "holds for the first and the last: blocks where it "
                                 "does run their threads without it");
    Block Then, Else;
    Then.Stmts.push_back(std::move(Fast));
    Else.Stmts.push_back(std::move(Loop));
    return std::make_unique<IfStmt>(std::move(Full), std::move(Then), std::move(Else));
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
