//===- GemmLowering.cpp - What register-level gemm lowerings share --------===//

#include "tile/Transforms/GemmLowering.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"

using namespace tile;
using llvm::dyn_cast;

std::optional<std::pair<unsigned, unsigned>>
tile::getAccumulatorCopyDims(const OpStmt &Copy) {
  const Region &Src = Copy.getOperand("src").R, &Dst = Copy.getOperand("dst").R;
  std::optional<std::vector<int64_t>> Shape = Src.Buf->getConstShape();
  if (!Shape || Shape->size() != 2)
    return std::nullopt;
  std::vector<const Expr *> Ext = getRegionExtentExprs(Dst, &Src);
  std::vector<unsigned> Dims;
  for (unsigned D = 0; D != Ext.size(); ++D)
    if (Ext[D] && !ex::isConst(*Ext[D], 1))
      Dims.push_back(D);
  if (Dims.size() != 2 || !ex::isConst(*Ext[Dims[0]], (*Shape)[0]) ||
      !ex::isConst(*Ext[Dims[1]], (*Shape)[1]))
    return std::nullopt;
  return std::make_pair(Dims[0], Dims[1]);
}

AccumulatorUses
tile::classifyAccumulatorUses(KernelStmt &K,
                              const llvm::DenseSet<const OpStmt *> &Gemms) {
  AccumulatorUses U;
  walkStmts(K.getBodyMutable(), [&](Stmt &S) {
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *V) {
        if (const auto *B = dyn_cast<BufferValue>(V))
          U.Rejected.insert(B);
      });
    });
    if (auto *St = dyn_cast<StoreStmt>(&S))
      U.Rejected.insert(St->getBuffer());
    auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op)
      return;
    bool Lowered = Gemms.count(Op);
    for (unsigned I = 0; I != Op->getOperands().size(); ++I) {
      const OpOperand &O = Op->getOperand(I);
      if (O.Kind != OperandKind::Region)
        continue;
      llvm::StringRef Name = Op->getInfo().Operands[I].Name;
      bool Fine = (Lowered && Name == "c") ||
                  ((Op->getName() == "clear" || Op->getName() == "fill") &&
                   O.R.isWholeBuffer());
      if (Op->getName() == "copy" && Name == "src" && O.R.isWholeBuffer())
        if (auto Dims = getAccumulatorCopyDims(*Op)) {
          U.CopyDims[Op] = *Dims;
          Fine = true;
        }
      if (!Fine)
        U.Rejected.insert(O.R.Buf);
    }
  });
  return U;
}
