//===- LowerGemmSimdgroup.cpp - metal-lower-gemm-simdgroup ----------------===//
//
// Apple GPUs multiply 8x8 matrices per simdgroup (32 threads). A gemm that
// fits that shape, and whose accumulator is used only by clears, fills,
// such gemms and whole copies out, becomes metal.simdgroup_mma with the
// accumulator in registers: simdgroup s of the S simdgroups takes C's 8x8
// tiles t = s, s + S, ... (row-major over C's tiles), and the accumulator
// becomes a per-thread `local` array whose elements 2 * tt and 2 * tt + 1
// are the thread's two elements (thread_elements()) of its simdgroup's
// tt-th tile: lane l holds row ((l / 4) & 4) + (l / 2) % 4 and columns
// c, c + 1 with c = ((l / 4) & 2) * 2 + (l % 2) * 2. Clears, fills and
// copies out are rewritten to per-thread code over those elements. MSL
// codegen prints the op as simdgroup_matrix loads of A and B and
// simdgroup_multiply_accumulate on matrices moved in and out of the
// thread's elements. Other gemms stay for tile-lower-tile-ops, with a
// missed remark: an accumulator kept in threadgroup memory would be read
// elementwise by other threads and exhausts the 32 KiB a threadgroup has.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
#include "tile/Transforms/Pass.h"
#include "tile/Transforms/StmtBuilder.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "MetalPasses.inc"

namespace {

constexpr int64_t SimdWidth = 32;

bool isOnChipMatrix(const Region &R) {
  const BufferValue *B = R.Buf;
  return R.isWholeBuffer() && B->getRank() == 2 && B->getConstShape() &&
         (B->getScope() == MemScope::Shared || B->getScope() == MemScope::Fragment);
}

/// Why the gemm \p Op in a kernel of \p Threads threads does not fit
/// simdgroup_multiply_accumulate; empty when it does.
std::string whyNotSimdgroup(const OpStmt &Op, int64_t Threads) {
  if (Threads % SimdWidth)
    return "the kernel's threads are not whole 32-thread simdgroups";
  const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
               &C = Op.getOperand("c").R;
  for (const Region *R : {&A, &B, &C})
    if (!isOnChipMatrix(*R))
      return "operand %" + R->Buf->getName().str() +
             " is not a whole rank-2 shared or fragment buffer of constant shape";
  auto Input = [](DType T) { return T == DType::F16 || T == DType::F32; };
  if (!Input(A.Buf->getDType()) || !Input(B.Buf->getDType()) ||
      !Input(C.Buf->getDType()))
    return "simdgroup matrices are f16 or f32";
  std::vector<int64_t> SA = *A.Buf->getConstShape(), SC = *C.Buf->getConstShape();
  int64_t K = Op.getAttrOrDefault("transpose_a").getBool() ? SA[0] : SA[1];
  if (SC[0] % 8 || SC[1] % 8 || K % 8)
    return "M, N and K are not multiples of 8";
  return "";
}

class SimdgroupLowering : public StmtBuilder {
public:
  SimdgroupLowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
                    const RemarkEmitter &Remarks)
      : StmtBuilder(F, Ops), K(K), Remarks(Remarks),
        Threads(K.getThreads()->getConstInt().value_or(0)) {}

  void run() {
    llvm::DenseSet<const OpStmt *> Gemms;
    std::vector<const OpStmt *> InOrder;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op || Op->getName() != "gemm")
        return;
      std::string Why = whyNotSimdgroup(*Op, Threads);
      if (!Why.empty()) {
        Remarks.missed(Op->getLoc(), "gemm not lowered to simdgroup matrices: " + Why);
        return;
      }
      Gemms.insert(Op);
      InOrder.push_back(Op);
    });
    if (Gemms.empty())
      return;
    AccumulatorUses Uses = classifyAccumulatorUses(K, Gemms);
    for (const OpStmt *G : InOrder) {
      const BufferValue *C = G->getOperand("c").R.Buf;
      if (C->getScope() == MemScope::Fragment && !Uses.Rejected.count(C)) {
        if (Accs.insert(const_cast<BufferValue *>(C)).second)
          AccOrder.push_back(const_cast<BufferValue *>(C));
        Lowered.insert(G);
        continue;
      }
      Remarks.missed(G->getLoc(),
                     "gemm not lowered to simdgroup matrices: its accumulator %" +
                         C->getName() +
                         (C->getScope() == MemScope::Fragment
                              ? " has uses other than clear, fill, such gemms "
                                "and whole copies out (simdgroup accumulators "
                                "are kept in registers only)"
                              : " is not a fragment"));
    }
    if (Accs.empty())
      return;
    for (BufferValue *C : AccOrder) {
      std::vector<int64_t> Shape = *C->getConstShape();
      Orig[C] = {Shape[0], Shape[1]};
    }
    CopyDims = std::move(Uses.CopyDims);
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    rewrite(K.getBodyMutable());
    for (BufferValue *C : AccOrder) {
      int64_t N = tilesPerSimdgroup(C) * 2;
      C->setScope(MemScope::Local);
      C->getShapeMutable().clear();
      C->getShapeMutable().push_back(ex::intLit(N));
      Remarks.passed(C->getLoc(), "accumulator %" + C->getName() +
                                      " kept in registers as simdgroup matrices: " +
                                      llvm::Twine(N) + " elements a thread");
    }
  }

private:
  int64_t tilesPerSimdgroup(BufferValue *C) {
    auto [M, N] = Orig.lookup(C);
    int64_t Tiles = (M / 8) * (N / 8), Groups = Threads / SimdWidth;
    return (Tiles + Groups - 1) / Groups;
  }

  StmtPtr perThread(Stmts Body) {
    return ifThen(ex::lt(ex::ref(Tid), lit(Threads)), std::move(Body));
  }

  /// Every element of the thread of register accumulator \p C set to \p V.
  Stmts fillAll(BufferValue *C, const Expr &V) {
    Stmts Body;
    Body.push_back(loop(LoopKind::Serial, "e", lit(tilesPerSimdgroup(C) * 2),
                        [&](Value *E) {
                          Stmts L;
                          std::vector<ExprPtr> Idx;
                          Idx.push_back(ref(E));
                          L.push_back(std::make_unique<StoreStmt>(C, std::move(Idx),
                                                                  V.clone()));
                          return L;
                        }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// clear/fill of a register accumulator.
  Stmts lowerFill(const OpStmt &Op, BufferValue *C) {
    ExprPtr V = Op.getName() == "fill"
                    ? ex::castTo(Op.getOperand("value").E->clone(), C->getDType())
                    : ex::zero(C->getDType());
    return fillAll(C, *V);
  }

  /// `copy %C -> X` from a register accumulator: each thread stores its two
  /// elements of each of its simdgroup's tiles, guarded when X is global.
  Stmts lowerCopyOut(const OpStmt &Op, BufferValue *C) {
    const Region &Dst = Op.getOperand("dst").R;
    std::pair<unsigned, unsigned> Dims = CopyDims.lookup(&Op);
    unsigned RowDim = Dims.first, ColDim = Dims.second;
    int64_t M = Orig.lookup(C).first, N = Orig.lookup(C).second;
    int64_t Groups = Threads / SimdWidth, Tiles = (M / 8) * (N / 8);
    Stmts Body;
    Value *Lane = let(Body, "lane", rem(ref(Tid), SimdWidth));
    Value *Group = let(Body, "sg", div(ref(Tid), SimdWidth));
    // Lane coordinates within a tile (see the file comment).
    Value *LRow = let(Body, "sg_row",
                      add(ex::binary(BinaryOp::And, div(ref(Lane), 4), lit(4)),
                          rem(div(ref(Lane), 2), 4)));
    Value *LCol = let(Body, "sg_col",
                      add(mul(ex::binary(BinaryOp::And, div(ref(Lane), 4), lit(2)), 2),
                          mul(rem(ref(Lane), 2), 2)));
    Body.push_back(loop(LoopKind::Serial, "tt", lit(tilesPerSimdgroup(C)), [&](Value *TT) {
      Stmts T;
      Value *Tile = let(T, "tile", add(ref(Group), mul(ref(TT), Groups)));
      Stmts InTile;
      Value *R0 = let(InTile, "r", add(mul(div(ref(Tile), N / 8), 8), ref(LRow)));
      Value *C0 = let(InTile, "c", add(mul(rem(ref(Tile), N / 8), 8), ref(LCol)));
      for (int64_t E = 0; E != 2; ++E) {
        std::vector<ExprPtr> AccIdx;
        AccIdx.push_back(add(mul(ref(TT), 2), E));
        InTile.push_back(storeAccumulatorElement(Dst, RowDim, ColDim, *ref(R0),
                                                 *add(ref(C0), E),
                                                 ex::load(C, std::move(AccIdx))));
      }
      if (Tiles % Groups)
        T.push_back(ifThen(ex::lt(ref(Tile), lit(Tiles)), std::move(InTile)));
      else
        for (StmtPtr &X : InTile)
          T.push_back(std::move(X));
      return T;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  Stmts lowerGemm(const OpStmt &Op) {
    Stmts Out;
    BufferValue *C = Op.getOperand("c").R.Buf;
    if (Op.getAttrOrDefault("clear_accum").getBool()) {
      for (StmtPtr &S : fillAll(C, *ex::zero(C->getDType())))
        Out.push_back(std::move(S));
    }
    std::vector<OpOperand> Operands(3);
    const char *OpNames[] = {"a", "b", "c"};
    for (unsigned I = 0; I != 3; ++I) {
      Operands[I].Kind = OperandKind::Region;
      Operands[I].R = Op.getOperand(OpNames[I]).R.clone();
    }
    AttributeList Attrs;
    for (const char *T : {"transpose_a", "transpose_b"})
      if (Op.getAttrOrDefault(T).getBool())
        Attrs.set(T, Attribute::getBool(true));
    // The accumulator's original shape, which the op no longer has.
    auto [M, N] = Orig.lookup(C);
    Attrs.set("m", Attribute::getInt(M));
    Attrs.set("n", Attribute::getInt(N));
    Out.push_back(op("metal.simdgroup_mma", std::move(Operands), std::move(Attrs),
                     Op.getLoc()));
    return Out;
  }

  void rewrite(Block &B) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        rewrite(*N);
      auto *Op = dyn_cast<OpStmt>(S.get());
      std::optional<Stmts> New;
      if (Op && Lowered.count(Op)) {
        New = lowerGemm(*Op);
      } else if (Op && (Op->getName() == "clear" || Op->getName() == "fill")) {
        if (BufferValue *C = Op->getOperand("dst").R.Buf; Accs.count(C))
          New = lowerFill(*Op, C);
      } else if (Op && Op->getName() == "copy") {
        if (BufferValue *C = Op->getOperand("src").R.Buf; Accs.count(C))
          New = lowerCopyOut(*Op, C);
      }
      if (!New) {
        Out.push_back(std::move(S));
        continue;
      }
      for (StmtPtr &X : *New)
        Out.push_back(std::move(X));
    }
    B.Stmts = std::move(Out);
  }

  KernelStmt &K;
  const RemarkEmitter &Remarks;
  int64_t Threads;
  Value *Tid = nullptr;
  llvm::DenseSet<BufferValue *> Accs;
  std::vector<BufferValue *> AccOrder;
  llvm::DenseSet<const OpStmt *> Lowered;
  llvm::DenseMap<const BufferValue *, std::pair<int64_t, int64_t>> Orig;
  llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>> CopyDims;
};

class MetalLowerGemmSimdgroupPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &) override {
    if (!M.getContext().getOpRegistry().lookup("metal.simdgroup_mma"))
      return true; // the metal dialect is not registered: nothing to lower to
    RemarkEmitter Remarks = getRemarks(M);
    forEachKernel(M, [&](Function &F, KernelStmt &K) {
      SimdgroupLowering(F, K, M.getContext().getOpRegistry(), Remarks).run();
    });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createMetalLowerGemmSimdgroupPass() {
  return std::make_unique<MetalLowerGemmSimdgroupPass>(
      getMetalLowerGemmSimdgroupPassInfo());
}
