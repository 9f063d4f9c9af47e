//===- LowerGemm.cpp - cpu-lower-gemm -------------------------------------===//
//
// Lowers gemm to register-blocked loop nests that LLVM turns into FMA
// micro-kernels. C is cut into MR x NR blocks; each block is accumulated in
// a `local` buffer over the whole K extent with its row and column loops
// fully unrolled, so that after unrolling LLVM keeps the block in vector
// registers (SROA): per k, NR / VL vector loads of B, MR broadcasts of A
// and MR * NR / VL FMAs. Where NR is a multiple of VL and the accumulator
// is f32 or f64, the block is written in vectors (cpu.copy_lanes to load
// and store its rows, one cpu.fma per vector of a row and k); otherwise
// in scalar multiply-adds, which LLVM's SLP vectorizer packs into the same
// vectors at a much higher compile time. The column loop is the outer of
// the two, which keeps the FMAs of one B vector together.
//
// B's rows must be contiguous and of the accumulator's type for those
// vector loads; otherwise (transposed, strided or narrower B) B is first
// packed into a `local` [K, N] buffer of the accumulator's type. A is read
// one element at a time; it is packed only to convert it once. Edges that
// MR and NR do not divide become blocks of the remaining size.
//
// bf16 A and B into f32 run either on vdpbf16ps (lowerBF16Dot) or
// converted to f32 by vector code (cpu.widen_bf16 on rows; a B stored
// [N, K] on-chip through cpu.transpose_pairs first) for the f32
// micro-kernel: the faster of the two on the target CPU by its timings
// (CPUVectorInfo::PreferBF16Dot), or as option bf16-dot says.
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
#include "tile/Transforms/StmtBuilder.h"
#include <set>

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

/// A tile of a global tensor that the loop around a gemm copies into one
/// of the gemm's operands in each iteration, as the copy of a later
/// iteration will read it.
struct NextTile {
  BufferValue *Src;
  /// The region's offset per dimension, for the later iteration.
  std::vector<ExprPtr> Offsets;
  /// Extents of the last two dimensions (Rows is 1 for a vector).
  int64_t Rows, Cols;
};

/// Spreads the prefetches of the cache lines of tiles over the slots (the
/// micro-kernels) of a gemm: slot T prefetches lines [T * Q, T * Q + Q) of
/// each tile, Q its lines over the number of slots, rounded up.
class PrefetchPlan {
public:
  PrefetchPlan(llvm::ArrayRef<NextTile> Tiles, int64_t Slots, unsigned LineBytes,
               const OpInfo *Prefetch, int64_t Locality)
      : Tiles(Tiles), Slots(Slots), LineBytes(LineBytes), Prefetch(Prefetch),
        Locality(Locality) {}

  /// The prefetches of slot \p T.
  std::vector<StmtPtr> prefetches(const Expr &T) const {
    std::vector<StmtPtr> Out;
    for (const NextTile &Tile : Tiles) {
      int64_t PerLine =
          std::max<int64_t>(1, LineBytes / getDTypeBytes(Tile.Src->getDType()));
      int64_t LinesPerRow = (Tile.Cols + PerLine - 1) / PerLine;
      int64_t Lines = Tile.Rows * LinesPerRow;
      int64_t Q = (Lines + Slots - 1) / Slots;
      for (int64_t I = 0; I != Q; ++I) {
        // Line L = T * Q + I is (L / LinesPerRow, L % LinesPerRow), written
        // without a division where one of Q and LinesPerRow divides the
        // other.
        ExprPtr Row, Col;
        if (Q % LinesPerRow == 0) {
          Row = ex::add(ex::mul(T.clone(), ex::intLit(Q / LinesPerRow)),
                        ex::intLit(I / LinesPerRow));
          Col = ex::intLit(I % LinesPerRow);
        } else if (LinesPerRow % Q == 0) {
          int64_t PerRow = LinesPerRow / Q;
          Row = ex::binary(BinaryOp::Div, T.clone(), ex::intLit(PerRow));
          Col = ex::add(ex::mul(ex::binary(BinaryOp::Rem, T.clone(), ex::intLit(PerRow)),
                                ex::intLit(Q)),
                        ex::intLit(I));
        } else {
          auto L = [&] { return ex::add(ex::mul(T.clone(), ex::intLit(Q)), ex::intLit(I)); };
          Row = ex::binary(BinaryOp::Div, L(), ex::intLit(LinesPerRow));
          Col = ex::binary(BinaryOp::Rem, L(), ex::intLit(LinesPerRow));
        }
        StmtPtr P = prefetch(Tile, Row->clone(), ex::mul(std::move(Col), ex::intLit(PerLine)));
        // The last slots' lines lie past the tile when Q * Slots exceeds
        // its lines.
        if (Q * Slots > Lines) {
          Block Then;
          Then.Stmts.push_back(std::move(P));
          P = std::make_unique<IfStmt>(ex::lt(std::move(Row), ex::intLit(Tile.Rows)),
                                       std::move(Then), std::nullopt);
        }
        Out.push_back(std::move(P));
      }
    }
    return Out;
  }

private:
  /// `cpu.prefetch Src[Offsets + (Row, Col)]`.
  StmtPtr prefetch(const NextTile &Tile, ExprPtr Row, ExprPtr Col) const {
    std::vector<OpOperand> Operands(1);
    Operands[0].Kind = OperandKind::Region;
    Operands[0].R.Buf = Tile.Src;
    size_t R = Tile.Offsets.size();
    for (size_t D = 0; D != R; ++D) {
      ExprPtr I = Tile.Offsets[D]->clone();
      if (D + 1 == R)
        I = ex::add(std::move(I), std::move(Col));
      else if (D + 2 == R)
        I = ex::add(std::move(I), std::move(Row));
      RegionIndex RI;
      RI.Offset = foldAll(std::move(I));
      Operands[0].R.Indices.push_back(std::move(RI));
    }
    AttributeList Attrs;
    Attrs.set("locality", Attribute::getInt(Locality));
    return std::make_unique<OpStmt>(Prefetch, std::move(Operands), std::move(Attrs));
  }

  static ExprPtr foldAll(ExprPtr E) {
    rewriteExpr(E, [](ExprPtr X) { return ex::fold(std::move(X)); });
    return E;
  }

  llvm::ArrayRef<NextTile> Tiles;
  int64_t Slots;
  unsigned LineBytes;
  const OpInfo *Prefetch;
  int64_t Locality;
};

class GemmLowering {
public:
  /// \p Prefetch is the cpu.prefetch op, or null to prefetch nothing.
  /// \p Dot and \p Transpose are cpu.dpbf16ps and cpu.transpose_pairs, or
  /// null where the cpu dialect is not registered.
  /// \p Fma and \p CopyLanes are cpu.fma and cpu.copy_lanes, or null
  /// likewise.
  /// \p Widen is cpu.widen_bf16, or null likewise. \p BF16Dot is the
  /// function's `bf16-dot` option: auto, on or off.
  GemmLowering(Function &F, int64_t MR, int64_t NR, const OpInfo *Prefetch,
               int64_t Distance, const OpInfo *Dot, const OpInfo *Transpose,
               const OpInfo *Fma, const OpInfo *CopyLanes, const OpInfo *Widen,
               std::string BF16Dot, RemarkEmitter Remarks)
      : Names(F), ForcedMR(MR), ForcedNR(NR), Prefetch(Prefetch), Distance(Distance),
        Dot(Dot), Transpose(Transpose), Fma(Fma), CopyLanes(CopyLanes), Widen(Widen),
        BF16Dot(std::move(BF16Dot)), Remarks(Remarks) {}

  /// Lowers the gemms of \p K for vector registers \p KernelVec.
  void lowerKernel(KernelStmt &K, const CPUVectorInfo &KernelVec) {
    Vec = KernelVec;
    lowerBlock(K.getBodyMutable());
  }

private:
  /// Lowers the gemms in \p B, the body of \p Owner (null for a kernel's).
  void lowerBlock(Block &B, const Stmt *Owner = nullptr) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        lowerBlock(*N, S.get());
      auto *Op = dyn_cast<OpStmt>(S.get());
      if (!Op || !isCommonOp(*Op, "gemm")) {
        Out.push_back(std::move(S));
        continue;
      }
      std::vector<NextTile> Next = nextTiles(Out, Owner, *Op);
      for (StmtPtr &L : lowerGemm(*Op, Next))
        Out.push_back(std::move(L));
    }
    B.Stmts = std::move(Out);
  }

  static bool isCommonOp(const OpStmt &Op, llvm::StringRef Name) {
    return Op.getInfo().isCommon() && Op.getName() == Name;
  }

  /// The tiles that the copies among \p Before (the statements before the
  /// gemm in the body of \p Owner) read into the gemm's A or B when Owner
  /// is a serial or pipelined loop over %v (iterations in order) and the
  /// copy's source, a global tensor whose rows are contiguous, is indexed
  /// by %v: their regions at %v + Distance. The gemm prefetches the tiles
  /// that the copies of a later K step will read while it computes on
  /// this step's.
  std::vector<NextTile> nextTiles(const Stmts &Before, const Stmt *Owner,
                                  const OpStmt &Gemm) const {
    std::vector<NextTile> Out;
    const auto *Loop = llvm::dyn_cast_or_null<ForStmt>(Owner);
    if (!Prefetch || Distance <= 0 || !Loop ||
        (Loop->getLoopKind() != LoopKind::Serial &&
         Loop->getLoopKind() != LoopKind::Pipelined) ||
        Loop->getDims().size() != 1 || Loop->getStep())
      return Out;
    const Value *V = Loop->getDims()[0].Var.get();
    const BufferValue *A = Gemm.getOperand("a").R.Buf, *B = Gemm.getOperand("b").R.Buf;
    for (const StmtPtr &S : Before) {
      const auto *Copy = dyn_cast<OpStmt>(S.get());
      if (!Copy || !isCommonOp(*Copy, "copy"))
        continue;
      const Region &Src = Copy->getOperand("src").R, &Dst = Copy->getOperand("dst").R;
      if ((Dst.Buf != A && Dst.Buf != B) || Src.Buf->getScope() != MemScope::Global ||
          Src.isWholeBuffer() || !MatrixRef(Src, false).hasUnitColumnStride())
        continue;
      bool UsesV = false;
      for (const RegionIndex &I : Src.Indices)
        forEachUse(*I.Offset, [&](const Value *U) { UsesV |= U == V; });
      std::vector<const Expr *> Extents = getRegionExtentExprs(Src, &Dst);
      std::vector<int64_t> Ext;
      for (const Expr *E : Extents)
        Ext.push_back(E ? E->getConstInt().value_or(-1) : 1);
      size_t R = Ext.size();
      bool Points = llvm::all_of(llvm::ArrayRef(Ext).drop_back(std::min<size_t>(R, 2)),
                                 [](int64_t E) { return E == 1; });
      if (!UsesV || !Points || llvm::is_contained(Ext, -1))
        continue;
      NextTile T;
      T.Src = Src.Buf;
      T.Rows = R >= 2 ? Ext[R - 2] : 1;
      T.Cols = Ext.back();
      for (const RegionIndex &I : Src.Indices) {
        ExprPtr E = I.Offset->clone();
        rewriteExpr(E, [&](ExprPtr X) -> ExprPtr {
          if (auto *Ref = dyn_cast<RefExpr>(X.get()); Ref && Ref->getValue() == V)
            return ex::add(std::move(X), ex::intLit(Distance));
          return X;
        });
        T.Offsets.push_back(std::move(E));
      }
      Out.push_back(std::move(T));
    }
    return Out;
  }

  //===--- Statement builders ---------------------------------------------===//

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
                                     AttributeList(), stmt::block(Body(V)));
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

  using IdxFn = std::function<ExprPtr()>;
  /// An element of a buffer: the buffer and the element's indices.
  using Element = std::pair<BufferValue *, std::vector<ExprPtr>>;
  using ElementFn = std::function<Element(ExprPtr, ExprPtr)>;

  /// The elements (row, column) of a packed local buffer \p P.
  static ElementFn packedElements(BufferValue *P) {
    return [P](ExprPtr R, ExprPtr C) { return Element(P, idx(std::move(R), std::move(C))); };
  }
  using TileFn = std::function<void(Stmts &, IdxFn BlockRow, IdxFn Row0, IdxFn BlockCol,
                                    IdxFn Col0, int64_t TM, int64_t TN)>;

  /// Calls \p Tile for each MR x NR block of an M x N result (the last row
  /// and column blocks smaller where MR, NR do not divide M, N). Column
  /// panels outside, row blocks inside: one panel of B stays in L1 while
  /// the row blocks of A go by.
  void forEachTile(Stmts &Out, int64_t M, int64_t N, int64_t MR, int64_t NR,
                   const TileFn &Tile) {
    auto Const = [](int64_t V) -> IdxFn { return [V] { return ex::intLit(V); }; };
    auto Rows = [&](Stmts &S, IdxFn BlockCol, IdxFn Col0, int64_t TN) {
      forBlocks(S, "ib", M / MR, MR, [&](Stmts &S2, IdxFn BlockRow, IdxFn Row0) {
        Tile(S2, BlockRow, Row0, BlockCol, Col0, MR, TN);
      });
      if (M % MR)
        Tile(S, Const(M / MR), Const(M / MR * MR), BlockCol, Col0, M % MR, TN);
    };
    forBlocks(Out, "jb", N / NR, NR, [&](Stmts &S, IdxFn BlockCol, IdxFn Col0) {
      Rows(S, BlockCol, Col0, NR);
    });
    if (N % NR)
      Rows(Out, Const(N / NR), Const(N / NR * NR), N % NR);
  }

  /// Runs \p Body for `Count` blocks of `Size`: no loop for one block, a
  /// serial loop otherwise. Body receives the block's number and its first
  /// index.
  void forBlocks(Stmts &Out, llvm::StringRef Name, int64_t Count, int64_t Size,
                 llvm::function_ref<void(Stmts &, IdxFn, IdxFn)> Body) {
    if (Count <= 0)
      return;
    if (Count == 1) {
      Body(Out, [] { return ex::intLit(0); }, [] { return ex::intLit(0); });
      return;
    }
    Out.push_back(loop(LoopKind::Serial, Name, Count, [&](Value *V) {
      Stmts S;
      Body(S, [V] { return ex::ref(V); },
           [V, Size] { return ex::mul(ex::ref(V), ex::intLit(Size)); });
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
    // (shared by the NV column groups) and one vector of B, plus a spare
    // (getDefaultGemmRows).
    int64_t Regs = Vec.NumVectorRegs;
    int64_t MR = ForcedMR > 0 ? ForcedMR : getDefaultGemmRows(Regs, NV);
    return {std::min(MR, M), std::min(NR, N)};
  }

  Stmts lowerGemm(const OpStmt &Op, llvm::ArrayRef<NextTile> Next) {
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
    if (A.Buf->getDType() == DType::BF16 && B.Buf->getDType() == DType::BF16 &&
        Acc == DType::F32) {
      std::string Why = bf16DotMissReason();
      if (Why.empty() && BF16Dot == "off")
        Why = "bf16-dot = off";
      else if (Why.empty() && BF16Dot == "auto" && !Vec.PreferBF16Dot)
        Why = Vec.BF16DotReason;
      else if (!Why.empty() && BF16Dot == "on")
        Why = "bf16-dot = on, but " + Why;
      if (Why.empty()) {
        Remarks.passed(Op.getLoc(), "gemm of bf16 operands on vdpbf16ps (cpu.dpbf16ps), "
                                    "B packed as pairs of K steps: " +
                                        (BF16Dot == "on" ? std::string("bf16-dot = on")
                                                         : Vec.BF16DotReason));
        return lowerBF16Dot(A, B, C, M, N, K, Clear, Next);
      }
      Remarks.missed(Op.getLoc(), "gemm of bf16 operands converted to f32 and multiplied "
                                  "with FMAs, not on vdpbf16ps: " + Why);
    }
    Stmts Out;

    // Operands in the form the micro-kernel reads: B rows contiguous in the
    // accumulator's type, A in the accumulator's type; ElemA(I, Kv) and
    // ElemB(Kv, J) are the elements it reads.
    ElementFn ElemA, ElemB;
    if (A.Buf->getDType() == DType::BF16 && Acc == DType::F32 && canWidenRows(A)) {
      BufferValue *Ap;
      Out.push_back(allocLocal("Ap", Acc, {M, K}, Ap));
      widenRows(Out, Ap, M, K, false, [&](ExprPtr I, ExprPtr Kv) {
        return Element(A.Buf, A.index(std::move(I), std::move(Kv)));
      });
      ElemA = packedElements(Ap);
    } else if (A.Buf->getDType() != Acc) {
      if (A.Buf->getDType() == DType::BF16 && Acc == DType::F32)
        Remarks.missed(Op.getLoc(), "A of the gemm converted to f32 one element at a "
                                    "time: it is " + bf16PackMissReason(A));
      BufferValue *Ap;
      Out.push_back(allocLocal("Ap", Acc, {M, K}, Ap));
      Out.push_back(parallel2("i", M, "k", K, [&](Value *I, Value *Kv) {
        Stmts S;
        S.push_back(store(Ap, idx(ex::ref(I), ex::ref(Kv)),
                          ex::castTo(A.load(ex::ref(I), ex::ref(Kv)), Acc)));
        return S;
      }));
      ElemA = packedElements(Ap);
    } else {
      ElemA = [&A](ExprPtr I, ExprPtr Kv) {
        return Element(A.Buf, A.index(std::move(I), std::move(Kv)));
      };
    }
    bool BF16 = B.Buf->getDType() == DType::BF16 && Acc == DType::F32 && Widen;
    if (BF16 && canWidenRows(B)) {
      BufferValue *Bp;
      Out.push_back(allocLocal("Bp", Acc, {K, N}, Bp));
      widenRows(Out, Bp, K, N, false, [&](ExprPtr Kv, ExprPtr J) {
        return Element(B.Buf, B.index(std::move(Kv), std::move(J)));
      });
      ElemB = packedElements(Bp);
    } else if (BF16 && Transpose && transposesPairs(B)) {
      // B stored [N, K]: its pairs of K steps transposed in 16 x 16
      // blocks, then each row of pairs split into two rows of f32.
      BufferValue *Pairs = packPairsOfB(Out, B, N, K, N);
      BufferValue *Bp;
      int64_t Kp = (K + 1) / 2;
      Out.push_back(allocLocal("Bp", Acc, {2 * Kp, N}, Bp));
      widenRows(Out, Bp, Kp, N, true, [&](ExprPtr P, ExprPtr J) {
        return Element(Pairs, idx(std::move(P), ex::mul(std::move(J), ex::intLit(2))));
      });
      ElemB = packedElements(Bp);
    } else if (B.Buf->getDType() != Acc || !B.hasUnitColumnStride()) {
      if (BF16)
        Remarks.missed(Op.getLoc(), "B of the gemm converted to f32 one element at a "
                                    "time: it is " + bf16PackMissReason(B));
      BufferValue *Bp;
      Out.push_back(allocLocal("Bp", Acc, {K, N}, Bp));
      Out.push_back(parallel2("k", K, "j", N, [&](Value *Kv, Value *J) {
        Stmts S;
        S.push_back(store(Bp, idx(ex::ref(Kv), ex::ref(J)),
                          ex::castTo(B.load(ex::ref(Kv), ex::ref(J)), Acc)));
        return S;
      }));
      ElemB = packedElements(Bp);
    } else {
      ElemB = [&B](ExprPtr Kv, ExprPtr J) {
        return Element(B.Buf, B.index(std::move(Kv), std::move(J)));
      };
    }

    Blocking Bl = chooseBlocking(M, N, Acc);
    int64_t MR = Bl.MR, NR = Bl.NR;
    // Block (I, J) is micro-kernel number J * RowBlocks + I; each starts
    // with its share of the prefetches of the operands' next tiles.
    int64_t RowBlocks = (M + MR - 1) / MR, ColBlocks = (N + NR - 1) / NR;
    PrefetchPlan Plan(Next, RowBlocks * ColBlocks, Vec.CacheLineBytes, Prefetch,
                      kPrefetchLocality);
    auto Tile = [&](Stmts &S, IdxFn BlockRow, IdxFn Row0, IdxFn BlockCol, IdxFn Col0,
                    int64_t TM, int64_t TN) {
      ExprPtr Slot = ex::add(ex::mul(BlockCol(), ex::intLit(RowBlocks)), BlockRow());
      append(S, Plan.prefetches(*Slot));
      append(S, microKernel(C, ElemA, ElemB, Row0, Col0, TM, TN, K, Acc, Clear,
                            lanesFor(Op, C, Acc, TN, ElemA, ElemB)));
    };
    forEachTile(Out, M, N, MR, NR, Tile);
    return Out;
  }

  /// The lanes of the cpu.fma and cpu.copy_lanes of a micro-kernel of TN
  /// columns (one vector of the accumulator's type), or 0 where it stays
  /// scalar for LLVM's SLP vectorizer to vectorize, with a remark saying
  /// why (once per gemm).
  int64_t lanesFor(const OpStmt &Op, const MatrixRef &C, DType Acc, int64_t TN,
                   const ElementFn &ElemA, const ElementFn &ElemB) {
    int64_t VL = Vec.VectorBits / getDTypeBits(Acc);
    auto Strided = [](const BufferValue *Buf) { return !Buf->getStrides().empty(); };
    std::string Why;
    if (!Fma || !CopyLanes)
      Why = "the cpu dialect is not registered";
    else if (Acc != DType::F32 && Acc != DType::F64)
      Why = "the accumulator is " + getDTypeName(Acc).str() + ", not f32 or f64";
    else if (VL < 2)
      Why = "the vectors hold one element";
    else if (TN % VL)
      Why = "its " + std::to_string(TN) + " columns are not whole vectors of " +
            std::to_string(VL);
    else if (Strided(C.Buf) || Strided(ElemA(ex::intLit(0), ex::intLit(0)).first) ||
             Strided(ElemB(ex::intLit(0), ex::intLit(0)).first))
      Why = "an operand has declared strides";
    if (Why.empty())
      return VL;
    if (Remarked.insert(&Op).second)
      Remarks.missed(Op.getLoc(), "micro-kernel of the gemm left scalar for LLVM's SLP "
                                  "vectorizer (slower to compile): " + Why);
    return 0;
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
                                     AttributeList(), stmt::block(Body(V0, V1)));
  }

  /// One TM x TN block of C at (Row0, Col0), accumulated in a local buffer
  /// over the K extent; with \p Lanes, in vectors of that many lanes
  /// (cpu.copy_lanes and cpu.fma), else in scalars.
  Stmts microKernel(const MatrixRef &C, const ElementFn &ElemA, const ElementFn &ElemB,
                    const std::function<ExprPtr()> &Row0,
                    const std::function<ExprPtr()> &Col0, int64_t TM, int64_t TN,
                    int64_t K, DType Acc, bool Clear, int64_t Lanes) {
    Stmts Out;
    BufferValue *AccBuf;
    Out.push_back(allocLocal("acc", Acc, {TM, TN}, AccBuf));
    auto CIndex = [&](const IdxFn &I, const IdxFn &J) {
      return C.index(ex::add(Row0(), I()), ex::add(Col0(), J()));
    };
    if (Lanes) {
      // Column groups of one vector each: acc[i, g * Lanes ...].
      int64_t Groups = TN / Lanes;
      auto Col = [Lanes](const IdxFn &G) { return ex::mul(G(), ex::intLit(Lanes)); };
      if (Clear)
        append(Out, unroll2("ii", TM, "jj", TN, [&](IdxFn I, IdxFn J) {
          Stmts S;
          S.push_back(store(AccBuf, idx(I(), J()), ex::zero(Acc)));
          return S;
        }));
      else
        append(Out, unroll2("ii", TM, "jg", Groups, [&](IdxFn I, IdxFn G) {
          Stmts S;
          S.push_back(lanesOp(CopyLanes, Lanes, Element(AccBuf, idx(I(), Col(G))),
                              Element(C.Buf, CIndex(I, [&] { return Col(G); }))));
          return S;
        }));
      Out.push_back(loop(LoopKind::Serial, "kk", K, [&](Value *Kv) {
        // Columns outside: the FMAs that share a vector of B stay together.
        return unroll2("jg", Groups, "ii", TM, [&](IdxFn G, IdxFn I) {
          Stmts S;
          S.push_back(lanesOp(Fma, Lanes, Element(AccBuf, idx(I(), Col(G))),
                              ElemA(ex::add(Row0(), I()), ex::ref(Kv)),
                              ElemB(ex::ref(Kv), ex::add(Col0(), Col(G)))));
          return S;
        });
      }));
      append(Out, unroll2("ii", TM, "jg", Groups, [&](IdxFn I, IdxFn G) {
        Stmts S;
        S.push_back(lanesOp(CopyLanes, Lanes,
                            Element(C.Buf, CIndex(I, [&] { return Col(G); })),
                            Element(AccBuf, idx(I(), Col(G)))));
        return S;
      }));
      return Out;
    }
    auto LoadA = [&](ExprPtr I, ExprPtr Kv) {
      Element E = ElemA(std::move(I), std::move(Kv));
      return ex::load(E.first, std::move(E.second));
    };
    auto LoadB = [&](ExprPtr Kv, ExprPtr J) {
      Element E = ElemB(std::move(Kv), std::move(J));
      return ex::load(E.first, std::move(E.second));
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

  /// Into L2 (prefetcht1), as cpu-prefetch-next-block does: the tiles of
  /// the next step are needed only after this step's micro-kernels.
  static constexpr int64_t kPrefetchLocality = 2;

  //===--- bf16 pairs (AVX512-BF16) ---------------------------------------===//

  /// f32 lanes of one vdpbf16ps (a 512-bit vector).
  static constexpr int64_t kDotLanes = 16;

  /// Why a gemm of bf16 A and B into f32 cannot run on cpu.dpbf16ps, or
  /// empty when it can.
  std::string bf16DotMissReason() const {
    if (!Dot || !Transpose)
      return "the cpu dialect is not registered";
    if (!Vec.HasBF16Dot)
      return "the target's CPU has no AVX512-BF16 (vdpbf16ps)";
    if (Vec.VectorBits < 512)
      return "the kernel is compiled for " + std::to_string(Vec.VectorBits) +
             "-bit vectors (it computes a math function lane by lane), and "
             "vdpbf16ps is 512-bit";
    return "";
  }

  /// `Op Operands... Attrs` for a cpu op whose operands are the regions
  /// starting at the given elements.
  static StmtPtr cpuOpWith(const OpInfo *Info, AttributeList Attrs,
                           std::vector<Element> Elems) {
    std::vector<OpOperand> Operands(Elems.size());
    for (size_t I = 0; I != Elems.size(); ++I) {
      Operands[I].Kind = OperandKind::Region;
      Operands[I].R.Buf = Elems[I].first;
      for (ExprPtr &E : Elems[I].second) {
        RegionIndex RI;
        RI.Offset = ex::fold(std::move(E));
        Operands[I].R.Indices.push_back(std::move(RI));
      }
    }
    return std::make_unique<OpStmt>(Info, std::move(Operands), std::move(Attrs));
  }

  template <typename... T> static StmtPtr cpuOp(const OpInfo *Info, T... Es) {
    std::vector<Element> Elems;
    (Elems.push_back(std::move(Es)), ...);
    return cpuOpWith(Info, AttributeList(), std::move(Elems));
  }

  /// cpuOp with `lanes = Lanes`.
  template <typename... T>
  static StmtPtr lanesOp(const OpInfo *Info, int64_t Lanes, T... Es) {
    std::vector<Element> Elems;
    (Elems.push_back(std::move(Es)), ...);
    AttributeList Attrs;
    Attrs.set("lanes", Attribute::getInt(Lanes));
    return cpuOpWith(Info, std::move(Attrs), std::move(Elems));
  }

  /// `parallel(kp in [Kp0, Kp1), j in [J0, J1))` storing ValueOf(kp, j, e)
  /// into both elements e of pair (kp, j) of \p Bp; nothing for an empty
  /// range.
  void packPairs(Stmts &Out, BufferValue *Bp, int64_t Kp0, int64_t Kp1, int64_t J0,
                 int64_t J1, const std::function<ExprPtr(ExprPtr, ExprPtr, int64_t)> &ValueOf) {
    if (Kp0 >= Kp1 || J0 >= J1)
      return;
    Out.push_back(parallel2("kp", Kp1 - Kp0, "j", J1 - J0, [&](Value *KpV, Value *JV) {
      Stmts S;
      auto Kp = [&] { return ex::add(ex::ref(KpV), ex::intLit(Kp0)); };
      auto J = [&] { return ex::add(ex::ref(JV), ex::intLit(J0)); };
      for (int64_t E = 0; E != 2; ++E)
        S.push_back(store(Bp, idx(Kp(), ex::add(ex::mul(J(), ex::intLit(2)), ex::intLit(E))),
                          ValueOf(Kp(), J(), E)));
      return S;
    }));
  }

  /// Whether \p B is transposed and on-chip (or local) with a constant
  /// shape, so that cpu.transpose_pairs can read its 16 x 16 blocks of
  /// pairs.
  static bool transposesPairs(const MatrixRef &B) {
    const BufferValue &BB = *B.Buf;
    return B.Transposed && BB.getScope() != MemScope::Global &&
           BB.getStrides().empty() && llvm::all_of(BB.getShape(), [](const ExprPtr &E) {
             return E->getConstInt().has_value();
           });
  }

  /// B of \p K x \p N bf16 elements packed as pairs of K steps into a new
  /// local Bp[(K + 1) / 2, 2 * Npad], Bp[kp, 2j + e] = B[2kp + e, j]: an
  /// odd K's last step paired with zero, columns N to Npad zero, whole
  /// 16 x 16 blocks of pairs of a transposed on-chip B by one
  /// cpu.transpose_pairs each, the rest element by element.
  BufferValue *packPairsOfB(Stmts &Out, const MatrixRef &B, int64_t N, int64_t K,
                            int64_t Npad) {
    int64_t Kp = (K + 1) / 2;
    BufferValue *Bp;
    Out.push_back(allocLocal("Bp", DType::BF16, {Kp, 2 * Npad}, Bp));
    int64_t KpT = 0, NT = 0;
    if (transposesPairs(B)) {
      KpT = K / 2 / kDotLanes * kDotLanes;
      NT = N / kDotLanes * kDotLanes;
    }
    // In serial loops rather than unrolled: the 16 loads of each
    // transpose address B's buffer, and past 100 uses of an alloca LLVM's
    // capture tracking gives up, takes it as escaped, and can no longer
    // tell the copy into it from the tensor it copies (which then stays
    // scalar: no memcpy, no SLP).
    forBlocks(Out, "tj", NT / kDotLanes, kDotLanes, [&](Stmts &S, IdxFn, IdxFn J) {
      forBlocks(S, "tp", KpT / kDotLanes, kDotLanes, [&](Stmts &S2, IdxFn, IdxFn P) {
        S2.push_back(cpuOp(Transpose,
                           Element(Bp, idx(P(), ex::mul(J(), ex::intLit(2)))),
                           Element(B.Buf, B.index(ex::mul(P(), ex::intLit(2)), J()))));
      });
    });
    auto FromB = [&](ExprPtr P, ExprPtr J, int64_t E) {
      return B.load(ex::add(ex::mul(std::move(P), ex::intLit(2)), ex::intLit(E)),
                    std::move(J));
    };
    auto Zero = [](ExprPtr, ExprPtr, int64_t) { return ex::zero(DType::BF16); };
    // The rest of the whole pairs: K steps past the transposed blocks, then
    // columns past them.
    packPairs(Out, Bp, KpT, K / 2, 0, N, FromB);
    packPairs(Out, Bp, 0, KpT, NT, N, FromB);
    // An odd K's last step, paired with zero; zero columns up to Npad.
    packPairs(Out, Bp, K / 2, Kp, 0, N, [&](ExprPtr P, ExprPtr J, int64_t E) {
      return E == 0 ? FromB(std::move(P), std::move(J), 0) : ex::zero(DType::BF16);
    });
    packPairs(Out, Bp, 0, Kp, N, Npad, Zero);
    return Bp;
  }

  /// Whether cpu.widen_bf16 can read the rows of \p X in place: not
  /// transposed and without declared strides (its rows contiguous).
  bool canWidenRows(const MatrixRef &X) const {
    return Widen && !X.Transposed && X.Buf->getStrides().empty();
  }

  /// Why canWidenRows(X) is false.
  std::string bf16PackMissReason(const MatrixRef &X) const {
    if (!Widen || !Transpose)
      return "the cpu dialect is not registered";
    if (!X.Buf->getStrides().empty())
      return "%" + X.Buf->getName().str() + ", which has declared strides";
    return "%" + X.Buf->getName().str() + ", transposed and in " +
           (X.Buf->getScope() == MemScope::Global
                ? std::string("global memory")
                : "a buffer of non-constant shape") +
           " (a transposed operand is converted in blocks where it is on-chip with "
           "a constant shape, B only)";
  }

  /// Rows [0, Rows) of the new f32 buffer \p Dst, Cols elements each, from
  /// the bf16 elements at Src(r, c) (contiguous in c) by cpu.widen_bf16 of
  /// 16 lanes (the last of a row of fewer); with \p Pairs, Src(r, c) are
  /// the pairs of Src's row r, split into rows 2r and 2r + 1 of Dst.
  void widenRows(Stmts &Out, BufferValue *Dst, int64_t Rows, int64_t Cols, bool Pairs,
                 const ElementFn &Src) {
    constexpr int64_t L = kDotLanes;
    int64_t Whole = Cols / L, Rest = Cols % L;
    Out.push_back(loop(LoopKind::Serial, "r", Rows, [&](Value *R) {
      auto Row = [&] {
        return Pairs ? ex::mul(ex::ref(R), ex::intLit(2)) : ex::ref(R);
      };
      auto Op = [&](ExprPtr Col, int64_t Lanes) {
        AttributeList A;
        A.set("lanes", Attribute::getInt(Lanes));
        if (Pairs)
          A.set("pairs", Attribute::getBool(true));
        std::vector<Element> Elems;
        Elems.push_back(Src(ex::ref(R), Col->clone()));
        Elems.insert(Elems.begin(), Element(Dst, idx(Row(), std::move(Col))));
        return cpuOpWith(Widen, std::move(A), std::move(Elems));
      };
      Stmts S;
      // Up to 4 vectors a row unrolled, more in a loop.
      if (Whole > 4)
        S.push_back(loop(LoopKind::Serial, "c", Whole, [&](Value *C) {
          Stmts In;
          In.push_back(Op(ex::mul(ex::ref(C), ex::intLit(L)), L));
          return In;
        }));
      else
        for (int64_t C = 0; C != Whole; ++C)
          S.push_back(Op(ex::intLit(C * L), L));
      if (Rest)
        S.push_back(Op(ex::intLit(Whole * L), Rest));
      return S;
    }));
  }

  /// gemm of bf16 A and B into f32 C on vdpbf16ps: B packed as pairs of
  /// K steps, Bp[kp, 2j + e] = B[2kp + e, j], N padded with zeros to whole
  /// vectors and an odd K with a zero step; A read in place as pairs
  /// unless it is transposed, strided or of odd K (then packed the same
  /// way). Micro-kernels as in the f32 path, with one cpu.dpbf16ps per
  /// 16 columns of a row per pair of K steps.
  Stmts lowerBF16Dot(const MatrixRef &A, const MatrixRef &B, const MatrixRef &C,
                     int64_t M, int64_t N, int64_t K, bool Clear,
                     llvm::ArrayRef<NextTile> Next) {
    Stmts Out;
    int64_t Kp = (K + 1) / 2, Npad = (N + kDotLanes - 1) / kDotLanes * kDotLanes;
    BufferValue *Bp = packPairsOfB(Out, B, N, K, Npad);

    // A's pairs: (buffer, indices of A[i, 2kp]).
    std::function<Element(ExprPtr, ExprPtr)> PairA;
    if (A.Transposed || !A.hasUnitColumnStride() || K % 2) {
      BufferValue *Ap;
      Out.push_back(allocLocal("Ap", DType::BF16, {M, 2 * Kp}, Ap));
      Out.push_back(parallel2("i", M, "k", K, [&](Value *I, Value *Kv) {
        Stmts S;
        S.push_back(store(Ap, idx(ex::ref(I), ex::ref(Kv)), A.load(ex::ref(I), ex::ref(Kv))));
        return S;
      }));
      if (K % 2)
        Out.push_back(loop(LoopKind::Parallel, "i", M, [&](Value *I) {
          Stmts S;
          S.push_back(store(Ap, idx(ex::ref(I), ex::intLit(K)), ex::zero(DType::BF16)));
          return S;
        }));
      PairA = [Ap](ExprPtr I, ExprPtr P) {
        return std::make_pair(Ap, idx(std::move(I), ex::mul(std::move(P), ex::intLit(2))));
      };
    } else {
      PairA = [&A](ExprPtr I, ExprPtr P) {
        return std::make_pair(A.Buf, A.index(std::move(I), ex::mul(std::move(P), ex::intLit(2))));
      };
    }

    Blocking Bl = chooseBlocking(M, N, DType::F32);
    int64_t MR = Bl.MR, NR = (Bl.NR + kDotLanes - 1) / kDotLanes * kDotLanes;
    int64_t RowBlocks = (M + MR - 1) / MR, ColBlocks = (N + NR - 1) / NR;
    PrefetchPlan Plan(Next, RowBlocks * ColBlocks, Vec.CacheLineBytes, Prefetch,
                      kPrefetchLocality);
    auto Tile = [&](Stmts &S, IdxFn BlockRow, IdxFn Row0, IdxFn BlockCol, IdxFn Col0,
                    int64_t TM, int64_t TN) {
      ExprPtr Slot = ex::add(ex::mul(BlockCol(), ex::intLit(RowBlocks)), BlockRow());
      append(S, Plan.prefetches(*Slot));
      append(S, dotKernel(C, PairA, Bp, Row0, Col0, TM, TN, Kp, Clear));
    };
    forEachTile(Out, M, N, MR, NR, Tile);
    return Out;
  }

  /// One TM x TN block of C at (Row0, Col0) on cpu.dpbf16ps, accumulated
  /// over the Kp pairs of K steps in a local buffer whose columns are
  /// padded to whole vectors (the padding starts at zero and is dropped).
  Stmts dotKernel(const MatrixRef &C,
                  const std::function<Element(ExprPtr, ExprPtr)> &PairA,
                  BufferValue *Bp, const IdxFn &Row0, const IdxFn &Col0, int64_t TM,
                  int64_t TN, int64_t Kp, bool Clear) {
    Stmts Out;
    int64_t Groups = (TN + kDotLanes - 1) / kDotLanes, TNpad = Groups * kDotLanes;
    BufferValue *AccBuf;
    Out.push_back(allocLocal("acc", DType::F32, {TM, TNpad}, AccBuf));
    auto CIndex = [&](const IdxFn &I, const IdxFn &J) {
      return C.index(ex::add(Row0(), I()), ex::add(Col0(), J()));
    };
    append(Out, unroll2("ii", TM, "jj", TN, [&](IdxFn I, IdxFn J) {
      Stmts S;
      S.push_back(store(AccBuf, idx(I(), J()),
                        Clear ? ex::zero(DType::F32) : ex::load(C.Buf, CIndex(I, J))));
      return S;
    }));
    if (TNpad > TN)
      append(Out, unroll2("ii", TM, "jj", TNpad - TN, [&](IdxFn I, IdxFn J) {
        Stmts S;
        S.push_back(store(AccBuf, idx(I(), ex::add(J(), ex::intLit(TN))),
                          ex::zero(DType::F32)));
        return S;
      }));
    Out.push_back(loop(LoopKind::Serial, "kp", Kp, [&](Value *P) {
      return unroll2("jg", Groups, "ii", TM, [&](IdxFn G, IdxFn I) {
        auto Col = [&] { return ex::mul(G(), ex::intLit(kDotLanes)); };
        Stmts S;
        S.push_back(cpuOp(
            Dot, Element(AccBuf, idx(I(), Col())), PairA(ex::add(Row0(), I()), ex::ref(P)),
            Element(Bp, idx(ex::ref(P), ex::mul(ex::add(Col0(), Col()), ex::intLit(2))))));
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
  const OpInfo *Prefetch;
  int64_t Distance;
  const OpInfo *Dot, *Transpose, *Fma, *CopyLanes, *Widen;
  std::string BF16Dot;
  RemarkEmitter Remarks;
  /// The gemms whose scalar micro-kernels have been remarked on.
  std::set<const OpStmt *> Remarked;
};

class LowerGemmPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    // Without a target (tile-opt alone) the defaults describe AVX2.
    CPUVectorInfo Vec;
    int64_t MR = getIntOption("mr"), NR = getIntOption("nr");
    int64_t Distance = getIntOption("prefetch-distance");
    if (Distance < 0) {
      S.Diag.error(llvm::SMLoc(), "cpu-lower-gemm: prefetch-distance must be at least "
                                  "0 (0: no prefetches), got " + std::to_string(Distance));
      return false;
    }
    const OpRegistry &Ops = M.getContext().getOpRegistry();
    const OpInfo *Prefetch = Ops.lookup("cpu.prefetch");
    if (Distance > 0 && !Prefetch) {
      S.Diag.error(llvm::SMLoc(), "cpu-lower-gemm: the cpu dialect is not registered; "
                                  "register the CPU backend's dialects first, or set "
                                  "prefetch-distance=0");
      return false;
    }
    if (S.Backend) {
      llvm::Expected<CPUVectorInfo> Info = getCPUVectorInfo(S.Backend->getTarget());
      if (!Info) {
        S.Diag.error(llvm::SMLoc(), "cpu-lower-gemm: " +
                                        llvm::toString(Info.takeError()));
        return false;
      }
      Vec = *Info;
    }
    // cpu.dpbf16ps written by hand needs what the lowering would check.
    bool OK = true;
    if (!Vec.HasBF16Dot)
      for (const auto &F : M.getFunctions())
        walkStmts(F->getBodyMutable(), [&](Stmt &St) {
          auto *Op = dyn_cast<OpStmt>(&St);
          if (!Op || Op->getName() != "cpu.dpbf16ps")
            return;
          S.Diag.error(Op->getLoc(), "'cpu.dpbf16ps' needs AVX512-BF16 (vdpbf16ps), "
                                     "which the target's CPU lacks; compile for a CPU "
                                     "that has it (-mcpu), or write a gemm");
          OK = false;
        });
    if (!OK)
      return false;
    for (const auto &F : M.getFunctions()) {
      std::vector<KernelStmt *> Kernels;
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          Kernels.push_back(K);
      });
      GemmLowering L(*F, MR, NR, Prefetch, Distance, Ops.lookup("cpu.dpbf16ps"),
                     Ops.lookup("cpu.transpose_pairs"), Ops.lookup("cpu.fma"),
                     Ops.lookup("cpu.copy_lanes"), Ops.lookup("cpu.widen_bf16"),
                     getStringOption("bf16-dot", *F), getRemarks(M));
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
