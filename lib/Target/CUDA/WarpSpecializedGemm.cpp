//===- WarpSpecializedGemm.cpp - Producer/consumer Hopper GEMM ------------===//
//
// A kernel of T threads whose work is one gemm K loop (the shape of
// examples/gemm.tile) becomes, with P = T + 128 threads and S stages:
//
//   %As, %Bs   rings of S swizzled stages (WGMMALayout.h), first in shared
//              memory; %mbar: full[0..S-1], then empty[0..S-1]
//   <lets>     every thread
//   %tma = cuda.tma_ready of A and B (data and rows 16-byte aligned, no
//              empty dimension)
//   thread 0:  full[s] expects 1 arrival (TMA) or 256 (cp.async), empty[s]
//              one per consumer warp; fence; then a block barrier
//   if %tx >= T   the producer warpgroup, setmaxnreg.dec to 40:
//     TMA:        thread T, for each K tile j: wait empty[j % S] (parity
//                 of the round before), arrive.expect_tx full[j % S] with
//                 the tile's bytes, cuda.tma_load the boxes of A and B
//                 into stage j % S (zero fill outside the tensors)
//     cp.async:   all 128 threads, the same waits, cuda.ldgsts chunks
//                 (clamped at the tensors' edges), then on full[j % S] a
//                 cuda.ldgsts_arrive (when the copies land) and an arrive
//                 (after the element copies of unaligned chunks) each
//   else          the consumer warpgroups (the kernel's own), setmaxnreg.inc:
//     clear the accumulators; for each K tile j: wait full[j % S] (parity
//     of round j / S), wgmma on the stage, commit, wait until one group is
//     left in flight, lane 0 of each warp arrives on empty[(j - 1) % S];
//     then the epilogues on the accumulator registers (each thread its
//     elements in the wgmma layout) and the copies out (paired, guarded
//     stores).
//
// What the epilogues only read (a bias, the scales of rows or columns)
// is loaded by every thread before the roles split (a copy from global
// memory that the shared SIMT passes lower, ordered by the barrier after
// the mbarriers' initialization): no block barrier runs once the
// producer and the consumers have parted.
//
// The tensor maps are optional: the runtime builds one only for a tensor
// TMA can describe (tile/Exec/TensorMap.h), the test cuda.tma_ready
// makes here, so that the kernel and the map agree on which path runs.
// The host can make that test and cuda.aligned's before the launch, so
// CUDA code generation also emits the kernel specialized for both
// passing (the TMA producer and the paired stores alone), which host
// code launches where they do (LaunchFlags.h).
//
//===----------------------------------------------------------------------===//

#include "WarpSpecializedGemm.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
#include "tile/Transforms/GemmLowering.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tile;
using namespace tile::hopper;
using llvm::dyn_cast;
using llvm::isa;

namespace {

/// Threads of the producer warpgroup.
constexpr int64_t ProducerThreads = WarpgroupSize;

bool isFillOf(const Stmt &S, const BufferValue *C) {
  const auto *Op = dyn_cast<OpStmt>(&S);
  return Op && (Op->getName() == "clear" || Op->getName() == "fill") &&
         Op->getOperand("dst").R.Buf == C;
}

/// What the warp-specialized kernel does with a statement of the top level.
enum class TopRole {
  /// Every thread, before the roles split: allocations, lets before the K
  /// loop, the loads of what the epilogues read.
  Shared,
  /// The K loop: the producer's loads, the consumers' wgmma.
  Loop,
  /// A clear or fill of the accumulator or a companion: the consumers.
  Fill,
  /// An epilogue over the accumulator: the consumers, on their registers.
  Epilogue,
  /// A whole copy of the accumulator or a companion to global memory.
  CopyOut,
  /// Lets after the K loop: the consumers.
  Consumer,
};

/// A short description of top-level statement \p S for a remark.
std::string describe(const Stmt &S) {
  if (const auto *Op = dyn_cast<OpStmt>(&S)) {
    std::string D = "'" + Op->getName().str() + "'";
    for (unsigned I = 0; I != Op->getOperands().size(); ++I)
      if (Op->getOperand(I).Kind == OperandKind::Region &&
          llvm::StringRef(Op->getInfo().Operands[I].Name) == "dst")
        D += " into %" + Op->getOperand(I).R.Buf->getName().str();
    return D;
  }
  if (isa<ForStmt>(&S))
    return "a loop that is not an epilogue over the accumulator";
  if (isa<StoreStmt>(&S))
    return "a store";
  return "a statement with per-thread control flow";
}

/// The role of each statement of \p K's top level, in order; nullopt with
/// the reason in \p Why when one has none (canWarpSpecialize's shape).
std::optional<std::vector<TopRole>>
classifyTopLevel(const KernelStmt &K, const GemmPlan &P,
                 const CopyDimsMap &CopyDims, const AccumulatorEpilogues &Epi,
                 std::string &Why) {
  const std::vector<StmtPtr> &Top = K.getBody().Stmts;
  auto InAccumulator = [&](const BufferValue *B) {
    return B == P.C || Epi.Companions.count(B);
  };
  auto IsEpilogue = [&](const Stmt &S) {
    const auto *F = dyn_cast<ForStmt>(&S);
    return F && Epi.Loops.count(F);
  };
  // An epilogue input's setup: a whole clear or fill, or a copy from
  // global memory, of a shared or fragment buffer outside the
  // accumulator's layout.
  auto SetupTarget = [&](const Stmt &S) -> const BufferValue * {
    const auto *Op = dyn_cast<OpStmt>(&S);
    if (!Op)
      return nullptr;
    if (Op->getName() == "copy") {
      if (Op->getOperand("src").R.Buf->getScope() != MemScope::Global)
        return nullptr;
    } else if (Op->getName() != "clear" && Op->getName() != "fill") {
      return nullptr;
    }
    const Region &D = Op->getOperand("dst").R;
    MemScope Sc = D.Buf->getScope();
    if (!D.isWholeBuffer() || InAccumulator(D.Buf) ||
        (Sc != MemScope::Fragment && Sc != MemScope::Shared))
      return nullptr;
    return D.Buf;
  };
  llvm::DenseMap<const BufferValue *, unsigned> Setups;
  for (const StmtPtr &S : Top)
    if (const BufferValue *D = SetupTarget(*S))
      ++Setups[D];
  // Only the epilogues read it besides its one setup.
  auto IsEpilogueInput = [&](const Stmt &Setup, const BufferValue *D) {
    if (Setups.lookup(D) != 1)
      return false;
    for (const StmtPtr &S : Top) {
      if (S.get() == &Setup || isa<AllocStmt>(S.get()) || IsEpilogue(*S))
        continue;
      bool Used = false;
      forEachUse(*S, [&](const Value *V) { Used |= V == D; });
      if (Used)
        return false;
    }
    return true;
  };
  std::vector<TopRole> Roles;
  llvm::SmallPtrSet<const Value *, 8> LetsAfterLoop;
  bool PastLoop = false;
  for (const StmtPtr &SP : Top) {
    const Stmt &S = *SP;
    if (&S == P.Loop) {
      PastLoop = true;
      Roles.push_back(TopRole::Loop);
      continue;
    }
    if (isa<AllocStmt>(&S)) {
      Roles.push_back(TopRole::Shared);
      continue;
    }
    if (const auto *L = dyn_cast<LetStmt>(&S)) {
      if (PastLoop)
        LetsAfterLoop.insert(L->getVar());
      Roles.push_back(PastLoop ? TopRole::Consumer : TopRole::Shared);
      continue;
    }
    if (const BufferValue *D = SetupTarget(S); D && IsEpilogueInput(S, D)) {
      bool Late = false;
      forEachUse(S, [&](const Value *V) { Late |= LetsAfterLoop.count(V) > 0; });
      if (Late) {
        Why = "the load of %" + D->getName().str() +
              ", which the epilogues read, uses a let after the K loop; it "
              "would run before the roles split";
        return std::nullopt;
      }
      Roles.push_back(TopRole::Shared);
      continue;
    }
    if (!PastLoop && (isFillOf(S, P.C) ||
                      llvm::any_of(Epi.Companions, [&](const BufferValue *B) {
                        return isFillOf(S, B);
                      }))) {
      Roles.push_back(TopRole::Fill);
      continue;
    }
    if (PastLoop && IsEpilogue(S)) {
      Roles.push_back(TopRole::Epilogue);
      continue;
    }
    if (const auto *Op = dyn_cast<OpStmt>(&S);
        PastLoop && Op && Op->getName() == "copy" &&
        InAccumulator(Op->getOperand("src").R.Buf) &&
        Op->getOperand("dst").R.Buf->getScope() == MemScope::Global &&
        CopyDims.count(Op)) {
      Roles.push_back(TopRole::CopyOut);
      continue;
    }
    Why = "the kernel's top level holds " + describe(S) +
          ", which is none of allocations, lets, the accumulator's clear, the "
          "K loop, epilogues on the accumulator registers with the loads of "
          "what they read, and copies of the accumulator to global memory";
    return std::nullopt;
  }
  if (!PastLoop) {
    Why = "the K loop is not at the kernel's top level";
    return std::nullopt;
  }
  return Roles;
}

class WarpSpecializedGemm : public WGMMABuilder {
public:
  WarpSpecializedGemm(const Function &F, KernelStmt &K, const OpRegistry &Ops,
                      const GemmPlan &P, const CopyDimsMap &CopyDims,
                      const AccumulatorEpilogues &Epi,
                      const WarpSpecializeOptions &Opts)
      : WGMMABuilder(F, Ops), K(K), P(P), CopyDims(CopyDims), Epi(Epi),
        Opts(Opts) {}

  void run();

private:
  StmtPtr mbarOp(llvm::StringRef Name, ExprPtr Index, ExprPtr Arg = nullptr,
                 int64_t TxBytes = 0, bool PerWarp = false) {
    return mbarrierOp(Mbar, Name, std::move(Index), std::move(Arg), TxBytes, PerWarp);
  }

  /// With the option on, the layout through which the copy out \p Op is
  /// staged (an [BM, BN] tile in the 128-byte swizzle over the start of
  /// the A or B ring, spent once every consumer's last wgmma has read it),
  /// or none, with the remark saying why.
  std::optional<SharedTile> stagingTile(const OpStmt &Op) {
    if (!Opts.StageCopyOut)
      return std::nullopt;
    DType Ty = Op.getOperand("dst").R.Buf->getDType();
    int64_t Bytes = P.BM * P.BN * 2;
    std::string Why = whyNotStaged(Op, CopyDims.lookup(&Op).second, P.BN);
    const OperandPlan *Ring = nullptr;
    if (Why.empty()) {
      for (const OperandPlan *O : {&P.B, &P.A})
        if (O->Tile->getDType() == Ty && P.Stages * O->StageBytes >= Bytes) {
          Ring = O;
          break;
        }
      if (!Ring)
        Why = "neither operand ring is of the destination's element type and "
              "holds " + std::to_string(Bytes) + " bytes";
    }
    if (!Ring) {
      if (Opts.Remarks)
        Opts.Remarks->missed(Op.getLoc(), "copy out stores pairs, not staged through "
                                          "shared memory: " + Why);
      return std::nullopt;
    }
    if (Opts.Remarks)
      Opts.Remarks->passed(Op.getLoc(), "copy out staged through the %" +
                                            Ring->Tile->getName() +
                                            " ring: 16-byte stores of whole rows "
                                            "where the tensor allows");
    SharedTile T;
    T.Tile = Ring->Tile;
    T.Rows = P.BM;
    T.Contig = P.BN;
    T.Swizzle = 128;
    T.StageBytes = Bytes;
    return T;
  }

  /// The cuda.tma_load boxes of K tile \p KVal of \p O into stage \p Stage.
  Stmts tmaTile(const OperandPlan &O, const Expr &KVal, Value *Stage);
  /// The producer's loop: one K tile per iteration.
  StmtPtr producerLoop(bool TMA);
  Stmts consumer();

  KernelStmt &K;
  const GemmPlan &P;
  const CopyDimsMap &CopyDims;
  const AccumulatorEpilogues &Epi;
  const WarpSpecializeOptions &Opts;
  /// The layout the first copy out is staged through, once chosen.
  std::optional<SharedTile> Staging;
  BufferValue *Mbar = nullptr;
  Value *KT = nullptr, *Tma = nullptr;
  /// The statements of the kernel's top level after the K loop (lets,
  /// epilogues and copies out), and the clears or fills of the accumulator
  /// and its companions.
  Stmts After, Fills;
};

WGMMABuilder::Stmts WarpSpecializedGemm::tmaTile(const OperandPlan &O,
                                                 const Expr &KVal, Value *Stage) {
  ExprPtr StageE = ref(Stage);
  return tmaLoadTile(O, *O.Copy, P.Loop->getDims()[0].Var.get(), &KVal, *StageE,
                     Mbar, *StageE);
}

StmtPtr WarpSpecializedGemm::producerLoop(bool TMA) {
  const LoopDim &D = P.Loop->getDims()[0];
  int64_t S = P.Stages, E = getDTypeBits(P.Shape.Ty) / 8;
  int64_t TileBytes = (P.A.Rows * P.A.Contig + P.B.Rows * P.B.Contig) * E;
  return loop(LoopKind::Serial, "j", ref(KT), [&](Value *J) {
    Stmts L;
    Value *Stage = let(L, "stage", rem(ref(J), S));
    // Stage j % S is free once the consumers released round j / S - 1; a
    // fresh barrier counts the round before the first as complete.
    L.push_back(mbarOp("cuda.mbarrier_wait", add(ref(Stage), lit(S)),
                       rem(add(div(ref(J), S), lit(1)), 2)));
    ExprPtr KVal = add(D.Lo->clone(), ref(J));
    if (TMA) {
      L.push_back(mbarOp("cuda.mbarrier_arrive", ref(Stage), nullptr, TileBytes));
      for (const OperandPlan *O : {&P.A, &P.B})
        for (StmtPtr &X : tmaTile(*O, *KVal, Stage))
          L.push_back(std::move(X));
      return L;
    }
    ExprPtr StageE = ref(Stage);
    for (const OperandPlan *O : {&P.A, &P.B})
      for (StmtPtr &X : loadTile(*O, *O->Copy, D.Var.get(), KVal.get(), *StageE,
                                 /*Compact=*/true))
        L.push_back(std::move(X));
    // Two arrivals per thread: one when its cp.async copies land, one (a
    // release) after the element copies it made itself where a chunk's
    // source was not 16-byte aligned.
    L.push_back(mbarOp("cuda.ldgsts_arrive", ref(Stage)));
    L.push_back(mbarOp("cuda.mbarrier_arrive", ref(Stage)));
    return L;
  });
}

WGMMABuilder::Stmts WarpSpecializedGemm::consumer() {
  int64_t S = P.Stages, Pending = Opts.GroupsInFlight ? 1 : 0;
  Stmts C;
  AttributeList Inc;
  Inc.set("action", Attribute::getIdent("inc"));
  Inc.set("count", Attribute::getInt(consumerRegisters(Threads / WarpgroupSize)));
  C.push_back(op("cuda.setmaxnreg", {}, std::move(Inc)));
  for (StmtPtr &X : Fills)
    C.push_back(std::move(X));
  Value *WG = let(C, "wg", div(ref(Tid), WarpgroupSize));
  C.push_back(loop(LoopKind::Serial, "j", ref(KT), [&](Value *J) {
    Stmts L;
    Value *Stage = let(L, "stage", rem(ref(J), S));
    L.push_back(mbarOp("cuda.mbarrier_wait", ref(Stage), rem(div(ref(J), S), 2)));
    // cp.async wrote the stage through the generic proxy; wgmma reads it
    // through the async proxy.
    Stmts Fence;
    Fence.push_back(op("cuda.fence_proxy_async"));
    L.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(Tma), lit(0)), std::move(Fence)));
    ExprPtr StageE = ref(Stage);
    for (StmtPtr &X : wgmmaGemm(P.Shape, &P.A, nullptr, 0, P.B, P.C, WG,
                                StageE.get(), StageE.get(), false, P.Op->getLoc()))
      L.push_back(std::move(X));
    L.push_back(opPending("cuda.wgmma_wait", Pending, P.C));
    // The groups up to j - Pending are done: each warp releases that
    // stage (lane 0, predicated: no divergent branch in the pipeline).
    if (Pending) {
      Stmts Release;
      Release.push_back(mbarOp("cuda.mbarrier_arrive",
                               add(rem(ex::sub(ref(J), lit(1)), S), lit(S)),
                               nullptr, 0, /*PerWarp=*/true));
      L.push_back(ifThen(ex::binary(BinaryOp::Gt, ref(J), lit(0)), std::move(Release)));
    } else {
      L.push_back(mbarOp("cuda.mbarrier_arrive", add(ref(Stage), lit(S)), nullptr, 0,
                         /*PerWarp=*/true));
    }
    return L;
  }));
  if (Pending) {
    // The last stage is released too, which leaves every barrier at the
    // end of a round.
    C.push_back(opPending("cuda.wgmma_wait", 0, P.C));
    Stmts Release;
    Release.push_back(mbarOp("cuda.mbarrier_arrive",
                             add(rem(ex::sub(ref(KT), lit(1)), S), lit(S)), nullptr,
                             0, /*PerWarp=*/true));
    C.push_back(ifThen(ex::binary(BinaryOp::Gt, ref(KT), lit(0)), std::move(Release)));
  }
  for (StmtPtr &X : After)
    C.push_back(std::move(X));
  return C;
}

void WarpSpecializedGemm::run() {
  int64_t T = *K.getThreads()->getConstInt(), S = P.Stages;
  Threads = T;
  K.getThreadsMutable() = lit(T + ProducerThreads);
  K.setThreadIndex(newVar(Value::Kind::ThreadIdx, "tx"));
  Tid = K.getThreadIndex();
  // The top level: allocations, lets and the epilogues' inputs stay, the
  // loop, the fills, the epilogues and the copies out (and lets after the
  // loop) go to the consumers. The replaced statements stay alive until
  // the new body is built from them.
  std::string Why;
  std::optional<std::vector<TopRole>> Roles =
      classifyTopLevel(K, P, CopyDims, Epi, Why);
  assert(Roles && "warpSpecialize needs canWarpSpecialize");
  llvm::DenseSet<const BufferValue *> Registers(Epi.Companions.begin(),
                                                Epi.Companions.end());
  Registers.insert(P.C);
  Stmts Top, Replaced;
  std::vector<StmtPtr> &Body = K.getBodyMutable().Stmts;
  for (size_t I = 0; I != Body.size(); ++I) {
    StmtPtr &St = Body[I];
    switch ((*Roles)[I]) {
    case TopRole::Shared:
      Top.push_back(std::move(St));
      continue;
    case TopRole::Consumer:
      After.push_back(std::move(St));
      continue;
    case TopRole::Loop:
      break;
    case TopRole::Fill: {
      const auto &Op = *dyn_cast<OpStmt>(St.get());
      for (StmtPtr &X : unwrapPerThread(lowerFill(Op, Op.getOperand("dst").R.Buf,
                                         P.accPerThread())))
        Fills.push_back(std::move(X));
      break;
    }
    case TopRole::Epilogue:
      for (StmtPtr &X : lowerEpilogue(*dyn_cast<ForStmt>(St.get()), *Epi.Layout,
                                      Tid, 32, Registers, Names))
        After.push_back(std::move(X));
      break;
    case TopRole::CopyOut: {
      const auto &Op = *dyn_cast<OpStmt>(St.get());
      Stmts Lowered;
      if (std::optional<SharedTile> T = Staging ? std::nullopt : stagingTile(Op)) {
        Staging = std::move(T);
        // Every consumer warpgroup's last wgmma has read the rings.
        AttributeList A;
        A.set("threads", Attribute::getInt(Threads));
        std::vector<OpOperand> Operands;
        Operands.push_back(exprOperand(lit(1)));
        After.push_back(op("cuda.bar_sync", std::move(Operands), std::move(A), Op.getLoc()));
        StagedCopy SC;
        SC.Tile = &*Staging;
        SC.FirstBarrier = 2;
        SC.PredicatedFallback = true;
        Lowered = lowerStagedCopyOut(Op, Op.getOperand("src").R.Buf, P.Shape.MT,
                                     P.Shape.NInst, P.Shape.NI, CopyDims.lookup(&Op), SC);
      } else {
        Lowered = lowerCopyOut(Op, Op.getOperand("src").R.Buf, P.Shape.MT, P.Shape.NInst,
                               P.Shape.NI, CopyDims.lookup(&Op), /*Predicated=*/true);
      }
      for (StmtPtr &X : unwrapPerThread(std::move(Lowered)))
        After.push_back(std::move(X));
      break;
    }
    }
    Replaced.push_back(std::move(St));
  }
  std::vector<ExprPtr> MbarShape;
  MbarShape.push_back(lit(2 * S));
  auto MB = std::make_unique<BufferValue>(Names.fresh("mbar"), DType::U64,
                                          MemScope::Shared, std::move(MbarShape),
                                          std::vector<ExprPtr>(), false, llvm::SMLoc());
  Mbar = MB.get();
  Top.push_back(std::make_unique<AllocStmt>(std::move(MB), AttributeList()));
  BufferValue *Ok = nullptr;
  Top.push_back(allocLocal("tma_ok", DType::I32, 2, Ok));
  const LoopDim &D = P.Loop->getDims()[0];
  KT = let(Top, "kt", ex::sub(D.Hi->clone(), D.Lo->clone()));
  for (const OperandPlan *O : {&P.A, &P.B}) {
    BufferValue *G = O->Copy->getOperand("src").R.Buf;
    std::vector<OpOperand> Operands;
    Operands.push_back(regionOperand(G, {}));
    Operands.push_back(exprOperand(G->getShape()[1]->clone()));
    std::vector<ExprPtr> Idx;
    Idx.push_back(lit(O == &P.A ? 0 : 1));
    Operands.push_back(regionOperand(Ok, std::move(Idx)));
    // What hangs on the test (the cp.async producer, the fences it needs)
    // is worth a specialization without it (LaunchFlags.h).
    AttributeList Attrs;
    Attrs.set("specialize", Attribute::getBool(true));
    Top.push_back(op("cuda.tma_ready", std::move(Operands), std::move(Attrs)));
  }
  auto OkAt = [&](int64_t I) {
    std::vector<ExprPtr> Idx;
    Idx.push_back(lit(I));
    return ex::load(Ok, std::move(Idx));
  };
  // cuda.tma_ready is 0 for an empty tensor too, whose map the runtime
  // passes as zeros: such a tensor is read (as zeros) by the cp.async path.
  ExprPtr Ready = call(Intrinsic::Min, OkAt(0), OkAt(1));
  Tma = let(Top, "tma", std::move(Ready));
  // One thread initializes the barriers: full[s] completes on one arrival
  // with the tile's bytes (TMA) or on two arrivals of each of the 128
  // producer threads (cp.async), empty[s] on one arrival per consumer warp.
  Stmts Init;
  Init.push_back(unroll("s", S, [&](Value *SV) {
    Stmts L;
    L.push_back(mbarOp("cuda.mbarrier_init", ref(SV),
                       call(Intrinsic::Select,
                            ex::binary(BinaryOp::Ne, ref(Tma), lit(0)), lit(1),
                            lit(2 * ProducerThreads))));
    L.push_back(mbarOp("cuda.mbarrier_init", add(ref(SV), lit(S)), lit(T / 32)));
    return L;
  }));
  Init.push_back(op("cuda.fence_mbarrier_init"));
  Top.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(Tid), lit(0)), std::move(Init)));
  Top.push_back(barrier());
  // The producer warpgroup.
  Stmts Prod;
  AttributeList Dec;
  Dec.set("action", Attribute::getIdent("dec"));
  Dec.set("count", Attribute::getInt(ProducerRegisters));
  Prod.push_back(op("cuda.setmaxnreg", {}, std::move(Dec)));
  Stmts ByTMA;
  {
    Stmts One;
    One.push_back(producerLoop(/*TMA=*/true));
    ByTMA.push_back(ifThen(ex::binary(BinaryOp::Eq, ref(Tid), lit(T)), std::move(One)));
  }
  Stmts ByCpAsync;
  {
    // The cp.async chunks are spread over the producer's 128 threads.
    Value *ConsumerTid = Tid;
    Value *PTid = let(ByCpAsync, "ptx", ex::sub(ref(Tid), lit(T)));
    Tid = PTid;
    Threads = ProducerThreads;
    ByCpAsync.push_back(producerLoop(/*TMA=*/false));
    ByCpAsync.push_back(opPending("cuda.ldgsts_wait", 0));
    Tid = ConsumerTid;
    Threads = T;
  }
  Prod.push_back(ifElse(ex::binary(BinaryOp::Ne, ref(Tma), lit(0)), std::move(ByTMA),
                        std::move(ByCpAsync)));
  Top.push_back(ifElse(ex::ge(ref(Tid), lit(T)), std::move(Prod), consumer()));
  K.getBodyMutable().Stmts = std::move(Top);
  int64_t E = getDTypeBits(P.Shape.Ty) / 8;
  llvm::DenseMap<const BufferValue *, int64_t> RingElems, LocalElems;
  RingElems[P.A.Tile] = S * P.A.StageBytes / E;
  RingElems[P.B.Tile] = S * P.B.StageBytes / E;
  for (const BufferValue *B : Registers)
    LocalElems[B] = P.accPerThread();
  placeBuffers(K, RingElems, LocalElems);
}

} // namespace

bool hopper::canWarpSpecialize(const KernelStmt &K, const GemmPlan &P,
                               const CopyDimsMap &CopyDims,
                               const AccumulatorEpilogues &Epi,
                               std::string &Why) {
  if (K.getThreadIndex()) {
    Why = "the kernel binds a thread index (per-thread code of its own)";
    return false;
  }
  std::optional<int64_t> T = K.getThreads()->getConstInt();
  if (!T || *T % WarpgroupSize != 0 || *T / WarpgroupSize > 3 ||
      *T + ProducerThreads > 1024) {
    Why = "a producer warpgroup needs 1 to 3 consumer warpgroups, not " +
          std::to_string(T.value_or(0)) + " threads";
    return false;
  }
  assert((Epi.Loops.empty() || Epi.Layout) && "epilogues need the layout");
  if (!classifyTopLevel(K, P, CopyDims, Epi, Why))
    return false;
  for (const OperandPlan *O : {&P.A, &P.B}) {
    const BufferValue *G = O->Copy->getOperand("src").R.Buf;
    if (G->getRank() != 2) {
      Why = "%" + G->getName().str() + " has rank " + std::to_string(G->getRank()) +
            "; the tensor maps are 2-D";
      return false;
    }
    if (O->Rows > MaxTmaBoxRows && O->Rows % MaxTmaBoxRows != 0) {
      Why = "%" + O->Tile->getName().str() + " has " + std::to_string(O->Rows) +
            " rows, not whole TMA boxes of at most 256";
      return false;
    }
  }
  return true;
}

void hopper::warpSpecialize(const Function &F, KernelStmt &K,
                            const OpRegistry &Ops, const GemmPlan &P,
                            const CopyDimsMap &CopyDims,
                            const AccumulatorEpilogues &Epi,
                            const WarpSpecializeOptions &Opts) {
  WarpSpecializedGemm(F, K, Ops, P, CopyDims, Epi, Opts).run();
}
