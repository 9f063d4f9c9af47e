//===- CoarsenGrid.cpp - cpu-coarsen-grid ---------------------------------===//
//
// A CPU task runs one block; a grid of 65536 small blocks is 65536 trips
// through the thread pool's shared counter, and neighbouring blocks land
// on different cores, so that no core reads one long stream that its
// prefetchers can follow. This pass gives each task a contiguous range of
// blocks along the grid's first dimension:
//
//   kernel grid(G, ...) (%bx, ...) { body }
// becomes
//   kernel grid(ceildiv(G, P), ...) (%bx_t, ...) {
//     allocs
//     for %bx in serial(%bx_t * P, min(G, %bx_t * P + P)) { body }
//   }
//
// where P = max(ceildiv(G, T), 1) blocks per task
//
// and at most T (`tasks`) tasks per launch along that dimension. Runs
// after cpu-materialize-launch, when a block is sequential code.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"

using namespace tile;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

bool uses(const Expr &E, const Value *V) {
  bool Found = false;
  forEachUse(E, [&](const Value *U) { Found |= U == V; });
  return Found;
}

void replaceUses(Block &B, const Value *From, Value *To) {
  auto Fix = [&](ExprPtr &Slot) {
    rewriteExpr(Slot, [&](ExprPtr E) {
      if (auto *R = dyn_cast<RefExpr>(E.get()); R && R->getValue() == From)
        R->setValue(To);
      return E;
    });
  };
  walkStmts(B, [&](Stmt &S) { forEachExprSlot(S, Fix); });
}

void coarsen(Function &F, KernelStmt &K, int64_t Tasks) {
  if (K.getThreadIndex() || K.getBlockIndices().empty() || K.getGrid().empty())
    return;
  Value *Bx = K.getBlockIndices()[0].get();
  NameGenerator Names(F);
  // Allocations stay at the top of the task; one whose shape depends on
  // the block index cannot.
  Block &Body = K.getBodyMutable();
  for (StmtPtr &S : Body.Stmts)
    if (auto *A = dyn_cast<AllocStmt>(S.get()))
      for (const ExprPtr &E : A->getBuffer()->getShape())
        if (uses(*E, Bx))
          return;
  std::vector<StmtPtr> Allocs, Rest;
  for (StmtPtr &S : Body.Stmts)
    (isa<AllocStmt>(*S) ? Allocs : Rest).push_back(std::move(S));
  // The loop variable takes the block index's name; the index is renamed.
  auto Var = std::make_unique<Value>(Value::Kind::LoopVar, Bx->getName(),
                                     Bx->getDType(), Bx->getLoc());
  Block Inner;
  Inner.Stmts = std::move(Rest);
  replaceUses(Inner, Bx, Var.get());
  // The kernel's index now counts tasks.
  Bx->setName(Names.fresh(Bx->getName().str() + "_t"));
  ExprPtr G = K.getGrid()[0]->clone();
  // Blocks per task, at least one (an empty grid stays empty).
  auto PerTask = [&] {
    std::vector<ExprPtr> A, M;
    A.push_back(G->clone());
    A.push_back(ex::intLit(Tasks, G->getDType()));
    M.push_back(ex::call(Intrinsic::CeilDiv, std::move(A)));
    M.push_back(ex::intLit(1, G->getDType()));
    return ex::call(Intrinsic::Max, std::move(M));
  };
  ExprPtr Lo = ex::mul(ex::ref(Bx), PerTask());
  std::vector<ExprPtr> MinArgs;
  MinArgs.push_back(G->clone());
  MinArgs.push_back(ex::add(Lo->clone(), PerTask()));
  LoopDim D;
  D.Var = std::move(Var);
  D.Lo = std::move(Lo);
  D.Hi = ex::call(Intrinsic::Min, std::move(MinArgs));
  std::vector<LoopDim> Dims;
  Dims.push_back(std::move(D));
  std::vector<ExprPtr> GridArgs;
  ExprPtr Per = PerTask();
  GridArgs.push_back(std::move(G));
  GridArgs.push_back(std::move(Per));
  K.getGridMutable()[0] = ex::call(Intrinsic::CeilDiv, std::move(GridArgs));
  Body.Stmts = std::move(Allocs);
  Body.Stmts.push_back(std::make_unique<ForStmt>(LoopKind::Serial, std::move(Dims),
                                                 nullptr, AttributeList(),
                                                 std::move(Inner)));
}

class CoarsenGridPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    int64_t Tasks = getIntOption("tasks");
    if (Tasks < 1) {
      S.Diag.error(llvm::SMLoc(), "cpu-coarsen-grid: tasks must be at least 1, got " +
                                      std::to_string(Tasks));
      return false;
    }
    for (const auto &F : M.getFunctions()) {
      std::vector<KernelStmt *> Kernels;
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          Kernels.push_back(K);
      });
      for (KernelStmt *K : Kernels)
        coarsen(*F, *K, Tasks);
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createCPUCoarsenGridPass() {
  return std::make_unique<CoarsenGridPass>(getCPUCoarsenGridPassInfo());
}
