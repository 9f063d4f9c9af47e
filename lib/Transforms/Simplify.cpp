//===- Simplify.cpp - tile-simplify ---------------------------------------===//
//
// Constant folding and clean-up of control flow and unused bindings.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using llvm::cast;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace {

/// Whether splicing \p B into its parent could clash with a sibling name:
/// true when the block defines names at its top level.
bool definesNames(const Block &B) {
  for (const StmtPtr &S : B.Stmts)
    if (llvm::isa<LetStmt>(*S) || llvm::isa<AllocStmt>(*S))
      return true;
  return false;
}

class SimplifyPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    for (const auto &F : M.getFunctions()) {
      foldBlock(F->getBodyMutable());
      removeDeadLets(*F);
    }
    return true;
  }

private:
  void foldBlock(Block &B) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      forEachExprSlot(*S, [](ExprPtr &E) { rewriteExpr(E, ex::fold); });
      for (Block *N : getNestedBlocks(*S))
        foldBlock(*N);
      if (auto *I = dyn_cast<IfStmt>(S.get())) {
        if (std::optional<int64_t> C = I->getCond()->getConstInt()) {
          if (*C && !definesNames(I->getThen())) {
            for (StmtPtr &T : I->getThenMutable().Stmts)
              Out.push_back(std::move(T));
            continue;
          }
          if (!*C && !I->hasElse())
            continue;
          if (!*C && !definesNames(I->getElse())) {
            for (StmtPtr &T : I->getElseMutable().Stmts)
              Out.push_back(std::move(T));
            continue;
          }
        }
      }
      if (auto *F = dyn_cast<ForStmt>(S.get())) {
        bool Empty = false;
        for (const LoopDim &D : F->getDims()) {
          std::optional<int64_t> Lo =
              D.Lo ? D.Lo->getConstInt() : std::optional<int64_t>(0);
          std::optional<int64_t> Hi = D.Hi->getConstInt();
          if (Lo && Hi && *Lo >= *Hi)
            Empty = true;
        }
        if (Empty)
          continue;
      }
      Out.push_back(std::move(S));
    }
    B.Stmts = std::move(Out);
  }

  static void eraseLets(Block &B, const llvm::DenseSet<const Value *> &Used,
                        bool &Changed) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      if (auto *L = dyn_cast<LetStmt>(S.get()); L && !Used.count(L->getVar())) {
        Changed = true;
        continue;
      }
      for (Block *N : getNestedBlocks(*S))
        eraseLets(*N, Used, Changed);
      Out.push_back(std::move(S));
    }
    B.Stmts = std::move(Out);
  }

  void removeDeadLets(Function &F) {
    for (bool Changed = true; Changed;) {
      Changed = false;
      llvm::DenseSet<const Value *> Used;
      forEachUse(F.getBody(), [&](const Value *V) { Used.insert(V); });
      eraseLets(F.getBodyMutable(), Used, Changed);
    }
  }
};

class LowerPipelinedPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    RemarkEmitter R = getRemarks(M);
    for (const auto &F : M.getFunctions())
      lower(F->getBodyMutable(), R);
    return true;
  }

private:
  /// Each pipelined loop a pass before this one left is serial from here
  /// on, which a missed remark says.
  static void lower(Block &B, const RemarkEmitter &R) {
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        lower(*N, R);
      auto *F = dyn_cast<ForStmt>(S.get());
      if (!F || F->getLoopKind() != LoopKind::Pipelined)
        continue;
      const Attribute *Stages = F->getAttrs().get("stages");
      R.missed(F->getLoc(),
               "pipelined loop" +
                   (Stages ? " (stages = " + llvm::Twine(Stages->getInt()) + ")"
                           : llvm::Twine()) +
                   " runs as a serial loop: no pass before this one overlapped "
                   "the copies of later iterations with the work of earlier ones");
      S = std::make_unique<ForStmt>(
          LoopKind::Serial, std::move(F->getDimsMutable()),
          std::move(F->getStepMutable()), AttributeList(),
          std::move(F->getBodyMutable()), F->getLoc());
    }
  }
};

} // namespace

std::unique_ptr<Pass> tile::createSimplifyPass() {
  return std::make_unique<SimplifyPass>(getSimplifyPassInfo());
}

std::unique_ptr<Pass> tile::createLowerPipelinedPass() {
  return std::make_unique<LowerPipelinedPass>(getLowerPipelinedPassInfo());
}
