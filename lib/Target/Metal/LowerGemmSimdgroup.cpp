//===- LowerGemmSimdgroup.cpp - metal-lower-gemm-simdgroup ----------------===//
//
// Apple GPUs multiply 8x8 matrices per simdgroup (32 threads). A gemm that
// fits that shape becomes metal.simdgroup_mma, which MSL codegen prints as
// simdgroup_matrix loads, multiply-accumulates and stores; every other gemm
// stays for tile-lower-tile-ops.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/Pass.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "MetalPasses.inc"

namespace {

bool isOnChipMatrix(const Region &R) {
  const BufferValue *B = R.Buf;
  return R.isWholeBuffer() && B->getRank() == 2 && B->getConstShape() &&
         (B->getScope() == MemScope::Shared || B->getScope() == MemScope::Fragment);
}

/// Whether the gemm \p Op in a kernel of \p Threads threads fits
/// simdgroup_multiply_accumulate.
bool fitsSimdgroup(const OpStmt &Op, int64_t Threads) {
  if (Threads % 32)
    return false;
  const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
               &C = Op.getOperand("c").R;
  if (!isOnChipMatrix(A) || !isOnChipMatrix(B) || !isOnChipMatrix(C))
    return false;
  auto Input = [](DType T) { return T == DType::F16 || T == DType::F32; };
  if (!Input(A.Buf->getDType()) || !Input(B.Buf->getDType()) ||
      !Input(C.Buf->getDType()))
    return false;
  std::vector<int64_t> SA = *A.Buf->getConstShape(), SC = *C.Buf->getConstShape();
  int64_t K = Op.getAttrOrDefault("transpose_a").getBool() ? SA[0] : SA[1];
  return SC[0] % 8 == 0 && SC[1] % 8 == 0 && K % 8 == 0;
}

class MetalLowerGemmSimdgroupPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    const OpRegistry &Ops = M.getContext().getOpRegistry();
    const OpInfo *Mma = Ops.lookup("metal.simdgroup_mma");
    const OpInfo *Clear = Ops.lookup("clear");
    if (!Mma) // the metal dialect is not registered: nothing to lower to
      return true;
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        auto *K = dyn_cast<KernelStmt>(&St);
        if (!K)
          return;
        int64_t Threads = K->getThreads()->getConstInt().value_or(0);
        rewrite(K->getBodyMutable(), Threads, *Mma, *Clear);
      });
    return true;
  }

private:
  void rewrite(Block &B, int64_t Threads, const OpInfo &Mma, const OpInfo &Clear) {
    std::vector<StmtPtr> Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        rewrite(*N, Threads, Mma, Clear);
      auto *Op = dyn_cast<OpStmt>(S.get());
      if (!Op || Op->getName() != "gemm" || !fitsSimdgroup(*Op, Threads)) {
        Out.push_back(std::move(S));
        continue;
      }
      const Region &C = Op->getOperand("c").R;
      if (Op->getAttrOrDefault("clear_accum").getBool()) {
        std::vector<OpOperand> ClearOps(1);
        ClearOps[0].Kind = OperandKind::Region;
        ClearOps[0].R = C.clone();
        Out.push_back(std::make_unique<OpStmt>(&Clear, std::move(ClearOps),
                                               AttributeList(), Op->getLoc()));
      }
      std::vector<OpOperand> Operands(3);
      const char *Names[] = {"a", "b", "c"};
      for (unsigned I = 0; I != 3; ++I) {
        Operands[I].Kind = OperandKind::Region;
        Operands[I].R = Op->getOperand(Names[I]).R.clone();
      }
      AttributeList Attrs;
      for (const char *T : {"transpose_a", "transpose_b"})
        if (Op->getAttrOrDefault(T).getBool())
          Attrs.set(T, Attribute::getBool(true));
      Out.push_back(std::make_unique<OpStmt>(&Mma, std::move(Operands),
                                             std::move(Attrs), Op->getLoc()));
    }
    B.Stmts = std::move(Out);
  }
};

} // namespace

std::unique_ptr<Pass> tile::createMetalLowerGemmSimdgroupPass() {
  return std::make_unique<MetalLowerGemmSimdgroupPass>(
      getMetalLowerGemmSimdgroupPassInfo());
}
