//===- LowerGemm.cpp - cpu-lower-gemm -------------------------------------===//
//
// Lowers gemm to register-blocked loop nests that LLVM turns into FMA
// micro-kernels. C is cut into MR x NR blocks; each block is accumulated in
// a `local` buffer over the whole K extent with its row and column loops
// fully unrolled, so that after unrolling LLVM keeps the block in vector
// registers (SROA) and packs each row of NR products into vector FMAs
// (SLP): per k, NR / VL vector loads of B, MR broadcasts of A and
// MR * NR / VL FMAs. The column loop is the outer of the two, which keeps
// the FMAs of one B vector together.
//
// B's rows must be contiguous and of the accumulator's type for those
// vector loads; otherwise (transposed, strided or narrower B) B is first
// packed into a `local` [K, N] buffer of the accumulator's type. A is read
// one element at a time; it is packed only to convert it once. Edges that
// MR and NR do not divide become blocks of the remaining size.
//
// MR and NR come from the target's vector registers (LLVM's cost model) at
// the width the kernel is compiled for (getKernelVectorBits: the widest the
// CPU has, unless the kernel computes a math function lane by lane): NR is
// two vector widths and MR as large as the registers allow, at most 8
// (4 x 16 for f32 on AVX2, 8 x 32 on AVX-512, 8 x 16 on AVX-512 in a
// kernel that keeps 256-bit vectors). The column-outer order
// keeps the MR broadcasts of A live across the column groups; a row-outer
// order would need fewer registers but LLVM's SLP vectorizer groups its
// lanes badly.
//
//===----------------------------------------------------------------------===//

#include "CPUTargetInfo.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/Pass.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"

namespace {

using Stmts = std::vector<StmtPtr>;

/// A gemm operand viewed as a matrix: its last two dimensions, at the
/// region's offsets, possibly transposed; leading dimensions are points.
struct MatrixRef {
  BufferValue *Buf = nullptr;
  /// Per dimension: the region's offset, null for 0.
  std::vector<const Expr *> Offsets;
  bool Transposed = false;

  MatrixRef(const Region &R, bool Transposed) : Buf(R.Buf), Transposed(Transposed) {
    for (unsigned D = 0; D != R.Buf->getRank(); ++D)
      Offsets.push_back(R.isWholeBuffer() ? nullptr : R.Indices[D].Offset.get());
  }

  /// The indices of logical element (Row, Col).
  std::vector<ExprPtr> index(ExprPtr Row, ExprPtr Col) const {
    if (Transposed)
      std::swap(Row, Col);
    std::vector<ExprPtr> Idx;
    unsigned R = Offsets.size();
    for (unsigned D = 0; D != R; ++D) {
      ExprPtr I = Offsets[D] ? Offsets[D]->clone() : ex::intLit(0);
      if (D == R - 2)
        I = ex::add(std::move(I), std::move(Row));
      else if (D == R - 1)
        I = ex::add(std::move(I), std::move(Col));
      Idx.push_back(std::move(I));
    }
    return Idx;
  }

  ExprPtr load(ExprPtr Row, ExprPtr Col) const {
    return ex::load(Buf, index(std::move(Row), std::move(Col)));
  }

  /// Whether consecutive columns are consecutive in memory.
  bool hasUnitColumnStride() const {
    if (Transposed)
      return false;
    llvm::ArrayRef<ExprPtr> Strides = Buf->getStrides();
    return Strides.empty() || ex::isConst(*Strides.back(), 1);
  }
};

/// Register blocking of the C tile.
struct Blocking {
  int64_t MR, NR;
};

class GemmLowering {
public:
  GemmLowering(Function &F, int64_t MR, int64_t NR)
      : Names(F), ForcedMR(MR), ForcedNR(NR) {}

  /// Lowers the gemms of \p K for vector registers \p KernelVec.
  void lowerKernel(KernelStmt &K, const CPUVectorInfo &KernelVec) {
    Vec = KernelVec;
    lowerBlock(K.getBodyMutable());
  }

private:
  void lowerBlock(Block &B) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        lowerBlock(*N);
      auto *Op = dyn_cast<OpStmt>(S.get());
      if (!Op || !Op->getInfo().isCommon() || Op->getName() != "gemm") {
        Out.push_back(std::move(S));
        continue;
      }
      for (StmtPtr &L : lowerGemm(*Op))
        Out.push_back(std::move(L));
    }
    B.Stmts = std::move(Out);
  }

  //===--- Statement builders ---------------------------------------------===//

  static Block block(Stmts S) {
    Block B;
    B.Stmts = std::move(S);
    return B;
  }

  static StmtPtr store(BufferValue *B, std::vector<ExprPtr> Idx, ExprPtr V) {
    V = ex::castTo(std::move(V), B->getDType());
    return std::make_unique<StoreStmt>(B, std::move(Idx), std::move(V));
  }

  /// `%name = alloc local Ty[Shape]`.
  StmtPtr allocLocal(llvm::StringRef Name, DType Ty,
                     llvm::ArrayRef<int64_t> Shape, BufferValue *&Out) {
    std::vector<ExprPtr> Dims;
    for (int64_t D : Shape)
      Dims.push_back(ex::intLit(D));
    auto B = std::make_unique<BufferValue>(Names.fresh(Name), Ty, MemScope::Local,
                                           std::move(Dims),
                                           std::vector<ExprPtr>(), false,
                                           llvm::SMLoc());
    Out = B.get();
    return std::make_unique<AllocStmt>(std::move(B), AttributeList());
  }

  std::unique_ptr<Value> loopVar(llvm::StringRef Base) {
    return std::make_unique<Value>(Value::Kind::LoopVar, Names.fresh(Base),
                                   DType::I32, llvm::SMLoc());
  }

  /// `for %v in <Kind>(0, Extent) { Body(%v) }`; for a parallel loop the
  /// range has no lower bound.
  StmtPtr loop(LoopKind Kind, llvm::StringRef Base, int64_t Extent,
               llvm::function_ref<Stmts(Value *)> Body) {
    LoopDim D;
    D.Var = loopVar(Base);
    if (Kind != LoopKind::Parallel)
      D.Lo = ex::intLit(0);
    D.Hi = ex::intLit(Extent);
    Value *V = D.Var.get();
    std::vector<LoopDim> Dims;
    Dims.push_back(std::move(D));
    return std::make_unique<ForStmt>(Kind, std::move(Dims), nullptr,
                                     AttributeList(), block(Body(V)));
  }

  /// Two nested unrolled loops over [0, E0) x [0, E1); a loop of one
  /// iteration is left out and its variable reads as 0.
  Stmts unroll2(llvm::StringRef N0, int64_t E0, llvm::StringRef N1, int64_t E1,
                llvm::function_ref<Stmts(std::function<ExprPtr()>,
                                         std::function<ExprPtr()>)>
                    Body) {
    auto VarOr0 = [](Value *V) -> std::function<ExprPtr()> {
      return [V] { return V ? ex::ref(V) : ex::intLit(0); };
    };
    auto Inner = [&](Value *V0) -> Stmts {
      if (E1 == 1)
        return Body(VarOr0(V0), VarOr0(nullptr));
      Stmts S;
      S.push_back(loop(LoopKind::Unroll, N1, E1, [&](Value *V1) {
        return Body(VarOr0(V0), VarOr0(V1));
      }));
      return S;
    };
    if (E0 == 1)
      return Inner(nullptr);
    Stmts S;
    S.push_back(loop(LoopKind::Unroll, N0, E0, Inner));
    return S;
  }

  /// Runs \p Body for `Count` blocks of `Size`: no loop for one block, a
  /// serial loop otherwise. Body receives the block's first index.
  void forBlocks(Stmts &Out, llvm::StringRef Name, int64_t Count, int64_t Size,
                 llvm::function_ref<void(Stmts &, std::function<ExprPtr()>)> Body) {
    if (Count <= 0)
      return;
    if (Count == 1) {
      Body(Out, [] { return ex::intLit(0); });
      return;
    }
    Out.push_back(loop(LoopKind::Serial, Name, Count, [&](Value *V) {
      Stmts S;
      Body(S, [V, Size] { return ex::mul(ex::ref(V), ex::intLit(Size)); });
      return S;
    }));
  }

  template <typename... T> static std::vector<ExprPtr> idx(T... Es) {
    std::vector<ExprPtr> Out;
    (Out.push_back(std::move(Es)), ...);
    return Out;
  }

  static void append(Stmts &Out, Stmts In) {
    for (StmtPtr &S : In)
      Out.push_back(std::move(S));
  }

  //===--- gemm -----------------------------------------------------------===//

  Blocking chooseBlocking(int64_t M, int64_t N, DType Acc) const {
    int64_t VL = std::max<int64_t>(1, Vec.VectorBits / getDTypeBits(Acc));
    int64_t NR = ForcedNR > 0 ? ForcedNR : 2 * VL;
    int64_t NV = (NR + VL - 1) / VL;
    // Live in the k loop: MR x NV accumulators, the MR broadcasts of A
    // (shared by the NV column groups) and one vector of B, plus a spare.
    int64_t Regs = Vec.NumVectorRegs;
    int64_t MR = ForcedMR > 0 ? ForcedMR
                              : std::clamp<int64_t>((Regs - 2) / (NV + 1), 1, 8);
    return {std::min(MR, M), std::min(NR, N)};
  }

  Stmts lowerGemm(const OpStmt &Op) {
    bool TA = Op.getAttrOrDefault("transpose_a").getBool();
    bool TB = Op.getAttrOrDefault("transpose_b").getBool();
    bool Clear = Op.getAttrOrDefault("clear_accum").getBool();
    const Region &RA = Op.getOperand("a").R, &RB = Op.getOperand("b").R,
                 &RC = Op.getOperand("c").R;
    MatrixRef A(RA, TA), B(RB, TB), C(RC, false);
    // The verifier made every extent constant and the leading ones 1.
    auto Last2 = [](const Region &R) {
      std::vector<const Expr *> E = getRegionExtentExprs(R, nullptr);
      auto Get = [](const Expr *X) { return X ? *X->getConstInt() : 1; };
      return std::make_pair(Get(E[E.size() - 2]), Get(E.back()));
    };
    auto [CR, CC] = Last2(RC);
    auto [AR, AC] = Last2(RA);
    int64_t M = CR, N = CC, K = TA ? AR : AC;
    DType Acc = C.Buf->getDType();
    Stmts Out;

    // Operands in the form the micro-kernel reads: B rows contiguous in the
    // accumulator's type, A in the accumulator's type.
    std::function<ExprPtr(ExprPtr, ExprPtr)> LoadA, LoadB;
    if (A.Buf->getDType() != Acc) {
      BufferValue *Ap;
      Out.push_back(allocLocal("Ap", Acc, {M, K}, Ap));
      Out.push_back(parallel2("i", M, "k", K, [&](Value *I, Value *Kv) {
        Stmts S;
        S.push_back(store(Ap, idx(ex::ref(I), ex::ref(Kv)),
                          ex::castTo(A.load(ex::ref(I), ex::ref(Kv)), Acc)));
        return S;
      }));
      LoadA = [Ap](ExprPtr I, ExprPtr Kv) {
        return ex::load(Ap, idx(std::move(I), std::move(Kv)));
      };
    } else {
      LoadA = [&A](ExprPtr I, ExprPtr Kv) { return A.load(std::move(I), std::move(Kv)); };
    }
    if (B.Buf->getDType() != Acc || !B.hasUnitColumnStride()) {
      BufferValue *Bp;
      Out.push_back(allocLocal("Bp", Acc, {K, N}, Bp));
      Out.push_back(parallel2("k", K, "j", N, [&](Value *Kv, Value *J) {
        Stmts S;
        S.push_back(store(Bp, idx(ex::ref(Kv), ex::ref(J)),
                          ex::castTo(B.load(ex::ref(Kv), ex::ref(J)), Acc)));
        return S;
      }));
      LoadB = [Bp](ExprPtr Kv, ExprPtr J) {
        return ex::load(Bp, idx(std::move(Kv), std::move(J)));
      };
    } else {
      LoadB = [&B](ExprPtr Kv, ExprPtr J) { return B.load(std::move(Kv), std::move(J)); };
    }

    Blocking Bl = chooseBlocking(M, N, Acc);
    int64_t MR = Bl.MR, NR = Bl.NR;
    auto Tile = [&](Stmts &S, std::function<ExprPtr()> Row0,
                    std::function<ExprPtr()> Col0, int64_t TM, int64_t TN) {
      append(S, microKernel(C, LoadA, LoadB, Row0, Col0, TM, TN, K, Acc, Clear));
    };
    // Column panels outside, row blocks inside: one panel of B stays in
    // L1 while the row blocks of A go by.
    auto Rows = [&](Stmts &S, std::function<ExprPtr()> Col0, int64_t TN) {
      forBlocks(S, "ib", M / MR, MR, [&](Stmts &S2, std::function<ExprPtr()> Row0) {
        Tile(S2, Row0, Col0, MR, TN);
      });
      if (M % MR)
        Tile(S, [=] { return ex::intLit(M / MR * MR); }, Col0, M % MR, TN);
    };
    forBlocks(Out, "jb", N / NR, NR, [&](Stmts &S, std::function<ExprPtr()> Col0) {
      Rows(S, Col0, NR);
    });
    if (N % NR)
      Rows(Out, [=] { return ex::intLit(N / NR * NR); }, N % NR);
    return Out;
  }

  StmtPtr parallel2(llvm::StringRef N0, int64_t E0, llvm::StringRef N1, int64_t E1,
                    llvm::function_ref<Stmts(Value *, Value *)> Body) {
    std::vector<LoopDim> Dims(2);
    Dims[0].Var = loopVar(N0);
    Dims[0].Hi = ex::intLit(E0);
    Dims[1].Var = loopVar(N1);
    Dims[1].Hi = ex::intLit(E1);
    Value *V0 = Dims[0].Var.get(), *V1 = Dims[1].Var.get();
    return std::make_unique<ForStmt>(LoopKind::Parallel, std::move(Dims), nullptr,
                                     AttributeList(), block(Body(V0, V1)));
  }

  /// One TM x TN block of C at (Row0, Col0), accumulated in a local buffer
  /// over the K extent.
  Stmts microKernel(const MatrixRef &C,
                    const std::function<ExprPtr(ExprPtr, ExprPtr)> &LoadA,
                    const std::function<ExprPtr(ExprPtr, ExprPtr)> &LoadB,
                    const std::function<ExprPtr()> &Row0,
                    const std::function<ExprPtr()> &Col0, int64_t TM, int64_t TN,
                    int64_t K, DType Acc, bool Clear) {
    Stmts Out;
    BufferValue *AccBuf;
    Out.push_back(allocLocal("acc", Acc, {TM, TN}, AccBuf));
    using IdxFn = std::function<ExprPtr()>;
    auto CIndex = [&](const IdxFn &I, const IdxFn &J) {
      return C.index(ex::add(Row0(), I()), ex::add(Col0(), J()));
    };
    append(Out, unroll2("ii", TM, "jj", TN, [&](IdxFn I, IdxFn J) {
      Stmts S;
      S.push_back(store(AccBuf, idx(I(), J()),
                        Clear ? ex::zero(Acc) : ex::load(C.Buf, CIndex(I, J))));
      return S;
    }));
    Out.push_back(loop(LoopKind::Serial, "kk", K, [&](Value *Kv) {
      // Columns outside: the FMAs that share a vector of B stay together.
      return unroll2("jj", TN, "ii", TM, [&](IdxFn J, IdxFn I) {
        ExprPtr Prod = ex::mul(LoadA(ex::add(Row0(), I()), ex::ref(Kv)),
                               LoadB(ex::ref(Kv), ex::add(Col0(), J())));
        Stmts S;
        S.push_back(store(AccBuf, idx(I(), J()),
                          ex::add(ex::load(AccBuf, idx(I(), J())), std::move(Prod))));
        return S;
      });
    }));
    append(Out, unroll2("ii", TM, "jj", TN, [&](IdxFn I, IdxFn J) {
      Stmts S;
      S.push_back(store(C.Buf, CIndex(I, J), ex::load(AccBuf, idx(I(), J()))));
      return S;
    }));
    return Out;
  }

  NameGenerator Names;
  CPUVectorInfo Vec;
  int64_t ForcedMR, ForcedNR;
};

class LowerGemmPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    // Without a target (tile-opt alone) the defaults describe AVX2.
    CPUVectorInfo Vec;
    int64_t MR = getIntOption("mr"), NR = getIntOption("nr");
    if (S.Backend && (MR <= 0 || NR <= 0)) {
      llvm::Expected<CPUVectorInfo> Info = getCPUVectorInfo(S.Backend->getTarget());
      if (!Info) {
        S.Diag.error(llvm::SMLoc(), "cpu-lower-gemm: " +
                                        llvm::toString(Info.takeError()));
        return false;
      }
      Vec = *Info;
    }
    for (const auto &F : M.getFunctions()) {
      std::vector<KernelStmt *> Kernels;
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          Kernels.push_back(K);
      });
      GemmLowering L(*F, MR, NR);
      for (KernelStmt *K : Kernels)
        L.lowerKernel(*K, getKernelVectorInfo(Vec, *K));
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createCPULowerGemmPass() {
  return std::make_unique<LowerGemmPass>(getCPULowerGemmPassInfo());
}
