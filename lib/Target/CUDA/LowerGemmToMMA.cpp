//===- LowerGemmToMMA.cpp - cuda-lower-gemm-mma ---------------------------===//
//
// Tensor-core gemm for NVIDIA GPUs from sm_80, before tile-lower-pipelined,
// tile-lower-tile-ops and tile-lower-to-simt.
//
// Gemm. C = A x B (M x N x K) with whole f16/bf16 shared A and B and a
// whole f32 accumulator fragment is split over the block's W warps as a
// WarpsM x WarpsN grid of WM x WN sub-tiles (the most square split whose
// sides are multiples of 16). A thread's share of its warp's sub-tile is
// the mma.sync m16n8k16 accumulator layout (MMALayout.h) of each 16x8
// instruction tile, (WM/16) * (WN/8) * 4 floats in a per-thread `local`
// array that replaces the fragment. Per 16-wide K step a thread loads its
// A operands with ldmatrix.x4 and its B operands with ldmatrix.x4(.trans),
// then runs one cuda.mma_sync per instruction tile. Every loop over
// registers is an `unroll` loop, so after LLVM's full unrolling every index
// of the register arrays is a constant and SROA keeps them in registers.
// Clears, fills and whole copies out of the accumulator become per-thread
// code in the same layout; a copy to global memory is guarded at the
// tensor's edges and stores two adjacent elements at once (cuda.store_pair)
// where the row and column offsets are even.
//
// Pipeline. A `pipelined(lo, hi, stages = S)` loop whose body copies global
// tiles into whole shared buffers that only its gemms read becomes a
// multi-stage software pipeline: each such buffer gets a leading stage
// dimension of S, its 16-byte chunks XOR-swizzled by row (chunk c of row r
// is stored at c ^ ((r / G) % X), with G rows per 128 bytes and X chunks
// swizzled) so that the eight rows an ldmatrix phase reads and the chunks
// a warp's cp.async writes fall in distinct banks. The prologue issues
// stages 0..S-2; iteration j waits until its stage has landed
// (cp.async.wait_group S-2), synchronises the block, issues the copies of
// iteration j+S-1 into the stage iteration j-1 used, and computes on stage
// j % S. Copies are 16-byte cp.async with the source size clamped at the
// tensor's edge (the rest zero-filled); when a source row is not 16-byte
// aligned (its row length or column offset not a multiple of 8 elements)
// the chunk is copied with guarded element loads instead (and
// cuda.cp_async itself copies synchronously from a misaligned address).
//
// What this pass cannot take (other dtypes, shapes, uses) is left as it
// is for the generic passes; `remarks` says why.
//
//===----------------------------------------------------------------------===//

#include "CUDAMatrixLayouts.h"
#include "MMALayout.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
#include "tile/Transforms/StmtBuilder.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace tile;
using namespace tile::cuda;
using llvm::cast;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "CUDAPasses.inc"

namespace {

/// A gemm this pass lowers.
struct GemmPlan {
  OpStmt *Op = nullptr;
  BufferValue *A = nullptr, *B = nullptr, *C = nullptr;
  bool TA = false, TB = false, Clear = false;
  int64_t M = 0, N = 0, K = 0;
  /// Warp grid columns, and the warp's sub-tile.
  int64_t WarpsN = 1, WM = 0, WN = 0;
  int64_t tilesM() const { return WM / MmaM; }
  int64_t tilesN() const { return WN / MmaN; }
  int64_t accPerThread() const { return tilesM() * tilesN() * CPerThread; }
};

/// A pipelined loop this pass turns into a cp.async software pipeline.
struct LoopPlan {
  int64_t Stages = 0;
  std::vector<OpStmt *> Copies, Gemms;
};

/// How a staged shared buffer's 16-byte chunks are swizzled: chunk c of
/// row r is stored at c ^ ((r / Group) % Mask). Mask 0: not swizzled.
struct Swizzle {
  int64_t Group = 1, Mask = 0;
};

constexpr int64_t MaxAccPerThread = 128;

bool isB16(DType T) { return T == DType::F16 || T == DType::BF16; }

std::string str(int64_t V) { return std::to_string(V); }

class MMALowering : public StmtBuilder {
public:
  MMALowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
              RemarkEmitter Remarks, int64_t MaxShared)
      : StmtBuilder(F, Ops), K(K), Remarks(Remarks),
        MaxShared(MaxShared), Threads(*K.getThreads()->getConstInt()) {}

  void run() {
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op || Op->getName() != "gemm")
        return;
      std::string Why;
      if (std::optional<GemmPlan> P = plan(*Op, Why))
        Plans[Op] = *P;
      else
        Remarks.missed(Op->getLoc(), "gemm not lowered to mma.sync: " + Why);
    });
    if (Plans.empty())
      return;
    findRegisterAccumulators();
    if (Plans.empty())
      return;
    collectBufferUses();
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *F = dyn_cast<ForStmt>(&S);
      if (!F || F->getLoopKind() != LoopKind::Pipelined)
        return;
      std::string Why;
      if (std::optional<LoopPlan> L = planLoop(*F, Why))
        Loops[F] = *L;
      else
        Remarks.missed(F->getLoc(),
                       "pipelined loop not turned into a cp.async pipeline: " +
                           Why);
    });
    for (auto &[Op, P] : Plans)
      Remarks.passed(Op->getLoc(),
                     "gemm " + str(P.M) + "x" + str(P.N) + "x" + str(P.K) +
                         " lowered to mma.sync m16n8k16: " +
                         str(Threads / WarpSize / P.WarpsN) + "x" +
                         str(P.WarpsN) + " warps of " + str(P.WM) + "x" +
                         str(P.WN));
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    rewriteBlock(K.getBodyMutable(), /*IsKernelBody=*/true);
  }

private:
  //===--- Planning -------------------------------------------------------===//

  /// The constant shape of a whole rank-2 buffer region.
  static std::optional<std::pair<int64_t, int64_t>> matrixShape(const Region &R) {
    if (!R.isWholeBuffer() || R.Buf->getRank() != 2)
      return std::nullopt;
    std::optional<std::vector<int64_t>> S = R.Buf->getConstShape();
    if (!S)
      return std::nullopt;
    return std::make_pair((*S)[0], (*S)[1]);
  }

  std::optional<GemmPlan> plan(OpStmt &Op, std::string &Why) {
    GemmPlan P;
    P.Op = &Op;
    const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
                 &C = Op.getOperand("c").R;
    P.A = A.Buf;
    P.B = B.Buf;
    P.C = C.Buf;
    P.TA = Op.getAttrOrDefault("transpose_a").getBool();
    P.TB = Op.getAttrOrDefault("transpose_b").getBool();
    P.Clear = Op.getAttrOrDefault("clear_accum").getBool();
    DType TA = P.A->getDType(), TB = P.B->getDType(), TC = P.C->getDType();
    if (TA != TB || !isB16(TA) || TC != DType::F32) {
      Why = "mma.sync takes f16 or bf16 A and B with an f32 accumulator, not " +
            getDTypeName(TA).str() + " x " + getDTypeName(TB).str() + " -> " +
            getDTypeName(TC).str();
      return std::nullopt;
    }
    for (const Region *R : {&A, &B})
      if (R->Buf->getScope() != MemScope::Shared || !matrixShape(*R)) {
        Why = "operand %" + R->Buf->getName().str() +
              " is not a whole rank-2 shared buffer";
        return std::nullopt;
      }
    if (C.Buf->getScope() != MemScope::Fragment || !matrixShape(C)) {
      Why = "accumulator %" + C.Buf->getName().str() +
            " is not a whole rank-2 fragment";
      return std::nullopt;
    }
    auto SA = *matrixShape(A), SB = *matrixShape(B), SC = *matrixShape(C);
    P.M = SC.first;
    P.N = SC.second;
    P.K = P.TA ? SA.first : SA.second;
    for (auto [Name, S] : {std::make_pair("A", SA), std::make_pair("B", SB)})
      if (S.second % ChunkElems != 0) {
        Why = std::string(Name) + "'s rows of " + str(S.second) +
              " elements are not 16-byte aligned for ldmatrix";
        return std::nullopt;
      }
    if (P.K % MmaK != 0) {
      Why = "K = " + str(P.K) + " is not a multiple of 16";
      return std::nullopt;
    }
    if (Threads % WarpSize != 0) {
      Why = "the kernel's " + str(Threads) + " threads are not whole warps";
      return std::nullopt;
    }
    // The most square warp grid with sides that are multiples of 16 (B's
    // ldmatrix.x4.trans covers two 8-wide instruction tiles).
    int64_t Warps = Threads / WarpSize;
    std::optional<MMAWarpGrid> G = chooseMMAWarpGrid(P.M, P.N, Warps);
    if (G) {
      P.WarpsN = G->WarpsN;
      P.WM = G->WM;
      P.WN = G->WN;
    }
    if (!G) {
      Why = "[" + str(P.M) + ", " + str(P.N) + "] does not split over " +
            str(Warps) + " warps in multiples of 16";
      return std::nullopt;
    }
    if (P.accPerThread() > MaxAccPerThread) {
      Why = "each thread would hold " + str(P.accPerThread()) +
            " accumulators, more than " + str(MaxAccPerThread);
      return std::nullopt;
    }
    return P;
  }

  /// Keeps the plans whose accumulator can live in registers: used only by
  /// whole clears and fills, planned gemms of one warp grid and whole
  /// copies out.
  void findRegisterAccumulators() {
    llvm::DenseSet<BufferValue *> Rejected;
    llvm::DenseMap<BufferValue *, const GemmPlan *> Cands;
    for (auto &[Op, P] : Plans) {
      auto It = Cands.find(P.C);
      if (It != Cands.end() &&
          (It->second->WM != P.WM || It->second->WN != P.WN))
        Rejected.insert(P.C);
      Cands.insert({P.C, &P});
    }
    llvm::DenseSet<const OpStmt *> Lowered;
    for (auto &Entry : Plans)
      Lowered.insert(Entry.first);
    AccumulatorUses Uses =
        classifyAccumulatorUses(K, Lowered, /*Epilogues=*/true);
    for (const BufferValue *B : Uses.Rejected)
      Rejected.insert(const_cast<BufferValue *>(B));
    CopyDims = std::move(Uses.CopyDims);
    // An accumulator with epilogues needs its layout as a linear map.
    for (auto &[F, Acc] : Uses.Epilogues) {
      auto It = Cands.find(const_cast<BufferValue *>(Acc));
      if (It == Cands.end() || Rejected.count(It->first))
        continue;
      const GemmPlan &P = *It->second;
      std::optional<LinearLayout> L = getMMAAccumulatorLayout(
          MMAWarpGrid{Threads / WarpSize / P.WarpsN, P.WarpsN, P.WM, P.WN});
      if (!L) {
        Remarks.missed(F->getLoc(),
                       "epilogue over %" + Acc->getName() +
                           " not run on the mma.sync registers: its warp "
                           "grid is not made of powers of two");
        Rejected.insert(It->first);
        continue;
      }
      Layouts.try_emplace(Acc, std::move(*L));
      Epilogues[F] = Acc;
    }
    for (auto &[C, P] : Cands)
      if (!Rejected.count(C)) {
        InRegisters[C] = *P;
        Original[C] = {P->M, P->N};
      }
    // Companions (a cast copy of the result) share their accumulator's
    // registers' layout.
    for (auto &[X, Acc] : Uses.Companions) {
      auto It = InRegisters.find(const_cast<BufferValue *>(Acc));
      if (It == InRegisters.end())
        continue;
      GemmPlan P = It->second;
      InRegisters[const_cast<BufferValue *>(X)] = P;
      Original[const_cast<BufferValue *>(X)] = {P.M, P.N};
    }
    for (auto It = Epilogues.begin(); It != Epilogues.end();) {
      if (InRegisters.count(const_cast<BufferValue *>(It->second))) {
        Remarks.passed(It->first->getLoc(),
                       "epilogue runs on the mma.sync accumulator registers "
                       "of %" + It->second->getName());
        ++It;
      } else {
        Epilogues.erase(It++);
      }
    }
    Plans.remove_if([&](const std::pair<OpStmt *, GemmPlan> &P) {
      if (InRegisters.count(P.second.C))
        return false;
      Remarks.missed(P.first->getLoc(),
             "gemm not lowered to mma.sync: accumulator %" +
                 P.second.C->getName().str() +
                 " has uses other than clear, fill, mma gemms of one warp "
                 "layout and whole copies out, so it cannot live in registers");
      return true;
    });
  }

  /// Every op operand of each buffer, and the buffers read or written
  /// elsewhere (expressions, stores).
  void collectBufferUses() {
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      forEachExprSlot(S, [&](ExprPtr &E) {
        forEachUse(*E, [&](const Value *V) {
          if (auto *B = dyn_cast<BufferValue>(const_cast<Value *>(V)))
            OtherUses.insert(B);
        });
      });
      if (auto *St = dyn_cast<StoreStmt>(&S))
        OtherUses.insert(St->getBuffer());
      if (auto *Op = dyn_cast<OpStmt>(&S))
        for (unsigned I = 0; I != Op->getOperands().size(); ++I)
          if (Op->getOperand(I).Kind == OperandKind::Region)
            OpUses[Op->getOperand(I).R.Buf].push_back(
                {Op, Op->getInfo().Operands[I].Name});
      if (auto *A = dyn_cast<AllocStmt>(&S))
        if (A->getBuffer()->getScope() == MemScope::Shared)
          if (auto Shape = A->getBuffer()->getConstShape()) {
            int64_t N = getDTypeBits(A->getBuffer()->getDType()) / 8;
            for (int64_t D : *Shape)
              N *= D;
            SharedBytes[A->getBuffer()] = N;
          }
    });
  }

  std::optional<LoopPlan> planLoop(ForStmt &F, std::string &Why) {
    LoopPlan L;
    const Attribute *St = F.getAttrs().get("stages");
    L.Stages = St ? St->getInt() : 1;
    if (L.Stages < 2) {
      Why = "it has " + str(L.Stages) + " stage(s); a pipeline needs 2 or more";
      return std::nullopt;
    }
    if (L.Stages > 8) {
      Why = "cp.async.wait_group keeps at most 7 groups in flight, so at most "
            "8 stages, not " + str(L.Stages);
      return std::nullopt;
    }
    if (F.getDims().size() != 1 || F.getStep()) {
      Why = "it is not a one-dimensional loop with step 1";
      return std::nullopt;
    }
    llvm::DenseSet<BufferValue *> Staged;
    for (const StmtPtr &S : F.getBody().Stmts) {
      auto *Op = dyn_cast<OpStmt>(S.get());
      if (Op && Op->getName() == "copy" && L.Gemms.empty()) {
        if (!planCopy(*Op, Why))
          return std::nullopt;
        BufferValue *Dst = Op->getOperand("dst").R.Buf;
        if (!Staged.insert(Dst).second) {
          Why = "%" + Dst->getName().str() + " is copied into twice";
          return std::nullopt;
        }
        L.Copies.push_back(Op);
        continue;
      }
      if (Op && Plans.count(Op)) {
        const GemmPlan &P = Plans[Op];
        for (BufferValue *X : {P.A, P.B})
          if (!Staged.count(X)) {
            Why = "gemm operand %" + X->getName().str() +
                  " is not copied in by the loop before it";
            return std::nullopt;
          }
        L.Gemms.push_back(Op);
        continue;
      }
      Why = "its body is not copies into shared memory followed by mma gemms";
      return std::nullopt;
    }
    if (L.Gemms.empty()) {
      Why = "it has no mma gemm";
      return std::nullopt;
    }
    // The staged buffers are this loop's alone.
    llvm::DenseSet<OpStmt *> Mine(L.Copies.begin(), L.Copies.end());
    Mine.insert(L.Gemms.begin(), L.Gemms.end());
    int64_t StagedBytes = 0;
    for (BufferValue *X : Staged) {
      bool Alone = !OtherUses.count(X) && SharedBytes.count(X);
      for (auto &[Op, Name] : OpUses[X])
        Alone &= Mine.count(Op) && (Name == "dst" || Name == "a" || Name == "b");
      if (!Alone) {
        Why = "%" + X->getName().str() + " is used outside the loop's copies "
              "and gemms";
        return std::nullopt;
      }
      StagedBytes += SharedBytes[X];
    }
    int64_t Total = StagedBytes * L.Stages;
    for (auto &[X, Bytes] : SharedBytes)
      if (!Staged.count(X))
        Total += StagedSize.count(X) ? StagedSize[X] : Bytes;
    if (Total > MaxShared) {
      Why = "its " + str(L.Stages) + " stages need " + str(Total) +
            " bytes of shared memory, more than " + str(MaxShared);
      return std::nullopt;
    }
    for (BufferValue *X : Staged) {
      StagedSize[X] = SharedBytes[X] * L.Stages;
      Stages[X] = L.Stages;
    }
    return L;
  }

  /// `copy %G[.., r, c] -> %S`: a 2-D global tile (of a tensor of rank 2
  /// or more, the leading dimensions single points, as a batch index) into a
  /// whole b16 shared buffer of the same shape.
  bool planCopy(OpStmt &Op, std::string &Why) {
    const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
    auto Shape = matrixShape(Dst);
    if (Dst.Buf->getScope() != MemScope::Shared || !Shape) {
      Why = "copy destination %" + Dst.Buf->getName().str() +
            " is not a whole rank-2 shared buffer";
      return false;
    }
    if (Src.Buf->getScope() != MemScope::Global || Src.Buf->getRank() < 2 ||
        Src.isWholeBuffer() || !Src.Buf->getStrides().empty()) {
      Why = "copy source %" + Src.Buf->getName().str() +
            " is not a region of a dense global buffer of rank 2 or more";
      return false;
    }
    if (Src.Buf->getDType() != Dst.Buf->getDType() || !isB16(Dst.Buf->getDType())) {
      Why = "copy into %" + Dst.Buf->getName().str() +
            " is not between f16 or bf16 buffers of one dtype";
      return false;
    }
    std::vector<const Expr *> Ext = getRegionExtentExprs(Src, &Dst);
    size_t R = Src.Buf->getRank();
    bool Points = Ext.size() == R;
    for (size_t I = 0; Points && I + 2 < R; ++I)
      Points = !Ext[I] || ex::isConst(*Ext[I], 1);
    if (!Points || !Ext[R - 2] || !Ext[R - 1] ||
        !ex::isConst(*Ext[R - 2], Shape->first) || !ex::isConst(*Ext[R - 1], Shape->second)) {
      Why = "copy source region's extents are not %" + Dst.Buf->getName().str() +
            "'s shape";
      return false;
    }
    if (Shape->second % ChunkElems != 0) {
      Why = "%" + Dst.Buf->getName().str() + "'s rows are not whole 16-byte chunks";
      return false;
    }
    return true;
  }

  //===--- IR building ----------------------------------------------------===//


  static ExprPtr select(ExprPtr C, ExprPtr A, ExprPtr B) {
    std::vector<ExprPtr> Args;
    Args.push_back(std::move(C));
    Args.push_back(std::move(A));
    Args.push_back(std::move(B));
    return ex::call(Intrinsic::Select, std::move(Args));
  }
  static ExprPtr minMax(Intrinsic Fn, ExprPtr A, ExprPtr B) {
    std::vector<ExprPtr> Args;
    Args.push_back(std::move(A));
    Args.push_back(std::move(B));
    return ex::call(Fn, std::move(Args));
  }
  static std::vector<ExprPtr> idx(ExprPtr A) {
    std::vector<ExprPtr> V;
    V.push_back(std::move(A));
    return V;
  }
  static std::vector<ExprPtr> idx(ExprPtr A, ExprPtr B) {
    std::vector<ExprPtr> V;
    V.push_back(std::move(A));
    V.push_back(std::move(B));
    return V;
  }










  static OpOperand regionOf(BufferValue *Buf, std::vector<ExprPtr> Offsets,
                            int64_t Extent = 0) {
    OpOperand O;
    O.Kind = OperandKind::Region;
    O.R.Buf = Buf;
    for (unsigned I = 0; I != Offsets.size(); ++I) {
      RegionIndex RI;
      RI.Offset = std::move(Offsets[I]);
      if (Extent && I + 1 == Offsets.size())
        RI.Extent = lit(Extent);
      O.R.Indices.push_back(std::move(RI));
    }
    return O;
  }

  static OpOperand exprOf(ExprPtr E) {
    OpOperand O;
    O.Kind = OperandKind::Expr;
    O.E = std::move(E);
    return O;
  }

  /// `if %tx < T { Body }`: code every thread runs as written.
  StmtPtr perThread(Stmts Body) {
    return ifThen(ex::lt(ref(Tid), lit(Threads)), std::move(Body));
  }

  /// Indices of shared buffer \p Buf for row \p Row and column \p Col (a
  /// multiple of 8) of its matrix: the stage first when it is staged, and
  /// the chunk swizzled.
  std::vector<ExprPtr> smemIndex(BufferValue *Buf, const Value *Stage,
                                 ExprPtr Row, ExprPtr Col) {
    std::vector<ExprPtr> I;
    if (Stages.count(Buf)) {
      assert(Stage && "a staged buffer is read at a stage");
      I.push_back(ref(const_cast<Value *>(Stage)));
    }
    auto It = Swizzles.find(Buf);
    if (It != Swizzles.end() && It->second.Mask) {
      ExprPtr Key = rem(div(Row->clone(), It->second.Group), It->second.Mask);
      Col = mul(ex::binary(BinaryOp::Xor, div(std::move(Col), ChunkElems),
                           std::move(Key)),
                ChunkElems);
    }
    I.push_back(std::move(Row));
    I.push_back(std::move(Col));
    return I;
  }

  //===--- Gemm -----------------------------------------------------------===//

  /// The thread's lane and warp coordinates, as lets in \p Out.
  struct WarpCoords {
    Value *Lane, *WarpM, *WarpN;
  };

  WarpCoords warpCoords(Stmts &Out, const GemmPlan &P) {
    WarpCoords W;
    W.Lane = let(Out, "lane", rem(ref(Tid), WarpSize));
    Value *Warp = let(Out, "warp", div(ref(Tid), WarpSize));
    W.WarpM = let(Out, "warp_m", div(ref(Warp), P.WarpsN));
    W.WarpN = let(Out, "warp_n", rem(ref(Warp), P.WarpsN));
    return W;
  }

  /// ldmatrix.x4 of the 16x16 block at (R0, C0) of \p Buf into \p Dst at
  /// \p DstOff. RowsFirst: matrices 1 and 3 are the lower rows (A stored
  /// [M, K], B stored [K, N]); otherwise the right columns.
  StmtPtr ldmatrix(BufferValue *Buf, const Value *Stage, ExprPtr R0, ExprPtr C0,
                   bool RowsFirst, bool Trans, Value *Lane, BufferValue *Dst,
                   ExprPtr DstOff) {
    ExprPtr Quarter = div(ref(Lane), 8);
    ExprPtr RowBit = RowsFirst ? rem(Quarter->clone(), 2) : div(Quarter->clone(), 2);
    ExprPtr ColBit = RowsFirst ? div(std::move(Quarter), 2) : rem(std::move(Quarter), 2);
    ExprPtr Row = add(add(std::move(R0), rem(ref(Lane), 8)), mul(std::move(RowBit), 8));
    ExprPtr Col = add(std::move(C0), mul(std::move(ColBit), 8));
    std::vector<OpOperand> Opnds;
    Opnds.push_back(regionOf(Buf, smemIndex(Buf, Stage, std::move(Row), std::move(Col))));
    Opnds.push_back(regionOf(Dst, idx(std::move(DstOff)), 8));
    AttributeList Attrs;
    Attrs.set("num", Attribute::getIdent("x4"));
    if (Trans)
      Attrs.set("trans", Attribute::getBool(true));
    return op("cuda.ldmatrix", std::move(Opnds), std::move(Attrs));
  }

  /// The per-thread code of one gemm; A and B read at \p Stage when staged.
  Stmts computeGemm(const GemmPlan &P, const Value *Stage) {
    Stmts Out;
    WarpCoords W = warpCoords(Out, P);
    DType OpTy = P.A->getDType();
    int64_t TM = P.tilesM(), TN = P.tilesN();
    BufferValue *AF, *BF, *Acc = P.C;
    Out.push_back(allocLocal("a_frag", OpTy, TM * APerThread, AF));
    Out.push_back(allocLocal("b_frag", OpTy, TN * BPerThread, BF));
    if (P.Clear)
      Out.push_back(unroll("e", P.accPerThread(), [&](Value *E) {
        Stmts L;
        L.push_back(std::make_unique<StoreStmt>(Acc, idx(ref(E)), ex::zero(DType::F32)));
        return L;
      }));
    auto WarpRow0 = [&] { return mul(ref(W.WarpM), P.WM); };
    auto WarpCol0 = [&] { return mul(ref(W.WarpN), P.WN); };
    Out.push_back(unroll("kk", P.K / MmaK, [&](Value *KK) {
      Stmts L;
      L.push_back(unroll("mi", TM, [&](Value *MI) {
        Stmts X;
        ExprPtr M0 = add(WarpRow0(), mul(ref(MI), MmaM)), K0 = mul(ref(KK), MmaK);
        // A stored [M, K]: plain quarters; stored [K, M]: transposed.
        X.push_back(P.TA ? ldmatrix(P.A, Stage, std::move(K0), std::move(M0), false,
                                    true, W.Lane, AF, mul(ref(MI), APerThread))
                         : ldmatrix(P.A, Stage, std::move(M0), std::move(K0), true,
                                    false, W.Lane, AF, mul(ref(MI), APerThread)));
        return X;
      }));
      L.push_back(unroll("nj", TN / 2, [&](Value *NJ) {
        Stmts X;
        ExprPtr N0 = add(WarpCol0(), mul(ref(NJ), 16)), K0 = mul(ref(KK), MmaK);
        // B stored [K, N]: transposed quarters; stored [N, K]: plain.
        X.push_back(P.TB ? ldmatrix(P.B, Stage, std::move(N0), std::move(K0), false,
                                    false, W.Lane, BF, mul(ref(NJ), 2 * BPerThread))
                         : ldmatrix(P.B, Stage, std::move(K0), std::move(N0), true,
                                    true, W.Lane, BF, mul(ref(NJ), 2 * BPerThread)));
        return X;
      }));
      L.push_back(unroll("mi", TM, [&](Value *MI) {
        Stmts X;
        X.push_back(unroll("ni", TN, [&](Value *NI) {
          Stmts Y;
          std::vector<OpOperand> Opnds;
          Opnds.push_back(regionOf(AF, idx(mul(ref(MI), APerThread)), APerThread));
          Opnds.push_back(regionOf(BF, idx(mul(ref(NI), BPerThread)), BPerThread));
          Opnds.push_back(regionOf(
              Acc, idx(mul(add(mul(ref(MI), TN), ref(NI)), CPerThread)), CPerThread));
          Y.push_back(op("cuda.mma_sync", std::move(Opnds), AttributeList(),
                         P.Op->getLoc()));
          return Y;
        }));
        return X;
      }));
      return L;
    }));
    return Out;
  }

  //===--- Pipeline -------------------------------------------------------===//

  /// \p E with every use of \p From replaced by \p To.
  static ExprPtr substitute(const Expr &E, const Value *From, Value *To) {
    ExprPtr C = E.clone();
    rewriteExpr(C, [&](ExprPtr X) {
      if (auto *R = dyn_cast<RefExpr>(X.get()))
        if (R->getValue() == From)
          R->setValue(To);
      return X;
    });
    return C;
  }

  /// The copies of iteration \p Iter (the original loop variable's value)
  /// into stage \p Stage, as per-thread code.
  Stmts issueCopies(const LoopPlan &L, const Value *LoopVar, Value *Iter,
                    Value *Stage) {
    Stmts Out;
    for (OpStmt *Copy : L.Copies) {
      const Region &Src = Copy->getOperand("src").R;
      BufferValue *G = Src.Buf, *S = Copy->getOperand("dst").R.Buf;
      // The shape after the stage dimension was added.
      std::vector<int64_t> Shape = *S->getConstShape();
      int64_t Rows = Shape[Shape.size() - 2], Cols = Shape.back();
      int64_t PerRow = Cols / ChunkElems, Chunks = Rows * PerRow;
      int64_t ESize = getDTypeBits(S->getDType()) / 8;
      // Leading dimensions (a batch) are points: fixed indices, tested
      // against the tensor's extent with the row.
      size_t Rank = G->getRank();
      std::vector<Value *> Lead;
      for (size_t D = 0; D + 2 < Rank; ++D)
        Lead.push_back(
            let(Out, "src_lead", substitute(*Src.Indices[D].Offset, LoopVar, Iter)));
      Value *R0 =
          let(Out, "src_row", substitute(*Src.Indices[Rank - 2].Offset, LoopVar, Iter));
      Value *C0 =
          let(Out, "src_col", substitute(*Src.Indices[Rank - 1].Offset, LoopVar, Iter));
      const Expr &NRows = *G->getShape()[Rank - 2], &NCols = *G->getShape()[Rank - 1];
      // The tensor's index of (row, col), leading indices first (zero
      // where \p Some is false).
      auto GIdx = [&](ExprPtr Row, ExprPtr Col, const Expr *Some) {
        std::vector<ExprPtr> V;
        for (Value *L : Lead)
          V.push_back(Some ? select(Some->clone(), ref(L), lit(0)) : ref(L));
        V.push_back(std::move(Row));
        V.push_back(std::move(Col));
        return V;
      };
      // 16-byte cp.async needs 16-byte aligned source chunks.
      Value *Vec = let(Out, "aligned",
                       ex::land(ex::binary(BinaryOp::Eq, rem(NCols.clone(), ChunkElems), lit(0)),
                                ex::binary(BinaryOp::Eq, rem(ref(C0), ChunkElems), lit(0))));
      int64_t PerThread = (Chunks + Threads - 1) / Threads;
      // One loop over the thread's chunks per path, chosen once per copy.
      auto Chunks_ = [&](bool Vector) {
        return unroll("i", PerThread, [&](Value *I) {
          Stmts X;
          Value *Q = let(X, "chunk", add(ref(Tid), mul(ref(I), Threads)));
          Stmts Body;
          Value *Row = let(Body, "row", div(ref(Q), PerRow));
          Value *Col = let(Body, "col", mul(rem(ref(Q), PerRow), ChunkElems));
          Value *GR = let(Body, "grow", add(ref(R0), ref(Row)));
          Value *GC = let(Body, "gcol", add(ref(C0), ref(Col)));
          auto At = [&](ExprPtr E) {
            std::vector<ExprPtr> I = smemIndex(S, Stage, ref(Row), ref(Col));
            if (E)
              I.back() = add(std::move(I.back()), std::move(E));
            return I;
          };
          ExprPtr RowIn =
              ex::land(ex::ge(ref(GR), lit(0)), ex::lt(ref(GR), NRows.clone()));
          for (size_t D = 0; D != Lead.size(); ++D)
            RowIn = ex::land(ex::land(ex::ge(ref(Lead[D]), lit(0)),
                                      ex::lt(ref(Lead[D]), G->getShape()[D]->clone())),
                             std::move(RowIn));
          if (Vector) {
            // The chunk's bytes that lie inside the tensor.
            Value *Bytes = let(
                Body, "bytes",
                select(ex::land(std::move(RowIn), ex::ge(ref(GC), lit(0))),
                       minMax(Intrinsic::Max,
                              minMax(Intrinsic::Min,
                                     mul(ex::sub(NCols.clone(), ref(GC)), ESize),
                                     lit(ChunkBytes)),
                              lit(0)),
                       lit(0)));
            // Nothing is read when no byte is: point at the tensor's start.
            ExprPtr Some = ex::binary(BinaryOp::Gt, ref(Bytes), lit(0));
            std::vector<OpOperand> Opnds;
            Opnds.push_back(regionOf(G, GIdx(select(Some->clone(), ref(GR), lit(0)),
                                             select(Some->clone(), ref(GC), lit(0)),
                                             Some.get())));
            Opnds.push_back(regionOf(S, At(nullptr)));
            Opnds.push_back(exprOf(ref(Bytes)));
            Body.push_back(op("cuda.cp_async", std::move(Opnds), AttributeList(),
                              Copy->getLoc()));
          } else {
            Body.push_back(unroll("e", ChunkElems, [&](Value *EV) {
              Stmts Y;
              ExprPtr C = add(ref(GC), ref(EV));
              ExprPtr In = ex::land(RowIn->clone(),
                                    ex::land(ex::ge(C->clone(), lit(0)),
                                             ex::lt(C->clone(), NCols.clone())));
              Stmts T, F;
              T.push_back(std::make_unique<StoreStmt>(
                  S, At(ref(EV)), ex::load(G, GIdx(ref(GR), std::move(C), nullptr))));
              F.push_back(std::make_unique<StoreStmt>(S, At(ref(EV)),
                                                      ex::zero(S->getDType())));
              Y.push_back(ifElse(std::move(In), std::move(T), std::move(F)));
              return Y;
            }));
          }
          if (Chunks % Threads == 0) {
            for (StmtPtr &B : Body)
              X.push_back(std::move(B));
          } else {
            X.push_back(ifThen(ex::lt(ref(Q), lit(Chunks)), std::move(Body)));
          }
          return X;
        });
      };
      Stmts V, E;
      V.push_back(Chunks_(true));
      E.push_back(Chunks_(false));
      Out.push_back(ifElse(ref(Vec), std::move(V), std::move(E)));
    }
    return Out;
  }

  StmtPtr commit() { return op("cuda.cp_async_commit", {}); }

  StmtPtr waitGroups(int64_t Pending) {
    AttributeList A;
    A.set("pending", Attribute::getInt(Pending));
    return op("cuda.cp_async_wait", {}, std::move(A));
  }

  /// The software pipeline replacing pipelined loop \p F.
  Stmts lowerLoop(ForStmt &F, const LoopPlan &L) {
    Stmts Out;
    const LoopDim &D = F.getDims()[0];
    const Value *LV = D.Var.get();
    std::string VarName = LV->getName().str();
    int64_t S = L.Stages;
    ExprPtr Lo = D.Lo ? D.Lo->clone() : lit(0);
    Value *LoV = let(Out, "lo", Lo->clone());
    Value *Count = let(Out, "iters", ex::sub(D.Hi->clone(), ref(LoV)));
    // Prologue: stages 0 .. S-2.
    Out.push_back(loop(LoopKind::Serial, "s", lit(S - 1), [&](Value *SV) {
      Stmts B, T, Issue;
      Value *Iter = let(Issue, VarName, add(ref(LoV), ref(SV)));
      for (StmtPtr &X : issueCopies(L, LV, Iter, SV))
        Issue.push_back(std::move(X));
      T.push_back(ifThen(ex::lt(ref(SV), ref(Count)), std::move(Issue)));
      T.push_back(commit());
      B.push_back(perThread(std::move(T)));
      return B;
    }));
    Out.push_back(loop(LoopKind::Serial, "j", ref(Count), [&](Value *J) {
      Stmts B;
      Stmts W;
      W.push_back(waitGroups(S - 2));
      B.push_back(perThread(std::move(W)));
      // Stage j % S has landed for every thread, and every thread is done
      // with stage (j - 1) % S, which the copies below overwrite.
      B.push_back(barrier());
      Stmts T;
      Value *Ahead = let(T, "ahead", add(ref(J), S - 1));
      Stmts Issue;
      Value *Iter = let(Issue, VarName, add(ref(LoV), ref(Ahead)));
      Value *NextStage = let(Issue, "next_stage", rem(ref(Ahead), S));
      for (StmtPtr &X : issueCopies(L, LV, Iter, NextStage))
        Issue.push_back(std::move(X));
      T.push_back(ifThen(ex::lt(ref(Ahead), ref(Count)), std::move(Issue)));
      T.push_back(commit());
      Value *Stage = let(T, "stage", rem(ref(J), S));
      for (OpStmt *G : L.Gemms)
        for (StmtPtr &X : computeGemm(Plans[G], Stage))
          T.push_back(std::move(X));
      B.push_back(perThread(std::move(T)));
      return B;
    }));
    // The groups committed last are empty; nothing is left in flight.
    Stmts W;
    W.push_back(waitGroups(0));
    Out.push_back(perThread(std::move(W)));
    return Out;
  }

  //===--- Accumulator clears and copies out -------------------------------===//

  Stmts lowerFill(const OpStmt &Op, BufferValue *C) {
    ExprPtr V = Op.getName() == "fill"
                    ? ex::castTo(Op.getOperand("value").E->clone(), C->getDType())
                    : ex::zero(C->getDType());
    Stmts Body;
    Body.push_back(unroll("e", InRegisters[C].accPerThread(), [&](Value *E) {
      Stmts L;
      L.push_back(std::make_unique<StoreStmt>(C, idx(ref(E)), V->clone()));
      return L;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// `copy %C -> X` from a register accumulator: each thread stores its
  /// elements, guarded when X is global, in pairs where they are aligned.
  Stmts lowerCopyOut(const OpStmt &Op, BufferValue *C) {
    const GemmPlan &P = InRegisters[C];
    const Region &Dst = Op.getOperand("dst").R;
    std::pair<unsigned, unsigned> Dims = CopyDims.lookup(&Op);
    unsigned RowDim = Dims.first, ColDim = Dims.second;
    bool Global = Dst.Buf->getScope() == MemScope::Global;
    unsigned Rank = Dst.Buf->getRank();
    bool Pairs = isFloat(Dst.Buf->getDType()) && ColDim == Rank - 1 &&
                 Dst.Buf->getStrides().empty() &&
                 (Global || Dst.Buf->getScope() == MemScope::Shared);
    auto Offset = [&](unsigned D) {
      return Dst.isWholeBuffer() ? lit(0) : Dst.Indices[D].Offset->clone();
    };
    Stmts Body;
    WarpCoords W = warpCoords(Body, P);
    Value *PairOK = nullptr;
    if (Pairs) {
      // Even column offset and row length: every pair is 2-element aligned.
      ExprPtr Even = ex::land(
          ex::binary(BinaryOp::Eq, rem(Offset(ColDim), 2), lit(0)),
          ex::binary(BinaryOp::Eq, rem(Dst.Buf->getShape()[ColDim]->clone(), 2),
                     lit(0)));
      PairOK = let(Body, "pair_ok", std::move(Even));
    }
    int64_t TN = P.tilesN();
    Body.push_back(unroll("mi", P.tilesM(), [&](Value *MI) {
      Stmts X;
      X.push_back(unroll("ni", TN, [&](Value *NI) {
        Stmts Y;
        Y.push_back(unroll("h", 2, [&](Value *H) {
          Stmts Z;
          Value *Row = let(Z, "row",
                           add(add(mul(ref(W.WarpM), P.WM), mul(ref(MI), MmaM)),
                               add(div(ref(W.Lane), 4), mul(ref(H), 8))));
          Value *Col = let(Z, "col",
                           add(add(mul(ref(W.WarpN), P.WN), mul(ref(NI), MmaN)),
                               mul(rem(ref(W.Lane), 4), 2)));
          Value *E = let(Z, "e", add(mul(add(mul(ref(MI), TN), ref(NI)), CPerThread),
                                     mul(ref(H), 2)));
          // The destination index of element (Row, Col + Dc), and whether
          // it is inside X.
          auto Index = [&](int64_t Dc, ExprPtr *InRange) {
            std::vector<ExprPtr> I;
            for (unsigned D = 0; D != Rank; ++D) {
              ExprPtr V = Offset(D);
              if (D == RowDim)
                V = add(std::move(V), ref(Row));
              else if (D == ColDim)
                V = add(add(std::move(V), ref(Col)), Dc);
              if (Global && InRange) {
                *InRange = ex::land(std::move(*InRange), ex::ge(V->clone(), lit(0)));
                *InRange = ex::land(std::move(*InRange),
                                    ex::lt(V->clone(), Dst.Buf->getShape()[D]->clone()));
              }
              I.push_back(std::move(V));
            }
            return I;
          };
          auto Scalar = [&](int64_t Dc) {
            Stmts St;
            ExprPtr In;
            std::vector<ExprPtr> I = Index(Dc, &In);
            St.push_back(std::make_unique<StoreStmt>(
                Dst.Buf, std::move(I),
                ex::castTo(ex::load(C, idx(add(ref(E), Dc))), Dst.Buf->getDType())));
            if (!In)
              return St;
            Stmts G;
            G.push_back(ifThen(std::move(In), std::move(St)));
            return G;
          };
          Stmts Two;
          for (int64_t Dc : {0, 1})
            for (StmtPtr &S : Scalar(Dc))
              Two.push_back(std::move(S));
          if (!Pairs) {
            for (StmtPtr &S : Two)
              Z.push_back(std::move(S));
            return Z;
          }
          ExprPtr In;
          std::vector<ExprPtr> I0 = Index(0, &In);
          ExprPtr In1;
          Index(1, &In1);
          ExprPtr Cond = ref(PairOK);
          if (In)
            Cond = ex::land(ex::land(std::move(Cond), std::move(In)), std::move(In1));
          std::vector<OpOperand> Opnds;
          Opnds.push_back(regionOf(C, idx(ref(E)), 2));
          Opnds.push_back(regionOf(Dst.Buf, std::move(I0)));
          Stmts Pair;
          Pair.push_back(op("cuda.store_pair", std::move(Opnds), AttributeList(),
                            Op.getLoc()));
          Z.push_back(ifElse(std::move(Cond), std::move(Pair), std::move(Two)));
          return Z;
        }));
        return Y;
      }));
      return X;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  //===--- Rewriting ------------------------------------------------------===//

  static bool usesValue(Stmt &S, const Value *V) {
    bool Found = false;
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *U) { Found |= U == V; });
    });
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, [&](Stmt &X) {
        forEachExprSlot(X, [&](ExprPtr &E) {
          forEachUse(*E, [&](const Value *U) { Found |= U == V; });
        });
      });
    return Found;
  }


  void rewriteBlock(Block &B, bool IsKernelBody) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      if (auto *F = dyn_cast<ForStmt>(S.get()); F && Epilogues.count(F)) {
        llvm::DenseSet<const BufferValue *> Regs;
        for (auto &[X, P] : InRegisters)
          Regs.insert(X);
        Out.push_back(perThread(lowerEpilogue(
            *F, Layouts.find(Epilogues[F])->second, Tid, WarpSize, Regs,
            Names)));
        continue;
      }
      if (auto *F = dyn_cast<ForStmt>(S.get())) {
        auto It = Loops.find(F);
        if (It != Loops.end()) {
          for (StmtPtr &X : lowerLoop(*F, It->second))
            Out.push_back(std::move(X));
          continue;
        }
      }
      for (Block *N : getNestedBlocks(*S))
        rewriteBlock(*N, false);
      Stmts Lowered;
      bool Gemm = false;
      if (auto *Op = dyn_cast<OpStmt>(S.get())) {
        auto It = Plans.find(Op);
        if (It != Plans.end()) {
          Lowered.push_back(perThread(computeGemm(It->second, nullptr)));
          Gemm = true;
        } else if ((Op->getName() == "clear" || Op->getName() == "fill") &&
                   InRegisters.count(Op->getOperand("dst").R.Buf)) {
          Lowered = lowerFill(*Op, Op->getOperand("dst").R.Buf);
        } else if (Op->getName() == "copy" &&
                   InRegisters.count(Op->getOperand("src").R.Buf)) {
          Lowered = lowerCopyOut(*Op, Op->getOperand("src").R.Buf);
        }
      } else if (auto *A = dyn_cast<AllocStmt>(S.get())) {
        BufferValue *X = A->getBuffer();
        if (auto It = InRegisters.find(X); It != InRegisters.end()) {
          // The fragment becomes the threads' registers.
          X->setScope(MemScope::Local);
          X->getShapeMutable().clear();
          X->getShapeMutable().push_back(lit(It->second.accPerThread()));
        } else if (auto St = Stages.find(X); St != Stages.end()) {
          std::vector<int64_t> Shape = *X->getConstShape();
          X->getShapeMutable().insert(X->getShapeMutable().begin(), lit(St->second));
          int64_t PerRow = Shape[1] / ChunkElems;
          Swizzle Sw;
          if (PerRow >= 2 && (PerRow & (PerRow - 1)) == 0) {
            Sw.Group = std::max<int64_t>(1, 8 / PerRow);
            Sw.Mask = std::min<int64_t>(PerRow, 8);
          }
          Swizzles[X] = Sw;
        }
      }
      if (Lowered.empty()) {
        Out.push_back(std::move(S));
        continue;
      }
      if (Gemm) {
        // Shared memory written by a block-level statement before is
        // complete (tile-lower-to-simt puts a barrier after it); per-thread
        // code before gives no such promise.
        bool Prev = !Out.empty();
        bool Covered = Prev ? (isBarrier(*Out.back()) || !usesValue(*Out.back(), Tid))
                            : IsKernelBody;
        if (!Covered)
          Out.push_back(barrier());
      }
      for (StmtPtr &L : Lowered)
        Out.push_back(std::move(L));
      // Other threads may overwrite what this one still reads.
      if (Gemm)
        Out.push_back(barrier());
    }
    B.Stmts = std::move(Out);
  }

  KernelStmt &K;
  RemarkEmitter Remarks;
  int64_t MaxShared;
  int64_t Threads;
  Value *Tid = nullptr;
  llvm::MapVector<OpStmt *, GemmPlan> Plans;
  llvm::DenseMap<BufferValue *, GemmPlan> InRegisters;
  llvm::DenseMap<BufferValue *, std::pair<int64_t, int64_t>> Original;
  /// Epilogue loops run on the registers, with their accumulator, and the
  /// accumulators' layouts.
  llvm::DenseMap<const ForStmt *, const BufferValue *> Epilogues;
  llvm::DenseMap<const BufferValue *, LinearLayout> Layouts;
  llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>> CopyDims;
  llvm::DenseMap<ForStmt *, LoopPlan> Loops;
  llvm::DenseSet<BufferValue *> OtherUses;
  llvm::DenseMap<BufferValue *, std::vector<std::pair<OpStmt *, llvm::StringRef>>> OpUses;
  llvm::MapVector<BufferValue *, int64_t> SharedBytes;
  llvm::DenseMap<BufferValue *, int64_t> StagedSize, Stages;
  llvm::DenseMap<BufferValue *, Swizzle> Swizzles;
};

class LowerGemmToMMAPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          MMALowering(*F, *K, M.getContext().getOpRegistry(), getRemarks(M),
                      getIntOption("max-shared"))
              .run();
      });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerGemmToMMAPass() {
  return std::make_unique<LowerGemmToMMAPass>(getLowerGemmToMMAPassInfo());
}
