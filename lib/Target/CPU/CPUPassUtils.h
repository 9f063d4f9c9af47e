//===- CPUPassUtils.h - Helpers shared by the CPU backend's passes -*- C++ -*-===//
//
// Small queries over kernel IR that several passes of the CPU pipeline ask
// (cpu-prefetch-next-block, cpu-hoist-row-invariant, cpu-reuse-exp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CPU_CPUPASSUTILS_H
#define TILE_LIB_TARGET_CPU_CPUPASSUTILS_H

#include "tile/IR/IR.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/SetVector.h"

namespace tile {

/// Values that \p B defines (loop variables, lets, allocations), its
/// nested blocks included, in the order the walk meets them: passes that
/// rename them give the same names in every run (a set keyed by pointer
/// would give an order that follows the heap's).
inline llvm::SetVector<const Value *> definedIn(Block &B) {
  llvm::SetVector<const Value *> Out;
  walkStmts(B, [&](Stmt &S) {
    if (auto *L = llvm::dyn_cast<LetStmt>(&S))
      Out.insert(L->getVar());
    else if (auto *A = llvm::dyn_cast<AllocStmt>(&S))
      Out.insert(A->getBuffer());
    else if (auto *F = llvm::dyn_cast<ForStmt>(&S))
      for (const LoopDim &D : F->getDims())
        Out.insert(D.Var.get());
  });
  return Out;
}

/// Gives fresh names (from \p Names) to the values that loop \p S, a copy
/// of a loop still in the kernel, defines: its variables and what its body
/// defines, so that the copy and the original name no value alike.
inline void renameLoopCopy(Stmt &S, NameGenerator &Names) {
  auto &L = llvm::cast<ForStmt>(S);
  llvm::SetVector<const Value *> Defs = definedIn(L.getBodyMutable());
  for (const LoopDim &D : L.getDims())
    Defs.insert(D.Var.get());
  for (const Value *V : Defs)
    const_cast<Value *>(V)->setName(Names.fresh(V->getName()));
}

} // namespace tile

#endif // TILE_LIB_TARGET_CPU_CPUPASSUTILS_H
