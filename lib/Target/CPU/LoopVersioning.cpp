//===- LoopVersioning.cpp - Two copies of a loop behind a test ------------===//

#include "LoopVersioning.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

bool tile::versionLoop(llvm::Loop &L, llvm::DominatorTree &DT, llvm::LoopInfo &LI,
                       llvm::function_ref<llvm::Value *(llvm::IRBuilder<> &)> MakeCondition,
                       llvm::ValueToValueMapTy &VMap, llvm::StringRef Suffix) {
  llvm::BasicBlock *PH = L.getLoopPreheader(), *Exiting = L.getExitingBlock();
  if (!L.isInnermost() || !PH || !Exiting || !L.getUniqueExitBlock())
    return false;
  // An exit block of its own (the vectorizer's loops may share theirs),
  // where the copy's values join the loop's.
  llvm::formDedicatedExitBlocks(&L, &DT, &LI, nullptr, /*PreserveLCSSA=*/false);
  llvm::BasicBlock *Exit = L.getUniqueExitBlock();
  if (!Exit || Exit->getSinglePredecessor() != Exiting)
    return false;
  llvm::formLCSSA(L, DT, &LI, nullptr);
  llvm::IRBuilder<> B(PH->getTerminator());
  llvm::Value *Cond = MakeCondition(B);
  // PH -> Cond ? copy : L.
  llvm::BasicBlock *NPH = llvm::SplitBlock(PH, PH->getTerminator(), &DT, &LI);
  llvm::SmallVector<llvm::BasicBlock *, 8> Blocks;
  llvm::Loop *Copy = llvm::cloneLoopWithPreheader(NPH, PH, &L, VMap, Suffix, &LI, &DT, Blocks);
  llvm::remapInstructionsInBlocks(Blocks, VMap);
  llvm::Instruction *Br = PH->getTerminator();
  llvm::BranchInst::Create(Copy->getLoopPreheader(), NPH, Cond, Br->getIterator());
  Br->eraseFromParent();
  DT.changeImmediateDominator(Exit, PH);
  for (llvm::PHINode &Phi : Exit->phis()) {
    llvm::Value *V = Phi.getIncomingValueForBlock(Exiting);
    if (llvm::Value *Mapped = VMap.lookup(V))
      V = Mapped;
    Phi.addIncoming(V, llvm::cast<llvm::BasicBlock>(VMap[Exiting]));
  }
  return true;
}
