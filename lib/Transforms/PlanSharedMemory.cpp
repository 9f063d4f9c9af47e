//===- PlanSharedMemory.cpp - tile-plan-shared-memory ---------------------===//
//
// Without a plan the code generators give every shared buffer of a kernel
// its own 16-byte aligned slice of the block's shared memory, in allocation
// order. This pass, the last of a GPU pipeline, gives buffers whose uses
// are separated by a block-wide barrier the same bytes, and records the
// placement as `offset = N` on every shared allocation of the kernel.
//
// Live ranges are counted in top-level statements of the kernel body (a
// loop or an `if` is one statement): buffer X is live from the first
// top-level statement that touches it to the last. Two buffers may share
// bytes only when every thread reaches a block-wide barrier after its last
// access to one and before its first access to the other: a top-level
// `barrier` between the two statements, or one that ends both branches of
// the `if` holding the last access (as tile-lower-to-simt ends its
// full-tile and edge copies), starts both branches of the `if` holding
// the first, or lies in both branches of an `if` between them, where every
// thread takes the `if` the same way (its condition reads no memory and no
// thread-dependent value). Every thread has then finished its accesses to
// the first buffer (loads, stores and element atomics complete in program
// order) before any thread touches the second. A buffer that a
// target-dialect op touches (cp.async, TMA, wgmma,
// ldmatrix, mbarriers, mfma, ...) keeps bytes of its own: such an op may
// complete after the statement that issues it, and the planner cannot see
// when, so it does not guess.
//
// Placement: the buffers a target op touches keep the offsets they have
// without a plan (so the wgmma/TMA rings, placed first by their lowerings
// for their 1024-byte aligned stages, stay where those lowerings put
// them), then the others, in allocation order, each at the lowest 16-byte
// aligned offset whose bytes no buffer it may not share with holds. A
// buffer's offset is never above the one it has without a plan, so the
// kernel never needs more shared memory than before. Kernels whose shared
// allocations already carry offsets are left as they are.
//
// An allocation after the kernel's leading allocations and lets counts as
// a use of its buffer where it runs: a buffer's contents are undefined from
// its allocation on (an emulator may poison its bytes there), which must
// not hit a buffer still in use.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace {

constexpr int64_t kSliceAlign = 16;

int64_t alignUp(int64_t V) { return (V + kSliceAlign - 1) / kSliceAlign * kSliceAlign; }

struct SharedBuffer {
  AllocStmt *Alloc;
  int64_t Bytes = 0;
  /// The offset the code generators give the buffer without a plan.
  int64_t Unplanned = 0;
  /// The top-level statements touching the buffer (-1: none does).
  int First = -1, Last = -1;
  /// A target-dialect op touching the buffer, if any.
  const OpStmt *TargetOp = nullptr;
  int64_t Offset = -1;

  llvm::StringRef getName() const { return Alloc->getBuffer()->getName(); }
  bool isUsed() const { return First >= 0; }
  int64_t end() const { return Offset + Bytes; }
};

class SharedMemoryPlanner {
public:
  SharedMemoryPlanner(KernelStmt &K, RemarkEmitter Remarks)
      : K(K), Remarks(Remarks) {}

  void run() {
    if (!collect())
      return;
    recordUses();
    place();
    for (SharedBuffer &B : Buffers)
      B.Alloc->getAttrsMutable().set("offset", Attribute::getInt(B.Offset));
    if (Remarks.isEnabled(RemarkKind::Analysis))
      explain();
  }

private:
  /// The kernel's shared buffers in allocation (emission) order, with the
  /// offsets they would get without a plan. False when there is nothing to
  /// plan: a buffer is placed already, or has a shape codegen will reject.
  bool collect() {
    bool Plannable = true;
    int64_t End = 0;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *A = dyn_cast<AllocStmt>(&S);
      if (!A || A->getBuffer()->getScope() != MemScope::Shared)
        return;
      std::optional<std::vector<int64_t>> Shape = A->getBuffer()->getConstShape();
      if (!Shape || A->getAttrs().get("offset")) {
        Plannable = false;
        return;
      }
      SharedBuffer B;
      B.Alloc = A;
      B.Bytes = getDTypeBytes(A->getBuffer()->getDType());
      for (int64_t D : *Shape)
        B.Bytes *= D;
      B.Unplanned = alignUp(End);
      End = B.Unplanned + B.Bytes;
      Index[A->getBuffer()] = Buffers.size();
      Buffers.push_back(B);
    });
    return Plannable && !Buffers.empty();
  }

  /// Live ranges in top-level statements, target ops, and the top-level
  /// statements in which every thread reaches a barrier.
  void recordUses() {
    std::vector<StmtPtr> &Top = K.getBodyMutable().Stmts;
    // Allocations among the kernel's first statements (allocations and
    // lets) run before any access; one further down counts as a use where
    // it runs (the buffer's bytes are undefined from there on).
    size_t Leading = 0;
    while (Leading != Top.size() &&
           (llvm::isa<AllocStmt>(*Top[Leading]) || llvm::isa<LetStmt>(*Top[Leading])))
      ++Leading;
    findThreadDependentValues();
    BarriersBefore.assign(Top.size() + 1, 0);
    for (size_t I = 0; I != Top.size(); ++I) {
      BarriersBefore[I + 1] = BarriersBefore[I] + (alwaysBarriers(*Top[I]) ? 1 : 0);
      auto Touch = [&](const Value *V, const OpStmt *By) {
        auto It = Index.find(V);
        if (It == Index.end())
          return;
        SharedBuffer &B = Buffers[It->second];
        if (B.First < 0)
          B.First = int(I);
        B.Last = int(I);
        if (By && !By->getInfo().isCommon() && !B.TargetOp)
          B.TargetOp = By;
      };
      Stmt &S = *Top[I];
      auto Visit = [&](Stmt &X) {
        forEachExprSlot(X, [&](ExprPtr &E) {
          forEachUse(*E, [&](const Value *V) { Touch(V, dyn_cast<OpStmt>(&X)); });
        });
        if (auto *St = dyn_cast<StoreStmt>(&X))
          Touch(St->getBuffer(), nullptr);
        if (auto *A = dyn_cast<AllocStmt>(&X); A && I >= Leading)
          Touch(A->getBuffer(), nullptr);
        if (auto *O = dyn_cast<OpStmt>(&X))
          for (const OpOperand &Opnd : O->getOperands())
            if (Opnd.Kind == OperandKind::Region)
              Touch(Opnd.R.Buf, O);
      };
      Visit(S);
      for (Block *N : getNestedBlocks(S))
        walkStmts(*N, Visit);
    }
  }

  /// The values that may differ between the threads of a block: the thread
  /// index, and the lets and loop variables computed from it.
  void findThreadDependentValues() {
    if (const Value *Tx = K.getThreadIndex())
      ThreadDependent.insert(Tx);
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      if (auto *L = dyn_cast<LetStmt>(&S)) {
        if (!isUniform(*L->getInit()))
          ThreadDependent.insert(L->getVar());
      } else if (auto *F = dyn_cast<ForStmt>(&S)) {
        bool Uniform = !F->getStep() || isUniform(*F->getStep());
        for (const LoopDim &D : F->getDims())
          Uniform &= (!D.Lo || isUniform(*D.Lo)) && isUniform(*D.Hi);
        if (!Uniform)
          for (const LoopDim &D : F->getDims())
            ThreadDependent.insert(D.Var.get());
      }
    });
  }

  /// Whether \p E has one value for every thread of the block: it reads
  /// no memory (a register or a shared element may differ between
  /// threads) and no thread-dependent value.
  bool isUniform(const Expr &E) const {
    bool Uniform = true;
    forEachUse(E, [&](const Value *V) {
      Uniform &= !V->isBuffer() && !ThreadDependent.count(V);
    });
    return Uniform;
  }

  /// An `if` that every thread of the block takes the same way, with both
  /// branches.
  const IfStmt *asUniformIfElse(const Stmt &S) const {
    const auto *I = dyn_cast<IfStmt>(&S);
    return I && I->hasElse() && isUniform(*I->getCond()) ? I : nullptr;
  }

  static bool isBarrier(const Stmt &S) {
    const auto *Op = dyn_cast<OpStmt>(&S);
    return Op && Op->getName() == "barrier";
  }

  /// Whether every thread that runs \p S reaches a block-wide barrier in
  /// it: a barrier, or a uniform if/else with one at the top level of each
  /// branch (the verifier keeps barriers out of thread-dependent code).
  bool alwaysBarriers(const Stmt &S) const {
    if (isBarrier(S))
      return true;
    const IfStmt *I = asUniformIfElse(S);
    auto Any = [&](const Block &B) {
      return llvm::any_of(B.Stmts, [&](const StmtPtr &X) { return alwaysBarriers(*X); });
    };
    return I && Any(I->getThen()) && Any(I->getElse());
  }

  /// Whether \p S ends with a barrier every thread reaches after all of
  /// its other statements (Back), or starts with one before them (front).
  bool barrierAtEdge(const Stmt &S, bool Back) const {
    if (isBarrier(S))
      return true;
    const IfStmt *I = asUniformIfElse(S);
    auto Edge = [&](const Block &B) {
      return !B.Stmts.empty() &&
             barrierAtEdge(Back ? *B.Stmts.back() : *B.Stmts.front(), Back);
    };
    return I && Edge(I->getThen()) && Edge(I->getElse());
  }

  /// Whether a barrier every thread reaches lies between the last access
  /// to \p Early and the first to \p Late: at the end of the statement of
  /// the last access, at the start of that of the first, or in a statement
  /// between them.
  bool separated(const SharedBuffer &Early, const SharedBuffer &Late) const {
    const std::vector<StmtPtr> &Top = K.getBody().Stmts;
    return barrierAtEdge(*Top[Early.Last], /*Back=*/true) ||
           barrierAtEdge(*Top[Late.First], /*Back=*/false) ||
           BarriersBefore[Late.First] - BarriersBefore[Early.Last + 1] > 0;
  }

  enum class Conflict { None, Pinned, Live, NoBarrier };

  /// Why \p A and \p B may not share bytes, or None when they may.
  Conflict conflict(const SharedBuffer &A, const SharedBuffer &B) const {
    if (!A.isUsed() || !B.isUsed())
      return Conflict::None;
    if (A.TargetOp || B.TargetOp)
      return Conflict::Pinned;
    if (A.First <= B.Last && B.First <= A.Last)
      return Conflict::Live;
    const SharedBuffer &Early = A.Last < B.First ? A : B;
    const SharedBuffer &Late = A.Last < B.First ? B : A;
    if (!separated(Early, Late))
      return Conflict::NoBarrier;
    return Conflict::None;
  }

  void place() {
    std::vector<const SharedBuffer *> Placed;
    for (SharedBuffer &B : Buffers)
      if (B.TargetOp) {
        B.Offset = B.Unplanned;
        Placed.push_back(&B);
      }
    for (SharedBuffer &B : Buffers) {
      if (B.TargetOp)
        continue;
      // The lowest candidate, 0 or the end of a buffer B may not overlap,
      // at which B overlaps none of those.
      std::vector<const SharedBuffer *> Others;
      for (const SharedBuffer *P : Placed)
        if (conflict(B, *P) != Conflict::None)
          Others.push_back(P);
      std::vector<int64_t> Candidates{0};
      for (const SharedBuffer *P : Others)
        Candidates.push_back(alignUp(P->end()));
      llvm::sort(Candidates);
      for (int64_t C : Candidates) {
        if (llvm::none_of(Others, [&](const SharedBuffer *P) {
              return C < P->end() && P->Offset < C + B.Bytes;
            })) {
          B.Offset = C;
          break;
        }
      }
      assert(B.Offset >= 0 && B.Offset <= B.Unplanned &&
             "the offset without a plan is always free");
      Placed.push_back(&B);
    }
  }

  /// A note per buffer: its bytes, and why it shares them or not.
  void explain() {
    for (const SharedBuffer &B : Buffers) {
      std::string Bytes = "'%" + B.getName().str() + "' at bytes [" +
                          std::to_string(B.Offset) + ", " +
                          std::to_string(B.end()) + ")";
      if (!B.isUsed()) {
        Remarks.analysis(B.Alloc->getLoc(), Bytes + ": no statement touches it");
        continue;
      }
      if (B.TargetOp) {
        Remarks.analysis(B.Alloc->getLoc(),
                  Bytes + " of its own: '" + B.TargetOp->getName() +
                      "' touches it, and a target op may complete after the "
                      "statement that issues it");
        continue;
      }
      std::vector<std::string> With, Why;
      for (const SharedBuffer &O : Buffers) {
        if (&O == &B || !O.isUsed())
          continue;
        bool Overlaps = B.Offset < O.end() && O.Offset < B.end();
        if (Overlaps) {
          With.push_back("'%" + O.getName().str() + "'");
          continue;
        }
        switch (conflict(B, O)) {
        case Conflict::None:
          break;
        case Conflict::Pinned:
          Why.push_back("'%" + O.getName().str() + "' is touched by a target op");
          break;
        case Conflict::Live:
          Why.push_back("'%" + O.getName().str() + "' is live at the same time");
          break;
        case Conflict::NoBarrier:
          Why.push_back("no barrier separates it from '%" +
                        O.getName().str() + "'");
          break;
        }
      }
      if (!With.empty())
        Remarks.analysis(B.Alloc->getLoc(),
                  Bytes + ", shared with " + llvm::join(With, ", ") +
                      ": a barrier separates their uses");
      else
        Remarks.analysis(B.Alloc->getLoc(),
                  Bytes + " of its own" +
                      (Why.empty() ? std::string() : ": " + llvm::join(Why, "; ")));
    }
  }

  KernelStmt &K;
  RemarkEmitter Remarks;
  std::vector<SharedBuffer> Buffers;
  llvm::DenseMap<const Value *, size_t> Index;
  llvm::DenseSet<const Value *> ThreadDependent;
  /// BarriersBefore[I]: top-level statements among the first I in which
  /// every thread reaches a barrier.
  std::vector<int> BarriersBefore;
};

class PlanSharedMemoryPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    forEachKernel(M, [&](Function &, KernelStmt &K) {
      SharedMemoryPlanner(K, getRemarks(M)).run();
    });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createPlanSharedMemoryPass() {
  return std::make_unique<PlanSharedMemoryPass>(getPlanSharedMemoryPassInfo());
}
