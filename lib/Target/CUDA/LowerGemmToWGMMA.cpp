//===- LowerGemmToWGMMA.cpp - hopper-lower-gemm-wgmma ---------------------===//
//
// Turns the canonical GEMM main loop into per-thread Hopper code before the
// shared SIMT passes run:
//
//   %As = alloc shared f16[BM, BK]            (rings of `stages` swizzled
//   %Bs = alloc shared f16[BK, BN]             tiles, first in the kernel)
//   %Cf = alloc fragment f32[BM, BN]          (a local array per thread)
//   clear %Cf                                 (every thread zeroes its part)
//   for %k in pipelined(lo, hi, stages = S) {
//     copy %A[.., %k * BK] -> %As             (cuda.ldgsts prologue and
//     copy %B[%k * BK, ..] -> %Bs              one tile ahead per iteration)
//     gemm %As, %Bs -> %Cf                    (cuda.wgmma_mma per warpgroup)
//   }
//   copy %Cf -> %C[..]                        (guarded per-thread stores)
//
// WGMMALayout.h gives the layouts. Warpgroup g of the block's T/128 takes
// the 64-row slices g*MT .. g*MT + MT - 1 of C (MT = BM / 64 / (T/128)).
// Anything the pass does not take is left untouched for the SIMT path,
// which stays correct for every gemm.
//
//===----------------------------------------------------------------------===//

#include "WGMMALayout.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
#include "tile/Transforms/StmtBuilder.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using namespace tile::hopper;
using llvm::cast;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "CUDAPasses.inc"

namespace {

/// A and B: the shared tile, the copy that fills it, its stored layout.
struct OperandPlan {
  BufferValue *Tile = nullptr;
  OpStmt *Copy = nullptr;
  /// Stored shape [Rows, Contig]; MN-major when Contig is M or N.
  int64_t Rows = 0, Contig = 0;
  bool MNMajor = false;
  int64_t Swizzle = 0;
  /// Bytes per ring stage (a multiple of StageAlign).
  int64_t StageBytes = 0;
};

struct GemmPlan {
  OpStmt *Op = nullptr;
  ForStmt *Loop = nullptr;
  OperandPlan A, B;
  BufferValue *C = nullptr;
  DType Ty = DType::F16;
  int64_t BM = 0, BN = 0, BK = 0, Stages = 2;
  /// 64-row slices per warpgroup, N per instruction, instructions along N.
  int64_t MT = 0, NInst = 0, NI = 0;
};

/// The constant extents of a rank-2 buffer.
std::optional<std::pair<int64_t, int64_t>> shape2(const BufferValue &B) {
  std::optional<std::vector<int64_t>> S = B.getConstShape();
  if (!S || S->size() != 2)
    return std::nullopt;
  return std::make_pair((*S)[0], (*S)[1]);
}

class WGMMALowering : public StmtBuilder {
public:
  WGMMALowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
                DiagnosticEngine &Diag, bool Remarks)
      : StmtBuilder(F, Ops), F(F), K(K), Diag(Diag), Remarks(Remarks) {}

  bool run() {
    std::optional<int64_t> T = K.getThreads()->getConstInt();
    Threads = T.value_or(0);
    collectFacts(K.getBodyMutable(), nullptr);
    bool OK = true;
    for (auto &[Op, Loop] : Candidates) {
      std::string Why;
      std::optional<GemmPlan> P = plan(*Op, Loop, Why);
      if (P) {
        Plans.push_back(*P);
        continue;
      }
      if (Op->getName() == "cuda.wgmma") {
        Diag.error(Op->getLoc(), "'cuda.wgmma' cannot be lowered: " + Why);
        OK = false;
      } else if (Remarks) {
        Diag.note(Op->getLoc(), "hopper-lower-gemm-wgmma: gemm left to the "
                                "SIMT path: " + Why);
      }
    }
    if (!OK || Plans.empty())
      return OK;
    if (!Ops.lookup("cuda.wgmma_mma")) {
      Diag.error(K.getLoc(), "hopper-lower-gemm-wgmma needs the cuda dialect, "
                             "which is not registered");
      return false;
    }
    if (!checkAccumulators())
      return false;
    if (Plans.empty())
      return true;
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    for (GemmPlan &P : Plans) {
      ByLoop[P.Loop] = &P;
      AccOf[P.C] = &P;
    }
    rewriteBlock(K.getBodyMutable());
    placeRings();
    return true;
  }

private:

  //===--- Facts ----------------------------------------------------------===//

  /// Gemms with the loop directly around them; lets for the divisibility
  /// checks.
  void collectFacts(Block &B, ForStmt *Loop) {
    for (StmtPtr &S : B.Stmts) {
      if (auto *L = dyn_cast<LetStmt>(S.get()))
        LetInit[L->getVar()] = L->getInit();
      if (auto *F = dyn_cast<ForStmt>(S.get())) {
        collectFacts(F->getBodyMutable(), F);
        continue;
      }
      if (auto *Op = dyn_cast<OpStmt>(S.get()))
        if (Op->getName() == "gemm" || Op->getName() == "cuda.wgmma")
          Candidates.push_back({Op, Loop});
      for (Block *N : getNestedBlocks(*S))
        collectFacts(*N, nullptr);
    }
  }

  /// Whether \p E is provably a multiple of \p D.
  bool multipleOf(const Expr &E, int64_t D, int Depth = 0) const {
    if (Depth > 32)
      return false;
    if (auto C = E.getConstInt())
      return *C % D == 0;
    if (const auto *R = dyn_cast<RefExpr>(&E)) {
      auto It = LetInit.find(R->getValue());
      return It != LetInit.end() && multipleOf(*It->second, D, Depth + 1);
    }
    if (const auto *Bi = dyn_cast<BinaryExpr>(&E)) {
      if (Bi->getOp() == BinaryOp::Add || Bi->getOp() == BinaryOp::Sub)
        return multipleOf(*Bi->getLHS(), D, Depth + 1) &&
               multipleOf(*Bi->getRHS(), D, Depth + 1);
      if (Bi->getOp() == BinaryOp::Mul)
        return multipleOf(*Bi->getLHS(), D, Depth + 1) ||
               multipleOf(*Bi->getRHS(), D, Depth + 1);
    }
    return false;
  }

  /// Region operands and expression uses of \p B in the kernel, the alloc
  /// excluded.
  unsigned countUses(const BufferValue *B) {
    unsigned N = 0;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      forEachExprSlot(S, [&](ExprPtr &E) {
        forEachUse(*E, [&](const Value *V) { N += V == B; });
      });
      if (auto *St = dyn_cast<StoreStmt>(&S))
        N += St->getBuffer() == B;
      if (auto *Op = dyn_cast<OpStmt>(&S))
        for (const OpOperand &O : Op->getOperands())
          N += O.Kind == OperandKind::Region && O.R.Buf == B;
    });
    return N;
  }

  AllocStmt *topLevelAlloc(const BufferValue *B) {
    for (StmtPtr &S : K.getBodyMutable().Stmts)
      if (auto *A = dyn_cast<AllocStmt>(S.get()); A && A->getBuffer() == B)
        return A;
    return nullptr;
  }

  //===--- Planning -------------------------------------------------------===//

  /// The copy from global memory filling \p Tile in the loop body, checked.
  OpStmt *findCopy(ForStmt &L, const BufferValue *Tile, std::string &Why) {
    OpStmt *Found = nullptr;
    for (StmtPtr &S : L.getBodyMutable().Stmts) {
      auto *Op = dyn_cast<OpStmt>(S.get());
      if (Op && Op->getName() == "copy" &&
          Op->getOperand("dst").R.Buf == Tile)
        Found = Op;
    }
    if (!Found) {
      Why = "no copy from global memory fills %" + Tile->getName().str() +
            " in the K loop";
      return nullptr;
    }
    const Region &Src = Found->getOperand("src").R;
    const Region &Dst = Found->getOperand("dst").R;
    if (!Dst.isWholeBuffer()) {
      Why = "the copy into %" + Tile->getName().str() + " fills part of it";
      return nullptr;
    }
    if (Src.Buf->getScope() != MemScope::Global || Src.Buf->getRank() != 2 ||
        !Src.Buf->getStrides().empty() || Src.Buf->getDType() != Tile->getDType()) {
      Why = "%" + Tile->getName().str() +
            " is not copied from a contiguous rank-2 global tensor of its dtype";
      return nullptr;
    }
    auto S2 = shape2(*Tile);
    for (unsigned D = 0; D != Src.Indices.size(); ++D)
      if (const Expr *Ext = Src.Indices[D].Extent.get()) {
        int64_t Want = D == 0 ? S2->first : S2->second;
        if (!ex::isConst(*Ext, Want)) {
          Why = "the copy into %" + Tile->getName().str() +
                " names extents other than the tile's";
          return nullptr;
        }
      }
    if (!Src.isWholeBuffer()) {
      const Expr &Col = *Src.Indices[1].Offset;
      int64_t Elems = ChunkBytes / (getDTypeBits(Tile->getDType()) / 8);
      if (!multipleOf(Col, Elems)) {
        Why = "the column offset of the copy into %" + Tile->getName().str() +
              " is not provably a multiple of " +
              std::to_string(Elems) + " (16-byte copies)";
        return nullptr;
      }
    }
    return Found;
  }

  bool planOperand(OperandPlan &O, BufferValue *Tile, bool MNMajor,
                   ForStmt &L, std::string &Why) {
    O.Tile = Tile;
    O.MNMajor = MNMajor;
    auto S2 = shape2(*Tile);
    O.Rows = S2->first;
    O.Contig = S2->second;
    int64_t E = getDTypeBits(Tile->getDType()) / 8;
    O.Swizzle = swizzleWidthFor(O.Contig * E);
    if (!O.Swizzle) {
      Why = "rows of %" + Tile->getName().str() + " (" +
            std::to_string(O.Contig * E) +
            " bytes) fit no wgmma swizzle (32, 64 or a multiple of 128 bytes)";
      return false;
    }
    if (O.Rows % 8 != 0) {
      Why = "%" + Tile->getName().str() + " has " + std::to_string(O.Rows) +
            " rows, not a multiple of 8";
      return false;
    }
    int64_t Bytes = O.Rows * O.Contig * E;
    O.StageBytes = (Bytes + StageAlign - 1) / StageAlign * StageAlign;
    if (!topLevelAlloc(Tile)) {
      Why = "%" + Tile->getName().str() + " is not allocated at the kernel's top level";
      return false;
    }
    if (countUses(Tile) != 2) {
      Why = "%" + Tile->getName().str() +
            " is used by more than the copy filling it and the gemm";
      return false;
    }
    O.Copy = findCopy(L, Tile, Why);
    return O.Copy != nullptr;
  }

  std::optional<GemmPlan> plan(OpStmt &Op, ForStmt *L, std::string &Why) {
    GemmPlan P;
    P.Op = &Op;
    const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
                 &C = Op.getOperand("c").R;
    bool TA = Op.getAttrOrDefault("transpose_a").getBool();
    bool TB = Op.getAttrOrDefault("transpose_b").getBool();
    DType DA = A.Buf->getDType(), DB = B.Buf->getDType(), DC = C.Buf->getDType();
    if (!((DA == DType::F16 && DB == DType::F16) ||
          (DA == DType::BF16 && DB == DType::BF16)) ||
        DC != DType::F32) {
      Why = "wgmma here takes f16 or bf16 A and B with an f32 accumulator, not " +
            getDTypeName(DA).str() + " x " + getDTypeName(DB).str() + " -> " +
            getDTypeName(DC).str();
      return std::nullopt;
    }
    P.Ty = DA;
    if (A.Buf->getScope() != MemScope::Shared || B.Buf->getScope() != MemScope::Shared ||
        !A.isWholeBuffer() || !B.isWholeBuffer()) {
      Why = "A and B must be whole shared buffers";
      return std::nullopt;
    }
    if (C.Buf->getScope() != MemScope::Fragment || !C.isWholeBuffer()) {
      Why = "the accumulator must be a whole fragment";
      return std::nullopt;
    }
    auto SA = shape2(*A.Buf), SB = shape2(*B.Buf), SC = shape2(*C.Buf);
    if (!SA || !SB || !SC) {
      Why = "A, B and C must be rank-2 buffers of constant shape";
      return std::nullopt;
    }
    P.BM = SC->first;
    P.BN = SC->second;
    P.BK = TA ? SA->first : SA->second;
    int64_t AM = TA ? SA->second : SA->first;
    int64_t BK2 = TB ? SB->second : SB->first, BN2 = TB ? SB->first : SB->second;
    if (AM != P.BM || BK2 != P.BK || BN2 != P.BN) {
      Why = "the shapes of A, B and C do not agree";
      return std::nullopt;
    }
    if (Op.getAttrOrDefault("clear_accum").getBool()) {
      Why = "clear_accum inside a K loop is not taken";
      return std::nullopt;
    }
    if (Threads <= 0 || Threads % WarpgroupSize != 0) {
      Why = "the kernel's " + std::to_string(Threads) +
            " threads are not whole warpgroups of 128";
      return std::nullopt;
    }
    int64_t WG = Threads / WarpgroupSize;
    if (P.BM % (InstM * WG) != 0) {
      Why = "M = " + std::to_string(P.BM) + " is not a multiple of 64 rows per "
            "warpgroup (" + std::to_string(WG) + " warpgroups)";
      return std::nullopt;
    }
    P.MT = P.BM / InstM / WG;
    if (P.BK % InstK != 0) {
      Why = "K = " + std::to_string(P.BK) + " is not a multiple of 16";
      return std::nullopt;
    }
    P.NInst = P.BN <= 256 ? P.BN : 256;
    if (P.BN % 8 != 0 || P.BN % P.NInst != 0) {
      Why = "N = " + std::to_string(P.BN) +
            " is neither a multiple of 8 up to 256 nor a multiple of 256";
      return std::nullopt;
    }
    P.NI = P.BN / P.NInst;
    if (!L || L->getDims().size() != 1 || L->getStep() ||
        (L->getLoopKind() != LoopKind::Pipelined &&
         L->getLoopKind() != LoopKind::Serial)) {
      Why = "the gemm is not directly in a serial or pipelined K loop";
      return std::nullopt;
    }
    const std::vector<StmtPtr> &Body = L->getBody().Stmts;
    if (Body.size() != 3 || Body.back().get() != &Op) {
      Why = "the K loop holds more than the two copies and the gemm (last)";
      return std::nullopt;
    }
    P.Loop = L;
    if (const Attribute *S = L->getAttrs().get("stages"))
      P.Stages = std::max<int64_t>(2, S->getInt());
    if (P.Stages > 8) {
      Why = "more than 8 stages";
      return std::nullopt;
    }
    if (A.Buf == B.Buf) {
      Why = "A and B are one buffer";
      return std::nullopt;
    }
    if (!planOperand(P.A, A.Buf, TA, *L, Why) ||
        !planOperand(P.B, B.Buf, !TB, *L, Why))
      return std::nullopt;
    // MN-major B: each instruction's N columns start at a swizzle block.
    int64_t E = getDTypeBits(P.Ty) / 8;
    if (P.B.MNMajor && (P.NInst * E) % P.B.Swizzle != 0) {
      Why = "N per instruction does not cover whole swizzle blocks of B";
      return std::nullopt;
    }
    P.C = C.Buf;
    return P;
  }

  /// Every accumulator must be used only by clear/fill, planned gemms and
  /// whole copies out; plans whose accumulator has other uses are dropped.
  bool checkAccumulators() {
    llvm::DenseSet<const OpStmt *> Planned;
    llvm::DenseSet<const BufferValue *> Accs, Bad;
    for (GemmPlan &P : Plans) {
      Planned.insert(P.Op);
      Accs.insert(P.C);
      if (!topLevelAlloc(P.C))
        Bad.insert(P.C);
    }
    AccumulatorUses Uses = classifyAccumulatorUses(K, Planned);
    for (const BufferValue *B : Uses.Rejected)
      if (Accs.count(B))
        Bad.insert(B);
    CopyDims = std::move(Uses.CopyDims);
    // Planned gemms sharing an accumulator must agree on its layout.
    llvm::DenseMap<const BufferValue *, const GemmPlan *> First;
    for (GemmPlan &P : Plans) {
      auto [It, New] = First.insert({P.C, &P});
      if (!New && (It->second->NInst != P.NInst || It->second->MT != P.MT))
        Bad.insert(P.C);
    }
    std::vector<GemmPlan> Kept;
    bool Error = false;
    for (GemmPlan &P : Plans) {
      if (!Bad.count(P.C)) {
        Kept.push_back(P);
        continue;
      }
      std::string Why = "the accumulator %" + P.C->getName().str() +
                        " has uses other than clear, fill, these gemms and "
                        "whole copies out";
      if (P.Op->getName() == "cuda.wgmma") {
        Diag.error(P.Op->getLoc(), "'cuda.wgmma' cannot be lowered: " + Why);
        Error = true;
      } else if (Remarks) {
        Diag.note(P.Op->getLoc(),
                  "hopper-lower-gemm-wgmma: gemm left to the SIMT path: " + Why);
      }
    }
    Plans = std::move(Kept);
    return !Error;
  }

  //===--- Building -------------------------------------------------------===//








  StmtPtr opPending(llvm::StringRef Name, int64_t Pending,
                    BufferValue *Acc = nullptr) {
    AttributeList Attrs;
    Attrs.set("pending", Attribute::getInt(Pending));
    std::vector<OpOperand> Operands;
    if (Acc)
      Operands.push_back(regionOperand(Acc, {}));
    return op(Name, std::move(Operands), std::move(Attrs));
  }

  static OpOperand regionOperand(BufferValue *B, std::vector<ExprPtr> Offsets,
                                 std::vector<int64_t> Extents = {}) {
    OpOperand O;
    O.Kind = OperandKind::Region;
    O.R.Buf = B;
    for (unsigned I = 0; I != Offsets.size(); ++I)
      O.R.Indices.push_back({std::move(Offsets[I]),
                             I < Extents.size() ? ex::intLit(Extents[I]) : nullptr});
    return O;
  }

  static OpOperand exprOperand(ExprPtr E) {
    OpOperand O;
    O.Kind = OperandKind::Expr;
    O.E = std::move(E);
    return O;
  }

  static ExprPtr call(Intrinsic Fn, ExprPtr A, ExprPtr B, ExprPtr C = nullptr) {
    std::vector<ExprPtr> Args;
    Args.push_back(std::move(A));
    Args.push_back(std::move(B));
    if (C)
      Args.push_back(std::move(C));
    return ex::call(Fn, std::move(Args));
  }
  /// `if %tx < T { Body }`: code every thread runs as written.
  StmtPtr perThread(Stmts Body) {
    return ifThen(ex::lt(ref(Tid), lit(Threads)), std::move(Body));
  }

  /// \p E with the K loop variable replaced by \p KVal.
  static ExprPtr substitute(const Expr &E, const Value *Var, const Expr &KVal) {
    ExprPtr R = E.clone();
    rewriteExpr(R, [&](ExprPtr X) -> ExprPtr {
      if (auto *Ref = dyn_cast<RefExpr>(X.get()); Ref && Ref->getValue() == Var)
        return KVal.clone();
      return X;
    });
    return R;
  }

  /// cuda.ldgsts of tile \p KVal of operand \p O into ring stage \p Stage:
  /// each thread copies chunks %tx, %tx + T, ... of the tile. Two versions,
  /// chosen once per tile for the whole block: when the tile lies wholly
  /// inside the tensor and its rows are whole chunks, each chunk is one
  /// `cuda.ldgsts {full}` at the tile's linear offset plus a per-thread
  /// offset that does not depend on K (hoisted out of the K loop by LLVM),
  /// with no bounds test; otherwise every chunk is clamped to the tensor.
  Stmts loadTile(const GemmPlan &P, const OperandPlan &O, const Expr &KVal,
                 const Expr &Stage) {
    const Value *KVar = P.Loop->getDims()[0].Var.get();
    const Region &Src = O.Copy->getOperand("src").R;
    BufferValue *G = Src.Buf;
    int64_t E = getDTypeBits(P.Ty) / 8, CE = ChunkBytes / E;
    int64_t PerRow = O.Contig / CE, Chunks = O.Rows * PerRow;
    int64_t PerThread = (Chunks + Threads - 1) / Threads;
    int64_t W = O.Swizzle, Mask = W / ChunkBytes - 1;
    const Expr &NRows = *G->getShape()[0], &NCols = *G->getShape()[1];
    Stmts Out;
    Value *R0 = let(Out, "g_row0",
                    Src.isWholeBuffer() ? lit(0)
                                        : substitute(*Src.Indices[0].Offset, KVar, KVal));
    Value *C0 = let(Out, "g_col0",
                    Src.isWholeBuffer() ? lit(0)
                                        : substitute(*Src.Indices[1].Offset, KVar, KVal));
    Value *Base = let(Out, "stage_base", mul(Stage.clone(), O.StageBytes / E));
    // The tile inside the tensor, rows of whole 16-byte chunks (the column
    // offset is a multiple of the chunk, checked when planning).
    ExprPtr Inside = ex::land(
        ex::land(ex::ge(ref(R0), lit(0)),
                 ex::le(add(ref(R0), lit(O.Rows)), NRows.clone())),
        ex::land(ex::ge(ref(C0), lit(0)),
                 ex::le(add(ref(C0), lit(O.Contig)), NCols.clone())));
    Value *Full = let(Out, "g_full",
                      ex::land(std::move(Inside),
                               ex::binary(BinaryOp::Eq, rem(NCols.clone(), CE), lit(0))));
    auto I64 = [](ExprPtr X) { return ex::castTo(std::move(X), DType::I64); };
    auto Chunk = [&](bool Fast, Value *TileOff) {
      return unroll("c", PerThread, [&](Value *C) {
        Stmts L;
        Value *Q = let(L, "q", add(ref(Tid), mul(ref(C), Threads)));
        Stmts In;
        Value *Row = let(In, "r", div(ref(Q), PerRow));
        Value *Col = let(In, "cc", mul(rem(ref(Q), PerRow), CE));
        // Byte offset in the stored layout, then the swizzle.
        Value *Lin = let(In, "lin",
                         add(add(mul(div(ref(Col), W / E), O.Rows * W), mul(ref(Row), W)),
                             mul(rem(ref(Col), W / E), E)));
        ExprPtr Xor = ex::binary(
            BinaryOp::Shl,
            ex::binary(BinaryOp::And, ex::binary(BinaryOp::Shr, ref(Lin), lit(7)),
                       lit(Mask)),
            lit(4));
        Value *Phys = let(In, "phys", ex::binary(BinaryOp::Xor, ref(Lin), std::move(Xor)));
        std::vector<ExprPtr> SrcIdx, DstIdx;
        ExprPtr Count;
        if (Fast) {
          // Row-major and contiguous (checked when planning): element
          // (R0 + r, C0 + cc) is at linear offset TileOff + r * cols + cc.
          SrcIdx.push_back(lit(0));
          SrcIdx.push_back(ex::add(
              ref(TileOff),
              ex::add(ex::mul(I64(ref(Row)), I64(NCols.clone())), I64(ref(Col)))));
          Count = lit(CE);
        } else {
          Value *GR = let(In, "gr", add(ref(R0), ref(Row)));
          Value *GC = let(In, "gc", add(ref(C0), ref(Col)));
          // The column offset is a multiple of the chunk: a chunk starting
          // at gc >= 0 is in range up to the row's end, one starting below
          // 0 is wholly outside.
          ExprPtr InRows = ex::land(
              ex::land(ex::ge(ref(GR), lit(0)), ex::lt(ref(GR), NRows.clone())),
              ex::ge(ref(GC), lit(0)));
          ExprPtr Left = ex::sub(NCols.clone(), ref(GC));
          Value *N = let(In, "n",
                         call(Intrinsic::Select, std::move(InRows),
                              call(Intrinsic::Max,
                                   call(Intrinsic::Min, std::move(Left), lit(CE)),
                                   lit(0)),
                              lit(0)));
          // Nothing is read for a count of 0; the address stays in the
          // tensor.
          auto Clamp = [&](Value *V) {
            return call(Intrinsic::Select, ex::binary(BinaryOp::Gt, ref(N), lit(0)),
                        ref(V), lit(0));
          };
          SrcIdx.push_back(Clamp(GR));
          SrcIdx.push_back(Clamp(GC));
          Count = ref(N);
        }
        DstIdx.push_back(add(ref(Base), div(ref(Phys), E)));
        std::vector<OpOperand> Operands;
        Operands.push_back(regionOperand(G, std::move(SrcIdx), {1, CE}));
        Operands.push_back(regionOperand(O.Tile, std::move(DstIdx), {CE}));
        Operands.push_back(exprOperand(std::move(Count)));
        AttributeList Attrs;
        if (Fast)
          Attrs.set("full", Attribute::getBool(true));
        In.push_back(op("cuda.ldgsts", std::move(Operands), std::move(Attrs),
                        O.Copy->getLoc()));
        if (Chunks % Threads == 0)
          for (StmtPtr &X : In)
            L.push_back(std::move(X));
        else
          L.push_back(ifThen(ex::lt(ref(Q), lit(Chunks)), std::move(In)));
        return L;
      });
    };
    Stmts FastPath;
    Value *TileOff = let(FastPath, "g_off",
                         ex::add(ex::mul(I64(ref(R0)), I64(NCols.clone())),
                                 I64(ref(C0))));
    FastPath.push_back(Chunk(true, TileOff));
    Stmts Clamped;
    Clamped.push_back(Chunk(false, nullptr));
    Out.push_back(std::make_unique<IfStmt>(ref(Full), block(std::move(FastPath)),
                                           block(std::move(Clamped))));
    return Out;
  }

  /// The loads of both operands for K tile `lo + J` into stage J % S.
  Stmts loadBoth(const GemmPlan &P, Value *J) {
    const LoopDim &D = P.Loop->getDims()[0];
    ExprPtr KVal = add(D.Lo->clone(), ref(J));
    ExprPtr Stage = rem(ref(J), P.Stages);
    Stmts Out = loadTile(P, P.A, *KVal, *Stage);
    for (StmtPtr &S : loadTile(P, P.B, *KVal, *Stage))
      Out.push_back(std::move(S));
    return Out;
  }

  Stmts lowerLoop(const GemmPlan &P) {
    const LoopDim &D = P.Loop->getDims()[0];
    int64_t E = getDTypeBits(P.Ty) / 8;
    // Block-level code (the loops, the barriers) with per-thread parts in
    // `if %tx < T`, so that the barriers are not under thread-dependent
    // control flow.
    Stmts Body;
    Value *KT = let(Body, "kt", ex::sub(D.Hi->clone(), D.Lo->clone()));
    // With 4 or more stages, each iteration leaves its wgmma group running
    // while the next iteration waits for its tile (wgmma_wait 1), and loads
    // run S - 2 tiles ahead; otherwise the group is waited for at once and
    // loads run S - 1 tiles ahead.
    // `pass.wgmma_groups_in_flight = 0` or `1` on the function overrides
    // the choice (with 1, at least 3 stages).
    bool Overlap = P.Stages >= 4;
    if (const Attribute *A = F.getAttrs().get("pass.wgmma_groups_in_flight"))
      if (A->getKind() == Attribute::Kind::Int)
        Overlap = A->getInt() == 1 && P.Stages >= 3;
    int64_t Ahead = Overlap ? P.Stages - 2 : P.Stages - 1;
    int64_t MmaPending = Overlap ? 1 : 0;
    // Prologue: tiles 0 .. Ahead-1, one commit group each (empty past the
    // end).
    Body.push_back(unroll("s", Ahead, [&](Value *S) {
      Stmts L;
      L.push_back(ifThen(ex::lt(ref(S), ref(KT)), loadBoth(P, S)));
      L.push_back(op("cuda.ldgsts_commit"));
      Stmts Out;
      Out.push_back(perThread(std::move(L)));
      return Out;
    }));
    Body.push_back(loop(LoopKind::Serial, "j", ref(KT), [&](Value *J) {
      Stmts Wait;
      Wait.push_back(opPending("cuda.ldgsts_wait", Ahead - 1));
      Wait.push_back(op("cuda.fence_proxy_async"));
      Stmts Iter;
      Iter.push_back(perThread(std::move(Wait)));
      Iter.push_back(op("barrier"));
      Stmts L;
      Value *WG = let(L, "wg", div(ref(Tid), WarpgroupSize));
      Value *Stage = let(L, "stage", rem(ref(J), P.Stages));
      std::vector<OpOperand> FenceAcc;
      FenceAcc.push_back(regionOperand(P.C, {}));
      L.push_back(op("cuda.wgmma_fence", std::move(FenceAcc)));
      L.push_back(unroll("kk", P.BK / InstK, [&](Value *KK) {
        Stmts KL;
        KL.push_back(unroll("mt", P.MT, [&](Value *MT) {
          Stmts ML;
          Value *Row0 = let(ML, "row0", mul(add(mul(ref(WG), P.MT), ref(MT)), InstM));
          ExprPtr AOff;
          int64_t WA = P.A.Swizzle, WB = P.B.Swizzle;
          if (!P.A.MNMajor)
            AOff = add(add(mul(div(mul(ref(KK), InstK * E), WA), P.A.Rows * WA),
                           mul(ref(Row0), WA)),
                       rem(mul(ref(KK), InstK * E), WA));
          else
            AOff = add(mul(div(mul(ref(Row0), E), WA), P.A.Rows * WA),
                       mul(ref(KK), InstK * WA));
          Value *AO = let(ML, "a_off", add(mul(ref(Stage), P.A.StageBytes),
                                           std::move(AOff)));
          ML.push_back(unroll("ni", P.NI, [&](Value *NI) {
            Stmts NL;
            ExprPtr N0 = mul(ref(NI), P.NInst);
            ExprPtr BOff;
            if (P.B.MNMajor)
              BOff = add(mul(div(mul(std::move(N0), E), WB), P.B.Rows * WB),
                         mul(ref(KK), InstK * WB));
            else
              BOff = add(add(mul(div(mul(ref(KK), InstK * E), WB), P.B.Rows * WB),
                             mul(std::move(N0), WB)),
                         rem(mul(ref(KK), InstK * E), WB));
            std::vector<OpOperand> Operands;
            Operands.push_back(regionOperand(P.A.Tile, {}));
            Operands.push_back(regionOperand(P.B.Tile, {}));
            std::vector<ExprPtr> AccOff;
            AccOff.push_back(
                mul(add(mul(ref(MT), P.NI), ref(NI)), P.NInst / 2));
            Operands.push_back(regionOperand(P.C, std::move(AccOff), {P.NInst / 2}));
            Operands.push_back(exprOperand(ref(AO)));
            Operands.push_back(exprOperand(
                add(mul(ref(Stage), P.B.StageBytes), std::move(BOff))));
            AttributeList Attrs;
            Attrs.set("n", Attribute::getInt(P.NInst));
            if (P.A.MNMajor)
              Attrs.set("mn_major_a", Attribute::getBool(true));
            if (P.B.MNMajor)
              Attrs.set("mn_major_b", Attribute::getBool(true));
            auto Fields = [&](const OperandPlan &O, const char *Sw,
                              const char *LBO, const char *SBO) {
              Attrs.set(Sw, Attribute::getInt(O.Swizzle));
              Attrs.set(LBO, Attribute::getInt(O.MNMajor ? O.Rows * O.Swizzle : 16));
              Attrs.set(SBO, Attribute::getInt(8 * O.Swizzle));
            };
            Fields(P.A, "swizzle_a", "lbo_a", "sbo_a");
            Fields(P.B, "swizzle_b", "lbo_b", "sbo_b");
            NL.push_back(op("cuda.wgmma_mma", std::move(Operands), std::move(Attrs),
                            P.Op->getLoc()));
            return NL;
          }));
          return ML;
        }));
        return KL;
      }));
      L.push_back(op("cuda.wgmma_commit"));
      // Tile j + Ahead goes to the stage of tile j + Ahead - S, whose wgmma
      // group every warpgroup waited for before the barrier above.
      Value *Next = let(L, "next", add(ref(J), lit(Ahead)));
      L.push_back(ifThen(ex::lt(ref(Next), ref(KT)), loadBoth(P, Next)));
      L.push_back(op("cuda.ldgsts_commit"));
      L.push_back(opPending("cuda.wgmma_wait", MmaPending, P.C));
      Iter.push_back(perThread(std::move(L)));
      return Iter;
    }));
    // No wgmma or copy in flight, and every warpgroup done with the rings,
    // before whatever follows (another pass of an outer loop) reuses them.
    Stmts Drain;
    if (MmaPending)
      Drain.push_back(opPending("cuda.wgmma_wait", 0, P.C));
    Drain.push_back(opPending("cuda.ldgsts_wait", 0));
    Body.push_back(perThread(std::move(Drain)));
    Body.push_back(op("barrier"));
    return Body;
  }

  int64_t accPerThread(const GemmPlan &P) const { return P.MT * P.BN / 2; }

  /// clear/fill of a register accumulator.
  Stmts lowerFill(const OpStmt &Op, const GemmPlan &P) {
    ExprPtr V = Op.getName() == "fill"
                    ? ex::castTo(Op.getOperand("value").E->clone(), DType::F32)
                    : ex::zero(DType::F32);
    Stmts Body;
    Body.push_back(unroll("e", accPerThread(P), [&](Value *E) {
      Stmts L;
      std::vector<ExprPtr> Idx;
      Idx.push_back(ref(E));
      L.push_back(std::make_unique<StoreStmt>(P.C, std::move(Idx), V->clone()));
      return L;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// `copy %C -> X`: each thread stores its accumulators, converted, guarded
  /// when X is global. Accumulators 2j and 2j + 1 are adjacent columns of
  /// one row: where X's rows are contiguous and the pair is aligned (even
  /// column offset and row length) and inside X, one cuda.store_pair.
  Stmts lowerCopyOut(const OpStmt &Op, const GemmPlan &P) {
    const Region &Dst = Op.getOperand("dst").R;
    auto Dims = CopyDims.lookup(&Op);
    unsigned RowDim = Dims.first, ColDim = Dims.second;
    unsigned Rank = Dst.Buf->getRank();
    bool Global = Dst.Buf->getScope() == MemScope::Global;
    bool Pairs = isFloat(Dst.Buf->getDType()) && ColDim == Rank - 1 &&
                 Dst.Buf->getStrides().empty() &&
                 (Global || Dst.Buf->getScope() == MemScope::Shared);
    auto Offset = [&](unsigned D) {
      return Dst.isWholeBuffer() ? lit(0) : Dst.Indices[D].Offset->clone();
    };
    Stmts Body;
    Value *WG = let(Body, "wg", div(ref(Tid), WarpgroupSize));
    Value *Warp = let(Body, "warp", div(rem(ref(Tid), WarpgroupSize), 32));
    Value *Lane = let(Body, "lane", rem(ref(Tid), 32));
    Value *PairOK = nullptr;
    if (Pairs)
      PairOK = let(Body, "pair_ok",
                   ex::land(ex::binary(BinaryOp::Eq, rem(Offset(ColDim), 2), lit(0)),
                            ex::binary(BinaryOp::Eq,
                                       rem(Dst.Buf->getShape()[ColDim]->clone(), 2),
                                       lit(0))));
    Body.push_back(unroll("mt", P.MT, [&](Value *MT) {
      Stmts ML;
      Value *Row0 = let(ML, "row0",
                        add(mul(add(mul(ref(WG), P.MT), ref(MT)), InstM),
                            add(mul(ref(Warp), 16), div(ref(Lane), 4))));
      ML.push_back(unroll("ni", P.NI, [&](Value *NI) {
        Stmts NL;
        Value *Col0 = let(NL, "col0", add(mul(ref(NI), P.NInst), mul(rem(ref(Lane), 4), 2)));
        // Pair j: accumulators 2j, 2j + 1 at (row0 + (j % 2) * 8,
        // col0 + (j / 2) * 8 + 0, 1).
        NL.push_back(unroll("j", P.NInst / 4, [&](Value *J) {
          Stmts L;
          Value *Row = let(L, "row", add(ref(Row0), mul(rem(ref(J), 2), 8)));
          Value *Col = let(L, "col", add(ref(Col0), mul(div(ref(J), 2), 8)));
          Value *E = let(L, "e", add(mul(add(mul(ref(MT), P.NI), ref(NI)), P.NInst / 2),
                                     mul(ref(J), 2)));
          // The index of element (row, col + Dc) in X, and whether it is
          // inside X.
          auto Index = [&](int64_t Dc, ExprPtr &InRange) {
            std::vector<ExprPtr> Idx;
            for (unsigned D = 0; D != Rank; ++D) {
              ExprPtr X = Offset(D);
              if (D == RowDim)
                X = add(std::move(X), ref(Row));
              else if (D == ColDim)
                X = add(add(std::move(X), ref(Col)), lit(Dc));
              if (Global) {
                InRange = ex::land(std::move(InRange), ex::ge(X->clone(), lit(0)));
                InRange = ex::land(std::move(InRange),
                                   ex::lt(X->clone(), Dst.Buf->getShape()[D]->clone()));
              }
              Idx.push_back(std::move(X));
            }
            return Idx;
          };
          Stmts Two;
          for (int64_t Dc : {0, 1}) {
            ExprPtr In;
            std::vector<ExprPtr> Idx = Index(Dc, In);
            std::vector<ExprPtr> AccIdx;
            AccIdx.push_back(add(ref(E), lit(Dc)));
            StmtPtr St = std::make_unique<StoreStmt>(
                Dst.Buf, std::move(Idx),
                ex::castTo(ex::load(P.C, std::move(AccIdx)), Dst.Buf->getDType()));
            if (In) {
              Stmts G;
              G.push_back(std::move(St));
              Two.push_back(ifThen(std::move(In), std::move(G)));
            } else {
              Two.push_back(std::move(St));
            }
          }
          if (!Pairs) {
            for (StmtPtr &X : Two)
              L.push_back(std::move(X));
            return L;
          }
          ExprPtr In0, In1;
          std::vector<ExprPtr> I0 = Index(0, In0);
          Index(1, In1);
          ExprPtr Cond = ref(PairOK);
          if (In0)
            Cond = ex::land(ex::land(std::move(Cond), std::move(In0)), std::move(In1));
          std::vector<ExprPtr> AccIdx;
          AccIdx.push_back(ref(E));
          std::vector<OpOperand> Operands;
          Operands.push_back(regionOperand(P.C, std::move(AccIdx), {2}));
          Operands.push_back(regionOperand(Dst.Buf, std::move(I0)));
          Stmts Pair;
          Pair.push_back(op("cuda.store_pair", std::move(Operands), AttributeList(),
                            Op.getLoc()));
          L.push_back(std::make_unique<IfStmt>(std::move(Cond),
                                               block(std::move(Pair)), block(std::move(Two))));
          return L;
        }));
        return NL;
      }));
      return ML;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    if (Dst.Buf->getScope() == MemScope::Shared)
      Out.push_back(op("barrier"));
    return Out;
  }

  void rewriteBlock(Block &B) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      Stmts Lowered;
      bool Replaced = false;
      if (auto *F = dyn_cast<ForStmt>(S.get()); F && ByLoop.count(F)) {
        Lowered = lowerLoop(*ByLoop[F]);
        Replaced = true;
      } else if (auto *Op = dyn_cast<OpStmt>(S.get())) {
        if ((Op->getName() == "clear" || Op->getName() == "fill") &&
            AccOf.count(Op->getOperand("dst").R.Buf)) {
          Lowered = lowerFill(*Op, *AccOf[Op->getOperand("dst").R.Buf]);
          Replaced = true;
        } else if (Op->getName() == "copy" &&
                   AccOf.count(Op->getOperand("src").R.Buf)) {
          Lowered = lowerCopyOut(*Op, *AccOf[Op->getOperand("src").R.Buf]);
          Replaced = true;
        }
      }
      if (!Replaced) {
        for (Block *N : getNestedBlocks(*S))
          rewriteBlock(*N);
        Out.push_back(std::move(S));
        continue;
      }
      for (StmtPtr &L : Lowered)
        Out.push_back(std::move(L));
    }
    B.Stmts = std::move(Out);
  }

  /// Rings first in the kernel (their stages 1024-byte aligned in dynamic
  /// shared memory), accumulators become local arrays.
  void placeRings() {
    llvm::DenseMap<const BufferValue *, int64_t> RingElems;
    for (GemmPlan &P : Plans) {
      int64_t E = getDTypeBits(P.Ty) / 8;
      RingElems[P.A.Tile] = P.Stages * P.A.StageBytes / E;
      RingElems[P.B.Tile] = P.Stages * P.B.StageBytes / E;
    }
    Stmts Rings, Rest;
    for (StmtPtr &S : K.getBodyMutable().Stmts) {
      auto *A = dyn_cast<AllocStmt>(S.get());
      if (!A) {
        Rest.push_back(std::move(S));
        continue;
      }
      BufferValue *Buf = A->getBuffer();
      if (auto It = RingElems.find(Buf); It != RingElems.end()) {
        Buf->getShapeMutable().clear();
        Buf->getShapeMutable().push_back(lit(It->second));
        A->getAttrsMutable() = AttributeList();
        Rings.push_back(std::move(S));
        continue;
      }
      if (auto It = AccOf.find(Buf); It != AccOf.end()) {
        Buf->setScope(MemScope::Local);
        Buf->getShapeMutable().clear();
        Buf->getShapeMutable().push_back(lit(accPerThread(*It->second)));
      }
      Rest.push_back(std::move(S));
    }
    for (StmtPtr &S : Rest)
      Rings.push_back(std::move(S));
    K.getBodyMutable().Stmts = std::move(Rings);
  }

  Function &F;
  KernelStmt &K;
  DiagnosticEngine &Diag;
  bool Remarks;
  int64_t Threads = 0;
  Value *Tid = nullptr;
  std::vector<std::pair<OpStmt *, ForStmt *>> Candidates;
  std::vector<GemmPlan> Plans;
  llvm::DenseMap<const Value *, const Expr *> LetInit;
  llvm::DenseMap<const ForStmt *, GemmPlan *> ByLoop;
  llvm::DenseMap<const BufferValue *, GemmPlan *> AccOf;
  llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>> CopyDims;
};

class LowerGemmToWGMMAPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    bool OK = true;
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          OK &= WGMMALowering(*F, *K, M.getContext().getOpRegistry(), S.Diag,
                              getBoolOption("remarks"))
                    .run();
      });
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerGemmToWGMMAPass() {
  return std::make_unique<LowerGemmToWGMMAPass>(getLowerGemmToWGMMAPassInfo());
}
