//===- LowerToSIMT.cpp - tile-lower-to-simt -------------------------------===//
//
// Turns a block-level kernel (after tile-lower-tile-ops) into code every
// thread of the block runs, as GPUs execute it:
//  - a parallel loop becomes a loop over its linearised iteration space in
//    which thread %tx takes iterations %tx, %tx + T, %tx + 2T, ...;
//  - with private-fragments, a fragment that only its owner thread
//    touches under this partition (FragmentOwnership.h: the loops that
//    index it share out the dimensions it is owned by, the others each
//    thread runs in full) becomes a per-thread local array of its owned
//    elements; a missed remark names each one that does not and why;
//  - the other fragments live in shared memory, so that any thread may
//    read what another wrote (layout-inferring backends keep them in
//    registers instead and do not run this pass on them);
//  - with shared-memory-limit, while the block's shared buffers exceed it,
//    the largest shared tile that one statement fills as a function of its
//    indices, of values and of tensors the kernel never writes (a copy
//    from global memory: one parallel loop, or a full-tile test choosing
//    between two) and that is read only after that statement in the same
//    block is not staged: each read becomes the function at the read's
//    indices (a load from global memory, guarded as the copy was), and a
//    missed remark says so;
//  - a block-level store or element atomic, which the language runs once,
//    is done by thread 0; stores to vars and local arrays, which every
//    thread has its own of, are done by every thread;
//  - a barrier follows every block-level statement that touches shared
//    memory, so writes are seen by all threads before the next statement
//    and no thread overwrites what another still reads (one barrier where
//    the next statement is already one).
// Code that already depends on the thread index is left as written.
//
//===----------------------------------------------------------------------===//

#include "tile/Analysis/AllocationBytes.h"
#include "tile/IR/Printer.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/FragmentOwnership.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace {

class SIMTLowering {
public:
  SIMTLowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
               bool FragmentsInShared, bool PrivateFragments,
               int64_t SharedLimit, bool Wide16, const RemarkEmitter &Remarks)
      : Names(F), K(K), Ops(Ops), FragmentsInShared(FragmentsInShared),
        PrivateFragments(PrivateFragments), SharedLimit(SharedLimit),
        Wide16(Wide16), Remarks(Remarks),
        Threads(*K.getThreads()->getConstInt()) {}

  void run() {
    if (PrivateFragments)
      makeFragmentsPrivate();
    if (SharedLimit > 0)
      readTilesFromGlobal();
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    Dep.insert(Tid);
    if (FragmentsInShared)
      walkStmts(K.getBodyMutable(), [](Stmt &S) {
        if (auto *A = dyn_cast<AllocStmt>(&S))
          if (A->getBuffer()->getScope() == MemScope::Fragment)
            A->getBuffer()->setScope(MemScope::Shared);
      });
    uniformBlock(K.getBodyMutable());
  }

private:
  /// Moves the fragments only their owner thread touches to per-thread
  /// local arrays and records how the loops share them out.
  void makeFragmentsPrivate() {
    // The parallel loops uniformBlock will share out: code that depends on
    // the thread index is left as written, and its loops with it.
    if (K.getThreadIndex())
      Dep.insert(K.getThreadIndex());
    llvm::DenseSet<const ForStmt *> Shared;
    findSharedOut(K.getBodyMutable(), Shared);
    Dep.clear();
    Owner.emplace(K, Threads, Shared);
    auto Rewrite = [&](ExprPtr &Slot) {
      rewriteExpr(Slot, [&](ExprPtr E) {
        auto *L = dyn_cast<LoadExpr>(E.get());
        if (!L || !Owner->isPrivate(L->getBuffer()))
          return E;
        std::vector<ExprPtr> Idx;
        Idx.push_back(Owner->getSlot(L->getBuffer(), L->getIndices()));
        return ex::load(L->getBuffer(), std::move(Idx));
      });
    };
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      if (auto *St = dyn_cast<StoreStmt>(&S); St && Owner->isPrivate(St->getBuffer())) {
        ExprPtr Slot = Owner->getSlot(St->getBuffer(), St->getIndices());
        St->getIndicesMutable().clear();
        St->getIndicesMutable().push_back(std::move(Slot));
      }
      if (!isa<AllocStmt>(S))
        forEachExprSlot(S, Rewrite);
    });
    for (const BufferValue *B : Owner->getFragments()) {
      if (!Owner->isPrivate(B)) {
        Remarks.missed(B->getLoc(), "fragment %" + B->getName() +
                                        " not kept per thread: " +
                                        Owner->getWhyShared(B));
        continue;
      }
      auto *Buf = const_cast<BufferValue *>(B);
      int64_t Slots = Owner->getSlots(B);
      Buf->setScope(MemScope::Local);
      Buf->getShapeMutable().clear();
      Buf->getShapeMutable().push_back(ex::intLit(Slots));
      Remarks.passed(B->getLoc(), "fragment %" + B->getName() +
                                      " kept per thread: " + llvm::Twine(Slots) +
                                      (Slots == 1 ? " element" : " elements") +
                                      " a thread");
    }
  }

  //===--- Shared tiles read from global memory ---------------------------===//

  /// A statement that fills a shared tile: the tile, and the value of its
  /// element at the loop variables Vars.
  struct Fill {
    BufferValue *Tile = nullptr;
    std::vector<const Value *> Vars;
    ExprPtr Elem;
    Stmt *S = nullptr;
    Block *In = nullptr;
    size_t Pos = 0;
  };

  /// The value \p Body stores to \p T at \p Vars: one store, or an if
  /// with an else whose branches each give one.
  static ExprPtr storedValue(const Block &Body, const BufferValue *T,
                             llvm::ArrayRef<const Value *> Vars) {
    if (Body.Stmts.size() != 1)
      return nullptr;
    const Stmt &S = *Body.Stmts[0];
    if (const auto *St = dyn_cast<StoreStmt>(&S)) {
      if (St->getBuffer() != T || St->getIndices().size() != Vars.size())
        return nullptr;
      for (auto [I, E] : llvm::enumerate(St->getIndices())) {
        const auto *R = dyn_cast<RefExpr>(E.get());
        if (!R || R->getValue() != Vars[I])
          return nullptr;
      }
      return ex::castTo(St->getValue()->clone(), T->getDType());
    }
    const auto *If = dyn_cast<IfStmt>(&S);
    if (!If || !If->hasElse())
      return nullptr;
    ExprPtr A = storedValue(If->getThen(), T, Vars),
            B = storedValue(If->getElse(), T, Vars);
    if (!A || !B)
      return nullptr;
    std::vector<ExprPtr> Args;
    Args.push_back(If->getCond()->clone());
    Args.push_back(std::move(A));
    Args.push_back(std::move(B));
    return ex::call(Intrinsic::Select, std::move(Args));
  }

  /// \p E with the values \p Vars replaced by \p Idx.
  static ExprPtr substitute(const Expr &E, llvm::ArrayRef<const Value *> Vars,
                            llvm::ArrayRef<ExprPtr> Idx) {
    ExprPtr Out = E.clone();
    rewriteExpr(Out, [&](ExprPtr X) {
      if (const auto *R = dyn_cast<RefExpr>(X.get()))
        for (auto [I, V] : llvm::enumerate(Vars))
          if (R->getValue() == V)
            return Idx[I]->clone();
      return X;
    });
    return Out;
  }

  /// The fill \p S is, if it is one: a parallel loop over a whole shared
  /// tile storing at its variables, or `if c { L1 } else { L2 }` of two.
  static std::optional<Fill> matchFill(Stmt &S) {
    if (auto *F = dyn_cast<ForStmt>(&S)) {
      if (F->getLoopKind() != LoopKind::Parallel || F->getBody().Stmts.size() != 1)
        return std::nullopt;
      // The tile is what the innermost store writes.
      const Stmt *X = F->getBody().Stmts[0].get();
      while (const auto *I = dyn_cast<IfStmt>(X))
        X = I->getThen().Stmts.empty() ? nullptr : I->getThen().Stmts[0].get();
      const auto *St = llvm::dyn_cast_or_null<StoreStmt>(X);
      if (!St || St->getBuffer()->getScope() != MemScope::Shared)
        return std::nullopt;
      BufferValue *T = St->getBuffer();
      std::optional<std::vector<int64_t>> Shape = T->getConstShape();
      if (!Shape || Shape->size() != F->getDims().size())
        return std::nullopt;
      Fill Out;
      Out.Tile = T;
      for (auto [I, D] : llvm::enumerate(F->getDims())) {
        std::optional<int64_t> Hi = D.Hi->getConstInt();
        if ((D.Lo && !ex::isConst(*D.Lo, 0)) || !Hi || *Hi != (*Shape)[I])
          return std::nullopt;
        Out.Vars.push_back(D.Var.get());
      }
      Out.Elem = storedValue(F->getBody(), T, Out.Vars);
      if (!Out.Elem)
        return std::nullopt;
      Out.S = &S;
      return Out;
    }
    auto *If = dyn_cast<IfStmt>(&S);
    if (!If || !If->hasElse() || If->getThen().Stmts.size() != 1 ||
        If->getElse().Stmts.size() != 1)
      return std::nullopt;
    std::optional<Fill> A = matchFill(*If->getThenMutable().Stmts[0]),
                        B = matchFill(*If->getElseMutable().Stmts[0]);
    if (!A || !B || A->Tile != B->Tile)
      return std::nullopt;
    std::vector<ExprPtr> Refs;
    for (const Value *V : A->Vars)
      Refs.push_back(ex::ref(const_cast<Value *>(V)));
    ExprPtr VB = substitute(*B->Elem, B->Vars, Refs);
    std::vector<ExprPtr> Args;
    // The full-tile test's form: if c { T = X } else { T = select(g, X, Z) }
    // is select(c || g, X, Z), one read of X.
    const auto *Sel = dyn_cast<CallExpr>(VB.get());
    if (Sel && Sel->getIntrinsic() == Intrinsic::Select &&
        toString(*Sel->getArgs()[1]) == toString(*A->Elem)) {
      Args.push_back(ex::binary(BinaryOp::LogicalOr, If->getCond()->clone(),
                                Sel->getArgs()[0]->clone()));
      Args.push_back(std::move(A->Elem));
      Args.push_back(Sel->getArgs()[2]->clone());
    } else {
      Args.push_back(If->getCond()->clone());
      Args.push_back(std::move(A->Elem));
      Args.push_back(std::move(VB));
    }
    A->Elem = ex::call(Intrinsic::Select, std::move(Args));
    A->S = &S;
    return A;
  }

  /// Bytes \p B takes in shared memory.
  int64_t sharedBytes(const BufferValue &B) const {
    DType T = B.getDType();
    return getConstShapeBytes(
        B, Wide16 && (T == DType::F16 || T == DType::BF16) ? 4
                                                           : getDTypeBytes(T));
  }

  void collectFills(Block &B, std::vector<Fill> &Out) {
    for (size_t I = 0; I != B.Stmts.size(); ++I) {
      if (std::optional<Fill> F = matchFill(*B.Stmts[I])) {
        F->In = &B;
        F->Pos = I;
        Out.push_back(std::move(*F));
        continue;
      }
      for (Block *N : getNestedBlocks(*B.Stmts[I]))
        collectFills(*N, Out);
    }
  }

  /// Loads of \p T in \p S and everything nested, and whether anything
  /// there writes it or names it otherwise.
  static void countUses(Stmt &S, const BufferValue *T, int64_t &Loads,
                        int64_t &Writes, bool &Other) {
    auto Visit = [&](Stmt &X) {
      forEachExprSlot(X, [&](ExprPtr &E) {
        std::function<void(const Expr &)> Scan = [&](const Expr &Y) {
          if (const auto *L = dyn_cast<LoadExpr>(&Y); L && L->getBuffer() == T)
            ++Loads;
          if (const auto *R = dyn_cast<RefExpr>(&Y); R && R->getValue() == T)
            Other = true;
          forEachChild(Y, Scan);
        };
        Scan(*E);
      });
      if (auto *St = dyn_cast<StoreStmt>(&X); St && St->getBuffer() == T)
        ++Writes;
      if (auto *Op = dyn_cast<OpStmt>(&X))
        for (const OpOperand &O : Op->getOperands())
          if (O.Kind == OperandKind::Region && O.R.Buf == T)
            Other = true;
    };
    Visit(S);
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, Visit);
  }

  /// Whether \p E reads only values and global tensors not in \p Written,
  /// and nothing that depends on the thread index (ThreadDep).
  bool isPureOfGlobals(const Expr &E,
                       const llvm::DenseSet<const Value *> &Written) const {
    bool OK = true;
    std::function<void(const Expr &)> Scan = [&](const Expr &Y) {
      if (const auto *L = dyn_cast<LoadExpr>(&Y))
        OK &= L->getBuffer()->getScope() == MemScope::Global &&
              !Written.count(L->getBuffer());
      if (const auto *R = dyn_cast<RefExpr>(&Y))
        OK &= !isa<BufferValue>(R->getValue()) && !ThreadDep.count(R->getValue());
      forEachChild(Y, Scan);
    };
    Scan(E);
    return OK;
  }

  void readTilesFromGlobal() {
    int64_t Total = sumAllocationBytes(
        K.getBody(),
        [&](const BufferValue &B) {
          return B.getScope() == MemScope::Shared ||
                 (B.getScope() == MemScope::Fragment && FragmentsInShared);
        },
        [&](const BufferValue &B) { return sharedBytes(B); });
    if (Total <= SharedLimit)
      return;
    // Buffers the kernel writes (or hands to an op, which may).
    llvm::DenseSet<const Value *> Written;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      if (auto *St = dyn_cast<StoreStmt>(&S))
        Written.insert(St->getBuffer());
      if (auto *Op = dyn_cast<OpStmt>(&S))
        for (const OpOperand &O : Op->getOperands())
          if (O.Kind == OperandKind::Region)
            Written.insert(O.R.Buf);
    });
    // Values that depend on the thread index: a fill written in terms of
    // them is each thread's own, not the block's.
    ThreadDep.clear();
    if (K.getThreadIndex())
      ThreadDep.insert(K.getThreadIndex());
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      bool Uses = false;
      forEachExprSlot(S, [&](ExprPtr &E) {
        forEachUse(*E, [&](const Value *V) { Uses |= ThreadDep.count(V) > 0; });
      });
      if (!Uses)
        return;
      if (auto *L = dyn_cast<LetStmt>(&S))
        ThreadDep.insert(L->getVar());
      if (auto *F = dyn_cast<ForStmt>(&S))
        for (const LoopDim &D : F->getDims())
          ThreadDep.insert(D.Var.get());
    });
    std::vector<Fill> Fills;
    collectFills(K.getBodyMutable(), Fills);
    llvm::DenseMap<const BufferValue *, unsigned> Count;
    for (const Fill &F : Fills)
      ++Count[F.Tile];
    std::vector<Fill *> Order;
    llvm::DenseSet<const BufferValue *> Gone;
    for (Fill &F : Fills) {
      if (Count[F.Tile] != 1 || !isPureOfGlobals(*F.Elem, Written))
        continue;
      // Every write of the tile is in the fill, every read after it.
      int64_t Loads = 0, Writes = 0, LoadsAfter = 0, WritesIn = 0, Unused = 0;
      bool Other = false;
      for (StmtPtr &S : K.getBodyMutable().Stmts)
        countUses(*S, F.Tile, Loads, Writes, Other);
      countUses(*F.S, F.Tile, Unused, WritesIn, Other);
      for (size_t I = F.Pos + 1; I < F.In->Stmts.size(); ++I)
        countUses(*F.In->Stmts[I], F.Tile, LoadsAfter, Unused, Other);
      if (!Other && Writes == WritesIn && Loads == LoadsAfter)
        Order.push_back(&F);
    }
    // Largest first, in program order among equals.
    llvm::sort(Order, [&](const Fill *A, const Fill *B) {
      int64_t SA = sharedBytes(*A->Tile), SB = sharedBytes(*B->Tile);
      return SA != SB ? SA > SB : A < B;
    });
    for (Fill *F : Order) {
      if (Total <= SharedLimit)
        break;
      int64_t Before = Total;
      Total -= sharedBytes(*F->Tile);
      BufferValue *T = F->Tile;
      Gone.insert(T);
      for (size_t I = F->Pos + 1; I < F->In->Stmts.size(); ++I) {
        auto Rewrite = [&](ExprPtr &Slot) {
          rewriteExpr(Slot, [&](ExprPtr E) {
            auto *L = dyn_cast<LoadExpr>(E.get());
            if (!L || L->getBuffer() != T)
              return E;
            return substitute(*F->Elem, F->Vars, L->getIndices());
          });
        };
        forEachExprSlot(*F->In->Stmts[I], Rewrite);
        for (Block *N : getNestedBlocks(*F->In->Stmts[I]))
          walkStmts(*N, [&](Stmt &X) { forEachExprSlot(X, Rewrite); });
      }
      // The fill goes; its position stays for the fills after it.
      F->In->Stmts[F->Pos] = std::make_unique<IfStmt>(ex::boolLit(false), Block(),
                                                      std::nullopt);
      Remarks.missed(T->getLoc(),
                     "shared tile %" + T->getName() +
                         " not staged: each read loads its element from "
                         "global memory, since the block's shared buffers "
                         "need " + llvm::Twine(Before) + " bytes, more than "
                         "the " + llvm::Twine(SharedLimit) +
                         " the target allows (" + llvm::Twine(Total) +
                         " without it)");
    }
    // Drop the emptied fills and the tiles nothing uses any more.
    std::function<void(Block &)> Clean = [&](Block &B) {
      std::vector<StmtPtr> Keep;
      for (StmtPtr &S : B.Stmts) {
        for (Block *N : getNestedBlocks(*S))
          Clean(*N);
        if (auto *A = dyn_cast<AllocStmt>(S.get()); A && Gone.count(A->getBuffer()))
          continue;
        auto *I = dyn_cast<IfStmt>(S.get());
        if (I && !I->hasElse() && I->getThen().Stmts.empty() &&
            ex::isConst(*I->getCond(), 0))
          continue;
        Keep.push_back(std::move(S));
      }
      B.Stmts = std::move(Keep);
    };
    Clean(K.getBodyMutable());
  }

  /// The parallel loops of \p B that uniformBlock shares out, following
  /// its walk without changing anything.
  void findSharedOut(Block &B, llvm::DenseSet<const ForStmt *> &Out) {
    for (StmtPtr &S : B.Stmts) {
      if (takePerThread(*S))
        continue;
      if (auto *F = dyn_cast<ForStmt>(S.get())) {
        if (F->getLoopKind() == LoopKind::Parallel)
          Out.insert(F);
        else
          findSharedOut(F->getBodyMutable(), Out);
      } else if (auto *I = dyn_cast<IfStmt>(S.get())) {
        findSharedOut(I->getThenMutable(), Out);
        if (I->hasElse())
          findSharedOut(I->getElseMutable(), Out);
      }
    }
  }

  /// Whether \p S depends on the thread index; it then stays as written,
  /// and the values it binds depend on the thread index too.
  bool takePerThread(Stmt &S) {
    if (!usesDep(S))
      return false;
    if (auto *L = dyn_cast<LetStmt>(&S))
      Dep.insert(L->getVar());
    if (auto *F = dyn_cast<ForStmt>(&S))
      for (const LoopDim &D : F->getDims())
        Dep.insert(D.Var.get());
    return true;
  }

  bool usesDep(Stmt &S) {
    bool Found = false;
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *V) { Found |= Dep.count(V) > 0; });
    });
    return Found;
  }

  /// Whether \p S (or anything nested) reads or writes shared memory.
  static bool touchesShared(Stmt &S) {
    bool Found = false;
    auto Check = [&](Stmt &X) {
      forEachExprSlot(X, [&](ExprPtr &E) {
        forEachUse(*E, [&](const Value *V) {
          if (const auto *B = dyn_cast<BufferValue>(V))
            Found |= B->getScope() == MemScope::Shared;
        });
      });
      if (auto *St = dyn_cast<StoreStmt>(&X))
        Found |= St->getBuffer()->getScope() == MemScope::Shared;
      if (auto *Op = dyn_cast<OpStmt>(&X))
        for (const OpOperand &O : Op->getOperands())
          if (O.Kind == OperandKind::Region)
            Found |= O.R.Buf->getScope() == MemScope::Shared;
    };
    Check(S);
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, Check);
    return Found;
  }

  StmtPtr barrier() {
    return std::make_unique<OpStmt>(Ops.lookup("barrier"), std::vector<OpOperand>(),
                                    AttributeList());
  }

  /// `if %tx == 0 { S }`.
  StmtPtr onThreadZero(StmtPtr S) {
    Block Then;
    Then.Stmts.push_back(std::move(S));
    return std::make_unique<IfStmt>(
        ex::binary(BinaryOp::Eq, ex::ref(Tid), ex::intLit(0)), std::move(Then),
        std::nullopt);
  }

  /// for %i, %j in parallel(E0, E1) { B } =>
  /// for %l in serial(%tx, E0 * E1, step = T) {
  ///   let %i = %l / E1
  ///   let %j = %l % E1
  ///   B }
  /// Where private fragments make the loop share out only some dimensions
  /// (in their order), the others become serial loops around B.
  StmtPtr distribute(ForStmt &F) {
    std::vector<LoopDim> &Dims = F.getDimsMutable();
    std::vector<unsigned> Order;
    if (std::optional<std::vector<unsigned>> D =
            Owner ? Owner->getDistributedDims(F) : std::nullopt)
      Order = *D;
    else
      for (unsigned I = 0; I != Dims.size(); ++I)
        Order.push_back(I);
    ExprPtr Total;
    for (unsigned O : Order)
      Total = Total ? ex::mul(std::move(Total), Dims[O].Hi->clone())
                    : Dims[O].Hi->clone();
    LoopDim L;
    L.Var = std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh("it"),
                                    DType::I32, F.getLoc());
    L.Lo = ex::ref(Tid);
    L.Hi = std::move(Total);
    Value *LV = L.Var.get();
    Dep.insert(LV);
    Block Body;
    // Delinearise, innermost dimension fastest.
    for (size_t I = 0; I != Order.size(); ++I) {
      ExprPtr Idx = ex::ref(LV);
      ExprPtr Inner;
      for (size_t J = I + 1; J != Order.size(); ++J)
        Inner = Inner ? ex::mul(std::move(Inner), Dims[Order[J]].Hi->clone())
                      : Dims[Order[J]].Hi->clone();
      if (Inner)
        Idx = ex::binary(BinaryOp::Div, std::move(Idx), std::move(Inner));
      if (I != 0)
        Idx = ex::binary(BinaryOp::Rem, std::move(Idx), Dims[Order[I]].Hi->clone());
      // The loop variable becomes a let of the same name.
      LoopDim &D = Dims[Order[I]];
      auto Var = std::make_unique<Value>(Value::Kind::Let, D.Var->getName(),
                                         DType::I32, D.Var->getLoc());
      Replace[D.Var.get()] = Var.get();
      Dep.insert(Var.get());
      Body.Stmts.push_back(std::make_unique<LetStmt>(std::move(Var), std::move(Idx)));
    }
    // Uses of the old loop variables now mean the lets. Rewrite them while
    // the old variables are still alive (their addresses may be reused).
    Block Inner;
    for (StmtPtr &S : F.getBodyMutable().Stmts) {
      remapValueRefs(*S, Replace);
      Inner.Stmts.push_back(std::move(S));
    }
    Replace.clear();
    // The dimensions not shared out, innermost last, each thread runs.
    for (unsigned I = Dims.size(); I-- != 0;) {
      if (llvm::is_contained(Order, I))
        continue;
      std::vector<LoopDim> One;
      One.push_back(std::move(Dims[I]));
      if (!One.back().Lo)
        One.back().Lo = ex::intLit(0);
      auto Loop = std::make_unique<ForStmt>(LoopKind::Serial, std::move(One),
                                            nullptr, AttributeList(),
                                            std::move(Inner), F.getLoc());
      Inner = Block();
      Inner.Stmts.push_back(std::move(Loop));
    }
    for (StmtPtr &S : Inner.Stmts)
      Body.Stmts.push_back(std::move(S));
    std::vector<LoopDim> NewDims;
    NewDims.push_back(std::move(L));
    return std::make_unique<ForStmt>(LoopKind::Serial, std::move(NewDims),
                                     ex::intLit(Threads), AttributeList(),
                                     std::move(Body), F.getLoc());
  }

  void uniformBlock(Block &B) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      bool Shared = touchesShared(*S);
      if (takePerThread(*S)) {
        // Per-thread code as written; its barriers stay where they are.
        Out.push_back(std::move(S));
        continue;
      }
      if (auto *F = dyn_cast<ForStmt>(S.get())) {
        if (F->getLoopKind() == LoopKind::Parallel)
          S = distribute(*F);
        else {
          uniformBlock(F->getBodyMutable());
        }
      } else if (auto *I = dyn_cast<IfStmt>(S.get())) {
        uniformBlock(I->getThenMutable());
        if (I->hasElse())
          uniformBlock(I->getElseMutable());
      } else if (isa<StoreStmt>(*S) && !isPerThread(*cast<StoreStmt>(*S).getBuffer())) {
        S = onThreadZero(std::move(S));
      } else if (auto *Op = dyn_cast<OpStmt>(S.get());
                 Op && Op->getName() == "atomic_elem") {
        S = onThreadZero(std::move(S));
      } else if (auto *Op = dyn_cast<OpStmt>(S.get());
                 Op && Op->getName() == "barrier") {
        Out.push_back(std::move(S));
        continue;
      }
      bool EndsInBarrier = endsInBarrier(*S);
      Out.push_back(std::move(S));
      if (Shared && !EndsInBarrier)
        Out.push_back(barrier());
    }
    // A barrier right before another adds nothing.
    B.Stmts.clear();
    for (StmtPtr &S : Out)
      if (!(isBarrier(*S) && !B.Stmts.empty() && isBarrier(*B.Stmts.back())))
        B.Stmts.push_back(std::move(S));
  }

  /// Vars and local arrays: each thread has its own.
  static bool isPerThread(const BufferValue &B) {
    return B.getScope() == MemScope::Var || B.getScope() == MemScope::Local;
  }

  static bool isBarrier(const Stmt &S) {
    const auto *Op = dyn_cast<OpStmt>(&S);
    return Op && Op->getName() == "barrier";
  }

  /// Whether every path through \p S ends with a barrier.
  static bool endsInBarrier(const Stmt &S) {
    const auto *I = dyn_cast<IfStmt>(&S);
    if (!I || !I->hasElse())
      return false;
    auto Ends = [](const Block &B) {
      return !B.Stmts.empty() && (isBarrier(*B.Stmts.back()) ||
                                  endsInBarrier(*B.Stmts.back()));
    };
    return Ends(I->getThen()) && Ends(I->getElse());
  }

private:
  NameGenerator Names;
  KernelStmt &K;
  const OpRegistry &Ops;
  bool FragmentsInShared, PrivateFragments;
  int64_t SharedLimit;
  bool Wide16;
  const RemarkEmitter &Remarks;
  int64_t Threads;
  std::optional<FragmentOwnership> Owner;
  Value *Tid = nullptr;
  llvm::DenseSet<const Value *> Dep, ThreadDep;
  llvm::DenseMap<const Value *, Value *> Replace;
};

class LowerToSIMTPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    RemarkEmitter Remarks = getRemarks(M);
    for (const auto &F : M.getFunctions()) {
      bool OK = true;
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        auto *K = dyn_cast<KernelStmt>(&St);
        if (!K || !OK)
          return;
        // Tile ops other than element atomics and barriers must be lowered.
        walkStmts(K->getBody(), [&](const Stmt &X) {
          const auto *Op = dyn_cast<OpStmt>(&X);
          if (OK && Op && !Op->getInfo().Elementwise &&
              Op->getName() != "barrier") {
            S.Diag.error(Op->getLoc(), "'" + Op->getName() +
                                           "' must be lowered before "
                                           "tile-lower-to-simt");
            OK = false;
          }
        });
        if (!OK)
          return;
        SIMTLowering L(*F, *K, M.getContext().getOpRegistry(),
                       getBoolOption("fragments-in-shared"),
                       getBoolOption("private-fragments"),
                       getIntOption("shared-memory-limit"),
                       getBoolOption("wide-16bit-floats"), Remarks);
        L.run();
      });
      if (!OK)
        return false;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerToSIMTPass() {
  return std::make_unique<LowerToSIMTPass>(getLowerToSIMTPassInfo());
}
