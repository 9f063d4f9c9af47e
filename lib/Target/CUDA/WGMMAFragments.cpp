//===- WGMMAFragments.cpp - hopper-wgmma-fragments ------------------------===//
//
// Lowers kernels whose register fragments can all live in the wgmma
// accumulator layout (WGMMABuilder.h, "Row layout") to per-thread Hopper
// code: chains of gemms with elementwise code and row reductions between
// them, FlashAttention's online softmax being the model:
//
//   copy %Q[..] -> %Qs                      once: cp.async, wait, barrier
//   for %j in pipelined(lo, hi, stages = S) {
//     copy %K[.., %j * BN, 0] -> %Ks         ring of S stages, prefetched
//     gemm %Qs, %Ks -> %Sc {transpose_b = true, clear_accum = true}
//     for %i, %c in parallel(R, BN) { .. }   per-thread, on registers
//     reduce max %Sc -> %m {dim = 1}          thread partial + quad shuffles
//     copy %Sc -> %P                         per-thread conversion
//     copy %V[.., %j * BN, 0] -> %Vs
//     gemm %P, %Vs -> %Of                    wgmma with A in registers
//   }
//   copy %Of -> %O[..]                       guarded paired stores
//
// A kernel qualifies when its threads are whole warpgroups, it has a gemm,
// and every fragment is [R, C] or [R] for the rows R of the gemms'
// accumulators (64 per warpgroup and slice), used only by
//  - gemms: f16/bf16 A (whole shared tile, or whole fragment: registers)
//    times a whole shared B into an f32 accumulator fragment;
//  - clear and fill; copies between fragments of one shape; copies of a
//    2-D fragment out to memory;
//  - `reduce` of a 2-D fragment along dimension 1 into a 1-D one;
//  - parallel loops over (R, C) or (R) whose bodies are lets and stores to
//    fragments at exactly the loop's indices, reading fragments at those
//    indices, also as the only statements of an if whose condition reads
//    no fragment or tile (a mask only some key tiles need);
// and every shared tile the gemms read is filled by one copy from a
// contiguous global tensor, either once at the kernel's top level or once
// per iteration directly in one serial or pipelined loop (with source
// indices that depend only on the loop variable and values from outside
// the loop). Those loop tiles become rings of S stages: a prologue loads
// S - 1 iterations ahead (one cp.async group per tile), the first gemm to
// read a tile in an iteration waits for it, fences it into the async
// proxy, synchronizes the block and prefetches the tile S - 1 iterations
// ahead into the stage the previous iteration freed. When the loop's last
// statement is a second gemm (P * V), it is rotated behind the next
// iteration's first gemm so that it runs during the softmax.
//
// Where the kernel allows it (planWarpSpecialize), the tiles are instead
// filled by one more warpgroup, a producer: TMA boxes from one thread (or
// cp.async chunks from its 128 threads where the tensors are not 16-byte
// aligned) on full/empty mbarrier pairs, the kernel's own warpgroups
// waiting on full barriers and releasing stages per warp (no block
// barrier in the loop), both roles resizing their registers with
// setmaxnreg. Kernels that do not qualify are left untouched for the SIMT
// path (with `remarks`, a note says why).
//
//===----------------------------------------------------------------------===//

#include "MaskGuard.h"
#include "PersistentGrid.h"
#include "WGMMABuilder.h"
#include "WarpSpecializedGemm.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
#include "tile/Transforms/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tile;
using namespace tile::hopper;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

#define GET_TILE_PASS_DECLS
#include "CUDAPasses.inc"

namespace {

/// Shared memory a block may use for the tiles' stages (the H100/H200
/// opt-in limit per block).
constexpr int64_t MaxSharedBytes = 232448;

/// Shared memory a persistent kernel keeps free beside its tiles when it
/// double-buffers its once tiles: the mbarriers.
constexpr int64_t OnceBufferSlack = 1024;

/// Registers of the producer warpgroup beside one consumer warpgroup: its
/// cp.async path indexes tensors of up to rank 5 (ptxas spills at 40 for
/// a rank-3 one, and at 48 and 56 for grouped-query attention's rank-4 K
/// and V with the head index h / (H / HKV): 52 bytes at 48). Beside one
/// consumer the count costs the consumers nothing (consumerRegisters gives
/// them 240 for any producer count up to 256). Beside two, 40, so that the
/// consumers get 232.
constexpr int64_t AttentionProducerRegisters = 64;

struct FragInfo {
  /// 0 for a row vector [R]; else the columns of [R, C].
  int64_t Cols = 0;
  /// Column split of a 2-D fragment into instructions.
  int64_t NInst = 0, NI = 0;
  /// Locals per thread.
  int64_t Elems = 0;
};

struct TileInfo {
  SharedTile Layout;
  bool Planned = false;
  OpStmt *Copy = nullptr;
  /// The loop that fills it once per iteration, or null for a tile filled
  /// once.
  ForStmt *Loop = nullptr;
};

struct GemmInfo {
  WgmmaShape Shape;
  BufferValue *A = nullptr, *B = nullptr, *C = nullptr;
  /// A is a fragment (registers).
  bool ARegs = false;
  bool Zero = false;
};

/// The ring loop: its tiles in order of first use and stage count.
struct RingLoop {
  ForStmt *Loop = nullptr;
  int64_t Stages = 1;
  std::vector<BufferValue *> Tiles;
};

/// The pass's options for one function (CUDAPasses.td).
struct FragmentLoweringOptions {
  bool WarpSpecialize;
  bool Overlap;
  bool PingPong;
  /// Mask loops under an if of the tiles they can change (MaskGuard.h).
  bool GuardMasks;
  /// The sm_80 form (cuda-mma-fragments): per-warp mma.sync on the same
  /// layouts, cp.async rings only.
  bool MMA;
  /// Make a warp-specialized kernel persistent (planPersistent), also
  /// when its tiles differ in work; double-buffer its once tiles.
  bool Persistent, PersistentUneven, DoubleBufferOnce;
  /// Stage copies out to global memory through a spent operand tile
  /// (planStagedCopies).
  bool StageCopyOut;
};

class FragmentLowering : public WGMMABuilder {
public:
  FragmentLowering(Function &F, KernelStmt &K, const OpRegistry &Ops,
                   DiagnosticEngine &Diag, RemarkEmitter Remarks,
                   FragmentLoweringOptions Opts)
      : WGMMABuilder(F, Ops), K(K), Diag(Diag), Remarks(Remarks),
        Opts(Opts) {}

  /// False after an error; a kernel that does not qualify is left as it
  /// is.
  bool run() {
    std::string Why;
    if (!analyze(Why)) {
      if (!Why.empty())
        Remarks.missed(WhyLoc.isValid() ? WhyLoc : K.getLoc(),
                       "kernel's fragments not lowered to " + instr() + ": " + Why);
      return true;
    }
    if (!Ops.lookup(Opts.MMA ? "cuda.mma_sync" : "cuda.wgmma_mma_rs")) {
      Diag.error(K.getLoc(), std::string(Opts.MMA ? "cuda-mma-fragments"
                                                  : "hopper-wgmma-fragments") +
                                 " needs the cuda dialect, which is not registered");
      return false;
    }
    if (!K.getThreadIndex())
      K.setThreadIndex(std::make_unique<Value>(
          Value::Kind::ThreadIdx, Names.fresh("tx"), DType::I32, llvm::SMLoc()));
    Tid = K.getThreadIndex();
    for (const OpStmt *Op : GemmList) {
      const GemmInfo &G = GemmOf[Op];
      int64_t N = G.Shape.NInst * G.Shape.NI;
      std::string Shape = std::to_string(Rows) + "x" + std::to_string(N) + "x" +
                          std::to_string(G.Shape.BK);
      std::string From = G.ARegs ? "A from registers" : "A from shared memory";
      if (Opts.MMA)
        Remarks.passed(Op->getLoc(),
                       "gemm " + Shape + " lowered to mma.sync m16n8k16 on the "
                       "accumulator layout, each warp 16 rows of every 64-row "
                       "slice (" + From + ")");
      else
        Remarks.passed(Op->getLoc(), "gemm " + Shape + " lowered to wgmma m64n" +
                                         std::to_string(G.Shape.NInst) +
                                         "k16 on the accumulator layout (" + From + ")");
    }
    if (Opts.GuardMasks)
      guardMasks(K.getBodyMutable());
    if (WS)
      rewriteWarpSpecialized();
    else
      rewriteBlock(K.getBodyMutable(), nullptr);
    place();
    return true;
  }

private:
  /// Puts each mask loop over fragments in \p B and the loops it nests in
  /// (MaskGuard.h) under the condition of the tiles it can change, so that
  /// the others skip its compares and selects.
  void guardMasks(Block &B) {
    for (StmtPtr &S : B.Stmts) {
      auto *F = dyn_cast<ForStmt>(S.get());
      if (!F)
        continue;
      if (F->getLoopKind() != LoopKind::Parallel) {
        guardMasks(F->getBodyMutable());
        continue;
      }
      if (!ParallelCols.count(F))
        continue;
      std::string Why;
      ExprPtr Guard = maskGuard(*F, Why);
      if (!Guard) {
        if (!Why.empty())
          Remarks.missed(F->getLoc(), "mask evaluated on every tile: " + Why);
        continue;
      }
      Remarks.passed(F->getLoc(),
                     "mask evaluated only on tiles where its condition can be false");
      llvm::SMLoc Loc = F->getLoc();
      Block Then;
      Then.Stmts.push_back(std::move(S));
      S = std::make_unique<IfStmt>(std::move(Guard), std::move(Then), std::nullopt, Loc);
      GuardedParallel.insert(S.get());
    }
  }

  //===--- Analysis -------------------------------------------------------===//

  std::string instr() const { return Opts.MMA ? "mma.sync" : "wgmma"; }

  /// The fence that makes cp.async writes visible to wgmma's async proxy
  /// (none for mma.sync, whose ldmatrix reads in the generic proxy).
  void fenceProxy(Stmts &L) {
    if (!Opts.MMA)
      L.push_back(op("cuda.fence_proxy_async"));
  }

  bool fail(std::string &Why, std::string Msg, llvm::SMLoc Loc = {}) {
    Why = std::move(Msg);
    WhyLoc = Loc;
    return false;
  }

  FragInfo *frag(const BufferValue *B) {
    auto It = Frags.find(B);
    return It == Frags.end() ? nullptr : &It->second;
  }
  TileInfo *tile(const BufferValue *B) {
    auto It = Tiles.find(B);
    return It == Tiles.end() ? nullptr : &It->second;
  }
  static std::string name(const BufferValue *B) { return "%" + B->getName().str(); }

  bool analyze(std::string &Why) {
    HadThreadIndex = K.getThreadIndex() != nullptr;
    std::optional<int64_t> T = K.getThreads()->getConstInt();
    // Gemms first: without one there is nothing to do here.
    std::vector<OpStmt *> Gemms;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      if (auto *Op = dyn_cast<OpStmt>(&S); Op && Op->getName() == "gemm")
        Gemms.push_back(Op);
      if (auto *L = dyn_cast<LetStmt>(&S))
        LetInit[L->getVar()] = L->getInit();
    });
    if (Gemms.empty())
      return false;
    if (!T || *T <= 0 || *T % WarpgroupSize != 0)
      return fail(Why, "the kernel's threads are not whole warpgroups of 128");
    Threads = *T;
    int64_t WG = Threads / WarpgroupSize;
    // Fragments, all at the kernel's top level.
    bool OK = true;
    walkStmts(K.getBodyMutable(), [&](Stmt &S) {
      auto *A = dyn_cast<AllocStmt>(&S);
      if (!A || A->getBuffer()->getScope() != MemScope::Fragment)
        return;
      if (!topLevelAlloc(A->getBuffer()) || !A->getBuffer()->getConstShape() ||
          A->getBuffer()->getRank() > 2)
        OK = false;
      FragOrder.push_back(A->getBuffer());
    });
    if (!OK)
      return fail(Why, "a fragment is not a 1-D or 2-D buffer of constant "
                       "shape allocated at the kernel's top level");
    // The rows: those of the first gemm's accumulator.
    const BufferValue *C0 = Gemms.front()->getOperand("c").R.Buf;
    std::optional<std::vector<int64_t>> CS = C0->getConstShape();
    if (C0->getScope() != MemScope::Fragment || !CS || CS->size() != 2)
      return fail(Why, "the accumulator is not a 2-D fragment", Gemms.front()->getLoc());
    Rows = (*CS)[0];
    if (Rows % (InstM * WG) != 0)
      return fail(Why, "the accumulator's " + std::to_string(Rows) +
                           " rows are not a multiple of 64 per warpgroup (" +
                           std::to_string(WG) + " warpgroups)",
                  Gemms.front()->getLoc());
    MT = Rows / InstM / WG;
    for (BufferValue *B : FragOrder) {
      std::vector<int64_t> S = *B->getConstShape();
      FragInfo I;
      if (S[0] != Rows)
        return fail(Why, "fragment " + name(B) + " does not have the accumulator's " +
                             std::to_string(Rows) + " rows", B->getLoc());
      if (S.size() == 1) {
        I.Elems = 2 * MT;
      } else {
        I.Cols = S[1];
        auto Split = splitColumns(I.Cols);
        if (!Split)
          return fail(Why, "fragment " + name(B) + " has " + std::to_string(I.Cols) +
                               " columns, neither a multiple of 8 up to 256 nor "
                               "a multiple of 256",
                      B->getLoc());
        I.NInst = Split->first;
        I.NI = Split->second;
        I.Elems = MT * I.Cols / 2;
      }
      Frags[B] = I;
    }
    for (OpStmt *G : Gemms)
      if (!planGemm(*G, Why))
        return false;
    GemmList = Gemms;
    if (!classifyBlock(K.getBodyMutable(), nullptr, true, Why))
      return false;
    if (!checkTiles(Why))
      return false;
    planRotation();
    planWarpSpecialize();
    planPersistent();
    planPingPong();
    planDeferredSums();
    planStagedCopies();
    return true;
  }

  /// Uses of \p B in \p X: a statement (its nested ones included) or an
  /// expression.
  template <typename T> static unsigned countUses(const T &X, const BufferValue *B) {
    unsigned N = 0;
    forEachUse(X, [&](const Value *V) { N += V == B; });
    return N;
  }

  /// Row sums whose quad shuffles can wait until after the ring loop
  /// (FlashAttention's %rowsum): the lanes of a quad hold the same row
  /// fragments, so a running sum updated as %l[i] = %l[i] * a[i] + R[i]
  /// (a reading no 2-D fragment) is linear in R and each lane can carry
  /// its own partial of %l through the loop, the quad's partials being
  /// added once after it: two shuffles and two adds per row and iteration
  /// fewer in the loop, where the softmax is instruction-bound.
  void planDeferredSums() {
    if (!Ring.Loop)
      return;
    std::vector<StmtPtr> &Top = K.getBodyMutable().Stmts;
    std::optional<unsigned> LoopAt;
    for (unsigned I = 0; I != Top.size(); ++I)
      if (Top[I].get() == Ring.Loop)
        LoopAt = I;
    for (StmtPtr &S : Ring.Loop->getBodyMutable().Stmts) {
      auto *Red = dyn_cast<OpStmt>(S.get());
      if (!Red || Red->getName() != "reduce" ||
          Red->getAttrOrDefault("kind").getStr() != "sum" ||
          !frag(Red->getOperand("src").R.Buf))
        continue;
      BufferValue *R = Red->getOperand("dst").R.Buf;
      BufferValue *Acc = nullptr;
      std::string Why = LoopAt ? deferSum(*Red, *LoopAt, Acc)
                               : "the loop is not at the kernel's top level";
      if (!Why.empty()) {
        Remarks.missed(Red->getLoc(), "row sums of " + name(R) +
                                          " combined over each quad in every "
                                          "iteration: " + Why);
        continue;
      }
      DeferredSums.insert(Red);
      DeferredAcc.push_back({Acc, Red->getLoc()});
      Remarks.passed(Red->getLoc(), "row sums of " + name(R) + " kept per lane in " +
                                        name(Acc) + " through the loop, combined "
                                        "over each quad once after it");
    }
  }

  /// Empty when the sums reduce \p Red makes can be deferred (into the
  /// running sum \p Acc); else why not.
  std::string deferSum(OpStmt &Red, unsigned LoopAt, BufferValue *&Acc) {
    BufferValue *R = Red.getOperand("dst").R.Buf;
    if (!Red.getAttrOrDefault("clear").getBool())
      return "the reduce adds to " + name(R) + " (clear = false)";
    if (HadThreadIndex)
      return "the kernel binds its own thread index";
    std::vector<StmtPtr> &Top = K.getBodyMutable().Stmts;
    unsigned RUses = 0;
    for (StmtPtr &S : Top)
      RUses += countUses(*S, R);
    StoreStmt *Upd = nullptr;
    walkStmts(Ring.Loop->getBodyMutable(), [&](Stmt &S) {
      if (auto *St = dyn_cast<StoreStmt>(&S); St && countUses(*St->getValue(), R))
        Upd = St;
    });
    std::string NotRunning = name(R) + " is read other than once, as a term of a "
                                       "running sum %l[i] = %l[i] * a[i] + " +
                             name(R) + "[i]";
    if (RUses != 2 || !Upd)
      return NotRunning;
    Acc = Upd->getBuffer();
    const FragInfo *AF = frag(Acc);
    if (!AF || AF->Cols || Acc == R)
      return NotRunning;
    // Value: X + R[i] or R[i] + X, X being %l[i] or %l[i] times a factor.
    const auto *Sum = dyn_cast<BinaryExpr>(Upd->getValue());
    if (!Sum || Sum->getOp() != BinaryOp::Add)
      return NotRunning;
    auto IsLoadOf = [](const Expr *E, const BufferValue *B) {
      const auto *L = dyn_cast<LoadExpr>(E);
      return L && L->getBuffer() == B;
    };
    const Expr *X = IsLoadOf(Sum->getRHS(), R)   ? Sum->getLHS()
                    : IsLoadOf(Sum->getLHS(), R) ? Sum->getRHS()
                                                 : nullptr;
    if (!X)
      return NotRunning;
    if (!IsLoadOf(X, Acc)) {
      const auto *Prod = dyn_cast<BinaryExpr>(X);
      if (!Prod || Prod->getOp() != BinaryOp::Mul)
        return NotRunning;
      const Expr *Factor = IsLoadOf(Prod->getLHS(), Acc)   ? Prod->getRHS()
                           : IsLoadOf(Prod->getRHS(), Acc) ? Prod->getLHS()
                                                           : nullptr;
      if (!Factor)
        return NotRunning;
      // The factor must be the same in the quad's four lanes.
      bool Uniform = true;
      forEachUse(*Factor, [&](const Value *V) {
        const auto *B = dyn_cast<BufferValue>(V);
        if (B == R || B == Acc || (B && frag(B) && frag(B)->Cols))
          Uniform = false;
      });
      if (!Uniform)
        return "the factor of " + name(Acc) + "'s update reads a 2-D fragment, " +
               name(Acc) + " or " + name(R);
    }
    // %l: cleared before the loop, read and written in it only by the
    // update, anything after it (which the quad's combined sum precedes).
    if (countUses(*Ring.Loop, Acc) != 2 || countUses(*Upd->getValue(), Acc) != 1)
      return name(Acc) + " is read or written in the loop other than by its update";
    bool Cleared = false;
    for (unsigned I = 0; I != LoopAt; ++I) {
      if (!countUses(*Top[I], Acc))
        continue;
      auto *Op = dyn_cast<OpStmt>(Top[I].get());
      if (!Op || Op->getName() != "clear")
        return name(Acc) + " is used before the loop other than by a clear";
      Cleared = true;
    }
    if (!Cleared)
      return name(Acc) + " is not cleared before the loop";
    return "";
  }

  /// Whether a top-level or ring-loop statement is one this pass lowers
  /// (or a let), so that it can move into the consumer warpgroups.
  bool lowered(const Stmt &S) {
    if (isa<LetStmt>(&S) || isa<AllocStmt>(&S))
      return true;
    if (const auto *F = dyn_cast<ForStmt>(&S))
      return ParallelCols.count(F) || F == Ring.Loop;
    if (isa<IfStmt>(&S))
      return GuardedParallel.count(&S);
    const auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op)
      return false;
    llvm::StringRef N = Op->getName();
    if (N == "gemm")
      return true;
    if (N == "clear" || N == "fill")
      return frag(Op->getOperand("dst").R.Buf);
    if (N == "reduce")
      return frag(Op->getOperand("src").R.Buf);
    if (N == "copy")
      return tile(Op->getOperand("dst").R.Buf) ||
             (frag(Op->getOperand("src").R.Buf) && frag(Op->getOperand("dst").R.Buf)) ||
             CopyDims.count(Op);
    return false;
  }

  /// The warp-specialized form (rewriteWarpSpecialized) when the kernel
  /// allows it: a pipelined ring loop at the top level whose tiles each
  /// feed one gemm, every tile copied from a contiguous tensor TMA can
  /// take, nothing at the top level or in the loop but what this pass
  /// lowers, no thread index of the kernel's own, at most three
  /// warpgroups. `pass.warp_specialize = false` keeps the cp.async rings.
  void planWarpSpecialize() {
    // Off by option or attribute, or the sm_80 form: nothing to say.
    if (!Ring.Loop || !Opts.WarpSpecialize || Opts.MMA)
      return;
    std::string Why = whyNotWarpSpecialized();
    if (Why.empty()) {
      WS = true;
      return;
    }
    Remarks.missed(Ring.Loop->getLoc(),
                   "no producer warpgroup, every thread fills the tiles' "
                   "cp.async rings: " + Why);
  }

  /// A warp-specialized kernel becomes persistent (rewriteWarpSpecialized):
  /// its grid the count of its tiles, as many blocks launched as the
  /// device runs at once (host code asks the runtime), each looping over
  /// the tiles blockIdx.x, + gridDim.x, ... The producer then runs ahead
  /// into the next tile's once tiles (which get an empty barrier, released
  /// after the last gemm that reads them) and ring while the consumers
  /// finish the current tile and store it; the ring's stages and phases
  /// run on across tiles. A kernel whose ring loop's trip count depends on
  /// a block index (causal attention) stays a block per tile unless
  /// `pass.persistent_uneven = true`; then, where the trip count grows
  /// with one block index, the tiles are taken with that index slowest and
  /// descending, the longest first. Without `pass.persistent = true` (off
  /// by default: measured on an H100 it is no faster, docs/Performance.md)
  /// a block per tile.
  void planPersistent() {
    if (!WS)
      return;
    if (!Opts.Persistent) {
      Remarks.missed(K.getLoc(), "a block per tile, not persistent: "
                                 "pass.persistent is false (the default: "
                                 "measured on an H100 it was no faster; "
                                 "pass.persistent = true makes it "
                                 "persistent)");
      return;
    }
    std::vector<const Value *> Blocks;
    for (const auto &B : K.getBlockIndices())
      Blocks.push_back(B.get());
    const LoopDim &D = Ring.Loop->getDims()[0];
    Order = chooseTileOrder(D.Lo.get(), D.Hi.get(), Blocks, LetInit);
    if (Order.Uneven && !Opts.PersistentUneven) {
      // A fixed share of tiles per block cannot balance tiles of different
      // work: the hardware's block scheduler does, and keeps the launch
      // order's L2 reuse (the blocks of one head together); a static order
      // that balances them (longest first) runs every head at once.
      Remarks.missed(K.getLoc(),
                     "a block per tile, not persistent: the tiles differ in "
                     "work (the ring loop's trip count depends on a block "
                     "index), which the hardware's block scheduler balances; "
                     "pass.persistent_uneven = true makes it persistent, "
                     "tiles taken longest first");
      return;
    }
    Persist = true;
    // Two buffers of each once tile where shared memory holds them: the
    // producer then loads the next tile's Q while the consumers still
    // read the current one's.
    int64_t Bytes = 0, Once = 0;
    for (BufferValue *B : TileOrder) {
      const TileInfo &T = Tiles[B];
      Bytes += T.Layout.StageBytes * (T.Loop ? Ring.Stages : 1);
      Once += T.Loop ? 0 : T.Layout.StageBytes;
    }
    if (Opts.DoubleBufferOnce && Once && Bytes + Once <= MaxSharedBytes - OnceBufferSlack)
      OnceStages = 2;
    std::string How =
        Order.Descending < 0
            ? "in launch order"
            : "with %" + Blocks[Order.Descending]->getName().str() +
                  " slowest and descending (the ring loop's trip count grows "
                  "with it: the longest tiles first)";
    Remarks.analysis(K.getLoc(),
                     "persistent kernel: as many blocks as the device runs at "
                     "once, each looping over the grid's " +
                         std::to_string(K.getGrid().size()) +
                         "-D tiles taken " + How +
                         (OnceStages > 1 ? "; the tiles filled once per tile are "
                                           "double-buffered"
                                         : "") +
                         "; the producer warpgroup loads the next tile's "
                         "operands while the consumers finish the current one");
  }

  /// Empty when the kernel can be warp-specialized; else why not.
  std::string whyNotWarpSpecialized() {
    if (Ring.Stages < 2)
      return "the ring loop is not pipelined (stages < 2)";
    if (HadThreadIndex)
      return "the kernel binds its own thread index";
    if (Threads / WarpgroupSize > 3)
      return "a producer warpgroup needs 1 to 3 consumer warpgroups, not " +
             std::to_string(Threads / WarpgroupSize);
    bool AtTop = false;
    for (StmtPtr &S : K.getBodyMutable().Stmts) {
      AtTop |= S.get() == Ring.Loop;
      if (!lowered(*S))
        return "the kernel's top level holds a statement this pass does not "
               "lower";
    }
    if (!AtTop)
      return "the ring loop is not at the kernel's top level";
    for (StmtPtr &S : Ring.Loop->getBodyMutable().Stmts)
      if (!lowered(*S))
        return "the ring loop holds a statement this pass does not lower";
    for (BufferValue *B : TileOrder) {
      const TileInfo &T = Tiles[B];
      const BufferValue *G = T.Copy->getOperand("src").R.Buf;
      if (G->getRank() > 5 || !G->getStrides().empty())
        return name(B) + " is copied from a tensor of rank above 5 or with "
                         "strides, which TMA does not take";
      if (T.Layout.Rows > MaxTmaBoxRows && T.Layout.Rows % MaxTmaBoxRows != 0)
        return name(B) + "'s " + std::to_string(T.Layout.Rows) +
               " rows do not split into TMA boxes of " +
               std::to_string(MaxTmaBoxRows);
      if (!T.Loop)
        continue;
      unsigned Readers = 0;
      for (auto &[Op, Gm] : GemmOf)
        Readers += (Gm.B == B) + (!Gm.ARegs && Gm.A == B);
      if (Readers != 1)
        return "the ring tile " + name(B) + " feeds " + std::to_string(Readers) +
               " gemms, not one";
    }
    return "";
  }

  /// Rotates the ring loop's last statement, a gemm G2, into the next
  /// iteration behind its first gemm G1 (see rewriteRotatedBody) when that
  /// keeps every dependence: the loop pipelines (S >= 2); G1 and G2 share
  /// no register operand; G2's ring tiles are its own; nothing before G1
  /// in the body touches G2's registers. The function attribute
  /// `pass.wgmma_overlap = false` turns it off.
  void planRotation() {
    if (!Ring.Loop || Ring.Stages < 2)
      return;
    if (!Opts.Overlap || Opts.MMA)
      return;
    std::vector<StmtPtr> &Body = Ring.Loop->getBodyMutable().Stmts;
    auto *Last = dyn_cast<OpStmt>(Body.back().get());
    if (!Last || !GemmOf.count(Last))
      return;
    OpStmt *First = nullptr;
    unsigned FirstIdx = 0;
    for (unsigned I = 0; I != Body.size() && !First; ++I)
      if (auto *Op = dyn_cast<OpStmt>(Body[I].get()); Op && GemmOf.count(Op)) {
        First = Op;
        FirstIdx = I;
      }
    if (First == Last)
      return;
    const GemmInfo &G1 = GemmOf[First], &G2 = GemmOf[Last];
    if (G1.C == G2.C || (G2.ARegs && G2.A == G1.C) || (G1.ARegs && G1.A == G2.C))
      return;
    for (unsigned I = 0; I != FirstIdx; ++I)
      if (touches(*Body[I], G2))
        return;
    for (BufferValue *B : {G2.ARegs ? nullptr : G2.A, G2.B}) {
      if (!B || !Tiles[B].Loop)
        continue;
      for (auto &[Op, G] : GemmOf)
        if (Op != Last && (G.B == B || (!G.ARegs && G.A == B)))
          return;
    }
    Rot.First = First;
    Rot.Last = Last;
  }

  /// Two consumer warpgroups of the warp-specialized, rotated form take
  /// turns at issuing their gemms (rewriteRotatedBody): the softmax of one
  /// runs while the tensor cores work on the other's gemms, instead of the
  /// two contending for the tensor cores and then both leaving them idle.
  /// Off unless `pass.warpgroup_pingpong = true`: on the H200 the 128-row
  /// FlashAttention ran 6 % slower with it, causal the same
  /// (docs/Performance.md).
  void planPingPong() {
    if (!WS || !Rot.Last || Threads != 2 * WarpgroupSize)
      return;
    PingPong = Opts.PingPong;
  }

  /// Copies of a fragment out to global memory go through shared memory
  /// (WGMMABuilder::lowerStagedCopyOut: 16-byte stores of whole lines
  /// instead of 4-byte pairs, half of each 32-byte sector) where a tile
  /// can hold them without more shared memory: a tile filled once, read
  /// only as gemms' A operand (so each warpgroup reads only its own rows),
  /// K-major, of the fragment's shape and the copy's element type, every
  /// gemm that reads it before the copy (in a persistent kernel the tile's
  /// buffer of this tile round, released to the producer only after the
  /// copy). One copy per tile; the others, and copies with no such tile,
  /// store pairs, with a missed remark.
  void planStagedCopies() {
    if (!Opts.StageCopyOut)
      return;
    Block &Top = K.getBodyMutable();
    llvm::DenseSet<const BufferValue *> Used;
    for (OpStmt *Op : CopyOrder) {
      BufferValue *Src = Op->getOperand("src").R.Buf;
      const Region &Dst = Op->getOperand("dst").R;
      const FragInfo &F = *frag(Src);
      if (Dst.Buf->getScope() != MemScope::Global)
        continue;
      std::optional<unsigned> At = topIndex(Top, Op);
      std::string Why = At ? whyNotStaged(*Op, CopyDims.lookup(Op).second, F.Cols)
                           : "the copy is not at the kernel's top level";
      BufferValue *Pick = nullptr;
      std::string TileWhy;
      if (Why.empty()) {
        for (BufferValue *B : TileOrder) {
          const TileInfo &T = Tiles[B];
          std::string W;
          if (T.Loop)
            W = "is filled in the loop";
          else if (Used.count(B))
            W = "already stages a copy";
          else if (B->getDType() != Dst.Buf->getDType())
            W = "is not of the copy's element type";
          else if (T.Layout.MNMajor || T.Layout.Rows != Rows || T.Layout.Contig != F.Cols)
            W = "is not a K-major tile of the fragment's shape";
          for (OpStmt *G : GemmList) {
            if (!W.empty())
              break;
            const GemmInfo &GI = GemmOf[G];
            if (GI.B == B)
              W = "is a gemm's B operand (read by every warpgroup)";
            else if (!GI.ARegs && GI.A == B) {
              const Stmt *Home = GemmLoop.lookup(G) ? static_cast<Stmt *>(GemmLoop.lookup(G))
                                                    : static_cast<Stmt *>(G);
              std::optional<unsigned> GAt = topIndex(Top, Home);
              if (!GAt || *GAt >= *At)
                W = "is read by a gemm after the copy";
            }
          }
          if (W.empty()) {
            Pick = B;
            break;
          }
          if (TileWhy.empty())
            TileWhy = name(B) + " " + W;
        }
        if (!Pick)
          Why = TileOrder.empty() ? "no shared tile"
                                  : "no shared tile can hold it (" + TileWhy + ")";
      }
      if (!Pick) {
        Remarks.missed(Op->getLoc(), "copy out of " + name(Src) +
                                         " stores 4-byte pairs, not staged through "
                                         "shared memory: " + Why);
        continue;
      }
      Used.insert(Pick);
      StagedThrough[Op] = Pick;
      Remarks.passed(Op->getLoc(),
                     "copy out of " + name(Src) + " staged through " + name(Pick) +
                         ": 16-byte stores of whole rows where the tensor allows");
    }
  }

  /// \p Name (cuda.bar_sync or cuda.bar_arrive) on the ping-pong's named
  /// barrier \p Id, of both consumer warpgroups: barrier 1 + W is consumer
  /// warpgroup W's turn (barrier 0 is the block barrier).
  StmtPtr turnBarrier(llvm::StringRef Name, ExprPtr Id) {
    AttributeList A;
    A.set("threads", Attribute::getInt(2 * WarpgroupSize));
    std::vector<OpOperand> Operands;
    Operands.push_back(exprOperand(std::move(Id)));
    return op(Name, std::move(Operands), std::move(A));
  }
  ExprPtr consumerWarpgroup() { return div(ref(Tid), WarpgroupSize); }

  AllocStmt *topLevelAlloc(const BufferValue *B) {
    for (StmtPtr &S : K.getBodyMutable().Stmts)
      if (auto *A = dyn_cast<AllocStmt>(S.get()); A && A->getBuffer() == B)
        return A;
    return nullptr;
  }

  bool planTile(BufferValue *B, bool MNMajor, OpStmt &G, std::string &Why) {
    if (!topLevelAlloc(B))
      return fail(Why, name(B) + " is not allocated at the kernel's top level",
                  G.getLoc());
    TileInfo &I = Tiles[B];
    if (I.Planned) {
      if (I.Layout.MNMajor != MNMajor)
        return fail(Why, name(B) + " is read both K-major and MN-major", G.getLoc());
      return true;
    }
    if (!planSharedTile(I.Layout, B, MNMajor, Why)) {
      WhyLoc = G.getLoc();
      return false;
    }
    I.Planned = true;
    TileOrder.push_back(B);
    return true;
  }

  bool planGemm(OpStmt &Op, std::string &Why) {
    const Region &A = Op.getOperand("a").R, &B = Op.getOperand("b").R,
                 &C = Op.getOperand("c").R;
    llvm::SMLoc Loc = Op.getLoc();
    bool TA = Op.getAttrOrDefault("transpose_a").getBool();
    bool TB = Op.getAttrOrDefault("transpose_b").getBool();
    DType DA = A.Buf->getDType(), DB = B.Buf->getDType(), DC = C.Buf->getDType();
    if (DA != DB || (DA != DType::F16 && DA != DType::BF16) || DC != DType::F32)
      return fail(Why, instr() + " here takes f16 or bf16 A and B with an f32 "
                       "accumulator, not " + getDTypeName(DA).str() + " x " +
                           getDTypeName(DB).str() + " -> " + getDTypeName(DC).str(),
                  Loc);
    if (!A.isWholeBuffer() || !B.isWholeBuffer() || !C.isWholeBuffer())
      return fail(Why, "a gemm operand is part of a buffer", Loc);
    FragInfo *FC = frag(C.Buf);
    if (!FC || !FC->Cols)
      return fail(Why, "the accumulator " + name(C.Buf) + " is not a 2-D fragment", Loc);
    if (B.Buf->getScope() != MemScope::Shared)
      return fail(Why, "B is not in shared memory", Loc);
    GemmInfo G;
    G.A = A.Buf;
    G.B = B.Buf;
    G.C = C.Buf;
    G.Zero = Op.getAttrOrDefault("clear_accum").getBool();
    G.Shape.Ty = DA;
    G.Shape.MT = MT;
    G.Shape.NInst = FC->NInst;
    G.Shape.NI = FC->NI;
    std::optional<std::vector<int64_t>> SB = B.Buf->getConstShape();
    if (!SB || SB->size() != 2)
      return fail(Why, "B is not a 2-D tile of constant shape", Loc);
    int64_t BK = TB ? (*SB)[1] : (*SB)[0], BN = TB ? (*SB)[0] : (*SB)[1];
    if (FragInfo *FA = frag(A.Buf)) {
      if (!FA->Cols || TA)
        return fail(Why, "a fragment A must be 2-D and not transposed", Loc);
      if (FA->Cols % InstK != 0)
        return fail(Why, "the fragment A " + name(A.Buf) + " has " +
                             std::to_string(FA->Cols) +
                             " columns, not a multiple of 16",
                    Loc);
      G.ARegs = true;
      G.Shape.BK = FA->Cols;
    } else if (A.Buf->getScope() == MemScope::Shared) {
      std::optional<std::vector<int64_t>> SA = A.Buf->getConstShape();
      if (!SA || SA->size() != 2)
        return fail(Why, "A is not a 2-D tile of constant shape", Loc);
      int64_t AM = TA ? (*SA)[1] : (*SA)[0];
      G.Shape.BK = TA ? (*SA)[0] : (*SA)[1];
      if (AM != Rows)
        return fail(Why, "the shapes of A, B and C do not agree", Loc);
      if (!planTile(A.Buf, TA, Op, Why))
        return false;
    } else {
      return fail(Why, "A is neither a fragment nor in shared memory", Loc);
    }
    if (BK != G.Shape.BK || BN != FC->Cols)
      return fail(Why, "the shapes of A, B and C do not agree", Loc);
    if (G.Shape.BK % InstK != 0)
      return fail(Why, "K = " + std::to_string(G.Shape.BK) + " is not a multiple of 16",
                  Loc);
    if (A.Buf == B.Buf)
      return fail(Why, "A and B are one buffer", Loc);
    if (!planTile(B.Buf, !TB, Op, Why))
      return false;
    const SharedTile &BL = Tiles[B.Buf].Layout;
    int64_t E = getDTypeBits(DA) / 8;
    if (BL.MNMajor && (G.Shape.NInst * E) % BL.Swizzle != 0)
      return fail(Why, "N per instruction does not cover whole swizzle blocks of B",
                  Loc);
    // mma.sync reads B with ldmatrix.x4 two n8 tiles at a time.
    if (Opts.MMA && G.Shape.NInst % 16 != 0)
      return fail(Why, "the accumulator " + name(C.Buf) + " has " +
                           std::to_string(FC->Cols) +
                           " columns, not a multiple of 16 (ldmatrix.x4 reads B two "
                           "n8 tiles at a time)",
                  Loc);
    GemmOf[&Op] = G;
    return true;
  }

  /// Fragment loads in \p E: each must be at exactly \p Idx (the parallel
  /// loop's variables, the row one alone for a 1-D fragment); \p Cols is
  /// the loop's column extent (0 for a 1-D loop).
  bool checkLoads(const Expr &E, llvm::ArrayRef<const Value *> Idx, int64_t Cols) {
    bool OK = true;
    std::function<void(const Expr &)> Visit = [&](const Expr &X) {
      if (const auto *L = dyn_cast<LoadExpr>(&X)) {
        if (const FragInfo *F = frag(L->getBuffer()))
          OK &= indexedBy(L->getIndices(), *F, Idx, Cols);
        else if (L->getBuffer()->getScope() != MemScope::Global)
          OK = false;
      }
      forEachChild(X, Visit);
    };
    Visit(E);
    return OK;
  }

  bool indexedBy(llvm::ArrayRef<ExprPtr> Indices, const FragInfo &F,
                 llvm::ArrayRef<const Value *> Idx, int64_t Cols) {
    unsigned Rank = F.Cols ? 2 : 1;
    if (Indices.size() != Rank || (Rank == 2 && F.Cols != Cols))
      return false;
    for (unsigned D = 0; D != Rank; ++D) {
      const auto *R = dyn_cast<RefExpr>(Indices[D].get());
      if (!R || R->getValue() != Idx[D])
        return false;
    }
    return true;
  }

  bool touchesBuffers(Stmt &S) {
    bool Found = false;
    auto Note = [&](const Value *V) {
      if (const auto *B = dyn_cast<BufferValue>(V))
        Found |= frag(B) || tile(B);
    };
    forEachDirectUse(S, Note);
    return Found;
  }

  bool classifyParallel(ForStmt &L, std::string &Why) {
    llvm::ArrayRef<LoopDim> Dims = L.getDims();
    auto Bad = [&](const std::string &Msg) { return fail(Why, Msg, L.getLoc()); };
    bool Touches = false;
    walkStmts(L.getBodyMutable(), [&](Stmt &S) { Touches |= touchesBuffers(S); });
    forEachExprSlot(L, [&](ExprPtr &E) {
      forEachUse(*E, [&](const Value *V) {
        if (const auto *B = dyn_cast<BufferValue>(V))
          Touches |= frag(B) || tile(B);
      });
    });
    if (!Touches)
      return true;
    if (Dims.size() > 2 || L.getStep())
      return Bad("a parallel loop over fragments has more than two dimensions");
    std::optional<int64_t> R = Dims[0].Hi->getConstInt();
    int64_t Cols = 0;
    if (Dims.size() == 2) {
      std::optional<int64_t> C = Dims[1].Hi->getConstInt();
      if (!C || !splitColumns(*C))
        return Bad("a parallel loop's column extent fits no fragment layout");
      Cols = *C;
    }
    if (!R || *R != Rows)
      return Bad("a parallel loop over fragments does not range over the " +
                 std::to_string(Rows) + " rows");
    std::vector<const Value *> Idx;
    for (const LoopDim &D : Dims)
      Idx.push_back(D.Var.get());
    for (StmtPtr &S : L.getBodyMutable().Stmts) {
      if (auto *Let = dyn_cast<LetStmt>(S.get())) {
        if (!checkLoads(*Let->getInit(), Idx, Cols))
          return Bad("a parallel loop reads a fragment at other indices than "
                     "its own, or reads shared memory");
        continue;
      }
      auto *St = dyn_cast<StoreStmt>(S.get());
      if (!St)
        return Bad("a parallel loop over fragments holds more than lets and stores");
      const FragInfo *F = frag(St->getBuffer());
      if (!F || (F->Cols ? 2u : 1u) != Dims.size() ||
          !indexedBy(St->getIndices(), *F, Idx, Cols))
        return Bad("a parallel loop stores other than to a fragment at its indices");
      if (!checkLoads(*St->getValue(), Idx, Cols))
        return Bad("a parallel loop reads a fragment at other indices than "
                   "its own, or reads shared memory");
    }
    ParallelCols[&L] = Cols;
    return true;
  }

  /// Classifies the statements of \p B (in loop \p Loop, \p Top when \p B
  /// is the kernel's body).
  bool classifyBlock(Block &B, ForStmt *Loop, bool Top, std::string &Why) {
    for (unsigned I = 0; I != B.Stmts.size(); ++I) {
      Stmt &S = *B.Stmts[I];
      if (auto *F = dyn_cast<ForStmt>(&S)) {
        if (F->getLoopKind() == LoopKind::Parallel) {
          if (!classifyParallel(*F, Why))
            return false;
          continue;
        }
        bool Touches = false;
        forEachExprSlot(*F, [&](ExprPtr &E) {
          forEachUse(*E, [&](const Value *V) {
            if (const auto *Bf = dyn_cast<BufferValue>(V))
              Touches |= frag(Bf) || tile(Bf);
          });
        });
        if (Touches)
          return fail(Why, "a loop bound reads a fragment or shared tile", F->getLoc());
        // Block-level code only under block-level loops.
        bool Sequential = F->getLoopKind() == LoopKind::Serial ||
                          F->getLoopKind() == LoopKind::Pipelined;
        if (!Sequential || F->getDims().size() != 1 || F->getStep()) {
          bool Inner = false;
          walkStmts(F->getBodyMutable(), [&](Stmt &X) { Inner |= touchesBuffers(X); });
          if (Inner)
            return fail(Why, "fragments are used inside a loop that is not a "
                             "one-dimensional serial or pipelined loop",
                        F->getLoc());
          continue;
        }
        if (!classifyBlock(F->getBodyMutable(), F, false, Why))
          return false;
        continue;
      }
      if (auto *Op = dyn_cast<OpStmt>(&S)) {
        if (!classifyOp(*Op, Loop, Top, Why))
          return false;
        continue;
      }
      if (isa<AllocStmt>(&S))
        continue;
      if (isa<IfStmt>(&S) && !touchesBuffers(S)) {
        // Parallel loops under a condition of block-level values (a mask
        // only the last tiles need): each branch holds parallel loops.
        bool OnlyParallel = true;
        for (Block *N : getNestedBlocks(S))
          for (StmtPtr &X : N->Stmts) {
            auto *F = dyn_cast<ForStmt>(X.get());
            OnlyParallel &= F && F->getLoopKind() == LoopKind::Parallel;
          }
        if (OnlyParallel) {
          for (Block *N : getNestedBlocks(S))
            for (StmtPtr &X : N->Stmts)
              if (!classifyParallel(*cast<ForStmt>(X.get()), Why))
                return false;
          GuardedParallel.insert(&S);
          continue;
        }
      }
      if (touchesBuffers(S))
        return fail(Why, "a statement other than the tile ops and parallel "
                         "loops reads or writes a fragment or shared tile",
                    S.getLoc());
      // Anything nested (an if) must not touch them either.
      bool Inner = false;
      for (Block *N : getNestedBlocks(S))
        walkStmts(*N, [&](Stmt &X) { Inner |= touchesBuffers(X); });
      if (Inner)
        return fail(Why, "fragments or shared tiles are used under an if", S.getLoc());
    }
    return true;
  }

  bool classifyOp(OpStmt &Op, ForStmt *Loop, bool Top, std::string &Why) {
    llvm::StringRef N = Op.getName();
    llvm::SMLoc Loc = Op.getLoc();
    if (N == "gemm") {
      // Recorded by planGemm; it must be block-level code.
      GemmLoop[&Op] = Loop;
      return true;
    }
    if (!touchesBuffers(Op))
      return true;
    auto Whole = [&](const char *Name) { return Op.getOperand(Name).R.isWholeBuffer(); };
    if (N == "clear" || N == "fill") {
      if (!frag(Op.getOperand("dst").R.Buf) || !Whole("dst"))
        return fail(Why, "'" + N.str() + "' of part of a fragment", Loc);
      return true;
    }
    if (N == "reduce") {
      const FragInfo *Src = frag(Op.getOperand("src").R.Buf);
      const FragInfo *Dst = frag(Op.getOperand("dst").R.Buf);
      if (!Src || !Dst || !Src->Cols || Dst->Cols || !Whole("src") || !Whole("dst") ||
          Op.getAttrOrDefault("dim").getInt() != 1)
        return fail(Why, "a reduce other than of a whole 2-D fragment along "
                         "dimension 1 into a whole row fragment",
                    Loc);
      if (getDTypeBits(Op.getOperand("dst").R.Buf->getDType()) > 32)
        return fail(Why, "a reduce into a type wider than 32 bits", Loc);
      return true;
    }
    if (N != "copy")
      return fail(Why, "'" + N.str() + "' on a fragment or shared tile", Loc);
    const Region &Src = Op.getOperand("src").R, &Dst = Op.getOperand("dst").R;
    if (TileInfo *T = tile(Dst.Buf)) {
      if (T->Copy)
        return fail(Why, "more than one copy fills " + name(Dst.Buf), Loc);
      if (!checkTileCopy(Op, *Dst.Buf, LetInit, Why)) {
        WhyLoc = Loc;
        return false;
      }
      if (!Top && !Loop)
        return fail(Why, "the copy into " + name(Dst.Buf) + " is nested", Loc);
      T->Copy = &Op;
      T->Loop = Loop;
      return true;
    }
    if (tile(Src.Buf))
      return fail(Why, "a copy out of the shared tile " + name(Src.Buf), Loc);
    const FragInfo *FS = frag(Src.Buf), *FD = frag(Dst.Buf);
    if (FS && FD) {
      if (!Whole("src") || !Whole("dst") || FS->Cols != FD->Cols)
        return fail(Why, "a copy between fragments of different shapes", Loc);
      return true;
    }
    if (FS && FS->Cols && Whole("src") && Dst.Buf->getScope() != MemScope::Fragment) {
      std::optional<std::pair<unsigned, unsigned>> Dims = getAccumulatorCopyDims(Op);
      if (!Dims)
        return fail(Why, "a copy out of " + name(Src.Buf) +
                             " into a region of another shape",
                    Loc);
      CopyDims[&Op] = *Dims;
      CopyOrder.push_back(&Op);
      return true;
    }
    return fail(Why, "a copy into a fragment from memory, or of a row fragment", Loc);
  }

  /// Values defined inside \p L (its variable excluded).
  static llvm::DenseSet<const Value *> definedIn(ForStmt &L) {
    llvm::DenseSet<const Value *> Out;
    walkStmts(L.getBodyMutable(), [&](Stmt &S) {
      if (auto *Let = dyn_cast<LetStmt>(&S))
        Out.insert(Let->getVar());
      if (auto *F = dyn_cast<ForStmt>(&S))
        for (const LoopDim &D : F->getDims())
          Out.insert(D.Var.get());
    });
    return Out;
  }

  /// Index of the top-level statement of \p B containing \p S.
  static std::optional<unsigned> topIndex(Block &B, const Stmt *S) {
    for (unsigned I = 0; I != B.Stmts.size(); ++I) {
      bool Found = B.Stmts[I].get() == S;
      for (Block *N : getNestedBlocks(*B.Stmts[I]))
        walkStmts(*N, [&](Stmt &X) { Found |= &X == S; });
      if (Found)
        return I;
    }
    return std::nullopt;
  }

  bool checkTiles(std::string &Why) {
    int64_t Bytes = 0;
    for (BufferValue *B : TileOrder) {
      TileInfo &T = Tiles[B];
      if (!T.Copy)
        return fail(Why, "no copy from global memory fills " + name(B), B->getLoc());
      int64_t Uses = 0;
      walkStmts(K.getBodyMutable(), [&](Stmt &S) {
        forEachExprSlot(S, [&](ExprPtr &E) {
          forEachUse(*E, [&](const Value *V) { Uses += V == B; });
        });
      });
      if (Uses)
        return fail(Why, name(B) + " is read outside the gemms", B->getLoc());
      if (!T.Loop)
        continue;
      if (Ring.Loop && Ring.Loop != T.Loop)
        return fail(Why, "tiles are filled in two different loops", T.Copy->getLoc());
      Ring.Loop = T.Loop;
    }
    // Gemms come after the copies of their tiles, in the same block.
    for (auto &[Op, G] : GemmOf) {
      ForStmt *L = GemmLoop.lookup(Op);
      for (BufferValue *B : {G.ARegs ? nullptr : G.A, G.B}) {
        if (!B)
          continue;
        TileInfo &T = Tiles[B];
        Block &Home = T.Loop ? T.Loop->getBodyMutable() : K.getBodyMutable();
        if (T.Loop && L != T.Loop)
          return fail(Why, "a gemm reads " + name(B) +
                               " outside the loop that fills it",
                      Op->getLoc());
        std::optional<unsigned> CI = topIndex(Home, T.Copy), GI = topIndex(Home, Op);
        if (!CI || !GI || *GI <= *CI || (T.Loop && Home.Stmts[*GI].get() != Op))
          return fail(Why, "a gemm reading " + name(B) +
                               " does not follow its copy in the same block",
                      Op->getLoc());
      }
    }
    if (Ring.Loop) {
      ForStmt &L = *Ring.Loop;
      if (L.getLoopKind() == LoopKind::Pipelined) {
        Ring.Stages = 2;
        if (const Attribute *S = L.getAttrs().get("stages"))
          Ring.Stages = std::max<int64_t>(2, S->getInt());
      }
      // Tiles in order of first use.
      for (StmtPtr &S : L.getBodyMutable().Stmts)
        if (auto *Op = dyn_cast<OpStmt>(S.get()); Op && GemmOf.count(Op)) {
          const GemmInfo &G = GemmOf[Op];
          for (BufferValue *B : {G.ARegs ? nullptr : G.A, G.B})
            if (B && Tiles[B].Loop == &L &&
                std::find(Ring.Tiles.begin(), Ring.Tiles.end(), B) == Ring.Tiles.end())
              Ring.Tiles.push_back(B);
        }
      if ((Ring.Stages - 1) * int64_t(Ring.Tiles.size()) > 8)
        return fail(Why, "more than 8 copy groups in flight", L.getLoc());
      llvm::DenseSet<const Value *> Inner = definedIn(L);
      for (BufferValue *B : Ring.Tiles) {
        bool Local = false;
        for (const RegionIndex &I : Tiles[B].Copy->getOperand("src").R.Indices)
          forEachUse(*I.Offset, [&](const Value *V) { Local |= Inner.count(V) > 0; });
        if (Local)
          return fail(Why, "the copy into " + name(B) +
                               " depends on values computed in the loop",
                      Tiles[B].Copy->getLoc());
      }
    }
    for (BufferValue *B : TileOrder) {
      const TileInfo &T = Tiles[B];
      Bytes += T.Layout.StageBytes * (T.Loop ? Ring.Stages : 1);
    }
    if (Bytes > MaxSharedBytes)
      return fail(Why, "the tiles' stages need " + std::to_string(Bytes) +
                           " bytes of shared memory, more than " +
                           std::to_string(MaxSharedBytes));
    return true;
  }

  //===--- Rewriting ------------------------------------------------------===//

  /// Block-level code with the thread's position: warpgroup, warp, lane.
  struct Position {
    Value *WG, *Warp, *Lane;
  };
  Position position(Stmts &Out) {
    Position P;
    P.WG = let(Out, "wg", div(ref(Tid), WarpgroupSize));
    P.Warp = let(Out, "warp", div(rem(ref(Tid), WarpgroupSize), 32));
    P.Lane = let(Out, "lane", rem(ref(Tid), 32));
    return P;
  }

  /// Row of slice \p MTV: (wg*MT + mt)*64 + 16*warp + lane/4.
  ExprPtr sliceRow(const Position &P, Value *MTV) {
    return add(mul(add(mul(ref(P.WG), MT), ref(MTV)), InstM),
               add(mul(ref(P.Warp), 16), div(ref(P.Lane), 4)));
  }

  BufferValue *scratch(llvm::StringRef Name, DType Ty, int64_t N) {
    BufferValue *B;
    Scratch.push_back(allocLocal(Name, Ty, N, B));
    return B;
  }

  /// Rewrites the fragment accesses in \p E: 2-D ones to local \p Idx,
  /// row vectors to local \p RowIdx, the loop variables to \p Vars.
  void rewriteAccesses(ExprPtr &E, const llvm::DenseMap<const Value *, Value *> &Vars,
                       Value *Idx, Value *RowIdx) {
    rewriteExpr(E, [&](ExprPtr X) -> ExprPtr {
      if (auto *R = dyn_cast<RefExpr>(X.get())) {
        if (Value *V = Vars.lookup(R->getValue()))
          return ref(V);
        return X;
      }
      if (auto *L = dyn_cast<LoadExpr>(X.get()))
        if (const FragInfo *F = frag(L->getBuffer())) {
          std::vector<ExprPtr> I;
          I.push_back(ref(F->Cols ? Idx : RowIdx));
          return ex::load(L->getBuffer(), std::move(I));
        }
      return X;
    });
  }

  Stmts lowerParallel(ForStmt &L) {
    int64_t Cols = ParallelCols.lookup(&L);
    Stmts Body;
    Position P = position(Body);
    Body.push_back(unroll("mt", MT, [&](Value *MTV) {
      Stmts ML;
      Value *Row0 = let(ML, "row0", sliceRow(P, MTV));
      auto Inner = [&](Value *H, Value *J, Value *E) {
        Stmts In;
        llvm::DenseMap<const Value *, Value *> Vars;
        Vars[L.getDims()[0].Var.get()] =
            let(In, L.getDims()[0].Var->getName(), add(ref(Row0), mul(ref(H), 8)));
        Value *RowIdx = let(In, "ridx", add(mul(ref(MTV), 2), ref(H)));
        Value *Idx = nullptr;
        if (J) {
          Vars[L.getDims()[1].Var.get()] =
              let(In, L.getDims()[1].Var->getName(),
                  add(add(mul(ref(J), 8), mul(rem(ref(P.Lane), 4), 2)), ref(E)));
          Idx = let(In, "idx",
                    add(add(add(mul(ref(MTV), Cols / 2), mul(ref(J), 4)), mul(ref(H), 2)),
                        ref(E)));
        }
        for (StmtPtr &S : L.getBodyMutable().Stmts) {
          if (auto *Let = dyn_cast<LetStmt>(S.get()))
            rewriteAccesses(Let->getInitMutable(), Vars, Idx, RowIdx);
          if (auto *St = dyn_cast<StoreStmt>(S.get())) {
            rewriteAccesses(St->getValueMutable(), Vars, Idx, RowIdx);
            std::vector<ExprPtr> I;
            I.push_back(ref(frag(St->getBuffer())->Cols ? Idx : RowIdx));
            St->getIndicesMutable() = std::move(I);
          }
          In.push_back(std::move(S));
        }
        return In;
      };
      if (!Cols) {
        ML.push_back(unroll("h", 2, [&](Value *H) { return Inner(H, nullptr, nullptr); }));
        return ML;
      }
      ML.push_back(unroll("j", Cols / 8, [&](Value *J) {
        Stmts JL;
        JL.push_back(unroll("h", 2, [&](Value *H) {
          Stmts HL;
          HL.push_back(unroll("e", 2, [&](Value *E) { return Inner(H, J, E); }));
          return HL;
        }));
        return JL;
      }));
      return ML;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  static std::vector<ExprPtr> one(ExprPtr E) {
    std::vector<ExprPtr> V;
    V.push_back(std::move(E));
    return V;
  }

  /// Row r's elements combined in each thread, then over the four lanes of
  /// its quad (shuffles with lane masks 1 and 2), into dst.
  Stmts lowerReduce(const OpStmt &Op) {
    BufferValue *Src = Op.getOperand("src").R.Buf, *Dst = Op.getOperand("dst").R.Buf;
    std::string Kind = Op.getAttrOrDefault("kind").getStr().str();
    bool Clear = Op.getAttrOrDefault("clear").getBool();
    DType Ty = Dst->getDType();
    int64_t Cols = frag(Src)->Cols;
    BufferValue *Part = scratch("red", Ty, 2 * MT);
    BufferValue *Tmp = scratch("shfl", Ty, 1);
    auto Elem = [&](ExprPtr LocalIdx) {
      ExprPtr X = ex::castTo(ex::load(Src, one(std::move(LocalIdx))), Ty);
      if (llvm::StringRef(Kind).starts_with("abs"))
        X = ex::call(Intrinsic::Abs, one(std::move(X)));
      return X;
    };
    Stmts Body;
    Body.push_back(unroll("mt", MT, [&](Value *MTV) {
      Stmts ML;
      ML.push_back(unroll("h", 2, [&](Value *H) {
        Stmts HL;
        Value *R = let(HL, "ridx", add(mul(ref(MTV), 2), ref(H)));
        Value *Base = let(HL, "base", add(mul(ref(MTV), Cols / 2), mul(ref(H), 2)));
        // The thread's Cols / 4 elements of the row (columns 0 and 1 of
        // each chunk of 8) combined as a balanced tree: log2(Cols / 4)
        // dependent instructions rather than a chain of Cols / 4.
        std::vector<ExprPtr> Leaves;
        for (int64_t J = 0; J != std::max<int64_t>(Cols / 8, 1); ++J)
          for (int64_t E = 0; E != 2; ++E)
            Leaves.push_back(Elem(add(ref(Base), 4 * J + E)));
        std::function<ExprPtr(size_t, size_t)> Tree = [&](size_t Lo, size_t Hi) {
          if (Hi - Lo == 1)
            return std::move(Leaves[Lo]);
          size_t Mid = Lo + (Hi - Lo) / 2;
          return ex::reduceCombine(Kind, Tree(Lo, Mid), Tree(Mid, Hi));
        };
        HL.push_back(std::make_unique<StoreStmt>(Part, one(ref(R)), Tree(0, Leaves.size())));
        if (!DeferredSums.count(&Op))
          combineQuad(HL, Kind, Part, R, Tmp, Op.getLoc());
        ExprPtr V = ex::load(Part, one(ref(R)));
        if (!Clear)
          V = ex::reduceCombine(Kind, ex::load(Dst, one(ref(R))), std::move(V));
        HL.push_back(std::make_unique<StoreStmt>(Dst, one(ref(R)), std::move(V)));
        return HL;
      }));
      return ML;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// Combines local \p R of \p Buf over the four lanes of the thread's quad
  /// (shuffles with lane masks 1 and 2), in place.
  void combineQuad(Stmts &Out, llvm::StringRef Kind, BufferValue *Buf, Value *R,
                   BufferValue *Tmp, llvm::SMLoc Loc) {
    for (int64_t Mask : {1, 2}) {
      std::vector<OpOperand> Operands;
      Operands.push_back(exprOperand(ex::load(Buf, one(ref(R)))));
      Operands.push_back(regionOperand(Tmp, one(lit(0))));
      AttributeList Attrs;
      Attrs.set("offset", Attribute::getInt(Mask));
      Out.push_back(op("cuda.shfl_xor", std::move(Operands), std::move(Attrs), Loc));
      Out.push_back(std::make_unique<StoreStmt>(
          Buf, one(ref(R)),
          ex::reduceCombine(Kind, ex::load(Buf, one(ref(R))), ex::load(Tmp, one(lit(0))))));
    }
  }

  /// The running sums of planDeferredSums, each lane holding its partial
  /// after the loop: the quad's lanes added once.
  Stmts finishDeferredSums() {
    Stmts Out;
    for (const auto &[Acc, Loc] : DeferredAcc) {
      BufferValue *Tmp = scratch("shfl", Acc->getDType(), 1);
      Stmts Body;
      Body.push_back(unroll("r", 2 * MT, [&, Acc = Acc, Loc = Loc](Value *R) {
        Stmts L;
        combineQuad(L, "sum", Acc, R, Tmp, Loc);
        return L;
      }));
      Out.push_back(perThread(std::move(Body)));
    }
    return Out;
  }

  /// A copy between fragments of one shape, element by element in each
  /// thread. Narrowing f32 to f16 or bf16 converts locals 2k and 2k + 1
  /// together (cuda.store_pair: one cvt.rn.f16x2.f32 or cvt.rn.bf16x2.f32),
  /// the pairs wgmma reads as one register of A.
  Stmts lowerFragmentCopy(const OpStmt &Op) {
    BufferValue *Src = Op.getOperand("src").R.Buf, *Dst = Op.getOperand("dst").R.Buf;
    int64_t Elems = frag(Dst)->Elems;
    Stmts Body;
    if (Src->getDType() == DType::F32 &&
        (Dst->getDType() == DType::F16 || Dst->getDType() == DType::BF16) &&
        Elems % 2 == 0) {
      Body.push_back(unroll("e", Elems / 2, [&](Value *E) {
        std::vector<ExprPtr> SrcIdx, DstIdx;
        SrcIdx.push_back(mul(ref(E), 2));
        DstIdx.push_back(mul(ref(E), 2));
        std::vector<OpOperand> Operands;
        Operands.push_back(regionOperand(Src, std::move(SrcIdx), {2}));
        Operands.push_back(regionOperand(Dst, std::move(DstIdx)));
        Stmts L;
        L.push_back(op("cuda.store_pair", std::move(Operands), AttributeList(), Op.getLoc()));
        return L;
      }));
      Stmts Out;
      Out.push_back(perThread(std::move(Body)));
      return Out;
    }
    Body.push_back(unroll("e", Elems, [&](Value *E) {
      Stmts L;
      L.push_back(std::make_unique<StoreStmt>(
          Dst, one(ref(E)), ex::castTo(ex::load(Src, one(ref(E))), Dst->getDType())));
      return L;
    }));
    Stmts Out;
    Out.push_back(perThread(std::move(Body)));
    return Out;
  }

  /// How many iterations tile \p B runs behind the loop: 1 for the
  /// operands of the rotated gemm (iteration %j reads tile %j - 1), else 0.
  int64_t shift(const BufferValue *B) const {
    return Rot.Last && Tiles.lookup(B).Loop &&
                   (B == GemmOf.lookup(Rot.Last).B ||
                    (!GemmOf.lookup(Rot.Last).ARegs && B == GemmOf.lookup(Rot.Last).A))
               ? 1
               : 0;
  }

  /// The ring stage of tile index \p T (at least lo - 1): (T - lo + S) % S.
  ExprPtr stageOf(const Expr &T) {
    const LoopDim &D = Ring.Loop->getDims()[0];
    return rem(add(ringIter(ex::sub(T.clone(), D.Lo->clone())), Ring.Stages),
               Ring.Stages);
  }

  /// Iteration \p It of this tile's ring loop counted from the block's
  /// first (persistent kernels: the stages and phases run on across tiles).
  ExprPtr ringIter(ExprPtr It) {
    return RingBase ? add(ref(RingBase), std::move(It)) : std::move(It);
  }

  /// The buffer of a once tile in this tile round (persistent kernels
  /// with double-buffered once tiles), or null.
  ExprPtr onceStage() {
    return TileRound && OnceStages > 1 ? rem(ref(TileRound), OnceStages) : nullptr;
  }

  /// The phase parity a once tile's full (or empty) barrier is waited with
  /// in this tile round: 0 in a kernel of one tile per block; a fresh
  /// barrier counts the phase before its first as complete.
  ExprPtr onceParity(bool Empty) {
    if (!TileRound)
      return lit(Empty ? 1 : 0);
    return rem(add(div(ref(TileRound), OnceStages), Empty ? 1 : 0), 2);
  }

  /// `%j + Off`.
  ExprPtr iter(int64_t Off) { return add(ref(Ring.Loop->getDims()[0].Var.get()), Off); }

  /// Loads of tile index \p T of \p B into its stage.
  Stmts ringLoad(BufferValue *B, const Expr &T) {
    const LoopDim &D = Ring.Loop->getDims()[0];
    const TileInfo &TI = Tiles[B];
    ExprPtr Stage = stageOf(T);
    return loadTile(TI.Layout, *TI.Copy, D.Var.get(), &T, *Stage);
  }

  /// `lo <= T < hi` (the lower bound only where \p T can be below it).
  ExprPtr inRange(const Expr &T, bool Lower) {
    const LoopDim &D = Ring.Loop->getDims()[0];
    ExprPtr C = ex::lt(T.clone(), D.Hi->clone());
    return Lower ? ex::land(ex::ge(T.clone(), D.Lo->clone()), std::move(C)) : std::move(C);
  }

  /// Before a gemm in the ring loop: wait for its ring tiles not yet
  /// waited for in this iteration, then refill their previous stages.
  Stmts waitTiles(const GemmInfo &G, llvm::DenseSet<const BufferValue *> &Waited) {
    std::vector<BufferValue *> New;
    for (BufferValue *B : Ring.Tiles)
      if ((B == G.B || (!G.ARegs && B == G.A)) && Waited.insert(B).second)
        New.push_back(B);
    Stmts Out;
    if (New.empty())
      return Out;
    int64_t S = Ring.Stages, NT = int64_t(Ring.Tiles.size());
    if (WS) {
      // The producer filled the stage; wait for its full barrier.
      Stmts L;
      for (BufferValue *B : New)
        for (StmtPtr &X : waitFull(B, *iter(-shift(B))))
          L.push_back(std::move(X));
      Out.push_back(perThread(std::move(L)));
      return Out;
    }
    if (S == 1) {
      // No prefetch: every thread is done with the stage, load, wait.
      Out.push_back(op("barrier"));
      Stmts L;
      for (BufferValue *B : New)
        for (StmtPtr &X : ringLoad(B, *iter(0)))
          L.push_back(std::move(X));
      L.push_back(op("cuda.ldgsts_commit"));
      L.push_back(opPending("cuda.ldgsts_wait", 0));
      fenceProxy(L);
      Out.push_back(perThread(std::move(L)));
      Out.push_back(op("barrier"));
      return Out;
    }
    Stmts Wait;
    Wait.push_back(opPending("cuda.ldgsts_wait", (S - 1) * NT - int64_t(New.size())));
    fenceProxy(Wait);
    Out.push_back(perThread(std::move(Wait)));
    Out.push_back(op("barrier"));
    // Tile index t + S - 1 takes the stage of t - 1, which the gemms of the
    // previous iteration read; every thread has waited for them before the
    // barrier.
    Stmts Next;
    for (BufferValue *B : New) {
      ExprPtr T = iter(S - 1 - shift(B));
      Next.push_back(ifThen(inRange(*T, false), ringLoad(B, *T)));
      Next.push_back(op("cuda.ldgsts_commit"));
    }
    Out.push_back(perThread(std::move(Next)));
    return Out;
  }

  /// The wgmma instructions of \p G between fence and commit, its ring
  /// tiles at index \p T (null: the iteration's own).
  Stmts issueGemm(const GemmInfo &G, const Expr *T, llvm::SMLoc Loc) {
    const SharedTile *A = G.ARegs ? nullptr : &Tiles[G.A].Layout;
    auto StageFor = [&](BufferValue *B) -> ExprPtr {
      if (B && !Tiles[B].Loop)
        return onceStage();
      if (!B || Ring.Stages == 1)
        return nullptr;
      return stageOf(T ? *T : *iter(-shift(B)));
    };
    ExprPtr AStage = StageFor(G.ARegs ? nullptr : G.A), BStage = StageFor(G.B);
    Stmts L;
    Value *WG = let(L, "wg", div(ref(Tid), WarpgroupSize));
    auto Gemm = Opts.MMA ? &FragmentLowering::mmaSyncGemm : &FragmentLowering::wgmmaGemm;
    for (StmtPtr &X : (this->*Gemm)(G.Shape, A, G.ARegs ? G.A : nullptr,
                                    G.ARegs ? frag(G.A)->Cols : 0, Tiles[G.B].Layout,
                                    G.C, WG, AStage.get(), BStage.get(), G.Zero, Loc))
      L.push_back(std::move(X));
    return L;
  }

  /// A gemm: its tile waits (in the ring loop), its instructions, and a
  /// wait for them unless \p Async.
  Stmts lowerGemm(OpStmt &Op, llvm::DenseSet<const BufferValue *> *Waited,
                  bool Async = false) {
    const GemmInfo &G = GemmOf[&Op];
    Stmts Out;
    if (Waited)
      Out = waitTiles(G, *Waited);
    Stmts L = issueGemm(G, nullptr, Op.getLoc());
    if (!Async && !Opts.MMA) {
      L.push_back(opPending("cuda.wgmma_wait", 0, G.C));
      if (WS && Waited)
        for (StmtPtr &X : releaseTiles(G, nullptr))
          L.push_back(std::move(X));
    }
    Out.push_back(perThread(std::move(L)));
    return Out;
  }

  /// The rotated ring-loop body: the last gemm of iteration %j - 1 is
  /// issued right after the first gemm of iteration %j, runs while the
  /// code between them works on the first gemm's result, and is waited
  /// for before the first statement that touches its accumulator or its
  /// register A operand.
  void rewriteRotatedBody(Block &B) {
    const GemmInfo &G2 = GemmOf[Rot.Last];
    const Value *J = Ring.Loop->getDims()[0].Var.get();
    const Expr &Lo = *Ring.Loop->getDims()[0].Lo;
    llvm::DenseSet<const BufferValue *> Waited;
    Stmts Out;
    bool Pending = false;
    auto WaitLast = [&] {
      Stmts W;
      W.push_back(opPending("cuda.wgmma_wait", 0, G2.C));
      if (WS) {
        // The previous iteration's tiles are free again.
        ExprPtr T = iter(-1);
        W.push_back(ifThen(ex::binary(BinaryOp::Gt, ref(const_cast<Value *>(J)), Lo.clone()),
                           releaseTiles(G2, T.get())));
      }
      Out.push_back(perThread(std::move(W)));
      Pending = false;
    };
    for (StmtPtr &S : B.Stmts) {
      if (S.get() == Rot.Last)
        continue;
      if (S.get() == Rot.First) {
        const GemmInfo &G1 = GemmOf[Rot.First];
        Stmts First = lowerGemm(*Rot.First, &Waited, /*Async=*/true);
        if (PingPong) {
          // The tiles are here; wait for this warpgroup's turn to issue.
          Stmts Turn;
          Turn.push_back(turnBarrier("cuda.bar_sync", add(consumerWarpgroup(), 1)));
          First.insert(First.end() - 1, perThread(std::move(Turn)));
        }
        for (StmtPtr &X : First)
          Out.push_back(std::move(X));
        ExprPtr After = ex::binary(BinaryOp::Gt, ref(const_cast<Value *>(J)), Lo.clone());
        Stmts Issue;
        Stmts Second;
        if (WS) {
          // The previous iteration's tiles exist only after the first.
          ExprPtr T = iter(-1);
          for (BufferValue *B : Ring.Tiles)
            if (shift(B))
              for (StmtPtr &X : waitFull(B, *T))
                Second.push_back(std::move(X));
        } else {
          for (StmtPtr &X : waitTiles(G2, Waited))
            Out.push_back(std::move(X));
        }
        for (StmtPtr &X : issueGemm(G2, nullptr, Rot.Last->getLoc()))
          Second.push_back(std::move(X));
        // The first gemm completes first (groups complete in order); the
        // rotated one stays in flight.
        Stmts One, Zero;
        One.push_back(opPending("cuda.wgmma_wait", 1, G1.C));
        Zero.push_back(opPending("cuda.wgmma_wait", 0, G1.C));
        if (PingPong) {
          // Both gemms are issued: the other warpgroup's turn to issue,
          // before waiting for them (the tensor cores run the gemms in
          // issue order, so the other's queue behind these while this
          // warpgroup waits and does its softmax). In each branch, as one
          // if: a bar.arrive between the branches that issue and the ones
          // that wait makes ptxas serialize the wgmmas (C7514).
          // Unconditional: the first warpgroup takes the second's last
          // hand-over after the loop.
          auto Arrive = [&] {
            return turnBarrier("cuda.bar_arrive", ex::sub(lit(2), consumerWarpgroup()));
          };
          Second.push_back(Arrive());
          for (StmtPtr &X : One)
            Second.push_back(std::move(X));
          Zero.insert(Zero.begin(), Arrive());
          Issue.push_back(ifElse(After->clone(), std::move(Second), std::move(Zero)));
        } else {
          Issue.push_back(ifThen(After->clone(), std::move(Second)));
          Issue.push_back(ifElse(After->clone(), std::move(One), std::move(Zero)));
        }
        if (WS)
          for (StmtPtr &X : releaseTiles(G1, nullptr))
            Issue.push_back(std::move(X));
        Out.push_back(perThread(std::move(Issue)));
        Pending = true;
        continue;
      }
      if (Pending && touches(*S, G2))
        WaitLast();
      for (StmtPtr &X : lowerStmt(S, &Waited))
        Out.push_back(std::move(X));
    }
    if (Pending)
      WaitLast();
    B.Stmts = std::move(Out);
  }

  /// Whether \p S reads or writes what the gemm \p G writes or reads from
  /// registers: its accumulator, or its A fragment.
  bool touches(Stmt &S, const GemmInfo &G) {
    bool Found = false;
    auto Note = [&](const Value *V) {
      Found |= V == G.C || (G.ARegs && V == G.A);
    };
    auto Visit = [&](Stmt &X) {
      forEachExprSlot(X, [&](ExprPtr &E) { forEachUse(*E, Note); });
      if (auto *St = dyn_cast<StoreStmt>(&X))
        Note(St->getBuffer());
      if (auto *Op = dyn_cast<OpStmt>(&X))
        for (const OpOperand &O : Op->getOperands())
          if (O.Kind == OperandKind::Region)
            Note(O.R.Buf);
    };
    Visit(S);
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, Visit);
    return Found;
  }

  /// After the rotated loop: the last iteration's rotated gemm.
  Stmts rotatedEpilogue() {
    const LoopDim &D = Ring.Loop->getDims()[0];
    ExprPtr Last = ex::sub(D.Hi->clone(), lit(1));
    Stmts L;
    if (WS)
      for (BufferValue *B : Ring.Tiles)
        if (shift(B))
          for (StmtPtr &X : waitFull(B, *Last))
            L.push_back(std::move(X));
    for (StmtPtr &X : issueGemm(GemmOf[Rot.Last], Last.get(), Rot.Last->getLoc()))
      L.push_back(std::move(X));
    L.push_back(opPending("cuda.wgmma_wait", 0, GemmOf[Rot.Last].C));
    // The persistent kernel's producer refills the stage for a later tile.
    if (Persist)
      for (StmtPtr &X : releaseTiles(GemmOf[Rot.Last], Last.get()))
        L.push_back(std::move(X));
    Stmts Out;
    Out.push_back(perThread(std::move(L)));
    Stmts Guarded;
    Guarded.push_back(ifThen(ex::binary(BinaryOp::Gt, D.Hi->clone(), D.Lo->clone()),
                             std::move(Out)));
    return Guarded;
  }

  //===--- Warp specialization --------------------------------------------===//

  /// The bytes a tile's stage takes (a TMA phase's transactions).
  int64_t tileBytes(const BufferValue *B) {
    const SharedTile &L = Tiles[B].Layout;
    return L.Rows * L.Contig * (getDTypeBits(B->getDType()) / 8);
  }

  ExprPtr mbarIndex(int64_t Base, const Expr *Stage) {
    return Stage ? add(Stage->clone(), Base) : lit(Base);
  }

  /// Consumers: wait for tile index \p T of \p B (a once tile: 0) to be
  /// full; after a cp.async producer, fence its writes into the async
  /// proxy.
  Stmts waitFull(BufferValue *B, const Expr &T) {
    Stmts L;
    const TileInfo &TI = Tiles[B];
    if (TI.Loop) {
      const Expr &Lo = *Ring.Loop->getDims()[0].Lo;
      ExprPtr It = ringIter(ex::sub(T.clone(), Lo.clone()));
      ExprPtr Stage = rem(It->clone(), Ring.Stages);
      L.push_back(mbarrierOp(Mbar, "cuda.mbarrier_wait", mbarIndex(FullAt[B], Stage.get()),
                             rem(div(std::move(It), Ring.Stages), 2)));
    } else {
      // Filled once per tile: the stage and phase of the block's tile
      // round.
      ExprPtr Stage = onceStage();
      L.push_back(mbarrierOp(Mbar, "cuda.mbarrier_wait", mbarIndex(FullAt[B], Stage.get()),
                             onceParity(/*Empty=*/false)));
    }
    Stmts Fence;
    Fence.push_back(op("cuda.fence_proxy_async"));
    L.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(Tma), lit(0)), std::move(Fence)));
    return L;
  }

  /// Consumers, after the wgmma of \p G completed: each warp releases the
  /// stages of G's ring tiles (tile index \p T; null: the iteration's own).
  Stmts releaseTiles(const GemmInfo &G, const Expr *T) {
    Stmts L;
    const Expr &Lo = *Ring.Loop->getDims()[0].Lo;
    for (BufferValue *B : {G.ARegs ? nullptr : G.A, G.B}) {
      if (!B || !Tiles[B].Loop)
        continue;
      ExprPtr Idx = T ? T->clone() : iter(-shift(B));
      ExprPtr Stage = rem(ringIter(ex::sub(std::move(Idx), Lo.clone())), Ring.Stages);
      L.push_back(mbarrierOp(Mbar, "cuda.mbarrier_arrive", mbarIndex(EmptyAt[B], Stage.get()),
                             nullptr, 0, /*PerWarp=*/true));
    }
    return L;
  }

  /// The producer warpgroup's work on one path: the once tiles, then for
  /// each iteration of the ring loop every ring tile, each stage after its
  /// consumers released it. With TMA one thread issues the boxes; without,
  /// the 128 threads copy clamped chunks and arrive when they land.
  Stmts producer(bool TMA) {
    const LoopDim &D = Ring.Loop->getDims()[0];
    int64_t S = Ring.Stages;
    Stmts Out;
    auto Fill = [&](Stmts &L, BufferValue *B, const Value *Var, const Expr *Val,
                    const Expr &Stage, ExprPtr Bar) {
      const TileInfo &T = Tiles[B];
      if (TMA) {
        L.push_back(mbarrierOp(Mbar, "cuda.mbarrier_arrive", Bar->clone(), nullptr,
                               tileBytes(B)));
        for (StmtPtr &X : tmaLoadTile(T.Layout, *T.Copy, Var, Val, Stage, Mbar, *Bar))
          L.push_back(std::move(X));
        return;
      }
      for (StmtPtr &X : loadTile(T.Layout, *T.Copy, Var, Val, Stage, /*Compact=*/true))
        L.push_back(std::move(X));
      // One arrival when this thread's copies land, one after its element
      // copies of unaligned chunks.
      L.push_back(mbarrierOp(Mbar, "cuda.ldgsts_arrive", Bar->clone()));
      L.push_back(mbarrierOp(Mbar, "cuda.mbarrier_arrive", std::move(Bar)));
    };
    ExprPtr Zero = lit(0);
    for (BufferValue *B : TileOrder)
      if (!Tiles[B].Loop) {
        // A persistent kernel's next tile once the consumers are done
        // with the previous one's.
        ExprPtr Stage = onceStage();
        if (TileRound)
          Out.push_back(mbarrierOp(Mbar, "cuda.mbarrier_wait",
                                   mbarIndex(EmptyAt[B], Stage.get()),
                                   onceParity(/*Empty=*/true)));
        Fill(Out, B, nullptr, nullptr, Stage ? *Stage : *Zero,
             mbarIndex(FullAt[B], Stage.get()));
      }
    Out.push_back(loop(LoopKind::Serial, "it", ex::sub(D.Hi->clone(), D.Lo->clone()),
                       [&](Value *It) {
      Stmts L;
      Value *Round = RingBase ? let(L, "round", ringIter(ref(It))) : It;
      Value *Stage = let(L, "stage", rem(ref(Round), S));
      ExprPtr Val = add(D.Lo->clone(), ref(It));
      for (BufferValue *B : Ring.Tiles) {
        // Round it / S may refill the stage once round it / S - 1 was
        // released; a fresh barrier counts the phase before its first as
        // complete.
        L.push_back(mbarrierOp(Mbar, "cuda.mbarrier_wait",
                               add(ref(Stage), EmptyAt[B]),
                               rem(add(div(ref(Round), S), lit(1)), 2)));
        ExprPtr StageE = ref(Stage);
        Fill(L, B, D.Var.get(), Val.get(), *StageE, add(ref(Stage), FullAt[B]));
      }
      return L;
    }));
    // (A persistent kernel's after its last tile.)
    if (!TMA && !TileRound)
      Out.push_back(opPending("cuda.ldgsts_wait", 0));
    return Out;
  }

  /// The warp-specialized form: one more warpgroup, the producer, fills
  /// every tile (TMA boxes from one thread where cuda.tma_ready finds all
  /// the tensors aligned, cp.async from its 128 threads elsewhere) while
  /// the kernel's own warpgroups, the consumers, run the lowered code with
  /// waits on full barriers in place of the cp.async waits and block
  /// barriers, releasing each ring stage once the gemm that reads it is
  /// done. Lets stay before the split (both roles use them), except, in a
  /// persistent kernel, those of a tile's block indices, which each role
  /// computes in its loop over the tiles.
  void rewriteWarpSpecialized() {
    int64_t T = Threads, S = Ring.Stages;
    K.getThreadsMutable() = lit(T + WarpgroupSize);
    Stmts Top, Consumer;
    if (Persist)
      flattenGrid(Top);
    for (StmtPtr &St : K.getBodyMutable().Stmts) {
      if (!St)
        continue;
      if (auto *L = dyn_cast<LetStmt>(St.get()); L && Persist && PerTile.count(L->getVar()))
        TileLets.push_back(std::move(St));
      else if (isa<AllocStmt>(St.get()) || isa<LetStmt>(St.get()))
        Top.push_back(std::move(St));
      else
        Consumer.push_back(std::move(St));
    }
    // Barriers: full per stage of every tile, empty per stage of ring tiles
    // (and of the once tiles of a persistent kernel, refilled per tile).
    int64_t NB = 0;
    for (BufferValue *B : TileOrder) {
      FullAt[B] = NB;
      NB += Tiles[B].Loop ? S : OnceStages;
      if (Tiles[B].Loop || Persist) {
        EmptyAt[B] = NB;
        NB += Tiles[B].Loop ? S : OnceStages;
      }
    }
    std::vector<ExprPtr> MbarShape;
    MbarShape.push_back(lit(NB));
    auto MB = std::make_unique<BufferValue>(Names.fresh("mbar"), DType::U64,
                                            MemScope::Shared, std::move(MbarShape),
                                            std::vector<ExprPtr>(), false, llvm::SMLoc());
    Mbar = MB.get();
    Top.push_back(std::make_unique<AllocStmt>(std::move(MB), AttributeList()));
    // The tensors the tiles come from, and whether TMA can read them all.
    std::vector<BufferValue *> Tensors;
    for (BufferValue *B : TileOrder) {
      BufferValue *G = Tiles[B].Copy->getOperand("src").R.Buf;
      if (std::find(Tensors.begin(), Tensors.end(), G) == Tensors.end())
        Tensors.push_back(G);
    }
    BufferValue *Ok = nullptr;
    Top.push_back(allocLocal("tma_ok", DType::I32, int64_t(Tensors.size()), Ok));
    ExprPtr Ready;
    for (unsigned I = 0; I != Tensors.size(); ++I) {
      BufferValue *G = Tensors[I];
      std::vector<OpOperand> Operands;
      Operands.push_back(regionOperand(G, {}));
      Operands.push_back(exprOperand(G->getShape().back()->clone()));
      Operands.push_back(regionOperand(Ok, one(lit(I))));
      // 0 for an empty tensor too, whose map the runtime does not build
      // (the cp.async path reads it as zeros).
      Top.push_back(op("cuda.tma_ready", std::move(Operands)));
      ExprPtr X = ex::load(Ok, one(lit(I)));
      Ready = Ready ? call(Intrinsic::Min, std::move(Ready), std::move(X)) : std::move(X);
    }
    Tma = let(Top, "tma", std::move(Ready));
    // One thread initializes the barriers: a full barrier completes on one
    // arrival with the stage's bytes (TMA) or on two arrivals of each
    // producer thread (cp.async); an empty one on one arrival per consumer
    // warp.
    Stmts Init;
    ExprPtr FullCount = call(Intrinsic::Select, ex::binary(BinaryOp::Ne, ref(Tma), lit(0)),
                             lit(1), lit(2 * WarpgroupSize));
    for (BufferValue *B : TileOrder) {
      int64_t N = Tiles[B].Loop ? S : OnceStages;
      for (int64_t I = 0; I != N; ++I) {
        Init.push_back(mbarrierOp(Mbar, "cuda.mbarrier_init", lit(FullAt[B] + I),
                                  FullCount->clone()));
        if (EmptyAt.count(B))
          Init.push_back(mbarrierOp(Mbar, "cuda.mbarrier_init", lit(EmptyAt[B] + I),
                                    lit(T / 32)));
      }
    }
    Init.push_back(op("cuda.fence_mbarrier_init"));
    Top.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(Tid), lit(0)), std::move(Init)));
    Top.push_back(op("barrier"));
    // The producer.
    Stmts Prod;
    AttributeList Dec;
    Dec.set("action", Attribute::getIdent("dec"));
    int64_t ProducerRegs =
        T == WarpgroupSize ? AttentionProducerRegisters : ProducerRegisters;
    Dec.set("count", Attribute::getInt(ProducerRegs));
    Prod.push_back(op("cuda.setmaxnreg", {}, std::move(Dec)));
    auto Produce = [&](bool ByTma) {
      if (!Persist)
        return producer(ByTma);
      Stmts L = tileLoop(/*Original=*/false, [&] { return producer(ByTma); });
      if (!ByTma)
        L.push_back(opPending("cuda.ldgsts_wait", 0));
      return L;
    };
    Stmts ByTMA;
    ByTMA.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(Tid), lit(T)), Produce(true)));
    Stmts ByCpAsync;
    {
      Value *ConsumerTid = Tid;
      Tid = let(ByCpAsync, "ptx", ex::sub(ref(Tid), lit(T)));
      Threads = WarpgroupSize;
      for (StmtPtr &X : Produce(false))
        ByCpAsync.push_back(std::move(X));
      Tid = ConsumerTid;
      Threads = T;
    }
    Prod.push_back(ifElse(ex::binary(BinaryOp::Ne, ref(Tma), lit(0)), std::move(ByTMA),
                          std::move(ByCpAsync)));
    // The consumers: the kernel's own code, lowered.
    Stmts Cons;
    AttributeList Inc;
    Inc.set("action", Attribute::getIdent("inc"));
    Inc.set("count", Attribute::getInt(
                         consumerRegisters(T / WarpgroupSize, ProducerRegs)));
    Cons.push_back(op("cuda.setmaxnreg", {}, std::move(Inc)));
    auto Consume = [&] {
      Stmts L;
      // In a persistent kernel each once tile is released after the last
      // statement whose gemm reads it, for the producer to load the next
      // tile's.
      std::vector<std::vector<BufferValue *>> ReleaseAfter(Consumer.size());
      if (Persist)
        for (BufferValue *B : TileOrder) {
          if (Tiles[B].Loop)
            continue;
          // (or after a copy out staged through it: then also after a
          // proxy fence, as the producer's TMA overwrites what the
          // consumers' generic stores wrote).
          std::optional<unsigned> Last;
          for (unsigned I = 0; I != Consumer.size(); ++I)
            if (readsTile(*Consumer[I], B) || stagesThrough(*Consumer[I], B))
              Last = I;
          if (Last)
            ReleaseAfter[*Last].push_back(B);
        }
      for (unsigned I = 0; I != Consumer.size(); ++I) {
        for (StmtPtr &X : lowerStmt(Consumer[I], nullptr))
          L.push_back(std::move(X));
        Stmts Rel;
        for (BufferValue *B : ReleaseAfter[I])
          if (stagesThrough(*Consumer[I], B)) {
            Rel.push_back(op("cuda.fence_proxy_async"));
            break;
          }
        for (BufferValue *B : ReleaseAfter[I])
          Rel.push_back(mbarrierOp(Mbar, "cuda.mbarrier_arrive",
                                   mbarIndex(EmptyAt[B], onceStage().get()), nullptr,
                                   0, /*PerWarp=*/true));
        if (!Rel.empty())
          L.push_back(perThread(std::move(Rel)));
      }
      return L;
    };
    for (StmtPtr &X : Persist ? tileLoop(/*Original=*/true, Consume) : Consume())
      Cons.push_back(std::move(X));
    Top.push_back(ifElse(ex::ge(ref(Tid), lit(T)), std::move(Prod), std::move(Cons)));
    K.getBodyMutable().Stmts = std::move(Top);
  }

  /// Whether \p S is a copy out staged through \p B.
  bool stagesThrough(Stmt &S, const BufferValue *B) {
    auto *Op = dyn_cast<OpStmt>(&S);
    return Op && StagedThrough.lookup(Op) == B;
  }

  /// Whether a gemm in \p S reads the shared tile \p B.
  bool readsTile(Stmt &S, const BufferValue *B) {
    bool Found = false;
    auto Visit = [&](Stmt &X) {
      auto *Op = dyn_cast<OpStmt>(&X);
      if (!Op || !GemmOf.count(Op))
        return;
      const GemmInfo &G = GemmOf[Op];
      Found |= G.B == B || (!G.ARegs && G.A == B);
    };
    Visit(S);
    for (Block *N : getNestedBlocks(S))
      walkStmts(*N, Visit);
    return Found;
  }

  //===--- Persistent kernels ---------------------------------------------===//

  /// Makes the kernel's grid one dimension of gx * gy * gz tiles, its one
  /// block index the block's first tile (%bid), and its old block indices
  /// lets (TileBlocks) that each role's tile loop binds; the top-level lets
  /// that depend on them go to PerTile. Appends to \p Top what every
  /// thread needs: the blocks launched and the block's tile count.
  void flattenGrid(Stmts &Top) {
    std::vector<std::unique_ptr<Value>> &Idx = K.getBlockIndicesMutable();
    std::vector<ExprPtr> &Grid = K.getGridMutable();
    DType Ty = Idx[0]->getDType();
    llvm::DenseMap<const Value *, Value *> Map;
    for (std::unique_ptr<Value> &B : Idx) {
      TileBlocks.push_back(
          std::make_unique<Value>(Value::Kind::Let, B->getName(), Ty, B->getLoc()));
      Map[B.get()] = TileBlocks.back().get();
      GridExtents.push_back(ex::castTo(Grid[TileBlocks.size() - 1]->clone(), Ty));
    }
    remapValues(K.getBodyMutable().Stmts, Map);
    // Lets of the old block indices' values, transitively.
    for (const std::unique_ptr<Value> &B : TileBlocks)
      PerTile.insert(B.get());
    for (StmtPtr &St : K.getBodyMutable().Stmts)
      if (auto *L = dyn_cast<LetStmt>(St.get())) {
        bool Dep = false;
        forEachUse(*L->getInit(), [&](const Value *V) { Dep |= PerTile.count(V) > 0; });
        if (Dep)
          PerTile.insert(L->getVar());
      }
    ExprPtr Count = GridExtents[0]->clone();
    for (unsigned D = 1; D != GridExtents.size(); ++D)
      Count = ex::mul(std::move(Count), GridExtents[D]->clone());
    Idx.resize(1);
    Idx[0]->setName(Names.fresh("bid"));
    Bid = Idx[0].get();
    Grid.clear();
    Grid.push_back(Count->clone());
    // Every thread: the blocks launched (at most the tiles) and how many
    // tiles this block takes.
    BufferValue *Launched = nullptr;
    Top.push_back(allocLocal("launched", DType::I32, 1, Launched));
    std::vector<OpOperand> Operands;
    Operands.push_back(regionOperand(Launched, one(lit(0))));
    Top.push_back(op("cuda.launched_blocks", std::move(Operands)));
    NumBlocks = let(Top, "nblocks", ex::load(Launched, one(lit(0))));
    Value *NumTiles = let(Top, "ntiles", std::move(Count));
    MyTiles = let(Top, "my_tiles",
                  divide(ex::sub(add(ref(NumTiles), ref(NumBlocks)), add(ref(Bid), 1)),
                      ref(NumBlocks)));
    Top.push_back(allocLocal("ring_done", DType::I32, 1, RingDone));
    const LoopDim &D = Ring.Loop->getDims()[0];
    TripCount = call(Intrinsic::Max, ex::sub(D.Hi->clone(), D.Lo->clone()), lit(0));
  }

  static ExprPtr divide(ExprPtr A, ExprPtr B) {
    return ex::binary(BinaryOp::Div, std::move(A), std::move(B));
  }

  /// A role's loop over its block's tiles k = 0 .. my_tiles - 1 (tile
  /// bid + k * nblocks): the tile's block indices and the lets that depend
  /// on them (\p Original: the kernel's own, which only the consumers
  /// take; else copies), then \p Body's statements with the ring's
  /// iterations counted on from the block's earlier tiles (RingBase) and
  /// the tile's round k (TileRound) for the once tiles' phases.
  Stmts tileLoop(bool Original, llvm::function_ref<Stmts()> Body) {
    Stmts Out;
    Out.push_back(std::make_unique<StoreStmt>(RingDone, one(lit(0)), lit(0)));
    Out.push_back(loop(LoopKind::Serial, "k", ref(MyTiles), [&](Value *KV) {
      Stmts L;
      Value *Tile =
          let(L, "tile", add(ref(Bid), ex::mul(ref(KV), ref(NumBlocks))));
      llvm::DenseMap<const Value *, Value *> Map;
      // The tile's block indices: the launch order (x fastest), or the
      // chosen index slowest and counting down.
      std::vector<unsigned> Dims;
      for (unsigned D = 0; D != TileBlocks.size(); ++D)
        if (int(D) != Order.Descending)
          Dims.push_back(D);
      if (Order.Descending >= 0)
        Dims.push_back(unsigned(Order.Descending));
      ExprPtr Rest = ref(Tile);
      for (unsigned I = 0; I != Dims.size(); ++I) {
        unsigned D = Dims[I];
        bool LastDim = I + 1 == Dims.size();
        ExprPtr Index = LastDim ? Rest->clone()
                                : ex::binary(BinaryOp::Rem, Rest->clone(),
                                             GridExtents[D]->clone());
        if (!LastDim)
          Rest = divide(std::move(Rest), GridExtents[D]->clone());
        if (int(D) == Order.Descending)
          Index = ex::sub(ex::sub(GridExtents[D]->clone(), lit(1)), std::move(Index));
        if (Original)
          L.push_back(std::make_unique<LetStmt>(std::move(TileBlocks[D]), std::move(Index)));
        else
          Map[TileBlocks[D].get()] = let(L, TileBlocks[D]->getName(), std::move(Index));
      }
      for (StmtPtr &St : TileLets) {
        if (Original) {
          L.push_back(std::move(St));
          continue;
        }
        auto *Let = cast<LetStmt>(St.get());
        Map[Let->getVar()] = let(L, Let->getVar()->getName(), Let->getInit()->clone());
      }
      Value *Base = let(L, "ring_base", ex::load(RingDone, one(lit(0))));
      Value *SavedBase = RingBase, *SavedRound = TileRound;
      RingBase = Base;
      TileRound = KV;
      for (StmtPtr &X : Body())
        L.push_back(std::move(X));
      RingBase = SavedBase;
      TileRound = SavedRound;
      L.push_back(std::make_unique<StoreStmt>(RingDone, one(lit(0)),
                                              add(ref(Base), TripCount->clone())));
      if (!Original)
        remapValues(L, Map);
      return L;
    }));
    return Out;
  }

  /// A tile filled once: load, wait, fence, synchronize.
  Stmts lowerOnceCopy(const OpStmt &Op) {
    BufferValue *Tile = Op.getOperand("dst").R.Buf;
    const TileInfo &T = Tiles[Tile];
    Stmts L;
    if (WS) {
      // Filled by the producer.
      L = waitFull(Tile, *lit(0));
      Stmts Out;
      Out.push_back(perThread(std::move(L)));
      return Out;
    }
    ExprPtr Zero = lit(0);
    L = loadTile(T.Layout, Op, nullptr, nullptr, *Zero);
    L.push_back(op("cuda.ldgsts_commit"));
    L.push_back(opPending("cuda.ldgsts_wait", 0));
    fenceProxy(L);
    Stmts Out;
    Out.push_back(perThread(std::move(L)));
    Out.push_back(op("barrier"));
    return Out;
  }

  /// Before the ring loop: tile indices lo - shift .. lo - shift + S - 2
  /// of each tile, a group each.
  Stmts prologue() {
    const LoopDim &D = Ring.Loop->getDims()[0];
    Stmts Out;
    if (Ring.Stages == 1)
      return Out;
    Out.push_back(unroll("s", Ring.Stages - 1, [&](Value *S) {
      Stmts L;
      for (BufferValue *B : Ring.Tiles) {
        ExprPtr T = ex::sub(add(D.Lo->clone(), ref(S)), lit(shift(B)));
        L.push_back(ifThen(inRange(*T, shift(B) != 0), ringLoad(B, *T)));
        L.push_back(op("cuda.ldgsts_commit"));
      }
      Stmts Per;
      Per.push_back(perThread(std::move(L)));
      return Per;
    }));
    return Out;
  }

  /// \p S lowered (in the ring loop's body when \p Waited is given).
  Stmts lowerStmt(StmtPtr &S, llvm::DenseSet<const BufferValue *> *Waited) {
    Stmts Lowered;
    if (auto *F = dyn_cast<ForStmt>(S.get())) {
      if (ParallelCols.count(F))
        return lowerParallel(*F);
      if (F == Ring.Loop) {
        if (!WS)
          for (StmtPtr &X : prologue())
            Lowered.push_back(std::move(X));
        Stmts Epilogue, TakeLast;
        if (PingPong) {
          // The first turn is the first warpgroup's: the second gives it;
          // after the loop the first takes the second's last hand-over.
          const LoopDim &D = F->getDims()[0];
          auto Turn = [&](int64_t WG, llvm::StringRef Name) {
            Stmts Do;
            Do.push_back(turnBarrier(Name, lit(1)));
            Stmts L;
            L.push_back(ifThen(ex::land(ex::binary(BinaryOp::Eq, consumerWarpgroup(), lit(WG)),
                                        ex::binary(BinaryOp::Gt, D.Hi->clone(), D.Lo->clone())),
                               std::move(Do)));
            return perThread(std::move(L));
          };
          Lowered.push_back(Turn(1, "cuda.bar_arrive"));
          TakeLast.push_back(Turn(0, "cuda.bar_sync"));
        }
        if (Rot.Last) {
          Epilogue = rotatedEpilogue();
          rewriteRotatedBody(F->getBodyMutable());
        } else {
          llvm::DenseSet<const BufferValue *> InLoop;
          rewriteBlock(F->getBodyMutable(), &InLoop);
        }
        Lowered.push_back(std::make_unique<ForStmt>(
            LoopKind::Serial, std::move(F->getDimsMutable()), nullptr,
            AttributeList(), std::move(F->getBodyMutable()), F->getLoc()));
        for (StmtPtr &X : finishDeferredSums())
          Lowered.push_back(std::move(X));
        // Nothing in flight, and every thread done with the rings (the
        // producer of the warp-specialized form keeps its own order).
        if (!WS) {
          Stmts Drain;
          Drain.push_back(opPending("cuda.ldgsts_wait", 0));
          fenceProxy(Drain);
          Lowered.push_back(perThread(std::move(Drain)));
          Lowered.push_back(op("barrier"));
        }
        for (StmtPtr &X : TakeLast)
          Lowered.push_back(std::move(X));
        for (StmtPtr &X : Epilogue)
          Lowered.push_back(std::move(X));
        return Lowered;
      }
      rewriteBlock(F->getBodyMutable(), nullptr);
    } else if (GuardedParallel.count(S.get())) {
      for (Block *N : getNestedBlocks(*S))
        rewriteBlock(*N, nullptr);
    } else if (auto *Op = dyn_cast<OpStmt>(S.get())) {
      llvm::StringRef N = Op->getName();
      if (N == "gemm")
        return lowerGemm(*Op, Waited);
      if ((N == "clear" || N == "fill") && frag(Op->getOperand("dst").R.Buf)) {
        BufferValue *Dst = Op->getOperand("dst").R.Buf;
        return lowerFill(*Op, Dst, frag(Dst)->Elems);
      }
      if (N == "reduce" && frag(Op->getOperand("src").R.Buf))
        return lowerReduce(*Op);
      if (N == "copy" && tile(Op->getOperand("dst").R.Buf)) {
        // A ring tile's copy is done by the prologue and the waits.
        if (!Tiles[Op->getOperand("dst").R.Buf].Loop)
          return lowerOnceCopy(*Op);
        return Lowered;
      }
      if (N == "copy" && frag(Op->getOperand("src").R.Buf) &&
          frag(Op->getOperand("dst").R.Buf))
        return lowerFragmentCopy(*Op);
      if (N == "copy" && CopyDims.count(Op)) {
        const FragInfo &F = *frag(Op->getOperand("src").R.Buf);
        if (BufferValue *T = StagedThrough.lookup(Op)) {
          ExprPtr Stage = onceStage();
          return lowerStagedCopyOut(*Op, Op->getOperand("src").R.Buf, MT, F.NInst, F.NI,
                                    CopyDims.lookup(Op),
                                    StagedCopy{&Tiles[T].Layout, StagingBarrier, Stage.get(), Persist});
        }
        return lowerCopyOut(*Op, Op->getOperand("src").R.Buf, MT, F.NInst, F.NI,
                            CopyDims.lookup(Op));
      }
    }
    Lowered.push_back(std::move(S));
    return Lowered;
  }

  void rewriteBlock(Block &B, llvm::DenseSet<const BufferValue *> *Waited) {
    Stmts Out;
    for (StmtPtr &S : B.Stmts)
      for (StmtPtr &X : lowerStmt(S, Waited))
        Out.push_back(std::move(X));
    B.Stmts = std::move(Out);
  }

  void place() {
    llvm::DenseMap<const BufferValue *, int64_t> RingElems, LocalElems;
    for (BufferValue *B : TileOrder) {
      const TileInfo &T = Tiles[B];
      int64_t E = getDTypeBits(B->getDType()) / 8;
      RingElems[B] = (T.Loop ? Ring.Stages : OnceStages) * T.Layout.StageBytes / E;
    }
    for (auto &[B, F] : Frags)
      LocalElems[B] = F.Elems;
    std::vector<StmtPtr> &Top = K.getBodyMutable().Stmts;
    Top.insert(Top.begin(), std::make_move_iterator(Scratch.begin()),
               std::make_move_iterator(Scratch.end()));
    placeBuffers(K, RingElems, LocalElems);
  }

  KernelStmt &K;
  DiagnosticEngine &Diag;
  RemarkEmitter Remarks;
  FragmentLoweringOptions Opts;
  llvm::SMLoc WhyLoc;
  int64_t Rows = 0, MT = 0;
  std::vector<BufferValue *> FragOrder, TileOrder;
  llvm::DenseMap<const BufferValue *, FragInfo> Frags;
  llvm::DenseMap<const BufferValue *, TileInfo> Tiles;
  llvm::DenseMap<const OpStmt *, GemmInfo> GemmOf;
  /// The kernel's gemms in program order.
  std::vector<OpStmt *> GemmList;
  llvm::DenseMap<const OpStmt *, ForStmt *> GemmLoop;
  llvm::DenseMap<const ForStmt *, int64_t> ParallelCols;
  /// Ifs whose branches are parallel loops over fragments.
  llvm::SmallPtrSet<const Stmt *, 4> GuardedParallel;
  llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>> CopyDims;
  /// Named barriers: 0 the block's, 1 and 2 the ping-pong's turns, then
  /// 1 + StagingBarrier + g warpgroup g's staged copies out.
  static constexpr int64_t StagingBarrier = 2;
  /// The copies out of fragments, in program order, and the tile that
  /// stages each one planStagedCopies chose.
  std::vector<OpStmt *> CopyOrder;
  llvm::DenseMap<const OpStmt *, BufferValue *> StagedThrough;
  LetInits LetInit;
  RingLoop Ring;
  /// The warp-specialized form: its mbarriers (full barrier of each tile
  /// stage, then for ring tiles the empty ones), the tiles' first full and
  /// empty barrier, and the run-time choice between TMA and cp.async.
  bool WS = false, HadThreadIndex = false, PingPong = false;
  BufferValue *Mbar = nullptr;
  llvm::DenseMap<const BufferValue *, int64_t> FullAt, EmptyAt;
  /// The persistent form (planPersistent, flattenGrid): the tile order;
  /// the grid's one block index, the blocks launched and the block's tile
  /// count; the lets that replace the old block indices, the grid's old
  /// extents, the top-level lets that depend on them (PerTile: their
  /// values; TileLets: the statements); the ring iterations of the block's
  /// earlier tiles (a local) and the ring loop's trip count; while a role's
  /// tile loop is built, its ring base and tile round.
  bool Persist = false;
  hopper::TileOrder Order;
  /// Buffers of each once tile: 2 where shared memory holds them.
  int64_t OnceStages = 1;
  Value *Bid = nullptr, *NumBlocks = nullptr, *MyTiles = nullptr;
  std::vector<std::unique_ptr<Value>> TileBlocks;
  std::vector<ExprPtr> GridExtents;
  llvm::DenseSet<const Value *> PerTile;
  Stmts TileLets;
  BufferValue *RingDone = nullptr;
  ExprPtr TripCount;
  Value *RingBase = nullptr, *TileRound = nullptr;
  Value *Tma = nullptr;
  /// The rotated gemm pair of the ring loop, when it is rotated.
  struct {
    OpStmt *First = nullptr, *Last = nullptr;
  } Rot;
  Stmts Scratch;
  /// The reduces whose quad shuffles planDeferredSums moved after the
  /// loop, and the running sums to combine there.
  llvm::SmallPtrSet<const OpStmt *, 2> DeferredSums;
  std::vector<std::pair<BufferValue *, llvm::SMLoc>> DeferredAcc;
};

class WGMMAFragmentsPass : public Pass {
public:
  WGMMAFragmentsPass(const PassInfo &Info, bool MMA) : Pass(Info), MMA(MMA) {}

  bool run(Module &M, PassState &S) override {
    bool OK = true;
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBodyMutable(), [&](Stmt &St) {
        if (auto *K = dyn_cast<KernelStmt>(&St))
          OK &= FragmentLowering(*F, *K, M.getContext().getOpRegistry(), S.Diag,
                                 getRemarks(M),
                                 fragmentOptions(*F))
                    .run();
      });
    return OK;
  }

private:
  FragmentLoweringOptions fragmentOptions(const Function &F) const {
    if (MMA)
      return {false, false, false, false, true, false, false, false,
              getBoolOption("stage-copy-out", F)};
    return {getBoolOption("warp-specialize", F), getBoolOption("wgmma-overlap", F),
            getBoolOption("warpgroup-pingpong", F), getBoolOption("guard-masks", F),
            false, getBoolOption("persistent", F),
            getBoolOption("persistent-uneven", F),
            getBoolOption("double-buffer-once", F),
            getBoolOption("stage-copy-out", F)};
  }

  bool MMA;
};

} // namespace

std::unique_ptr<Pass> tile::createWGMMAFragmentsPass() {
  return std::make_unique<WGMMAFragmentsPass>(getWGMMAFragmentsPassInfo(), false);
}

std::unique_ptr<Pass> tile::createMMAFragmentsPass() {
  return std::make_unique<WGMMAFragmentsPass>(getMMAFragmentsPassInfo(), true);
}
