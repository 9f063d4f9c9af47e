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

#include "CUDAMatrixLayouts.h"
#include "WarpSpecializedGemm.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
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

/// The constant extents of a rank-2 buffer.
std::optional<std::pair<int64_t, int64_t>> shape2(const BufferValue &B) {
  std::optional<std::vector<int64_t>> S = B.getConstShape();
  if (!S || S->size() != 2)
    return std::nullopt;
  return std::make_pair((*S)[0], (*S)[1]);
}

/// The pass's options for one function (CUDAPasses.td).
struct WGMMALoweringOptions {
  bool WarpSpecialize;
  /// -1: chosen from the stages.
  int64_t GroupsInFlight;
  /// Stage the warp-specialized kernel's copy out through a ring.
  bool StageCopyOut;
};

class WGMMALowering : public WGMMABuilder {
public:
  WGMMALowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
                DiagnosticEngine &Diag, RemarkEmitter Remarks,
                WGMMALoweringOptions Opts)
      : WGMMABuilder(F, Ops), F(F), K(K), Diag(Diag), Remarks(Remarks),
        Opts(Opts) {}

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
      } else {
        Remarks.missed(Op->getLoc(), "gemm not taken by the wgmma main-loop path "
                                     "(hopper-wgmma-fragments tries it next): " +
                                         Why);
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
    for (const GemmPlan &P : Plans)
      Remarks.passed(P.Op->getLoc(),
                     "gemm " + llvm::Twine(P.BM) + "x" + llvm::Twine(P.BN) +
                         " per block lowered to wgmma m64n" +
                         llvm::Twine(P.Shape.NInst) + "k16 with " +
                         llvm::Twine(P.Stages) + " stages");
    for (GemmPlan &P : Plans) {
      ByLoop[P.Loop] = &P;
      AccOf[P.C] = &P;
    }
    for (auto &[X, Acc] : Companions)
      if (AccOf.count(Acc))
        AccOf[X] = AccOf[Acc];
    for (auto It = Epilogues.begin(); It != Epilogues.end();) {
      if (!AccOf.count(It->second)) {
        Epilogues.erase(It++);
        continue;
      }
      Remarks.passed(It->first->getLoc(),
                     "epilogue runs on the wgmma accumulator registers of %" +
                         It->second->getName());
      ++It;
    }
    if (tryWarpSpecialize())
      return true;
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    rewriteBlock(K.getBodyMutable());
    placeRings();
    return true;
  }

private:
  /// A kernel whose only work is the gemm K loop and the epilogues over
  /// its accumulator gets a producer warpgroup loading through TMA
  /// (WarpSpecializedGemm.cpp) unless the option `warp-specialize` (or the
  /// function's `pass.warp_specialize`) turns it off.
  bool tryWarpSpecialize() {
    if (!Opts.WarpSpecialize || Plans.size() != 1)
      return false;
    AccumulatorEpilogues Epi;
    for (auto &[Loop, Acc] : Epilogues)
      Epi.Loops.insert(Loop);
    for (auto &[X, Acc] : Companions)
      if (Acc == Plans[0].C)
        Epi.Companions.insert(X);
    if (auto It = Layouts.find(Plans[0].C); It != Layouts.end())
      Epi.Layout = &It->second;
    std::string Why;
    if (!canWarpSpecialize(K, Plans[0], CopyDims, Epi, Why)) {
      Remarks.missed(Plans[0].Op->getLoc(),
                     "no producer warpgroup, every thread loads with "
                     "cp.async: " + Why);
      return false;
    }
    WarpSpecializeOptions WS;
    if (Opts.GroupsInFlight >= 0)
      WS.GroupsInFlight = Opts.GroupsInFlight == 0 ? 0 : 1;
    WS.StageCopyOut = Opts.StageCopyOut;
    WS.Remarks = &Remarks;
    warpSpecialize(F, K, Ops, Plans[0], CopyDims, Epi, WS);
    return true;
  }

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
    if (!checkTileCopy(*Found, *Tile, LetInit, Why))
      return nullptr;
    return Found;
  }

  bool planOperand(OperandPlan &O, BufferValue *Tile, bool MNMajor,
                   ForStmt &L, std::string &Why) {
    if (!planSharedTile(O, Tile, MNMajor, Why))
      return false;
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
    P.Shape.Ty = DA;
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
    P.Shape.BK = TA ? SA->first : SA->second;
    int64_t AM = TA ? SA->second : SA->first;
    int64_t BK2 = TB ? SB->second : SB->first, BN2 = TB ? SB->first : SB->second;
    if (AM != P.BM || BK2 != P.Shape.BK || BN2 != P.BN) {
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
    P.Shape.MT = P.BM / InstM / WG;
    if (P.Shape.BK % InstK != 0) {
      Why = "K = " + std::to_string(P.Shape.BK) + " is not a multiple of 16";
      return std::nullopt;
    }
    P.Shape.NInst = P.BN <= 256 ? P.BN : 256;
    if (P.BN % 8 != 0 || P.BN % P.Shape.NInst != 0) {
      Why = "N = " + std::to_string(P.BN) +
            " is neither a multiple of 8 up to 256 nor a multiple of 256";
      return std::nullopt;
    }
    P.Shape.NI = P.BN / P.Shape.NInst;
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
    int64_t E = getDTypeBits(P.Shape.Ty) / 8;
    if (P.B.MNMajor && (P.Shape.NInst * E) % P.B.Swizzle != 0) {
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
    AccumulatorUses Uses =
        classifyAccumulatorUses(K, Planned, /*Epilogues=*/true);
    for (const BufferValue *B : Uses.Rejected)
      if (Accs.count(B))
        Bad.insert(B);
    CopyDims = std::move(Uses.CopyDims);
    // Epilogues run on the registers in the accumulator's layout, which
    // must be a linear map; companions must be allocated where it is.
    for (auto &[Loop, Acc] : Uses.Epilogues) {
      const GemmPlan *P = nullptr;
      for (GemmPlan &Q : Plans)
        if (Q.C == Acc)
          P = &Q;
      if (!P || Bad.count(Acc))
        continue;
      std::optional<LinearLayout> L = cuda::getWGMMAAccumulatorLayout(
          P->Shape.MT, P->Shape.NInst, P->Shape.NI, Threads / WarpgroupSize);
      if (!L) {
        Remarks.missed(Loop->getLoc(),
                       "epilogue over %" + Acc->getName() +
                           " not run on the wgmma registers: its slices and "
                           "column split are not powers of two");
        Bad.insert(Acc);
        continue;
      }
      Layouts.try_emplace(Acc, std::move(*L));
      Epilogues[Loop] = Acc;
    }
    for (auto &[X, Acc] : Uses.Companions)
      if (!Bad.count(Acc) && topLevelAlloc(X))
        Companions[X] = Acc;
      else
        Bad.insert(Acc);
    // Planned gemms sharing an accumulator must agree on its layout.
    llvm::DenseMap<const BufferValue *, const GemmPlan *> First;
    for (GemmPlan &P : Plans) {
      auto [It, New] = First.insert({P.C, &P});
      if (!New && (It->second->Shape.NInst != P.Shape.NInst ||
                     It->second->Shape.MT != P.Shape.MT))
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
      } else {
        Remarks.missed(P.Op->getLoc(), "gemm not taken by the wgmma main-loop path "
                                     "(hopper-wgmma-fragments tries it next): " +
                                         Why);
      }
    }
    Plans = std::move(Kept);
    return !Error;
  }

  //===--- Building -------------------------------------------------------===//

  /// The loads of both operands for K tile `lo + J` into stage J % S.
  Stmts loadBoth(const GemmPlan &P, Value *J) {
    const LoopDim &D = P.Loop->getDims()[0];
    ExprPtr KVal = add(D.Lo->clone(), ref(J));
    ExprPtr Stage = rem(ref(J), P.Stages);
    const Value *KVar = D.Var.get();
    Stmts Out = loadTile(P.A, *P.A.Copy, KVar, KVal.get(), *Stage);
    for (StmtPtr &S : loadTile(P.B, *P.B.Copy, KVar, KVal.get(), *Stage))
      Out.push_back(std::move(S));
    return Out;
  }

  Stmts lowerLoop(const GemmPlan &P) {
    const LoopDim &D = P.Loop->getDims()[0];
    // Block-level code (the loops, the barriers) with per-thread parts in
    // `if %tx < T`, so that the barriers are not under thread-dependent
    // control flow.
    Stmts Body;
    Value *KT = let(Body, "kt", ex::sub(D.Hi->clone(), D.Lo->clone()));
    // With 4 or more stages, each iteration leaves its wgmma group running
    // while the next iteration waits for its tile (wgmma_wait 1), and loads
    // run S - 2 tiles ahead; otherwise the group is waited for at once and
    // loads run S - 1 tiles ahead.
    // The option `wgmma-groups-in-flight` (`pass.wgmma_groups_in_flight`
    // on the function) 0 or 1 overrides the choice (with 1, at least 3
    // stages).
    bool Overlap = P.Stages >= 4;
    if (Opts.GroupsInFlight >= 0)
      Overlap = Opts.GroupsInFlight == 1 && P.Stages >= 3;
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
      ExprPtr StageE = ref(Stage);
      for (StmtPtr &X : wgmmaGemm(P.Shape, &P.A, nullptr, 0, P.B, P.C, WG,
                                  StageE.get(), StageE.get(), false, P.Op->getLoc()))
        L.push_back(std::move(X));
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

  int64_t accPerThread(const GemmPlan &P) const { return P.accPerThread(); }

  void rewriteBlock(Block &B) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts) {
      Stmts Lowered;
      bool Replaced = false;
      if (auto *F = dyn_cast<ForStmt>(S.get()); F && ByLoop.count(F)) {
        Lowered = lowerLoop(*ByLoop[F]);
        Replaced = true;
      } else if (F && Epilogues.count(F)) {
        llvm::DenseSet<const BufferValue *> Regs;
        for (auto &[X, P] : AccOf)
          Regs.insert(X);
        Lowered.push_back(perThread(lowerEpilogue(
            *F, Layouts.find(Epilogues[F])->second, Tid, 32, Regs, Names)));
        Replaced = true;
      } else if (auto *Op = dyn_cast<OpStmt>(S.get())) {
        if ((Op->getName() == "clear" || Op->getName() == "fill") &&
            AccOf.count(Op->getOperand("dst").R.Buf)) {
          BufferValue *Dst = Op->getOperand("dst").R.Buf;
          Lowered = lowerFill(*Op, Dst, accPerThread(*AccOf[Dst]));
          Replaced = true;
        } else if (Op->getName() == "copy" &&
                   AccOf.count(Op->getOperand("src").R.Buf)) {
          BufferValue *Src = Op->getOperand("src").R.Buf;
          const GemmPlan &P = *AccOf[Src];
          Lowered = lowerCopyOut(*Op, Src, P.Shape.MT, P.Shape.NInst, P.Shape.NI,
                                 CopyDims.lookup(Op));
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
    llvm::DenseMap<const BufferValue *, int64_t> RingElems, LocalElems;
    for (GemmPlan &P : Plans) {
      int64_t E = getDTypeBits(P.Shape.Ty) / 8;
      RingElems[P.A.Tile] = P.Stages * P.A.StageBytes / E;
      RingElems[P.B.Tile] = P.Stages * P.B.StageBytes / E;
      LocalElems[P.C] = accPerThread(P);
    }
    for (auto &[X, Acc] : Companions)
      if (AccOf.count(Acc))
        LocalElems[X] = accPerThread(*AccOf[Acc]);
    placeBuffers(K, RingElems, LocalElems);
  }

  Function &F;
  KernelStmt &K;
  DiagnosticEngine &Diag;
  RemarkEmitter Remarks;
  WGMMALoweringOptions Opts;
  std::vector<std::pair<OpStmt *, ForStmt *>> Candidates;
  std::vector<GemmPlan> Plans;
  /// Epilogue loops run on the registers, with their accumulator; the
  /// accumulators' layouts; companions and their accumulators.
  llvm::DenseMap<const ForStmt *, const BufferValue *> Epilogues;
  llvm::DenseMap<const BufferValue *, LinearLayout> Layouts;
  llvm::DenseMap<const BufferValue *, const BufferValue *> Companions;
  LetInits LetInit;
  llvm::DenseMap<const ForStmt *, GemmPlan *> ByLoop;
  llvm::DenseMap<const BufferValue *, GemmPlan *> AccOf;
  CopyDimsMap CopyDims;
};

class LowerGemmToWGMMAPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    bool OK = true;
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          OK &= WGMMALowering(
                    *F, *K, M.getContext().getOpRegistry(), S.Diag,
                    getRemarks(M),
                    {getBoolOption("warp-specialize", *F),
                     getIntOption("wgmma-groups-in-flight", *F),
                     getBoolOption("stage-copy-out", *F)})
                    .run();
      });
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createLowerGemmToWGMMAPass() {
  return std::make_unique<LowerGemmToWGMMAPass>(getLowerGemmToWGMMAPassInfo());
}
