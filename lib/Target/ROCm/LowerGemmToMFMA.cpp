//===- LowerGemmToMFMA.cpp - rocm-lower-gemm-mfma -------------------------===//
//
// Turns qualifying gemm and rocm.mfma ops into per-lane MFMA code, before
// tile-lower-tile-ops and tile-lower-to-simt. For C = A x B with tiles of
// an MFMA shape (M x N x K), wave w of the block's W waves takes tiles
// t = w, w + W, ... of C; per tile and K step each lane loads the four A
// and B elements MFMALayout.h assigns it and issues rocm.mfma_lane. The
// generated code is written per thread (`if %tx < T { ... }`: every thread
// of the block runs it), so tile-lower-to-simt leaves it as it is; this
// pass puts the barriers it needs around it.
//
// An accumulator fragment whose every use is a clear or fill, an MFMA gemm
// of the same shape, a whole copy out, an elementwise parallel loop over
// its shape (an epilogue: masks, scales, exp2) or a reduce along its rows
// into a 1-D fragment becomes a per-thread `local` array: element
// e = tt * R + r of a lane is C's register r of the wave's tt-th tile.
// Clears, fills and copies out are rewritten to match. Epilogues and
// reduces need the accumulator's layout as a LinearLayout: the shared
// fragment layout analysis gives it (MFMALayouts supplies the MFMA
// accumulator layouts of the gemms this pass lowers). An epilogue runs
// per thread on its registers (lowerEpilogue); a reduce combines the
// thread's registers of a row, then the lanes of its wave that share the
// row by a butterfly of rocm.lane_xor (ds_swizzle), then writes one
// partial per row and wave column to a small fragment that a block-level
// reduce (tile-lower-tile-ops) combines into the result, so that no 2-D
// fragment stays in LDS. The 1-D fragments (row statistics) stay
// fragments, read by every thread of their rows. Other accumulators stay
// fragments (shared memory after tile-lower-to-simt): each tile is read
// from the fragment, accumulated and written back.
//
//===----------------------------------------------------------------------===//

#include "MFMALayout.h"
#include "tile/Analysis/AllocationBytes.h"
#include "tile/Analysis/FragmentLayouts.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
#include "tile/Transforms/StmtBuilder.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace tile;
using namespace tile::rocm;
using llvm::cast;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "ROCmPasses.inc"

namespace {

/// A gemm (or rocm.mfma) this pass lowers, with what it decided.
struct GemmPlan {
  OpStmt *Op = nullptr;
  const Region *A = nullptr, *B = nullptr, *C = nullptr;
  bool TA = false, TB = false, Clear = false;
  int64_t M = 0, N = 0, K = 0;
  MFMAShape Shape;
};

/// The constant extents of the last two dimensions of \p R.
std::optional<std::pair<int64_t, int64_t>> matrixExtents(const Region &R) {
  std::vector<const Expr *> Ext = getRegionExtentExprs(R, nullptr);
  if (Ext.size() < 2)
    return std::nullopt;
  for (unsigned D = 0; D + 2 < Ext.size(); ++D)
    if (Ext[D] && !ex::isConst(*Ext[D], 1))
      return std::nullopt;
  auto Get = [](const Expr *E) -> std::optional<int64_t> {
    return E ? E->getConstInt() : std::optional<int64_t>(1);
  };
  auto R0 = Get(Ext[Ext.size() - 2]), R1 = Get(Ext.back());
  if (!R0 || !R1)
    return std::nullopt;
  return std::make_pair(*R0, *R1);
}

class MFMALowering : public StmtBuilder {
public:
  MFMALowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
               DiagnosticEngine &Diag, bool Registers, int64_t LDSLimit,
               const RemarkEmitter &Remarks)
      : StmtBuilder(F, Ops), K(K), Diag(Diag), Registers(Registers),
        LDSLimit(LDSLimit), Remarks(Remarks),
        Threads(*K.getThreads()->getConstInt()) {}

  bool run() {
    // Plan every gemm first: register residency depends on all of them.
    bool OK = true;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op || (Op->getName() != "gemm" && Op->getName() != "rocm.mfma"))
        return;
      std::string Why;
      std::optional<GemmPlan> P = plan(*Op, Why);
      if (P) {
        Plans[Op] = *P;
        return;
      }
      if (Op->getName() == "rocm.mfma") {
        Diag.error(Op->getLoc(), "'rocm.mfma' cannot be lowered: " + Why);
        OK = false;
      }
    });
    if (!OK || Plans.empty())
      return OK;
    if (Registers)
      findRegisterAccumulators();
    if (LDSLimit > 0)
      leaveGemmsOverLDS();
    if (Plans.empty())
      return true;
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    rewriteBlock(K.getBodyMutable(), /*IsKernelBody=*/true);
    Stmts &Body = K.getBodyMutable().Stmts;
    Body.insert(Body.begin(), std::make_move_iterator(NewAllocs.begin()),
                std::make_move_iterator(NewAllocs.end()));
    return true;
  }

private:
  //===--- Planning -------------------------------------------------------===//

  std::optional<GemmPlan> plan(OpStmt &Op, std::string &Why) {
    GemmPlan P;
    P.Op = &Op;
    P.A = &Op.getOperand("a").R;
    P.B = &Op.getOperand("b").R;
    P.C = &Op.getOperand("c").R;
    bool IsGemm = Op.getName() == "gemm";
    P.TA = IsGemm && Op.getAttrOrDefault("transpose_a").getBool();
    P.TB = IsGemm && Op.getAttrOrDefault("transpose_b").getBool();
    P.Clear = Op.getAttrOrDefault("clear_accum").getBool();
    DType TA = P.A->Buf->getDType(), TB = P.B->Buf->getDType(),
          TC = P.C->Buf->getDType();
    if (!((TA == DType::F16 && TB == DType::F16) ||
          (TA == DType::BF16 && TB == DType::BF16)) ||
        TC != DType::F32) {
      Why = "MFMA takes f16 or bf16 A and B with an f32 accumulator, not " +
            getDTypeName(TA).str() + " x " + getDTypeName(TB).str() + " -> " +
            getDTypeName(TC).str();
      return std::nullopt;
    }
    for (const Region *R : {P.A, P.B})
      if (R->Buf->getScope() == MemScope::Global) {
        Why = "operand %" + R->Buf->getName().str() + " is in global memory";
        return std::nullopt;
      }
    auto EA = matrixExtents(*P.A), EB = matrixExtents(*P.B),
         EC = matrixExtents(*P.C);
    if (!EA || !EB || !EC) {
      Why = "operand extents must be constant";
      return std::nullopt;
    }
    P.M = EC->first;
    P.N = EC->second;
    P.K = P.TA ? EA->first : EA->second;
    if (Threads % WaveSize != 0) {
      Why = "the kernel's " + std::to_string(Threads) +
            " threads are not whole waves of 64";
      return std::nullopt;
    }
    std::string Want =
        IsGemm ? "auto" : Op.getAttrOrDefault("shape").getStr().str();
    int64_t Waves = Threads / WaveSize;
    auto Fits = [&](const MFMAShape &S) {
      return P.M % S.M == 0 && P.N % S.N == 0 && P.K % S.K == 0;
    };
    if (Want == "auto") {
      // The larger instruction when it divides C into enough tiles for
      // every wave; otherwise the smaller.
      const MFMAShape &Big = MFMAShapes[1], &Small = MFMAShapes[0];
      if (Fits(Big) && (P.M / Big.M) * (P.N / Big.N) >= Waves)
        P.Shape = Big;
      else if (Fits(Small))
        P.Shape = Small;
      else {
        Why = "[" + std::to_string(P.M) + ", " + std::to_string(P.N) +
              "] += [.., " + std::to_string(P.K) +
              "] is not a multiple of an MFMA tile (16x16x16 or 32x32x8)";
        return std::nullopt;
      }
      return P;
    }
    std::optional<MFMAShape> S = lookupMFMAShape(Want);
    if (!S) {
      Why = "shape " + Want + " is not supported by the ROCm backend "
            "yet (it emits m16n16k16 and m32n32k8)";
      return std::nullopt;
    }
    if (!Fits(*S)) {
      Why = "M, N, K = " + std::to_string(P.M) + ", " + std::to_string(P.N) +
            ", " + std::to_string(P.K) + " are not multiples of " +
            S->Name.str();
      return std::nullopt;
    }
    P.Shape = *S;
    return P;
  }

  /// Accumulators used only by clear/fill, planned gemms of one shape,
  /// whole copies out, epilogues and row reductions: they move to
  /// registers.
  void findRegisterAccumulators() {
    llvm::DenseMap<BufferValue *, const GemmPlan *> Cands;
    for (auto &[Op, P] : Plans) {
      BufferValue *C = P.C->Buf;
      if (C->getScope() != MemScope::Fragment || !P.C->isWholeBuffer() ||
          !C->getConstShape() || C->getRank() != 2) {
        Rejected.insert(C);
        continue;
      }
      auto It = Cands.find(C);
      if (It != Cands.end() && It->second->Shape.Name != P.Shape.Name)
        Rejected.insert(C);
      Cands.insert({C, &P});
    }
    // Reduces of a whole candidate along its rows into a whole 1-D
    // fragment of its rows.
    llvm::DenseSet<const OpStmt *> Reduces;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *Op = dyn_cast<OpStmt>(&S);
      if (!Op || Op->getName() != "reduce")
        return;
      const Region &Src = Op->getOperand("src").R, &Dst = Op->getOperand("dst").R;
      auto It = Cands.find(Src.Buf);
      if (It == Cands.end() || !Src.isWholeBuffer() || !Dst.isWholeBuffer() ||
          Op->getAttrOrDefault("dim").getInt() != 1 ||
          Dst.Buf->getScope() != MemScope::Fragment || Dst.Buf->getRank() != 1 ||
          Dst.Buf->getConstShape() != std::vector<int64_t>{It->second->M})
        return;
      Reduces.insert(Op);
    });
    // Any other use disqualifies.
    llvm::DenseSet<const OpStmt *> Lowered;
    for (auto &Entry : Plans)
      Lowered.insert(Entry.first);
    AccumulatorUses Uses =
        classifyAccumulatorUses(K, Lowered, /*Epilogues=*/true, &Reduces);
    for (const BufferValue *B : Uses.Rejected)
      Rejected.insert(const_cast<BufferValue *>(B));
    CopyDims = std::move(Uses.CopyDims);
    // What needs the accumulator's layout as a map: its epilogues, its
    // companions and its reduces.
    // (The first such use in the source, for the remark.)
    llvm::DenseMap<const BufferValue *, llvm::SMLoc> NeedsLayout;
    auto Need = [&](const BufferValue *B, llvm::SMLoc Loc) {
      auto [It, New] = NeedsLayout.try_emplace(B, Loc);
      if (!New && Loc.isValid() &&
          (!It->second.isValid() || Loc.getPointer() < It->second.getPointer()))
        It->second = Loc;
    };
    for (auto &[F, Acc] : Uses.Epilogues)
      Need(Acc, F->getLoc());
    for (auto &[B, Acc] : Uses.Companions)
      Need(Acc, llvm::SMLoc());
    for (const OpStmt *Op : Reduces)
      Need(Op->getOperand("src").R.Buf, Op->getLoc());
    MFMALayouts Provider([&](const OpStmt &G) -> llvm::Expected<MFMAShape> {
      auto It = Plans.find(const_cast<OpStmt *>(&G));
      if (It == Plans.end())
        return llvm::createStringError("the gemm is not lowered to MFMA");
      return It->second.Shape;
    });
    FragmentLayoutAnalysis Analysis(K, &Provider);
    for (auto &[C, P] : Cands) {
      if (Rejected.count(C))
        continue;
      auto Needed = NeedsLayout.find(C);
      if (Needed != NeedsLayout.end()) {
        std::string Why;
        const FragmentLayout *FL = Analysis.getLayout(C);
        if (!FL)
          Why = Analysis.getWhyNone(C).str();
        else if (!FL->Layout.isBitDisjoint() ||
                 FL->Layout.getReplicationMask(HwDim::Register) ||
                 FL->Layout.getReplicationMask(HwDim::Lane) ||
                 FL->Layout.getReplicationMask(HwDim::Warp))
          Why = "its layout (" + FL->Origin + ") replicates elements";
        if (!Why.empty()) {
          Remarks.missed(Needed->second,
                         "accumulator %" + C->getName() +
                             " stays in LDS: its elementwise loops and "
                             "reductions run on registers in a known "
                             "layout, and it has none: " + Why);
          Rejected.insert(C);
          continue;
        }
        Layouts.try_emplace(C, FL->Layout);
      }
      InRegisters[C] = P->Shape;
      std::vector<int64_t> Shape = *C->getConstShape();
      Original[C] = {Shape[0], Shape[1]};
    }
    for (auto &[F, Acc] : Uses.Epilogues)
      if (Layouts.count(Acc))
        Epilogues[F] = const_cast<BufferValue *>(Acc);
    for (auto &[B, Acc] : Uses.Companions) {
      auto It = Layouts.find(Acc);
      if (It == Layouts.end())
        continue;
      auto *Comp = const_cast<BufferValue *>(B);
      auto *A = const_cast<BufferValue *>(Acc);
      InRegisters[Comp] = InRegisters[A];
      Original[Comp] = Original[A];
      Layouts.try_emplace(Comp, It->second);
    }
    for (const OpStmt *Op : Reduces)
      if (Layouts.count(Op->getOperand("src").R.Buf))
        RowReduces.insert(Op);
  }

  /// Where the fragments the MFMA code keeps in LDS (every fragment but
  /// the register accumulators) and the shared buffers exceed LDSLimit,
  /// the gemms into accumulators that are not in registers are left for
  /// tile-lower-tile-ops, whose fragments tile-lower-to-simt may keep per
  /// work-item.
  void leaveGemmsOverLDS() {
    int64_t Bytes = sumAllocationBytes(
        K.getBody(),
        [&](const BufferValue &B) {
          return (B.getScope() == MemScope::Shared ||
                  B.getScope() == MemScope::Fragment) &&
                 !InRegisters.count(const_cast<BufferValue *>(&B));
        },
        [](const BufferValue &B) {
          return getConstShapeBytes(B, getDTypeBytes(B.getDType()));
        });
    if (Bytes <= LDSLimit)
      return;
    std::vector<OpStmt *> Left;
    for (auto &[Op, P] : Plans)
      if (Op->getName() == "gemm" && !InRegisters.count(P.C->Buf))
        Left.push_back(Op);
    llvm::sort(Left, [](const OpStmt *A, const OpStmt *B) {
      return A->getLoc().getPointer() < B->getLoc().getPointer();
    });
    for (OpStmt *Op : Left) {
      Remarks.missed(Op->getLoc(),
                     "gemm not lowered to MFMA: its accumulator %" +
                         Op->getOperand("c").R.Buf->getName() +
                         " has uses other than clear, fill, MFMA gemms and "
                         "whole copies out, so the MFMA code would keep it in "
                         "LDS, and the block's LDS would need " +
                         llvm::Twine(Bytes) + " bytes, more than the " +
                         llvm::Twine(LDSLimit) + " the target allows");
      Plans.erase(Op);
    }
  }

  //===--- Rewriting ------------------------------------------------------===//


  static bool usesValue(Stmt &S, const Value *V) {
    bool Found = false;
    forEachExprSlot(S, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *U) { Found |= U == V; });
    });
    return Found;
  }










  /// Indices of element (Row, Col) of the matrix in the last two dimensions
  /// of \p R.
  static std::vector<ExprPtr> matrixIndex(const Region &R, ExprPtr Row,
                                          ExprPtr Col) {
    std::vector<ExprPtr> Idx;
    unsigned Rank = R.Buf->getRank();
    for (unsigned D = 0; D != Rank; ++D) {
      ExprPtr I = R.isWholeBuffer() ? ex::intLit(0) : R.Indices[D].Offset->clone();
      if (D == Rank - 2)
        I = add(std::move(I), std::move(Row));
      else if (D == Rank - 1)
        I = add(std::move(I), std::move(Col));
      Idx.push_back(std::move(I));
    }
    return Idx;
  }

  /// The lane and wave of the thread, and a loop over the wave's tiles of
  /// an M x N matrix in tiles of \p S: Body(tt, row0, col0) per tile.
  Stmts overWaveTiles(const MFMAShape &S, int64_t M, int64_t N, Value *&Lane,
                      llvm::function_ref<Stmts(Value *, Value *, Value *)> Body) {
    Stmts Out;
    int64_t Waves = Threads / WaveSize;
    int64_t TilesN = N / S.N, Tiles = (M / S.M) * TilesN;
    int64_t PerWave = (Tiles + Waves - 1) / Waves;
    Lane = let(Out, "lane", rem(ex::ref(Tid), WaveSize));
    Value *Wave = let(Out, "wave", div(ex::ref(Tid), WaveSize));
    Out.push_back(unroll("tt", PerWave, [&](Value *TT) {
      Stmts In;
      Value *T = let(In, "t", add(ex::ref(Wave), mul(ex::ref(TT), Waves)));
      Stmts Tile;
      Value *R0 = let(Tile, "row0", mul(div(ex::ref(T), TilesN), S.M));
      Value *C0 = let(Tile, "col0", mul(rem(ex::ref(T), TilesN), S.N));
      for (StmtPtr &X : Body(TT, R0, C0))
        Tile.push_back(std::move(X));
      if (Tiles % Waves == 0) {
        for (StmtPtr &X : Tile)
          In.push_back(std::move(X));
      } else {
        In.push_back(ifThen(ex::lt(ex::ref(T), ex::intLit(Tiles)), std::move(Tile)));
      }
      return In;
    }));
    return Out;
  }

  /// Row of C register \p R of lane \p Lane within its tile.
  static ExprPtr accRow(const MFMAShape &S, Value *R, Value *Lane) {
    ExprPtr Row = add(mul(div(ex::ref(R), 4), 4 * S.Groups),
                      mul(div(ex::ref(Lane), S.N), 4));
    return add(std::move(Row), rem(ex::ref(R), 4));
  }

  /// `if %tx < T { Body }`: code every thread runs as written.
  StmtPtr perThread(Stmts Body) {
    return ifThen(ex::lt(ex::ref(Tid), ex::intLit(Threads)), std::move(Body));
  }

  Stmts lowerGemm(const GemmPlan &P) {
    const MFMAShape &S = P.Shape;
    BufferValue *CBuf = P.C->Buf;
    bool InRegs = InRegisters.count(CBuf);
    DType OpTy = P.A->Buf->getDType();
    Stmts Body;
    BufferValue *ALanes, *BLanes, *CLanes = nullptr;
    Body.push_back(allocLocal("a_lane", OpTy, OperandsPerLane, ALanes));
    Body.push_back(allocLocal("b_lane", OpTy, OperandsPerLane, BLanes));
    if (!InRegs)
      Body.push_back(allocLocal("c_lane", DType::F32, S.AccPerLane, CLanes));
    Value *Lane;
    Stmts Tiles = overWaveTiles(S, P.M, P.N, Lane, [&](Value *TT, Value *R0, Value *C0) {
      Stmts T;
      // The lane's accumulators: a slice of the register array, or loaded
      // from the fragment.
      auto AccIndex = [&](Value *R) {
        return InRegs ? add(mul(ex::ref(TT), S.AccPerLane), ex::ref(R))
                      : ex::ref(R);
      };
      BufferValue *Acc = InRegs ? CBuf : CLanes;
      auto CIndex = [&](Value *R) {
        return matrixIndex(*P.C, add(ex::ref(R0), accRow(S, R, Lane)),
                           add(ex::ref(C0), rem(ex::ref(Lane), S.N)));
      };
      if (P.Clear || !InRegs)
        T.push_back(unroll("r", S.AccPerLane, [&](Value *R) {
          Stmts L;
          std::vector<ExprPtr> Idx;
          Idx.push_back(AccIndex(R));
          L.push_back(std::make_unique<StoreStmt>(
              Acc, std::move(Idx),
              P.Clear ? ex::zero(DType::F32) : ex::load(CBuf, CIndex(R))));
          return L;
        }));
      T.push_back(loop(LoopKind::Serial, "kk", lit(P.K / S.K), [&](Value *KK) {
        Stmts L;
        L.push_back(unroll("v", OperandsPerLane, [&](Value *V) {
          Stmts E;
          // K index of the lane's element v, and its row of A / column of B.
          auto KIdx = [&](int64_t Rows) {
            return add(add(mul(ex::ref(KK), S.K), mul(div(ex::ref(Lane), Rows), 4)),
                       ex::ref(V));
          };
          ExprPtr AM = add(ex::ref(R0), rem(ex::ref(Lane), S.M));
          ExprPtr BN = add(ex::ref(C0), rem(ex::ref(Lane), S.N));
          std::vector<ExprPtr> AI = P.TA ? matrixIndex(*P.A, KIdx(S.M), std::move(AM))
                                         : matrixIndex(*P.A, std::move(AM), KIdx(S.M));
          std::vector<ExprPtr> BI = P.TB ? matrixIndex(*P.B, std::move(BN), KIdx(S.N))
                                         : matrixIndex(*P.B, KIdx(S.N), std::move(BN));
          std::vector<ExprPtr> VA, VB;
          VA.push_back(ex::ref(V));
          VB.push_back(ex::ref(V));
          E.push_back(std::make_unique<StoreStmt>(ALanes, std::move(VA),
                                                  ex::load(P.A->Buf, std::move(AI))));
          E.push_back(std::make_unique<StoreStmt>(BLanes, std::move(VB),
                                                  ex::load(P.B->Buf, std::move(BI))));
          return E;
        }));
        std::vector<OpOperand> Operands(3);
        for (OpOperand &O : Operands)
          O.Kind = OperandKind::Region;
        Operands[0].R.Buf = ALanes;
        Operands[1].R.Buf = BLanes;
        Operands[2].R.Buf = Acc;
        if (InRegs)
          Operands[2].R.Indices.push_back(
              {mul(ex::ref(TT), S.AccPerLane), ex::intLit(S.AccPerLane)});
        AttributeList Attrs;
        Attrs.set("shape", Attribute::getIdent(S.Name));
        L.push_back(std::make_unique<OpStmt>(Ops.lookup("rocm.mfma_lane"),
                                             std::move(Operands), std::move(Attrs),
                                             P.Op->getLoc()));
        return L;
      }));
      if (!InRegs)
        T.push_back(unroll("r", S.AccPerLane, [&](Value *R) {
          Stmts L;
          std::vector<ExprPtr> Idx;
          Idx.push_back(ex::ref(R));
          L.push_back(std::make_unique<StoreStmt>(CBuf, CIndex(R),
                                                  ex::load(CLanes, std::move(Idx))));
          return L;
        }));
      return T;
    });
    for (StmtPtr &X : Tiles)
      Body.push_back(std::move(X));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// clear/fill of a register accumulator: every lane's elements.
  Stmts lowerFill(const OpStmt &Op, BufferValue *C) {
    ExprPtr V = Op.getName() == "fill" ? ex::castTo(Op.getOperand("value").E->clone(),
                                                     C->getDType())
                                       : ex::zero(C->getDType());
    Stmts Body;
    Body.push_back(unroll("e", lanesPerThread(C), [&](Value *E) {
      Stmts L;
      std::vector<ExprPtr> Idx;
      Idx.push_back(ex::ref(E));
      L.push_back(std::make_unique<StoreStmt>(C, std::move(Idx), V->clone()));
      return L;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// `copy %C -> X` from a register accumulator: each lane stores its
  /// elements, guarded when X is global.
  Stmts lowerCopyOut(const OpStmt &Op, BufferValue *C) {
    const MFMAShape &S = InRegisters[C];
    const Region &Dst = Op.getOperand("dst").R;
    std::pair<unsigned, unsigned> Dims = CopyDims.lookup(&Op);
    unsigned RowDim = Dims.first, ColDim = Dims.second;
    auto [M, N] = Original.lookup(C);
    Value *Lane;
    Stmts Body = overWaveTiles(S, M, N, Lane, [&](Value *TT, Value *R0, Value *C0) {
      Stmts T;
      T.push_back(unroll("r", S.AccPerLane, [&](Value *R) {
        Stmts L;
        Value *Row = let(L, "row", add(ex::ref(R0), accRow(S, R, Lane)));
        Value *Col = let(L, "col", add(ex::ref(C0), rem(ex::ref(Lane), S.N)));
        std::vector<ExprPtr> AccIdx;
        AccIdx.push_back(add(mul(ex::ref(TT), S.AccPerLane), ex::ref(R)));
        L.push_back(storeAccumulatorElement(Dst, RowDim, ColDim, *ex::ref(Row),
                                            *ex::ref(Col),
                                            ex::load(C, std::move(AccIdx))));
        return L;
      }));
      return T;
    });
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// On-chip buffers other than the register arrays that \p B reads and
  /// writes.
  std::pair<bool, bool> sharedAccesses(const Block &B) {
    bool Reads = false, Writes = false;
    auto OnChip = [&](const BufferValue *Buf) {
      return (Buf->getScope() == MemScope::Shared ||
              Buf->getScope() == MemScope::Fragment) &&
             !InRegisters.count(const_cast<BufferValue *>(Buf));
    };
    walkStmts(B, [&](const Stmt &S) {
      forEachExprSlot(const_cast<Stmt &>(S), [&](ExprPtr &E) {
        forEachUse(*E, [&](const Value *V) {
          if (const auto *Buf = dyn_cast<BufferValue>(V))
            Reads |= OnChip(Buf);
        });
      });
      if (const auto *St = dyn_cast<StoreStmt>(&S))
        Writes |= OnChip(St->getBuffer());
    });
    return {Reads, Writes};
  }

  /// An epilogue: the loop's body once per register of the thread.
  Stmts lowerEpilogueLoop(const ForStmt &F, BufferValue *Acc) {
    llvm::DenseSet<const BufferValue *> RegFrags;
    for (auto &Entry : InRegisters)
      RegFrags.insert(Entry.first);
    Stmts Out;
    Out.push_back(perThread(lowerEpilogue(F, Layouts.find(Acc)->second, Tid,
                                          WaveSize, RegFrags, Names)));
    return Out;
  }

  /// \p X's bits 0, 1, ... moved to bits \p To[0], \p To[1], ... (runs
  /// of consecutive bits as one divide, remainder and multiply).
  static ExprPtr deposit(const Expr &X, llvm::ArrayRef<unsigned> To) {
    ExprPtr Out = lit(0);
    for (unsigned I = 0; I != To.size();) {
      unsigned N = 1;
      while (I + N != To.size() && To[I + N] == To[I] + N)
        ++N;
      ExprPtr Bits = div(X.clone(), int64_t(1) << I);
      if (I + N != To.size())
        Bits = rem(std::move(Bits), int64_t(1) << N);
      Out = add(std::move(Out), mul(std::move(Bits), int64_t(1) << To[I]));
      I += N;
    }
    return Out;
  }
  static ExprPtr depositConst(int64_t X, llvm::ArrayRef<unsigned> To) {
    int64_t Out = 0;
    for (unsigned I = 0; I != To.size(); ++I)
      Out |= (X >> I & 1) << To[I];
    return lit(Out);
  }
  /// Bits \p From[0], \p From[1], ... of \p X as bits 0, 1, ...
  static ExprPtr extract(const Expr &X, llvm::ArrayRef<unsigned> From) {
    ExprPtr Out = lit(0);
    for (unsigned I = 0; I != From.size(); ++I)
      Out = add(std::move(Out),
                mul(rem(div(X.clone(), int64_t(1) << From[I]), 2), int64_t(1) << I));
    return Out;
  }

  /// `reduce <kind> %C -> %d {dim = 1}` on register accumulator C: each
  /// thread combines its registers of a row, a butterfly of lane_xor over
  /// the lane bits that walk the columns combines the lanes of the row, and
  /// one lane per row and wave writes its partial to column s of a new
  /// [rows, S] fragment (s: the wave's bits along the columns, S waves
  /// sharing a row); after a barrier, the original reduce runs on that
  /// fragment (tile-lower-tile-ops), with its own clear.
  Stmts lowerRowReduce(const OpStmt &Op, BufferValue *C) {
    const LinearLayout &L = Layouts.find(C)->second;
    llvm::StringRef Kind = Op.getAttrOrDefault("kind").getStr();
    bool Abs = Kind.starts_with("abs");
    DType Ty = C->getDType();
    // Which bits of each hardware index walk the columns.
    auto ColMask = [&](HwDim D) {
      int64_t M = 0;
      llvm::ArrayRef<LinearLayout::Coords> Bases = L.getBases(D);
      for (unsigned I = 0; I != Bases.size(); ++I)
        if (Bases[I][1] != 0)
          M |= int64_t(1) << I;
      return M;
    };
    int64_t RegCols = ColMask(HwDim::Register), LaneCols = ColMask(HwDim::Lane);
    int64_t WaveCols = ColMask(HwDim::Warp);
    int64_t Slots = int64_t(1) << llvm::popcount(uint64_t(WaveCols));
    // The partials' fragment.
    auto Part = std::make_unique<BufferValue>(
        Names.fresh(C->getName().str() + "_rows"), Ty, MemScope::Fragment,
        std::vector<ExprPtr>(), std::vector<ExprPtr>(), false, Op.getLoc());
    Part->getShapeMutable().push_back(lit(L.getShape()[0]));
    Part->getShapeMutable().push_back(lit(Slots));
    BufferValue *PartBuf = Part.get();
    NewAllocs.push_back(std::make_unique<AllocStmt>(std::move(Part), AttributeList()));

    Stmts Body;
    Value *Lane = let(Body, "lane", rem(ex::ref(Tid), WaveSize));
    Value *Wave = let(Body, "wave", div(ex::ref(Tid), WaveSize));
    // One partial per row the thread holds: register p's row bits spread
    // over the register bits along the rows, its column bits over the rest.
    llvm::SmallVector<unsigned> RowBits, ColBits;
    for (unsigned I = 0; I != L.getNumBits(HwDim::Register); ++I)
      (RegCols >> I & 1 ? ColBits : RowBits).push_back(I);
    int64_t NumParts = int64_t(1) << RowBits.size();
    BufferValue *Partials, *Other;
    Body.push_back(allocLocal("row_part", Ty, NumParts, Partials));
    Body.push_back(allocLocal("lane_part", Ty, 1, Other));
    auto At = [](ExprPtr I) {
      std::vector<ExprPtr> Idx;
      Idx.push_back(std::move(I));
      return Idx;
    };
    auto Reg = [&](Value *P, int64_t Cols) {
      ExprPtr R = add(deposit(*ex::ref(P), RowBits), depositConst(Cols, ColBits));
      ExprPtr V = ex::load(C, At(std::move(R)));
      if (!Abs)
        return V;
      std::vector<ExprPtr> Args;
      Args.push_back(std::move(V));
      return ex::call(Intrinsic::Abs, std::move(Args));
    };
    Body.push_back(unroll("p", NumParts, [&](Value *P) {
      ExprPtr Acc = Reg(P, 0);
      for (int64_t Cols = 1; Cols != int64_t(1) << ColBits.size(); ++Cols)
        Acc = ex::reduceCombine(Kind, std::move(Acc), Reg(P, Cols));
      Stmts S;
      S.push_back(std::make_unique<StoreStmt>(Partials, At(ex::ref(P)),
                                              std::move(Acc)));
      return S;
    }));
    for (unsigned Bit = 0; Bit != L.getNumBits(HwDim::Lane); ++Bit) {
      if (!(LaneCols >> Bit & 1))
        continue;
      Body.push_back(unroll("p", NumParts, [&](Value *P) {
        Stmts S;
        std::vector<OpOperand> Operands(2);
        Operands[0].Kind = OperandKind::Expr;
        Operands[0].E = ex::load(Partials, At(ex::ref(P)));
        Operands[1].Kind = OperandKind::Region;
        Operands[1].R.Buf = Other;
        Operands[1].R.Indices.push_back({lit(0), lit(1)});
        AttributeList Attrs;
        Attrs.set("mask", Attribute::getInt(int64_t(1) << Bit));
        S.push_back(op("rocm.lane_xor", std::move(Operands), std::move(Attrs),
                       Op.getLoc()));
        S.push_back(std::make_unique<StoreStmt>(
            Partials, At(ex::ref(P)),
            ex::reduceCombine(Kind, ex::load(Partials, At(ex::ref(P))),
                    ex::load(Other, At(lit(0))))));
        return S;
      }));
    }
    // The lanes whose column bits are zero write their rows' partials, to
    // the column of the wave's column bits.
    llvm::SmallVector<unsigned> WaveColBits;
    for (unsigned Bit = 0; Bit != L.getNumBits(HwDim::Warp); ++Bit)
      if (WaveCols >> Bit & 1)
        WaveColBits.push_back(Bit);
    Stmts Write;
    Write.push_back(unroll("p", NumParts, [&](Value *P) {
      std::vector<ExprPtr> Idx;
      Idx.push_back(L.buildCoordinate(0, *deposit(*ex::ref(P), RowBits),
                                      *ex::ref(Lane), *ex::ref(Wave)));
      Idx.push_back(extract(*ex::ref(Wave), WaveColBits));
      Stmts S;
      S.push_back(std::make_unique<StoreStmt>(PartBuf, std::move(Idx),
                                              ex::load(Partials, At(ex::ref(P)))));
      return S;
    }));
    Body.push_back(ifThen(
        ex::binary(BinaryOp::Eq,
                   ex::binary(BinaryOp::And, ex::ref(Lane), lit(LaneCols)),
                   lit(0)),
        std::move(Write)));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    Out.push_back(barrier());
    // The block-level reduce of the partials, as the original one.
    StmtPtr Final = Op.clone();
    Region &Src = cast<OpStmt>(Final.get())->getOperandsMutable()[0].R;
    assert(llvm::StringRef(Op.getInfo().Operands[0].Name) == "src" &&
           "reduce's first operand");
    Src.Buf = PartBuf;
    Src.Indices.clear();
    Out.push_back(std::move(Final));
    return Out;
  }

  /// Elements of a register accumulator each thread holds.
  int64_t lanesPerThread(BufferValue *C) {
    const MFMAShape &S = InRegisters[C];
    auto [M, N] = Original.lookup(C);
    int64_t Tiles = (M / S.M) * (N / S.N), Waves = Threads / WaveSize;
    return (Tiles + Waves - 1) / Waves * S.AccPerLane;
  }

  /// Rewrites the statements of \p B.
  void rewriteBlock(Block &B, bool IsKernelBody) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      for (Block *N : getNestedBlocks(*S))
        rewriteBlock(*N, false);
      Stmts Lowered;
      bool ReadsShared = false, WritesShared = false;
      if (auto *Op = dyn_cast<OpStmt>(S.get())) {
        auto It = Plans.find(Op);
        if (It != Plans.end()) {
          Lowered = lowerGemm(It->second);
          ReadsShared = true;
          WritesShared = !InRegisters.count(It->second.C->Buf);
        } else if ((Op->getName() == "clear" || Op->getName() == "fill") &&
                   InRegisters.count(Op->getOperand("dst").R.Buf)) {
          Lowered = lowerFill(*Op, Op->getOperand("dst").R.Buf);
        } else if (Op->getName() == "copy" &&
                   InRegisters.count(Op->getOperand("src").R.Buf)) {
          Lowered = lowerCopyOut(*Op, Op->getOperand("src").R.Buf);
          WritesShared = Op->getOperand("dst").R.Buf->getScope() != MemScope::Global;
        } else if (RowReduces.count(Op)) {
          // Its own barrier separates the partials from the final reduce,
          // and tile-lower-to-simt puts one after that.
          Lowered = lowerRowReduce(*Op, Op->getOperand("src").R.Buf);
          for (StmtPtr &L : Lowered)
            Out.push_back(std::move(L));
          continue;
        }
      } else if (auto *F = dyn_cast<ForStmt>(S.get())) {
        auto It = Epilogues.find(F);
        if (It != Epilogues.end()) {
          std::tie(ReadsShared, WritesShared) = sharedAccesses(F->getBody());
          Lowered = lowerEpilogueLoop(*F, It->second);
        }
      } else if (auto *A = dyn_cast<AllocStmt>(S.get())) {
        BufferValue *C = A->getBuffer();
        auto It = InRegisters.find(C);
        if (It != InRegisters.end()) {
          // The fragment becomes the lanes' registers.
          int64_t N = lanesPerThread(C);
          C->setScope(MemScope::Local);
          C->getShapeMutable().clear();
          C->getShapeMutable().push_back(ex::intLit(N));
        }
      }
      if (Lowered.empty()) {
        Out.push_back(std::move(S));
        continue;
      }
      // Shared memory written by the block-level statement before is
      // complete: tile-lower-to-simt puts a barrier after every block-level
      // statement that touches shared memory. Per-thread code before (or a
      // loop's previous iteration) gives no such promise.
      if (ReadsShared) {
        bool Prev = !Out.empty();
        bool Covered = Prev ? (isBarrier(*Out.back()) || !usesValue(*Out.back(), Tid))
                            : IsKernelBody;
        if (!Covered)
          Out.push_back(barrier());
      }
      for (StmtPtr &L : Lowered)
        Out.push_back(std::move(L));
      // Other threads may overwrite what this one still reads (the next
      // copy into A's or B's buffer) or read what it wrote.
      if (ReadsShared || WritesShared)
        Out.push_back(barrier());
    }
    B.Stmts = std::move(Out);
  }

  KernelStmt &K;
  DiagnosticEngine &Diag;
  bool Registers;
  int64_t LDSLimit;
  const RemarkEmitter &Remarks;
  int64_t Threads;
  Value *Tid = nullptr;
  llvm::DenseMap<OpStmt *, GemmPlan> Plans;
  llvm::DenseSet<BufferValue *> Rejected;
  llvm::DenseMap<BufferValue *, MFMAShape> InRegisters;
  /// The layouts of the register accumulators (and companions) that
  /// epilogues or reduces use, from the fragment layout analysis.
  llvm::DenseMap<const BufferValue *, LinearLayout> Layouts;
  /// Parallel loops run per thread on an accumulator's registers.
  llvm::DenseMap<const ForStmt *, BufferValue *> Epilogues;
  /// Reduces along the rows of a register accumulator.
  llvm::DenseSet<const OpStmt *> RowReduces;
  /// The partial-result fragments the reduces add, allocated at the top of
  /// the kernel.
  Stmts NewAllocs;
  /// Shapes of the register accumulators as fragments.
  llvm::DenseMap<BufferValue *, std::pair<int64_t, int64_t>> Original;
  /// For each copy out of a register accumulator: X's row and column dims.
  llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>> CopyDims;
};

class LowerGemmToMFMAPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    bool OK = true;
    RemarkEmitter Remarks = getRemarks(M);
    forEachKernel(M, [&](Function &F, KernelStmt &K) {
      OK &= MFMALowering(F, K, M.getContext().getOpRegistry(), S.Diag,
                         getBoolOption("registers"), getIntOption("lds-limit"),
                         Remarks)
                .run();
    });
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerGemmToMFMAPass() {
  return std::make_unique<LowerGemmToMFMAPass>(getLowerGemmToMFMAPassInfo());
}
