//===- WarpSpecializedGemm.cpp - Producer/consumer Hopper GEMM ------------===//
//
// A kernel of T threads whose work is one gemm K loop (the shape of
// examples/gemm.tile) becomes, with P = T + 128 threads and S stages:
//
//   %As, %Bs   rings of S swizzled stages (WGMMALayout.h), first in shared
//              memory; %mbar: full[0..S-1], then empty[0..S-1]
//   <lets>     every thread
//   %tma = cuda.tma_ready of A and B (data and rows 16-byte aligned)
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
//     then the copies out (paired, guarded stores).
//
// The tensor maps are optional: the runtime builds one only for a tensor
// TMA can describe (tile/Exec/TensorMap.h), the test cuda.tma_ready
// makes here, so that the kernel and the map agree on which path runs.
//
//===----------------------------------------------------------------------===//

#include "WarpSpecializedGemm.h"
#include "tile/IR/Walk.h"
#include "tile/Transforms/ExprUtils.h"
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

bool isCopyOutOf(const Stmt &S, const BufferValue *C) {
  const auto *Op = dyn_cast<OpStmt>(&S);
  return Op && Op->getName() == "copy" && Op->getOperand("src").R.Buf == C;
}

class WarpSpecializedGemm : public WGMMABuilder {
public:
  WarpSpecializedGemm(const Function &F, KernelStmt &K, const OpRegistry &Ops,
                      const GemmPlan &P, const CopyDimsMap &CopyDims,
                      const WarpSpecializeOptions &Opts)
      : WGMMABuilder(F, Ops), K(K), P(P), CopyDims(CopyDims), Opts(Opts) {}

  void run();

private:
  StmtPtr mbarOp(llvm::StringRef Name, ExprPtr Index, ExprPtr Arg = nullptr,
                 int64_t TxBytes = 0, bool PerWarp = false) {
    return mbarrierOp(Mbar, Name, std::move(Index), std::move(Arg), TxBytes, PerWarp);
  }

  /// The body of `if %tx < T { ... }` that the builder's per-thread
  /// helpers return: inside a role's branch every thread runs it.
  static Stmts unwrap(Stmts In) {
    Stmts Out;
    for (StmtPtr &S : In) {
      auto *If = dyn_cast<IfStmt>(S.get());
      if (If && !If->hasElse()) {
        for (StmtPtr &X : If->getThenMutable().Stmts)
          Out.push_back(std::move(X));
        continue;
      }
      Out.push_back(std::move(S));
    }
    return Out;
  }

  /// The cuda.tma_load boxes of K tile \p KVal of \p O into stage \p Stage.
  Stmts tmaTile(const OperandPlan &O, const Expr &KVal, Value *Stage);
  /// The producer's loop: one K tile per iteration.
  StmtPtr producerLoop(bool TMA);
  Stmts consumer();

  KernelStmt &K;
  const GemmPlan &P;
  const CopyDimsMap &CopyDims;
  const WarpSpecializeOptions &Opts;
  BufferValue *Mbar = nullptr;
  Value *KT = nullptr, *Tma = nullptr;
  /// The statements of the kernel's top level after the K loop (lets and
  /// copies out), and the clears or fills of the accumulator.
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
  // The top level: allocations and lets stay, the loop, the fills and the
  // copies out (and lets after the loop) go to the consumers. The replaced
  // statements stay alive until the new body is built from them.
  Stmts Top, Replaced;
  bool PastLoop = false;
  for (StmtPtr &St : K.getBodyMutable().Stmts) {
    if (St.get() == P.Loop) {
      PastLoop = true;
      Replaced.push_back(std::move(St));
    } else if (isFillOf(*St, P.C)) {
      for (StmtPtr &X : unwrap(lowerFill(*dyn_cast<OpStmt>(St.get()), P.C,
                                         P.accPerThread())))
        Fills.push_back(std::move(X));
      Replaced.push_back(std::move(St));
    } else if (isCopyOutOf(*St, P.C)) {
      const auto &Op = *dyn_cast<OpStmt>(St.get());
      for (StmtPtr &X : unwrap(lowerCopyOut(Op, P.C, P.Shape.MT, P.Shape.NInst,
                                            P.Shape.NI, CopyDims.lookup(&Op))))
        After.push_back(std::move(X));
      Replaced.push_back(std::move(St));
    } else if (PastLoop && !isa<AllocStmt>(St.get())) {
      After.push_back(std::move(St));
    } else {
      Top.push_back(std::move(St));
    }
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
    Top.push_back(op("cuda.tma_ready", std::move(Operands)));
  }
  auto OkAt = [&](int64_t I) {
    std::vector<ExprPtr> Idx;
    Idx.push_back(lit(I));
    return ex::load(Ok, std::move(Idx));
  };
  // The runtime passes zeros for an empty tensor's map too: such a tensor
  // is read (as zeros) by the cp.async path.
  ExprPtr NonEmpty;
  llvm::SmallPtrSet<const Value *, 4> Seen;
  for (const OperandPlan *O : {&P.A, &P.B})
    for (const ExprPtr &Dim : O->Copy->getOperand("src").R.Buf->getShape()) {
      const auto *Sym = dyn_cast<RefExpr>(Dim.get());
      if (Sym && !Seen.insert(Sym->getValue()).second)
        continue;
      if (std::optional<int64_t> C = Dim->getConstInt(); C && *C > 0)
        continue;
      ExprPtr Pos = ex::binary(BinaryOp::Gt, Dim->clone(), lit(0));
      NonEmpty = NonEmpty ? ex::land(std::move(NonEmpty), std::move(Pos)) : std::move(Pos);
    }
  ExprPtr Ready = call(Intrinsic::Min, OkAt(0), OkAt(1));
  if (NonEmpty)
    Ready = call(Intrinsic::Select, std::move(NonEmpty), std::move(Ready), lit(0));
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
  LocalElems[P.C] = P.accPerThread();
  placeBuffers(K, RingElems, LocalElems);
}

} // namespace

bool hopper::canWarpSpecialize(const KernelStmt &K, const GemmPlan &P,
                               const CopyDimsMap &CopyDims, std::string &Why) {
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
  bool PastLoop = false;
  for (const StmtPtr &S : K.getBody().Stmts) {
    if (S.get() == P.Loop) {
      PastLoop = true;
      continue;
    }
    if (isa<AllocStmt>(S.get()) || isa<LetStmt>(S.get()))
      continue;
    if (!PastLoop && isFillOf(*S, P.C))
      continue;
    if (PastLoop && isCopyOutOf(*S, P.C)) {
      const auto *Op = dyn_cast<OpStmt>(S.get());
      if (Op->getOperand("dst").R.Buf->getScope() == MemScope::Global &&
          CopyDims.count(Op))
        continue;
    }
    Why = "the kernel's top level holds more than allocations, lets, the "
          "accumulator's clear, the K loop and copies of the accumulator to "
          "global memory";
    return false;
  }
  if (!PastLoop) {
    Why = "the K loop is not at the kernel's top level";
    return false;
  }
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
                            const WarpSpecializeOptions &Opts) {
  WarpSpecializedGemm(F, K, Ops, P, CopyDims, Opts).run();
}
