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
// of the same shape, or a whole copy out becomes a per-thread `local`
// array: element e = tt * R + r of a lane is C's register r of the wave's
// tt-th tile. Clears, fills and copies out are rewritten to match. Other
// accumulators stay fragments (shared memory after tile-lower-to-simt):
// each tile is read from the fragment, accumulated and written back.
//
//===----------------------------------------------------------------------===//

#include "MFMALayout.h"
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

  /// Accumulators used only by clear/fill, planned gemms of one shape and
  /// whole copies out: they move to registers.
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
    // Any other use disqualifies.
    llvm::DenseSet<const OpStmt *> Lowered;
    for (auto &Entry : Plans)
      Lowered.insert(Entry.first);
    AccumulatorUses Uses = classifyAccumulatorUses(K, Lowered);
    for (const BufferValue *B : Uses.Rejected)
      Rejected.insert(const_cast<BufferValue *>(B));
    CopyDims = std::move(Uses.CopyDims);
    for (auto &[C, P] : Cands)
      if (!Rejected.count(C)) {
        InRegisters[C] = P->Shape;
        std::vector<int64_t> Shape = *C->getConstShape();
        Original[C] = {Shape[0], Shape[1]};
      }
  }

  /// Where the fragments the MFMA code keeps in LDS (every fragment but
  /// the register accumulators) and the shared buffers exceed LDSLimit,
  /// the gemms into accumulators that are not in registers are left for
  /// tile-lower-tile-ops, whose fragments tile-lower-to-simt may keep per
  /// work-item.
  void leaveGemmsOverLDS() {
    int64_t Bytes = 0;
    walkStmts(K.getBody(), [&](const Stmt &S) {
      const auto *A = dyn_cast<AllocStmt>(&S);
      if (!A)
        return;
      const BufferValue *B = A->getBuffer();
      std::optional<std::vector<int64_t>> Shape = B->getConstShape();
      if (!Shape || (B->getScope() != MemScope::Shared &&
                     B->getScope() != MemScope::Fragment) ||
          InRegisters.count(const_cast<BufferValue *>(B)))
        return;
      int64_t N = getDTypeBytes(B->getDType());
      for (int64_t E : *Shape)
        N *= E;
      Bytes += N;
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
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          OK &= MFMALowering(*F, *K, M.getContext().getOpRegistry(), S.Diag,
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
