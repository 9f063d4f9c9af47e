//===- LoopVersioning.h - Two copies of a loop behind a test ---*- C++ -*-===//
//
// The CPU codegen's rewrites after LLVM's pipeline specialize an innermost
// vectorized loop for a condition known once before it (an address's
// alignment, a factor's range): the loop is copied and the copy, which
// the caller then rewrites, runs where the condition holds.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CPU_LOOPVERSIONING_H
#define TILE_LIB_TARGET_CPU_LOOPVERSIONING_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace llvm {
class DominatorTree;
class Loop;
class LoopInfo;
} // namespace llvm

namespace tile {

/// Copies innermost loop \p L behind a branch on the condition that
/// \p MakeCondition builds in L's preheader (it may add instructions
/// there): the copy runs where it is true, L where it is false. \p VMap
/// maps L's values to the copy's, whose blocks' names end in \p Suffix.
/// Returns false, changing nothing, where L lacks a preheader, a single
/// exiting block or a single exit block. Keeps \p DT and \p LI up to date.
bool versionLoop(llvm::Loop &L, llvm::DominatorTree &DT, llvm::LoopInfo &LI,
                 llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &)> MakeCondition,
                 llvm::ValueToValueMapTy &VMap, llvm::StringRef Suffix);

} // namespace tile

#endif // TILE_LIB_TARGET_CPU_LOOPVERSIONING_H
