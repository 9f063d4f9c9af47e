//===- SIMTEmulatorSync.cpp - mbarriers, TMA and setmaxnreg in the emulator -===//
//
// The ops of warp-specialized kernels in the CUDA emulator (SIMTEmulator.h),
// written from the PTX ISA's mbarrier, cp.async.bulk.tensor,
// cp.async.mbarrier.arrive and setmaxnreg sections and the CUDA
// Programming Guide's tensor-map swizzle modes, not from the lowerings:
//
//  - mbarrier objects: init with an expected arrival count, arrive-on
//    (with expect-tx), complete-tx, phase completion when the pending
//    arrivals and the tx-count are both zero, try_wait.parity; the valid
//    ranges of the counts and the rules the ISA states (no use before
//    initialization, no re-initialization, a successful wait on each phase
//    before an arrival in the next, a fence.mbarrier_init before the async
//    proxy uses one).
//  - The happens-before order they create, as vector clocks: an arrival
//    releases what its thread did before it (cp.async.mbarrier.arrive only
//    the thread's earlier copies), the bytes of a TMA box are released by
//    the phase they complete, a wait that sees a phase complete acquires
//    everything released up to that phase.
//  - cuda.tma_load: the box read when issued, elements outside the tensor
//    zero, written with the swizzle of its tensor map when the block next
//    stalls; the tensor maps the runtime would build (tile/Exec/TensorMap.h)
//    from the op's box and the kernel's arguments.
//  - setmaxnreg: the whole warpgroup at one instruction, the count only
//    lowered by dec and raised by inc, inc waiting for the CTA's pool.
//
//===----------------------------------------------------------------------===//

#include "SIMTEmulator.h"
#include "tile/Exec/TensorMap.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <cstring>

using namespace tile;
using namespace tile::cuda::emu;
using llvm::SMLoc;
using llvm::Twine;

namespace {

/// The largest pending arrival count and |tx-count| (PTX ISA).
constexpr int64_t MaxMbarrierCount = (int64_t(1) << 20) - 1;

/// The registers a warpgroup holds at \p PerThread registers per thread:
/// warps are given registers in units of 256 (8 per thread).
int64_t warpgroupRegisters(int64_t PerThread) {
  return (PerThread + 7) / 8 * 8 * 128;
}

/// Where a TMA box's 16-byte chunk at shared address \p Linear (its place
/// in the box written row after row) lands under the tensor map's
/// \p Span-byte swizzle. The CUDA Programming Guide defines the swizzle on
/// shared memory seen as 128-byte rows of eight 16-byte chunks: chunk x of
/// row y goes to chunk x ^ (y mod (Span / 16)), with y counted from the
/// start of shared memory (the pattern follows the address, repeating
/// every Span * 8 bytes).
int64_t swizzleChunk(int64_t Linear, int64_t Span) {
  if (Span == 0)
    return Linear;
  int64_t Row = Linear / 128, Chunk = (Linear / 16) % 8;
  return Row * 128 + (Chunk ^ (Row % (Span / 16))) * 16 + Linear % 16;
}

} // namespace

//===----------------------------------------------------------------------===//
// Happens-before
//===----------------------------------------------------------------------===//

uint32_t SIMTEmulator::agentIndex(int32_t A) const {
  if (A >= 0)
    return uint32_t(A);
  if (accessor::isWgmma(A))
    return uint32_t(accessor::WgmmaOf - A) * 128;
  if (accessor::isCopies(A))
    return uint32_t(Threads) + uint32_t(accessor::CopiesOf - A);
  assert(accessor::isTma(A) && "an accessor without a clock");
  return uint32_t(2 * Threads) + uint32_t(accessor::TmaOn - A);
}

void SIMTEmulator::releaseClocks(std::vector<uint32_t> &Into, int64_t Lane,
                                 int32_t Agent) {
  if (Lane >= 0) {
    const uint32_t *V = clocksOf(uint32_t(Lane));
    for (uint32_t A = 0; A != NumAgents; ++A)
      Into[A] = std::max(Into[A], V[A]);
  }
  uint32_t Idx = agentIndex(Agent);
  Into[Idx] = std::max(Into[Idx], Clock[Idx]);
  ++Clock[Idx];
}

void SIMTEmulator::acquireClocks(uint32_t Lane, const std::vector<uint32_t> &From) {
  uint32_t *V = clocksOf(Lane);
  for (uint32_t A = 0; A != NumAgents; ++A)
    V[A] = std::max(V[A], From[A]);
}

bool SIMTEmulator::orderedBefore(int32_t A, uint32_t Stamp, uint32_t Epoch,
                                 int64_t By) {
  if (Epoch != uint32_t(BarrierEpoch + 1))
    return true;
  if (By >= 0 && A == By)
    return true;
  // A retired wgmma of the thread's own warpgroup: its wait retired it.
  if (By >= 0 && accessor::isWgmma(A) && accessor::WgmmaOf - A == By / 128)
    return true;
  if (!Scheduled || A == accessor::Several || A == accessor::None)
    return false;
  uint32_t Idx = agentIndex(A);
  if (By >= 0)
    return clocksOf(uint32_t(By))[Idx] >= Stamp;
  // The statement's active threads, each of them.
  if (!MaskClocksValid) {
    MaskClocks.assign(NumAgents, ~0u);
    for (uint32_t L : *CurMask) {
      const uint32_t *V = clocksOf(L);
      for (uint32_t X = 0; X != NumAgents; ++X)
        MaskClocks[X] = std::min(MaskClocks[X], V[X]);
    }
    MaskClocksValid = true;
  }
  return MaskClocks[Idx] >= Stamp;
}

uint32_t SIMTEmulator::addReader(uint32_t Set, int32_t A, uint32_t Stamp) {
  auto Key = std::make_tuple(Set, A, Stamp);
  auto It = ReadSetAdds.find(Key);
  if (It != ReadSetAdds.end())
    return It->second;
  // The latest read of each accessor is the one to order after.
  std::vector<std::pair<int32_t, uint32_t>> New = ReadSets[Set];
  auto Pos = std::lower_bound(New.begin(), New.end(), std::make_pair(A, 0u),
                              [](const auto &X, const auto &Y) {
                                return X.first < Y.first;
                              });
  if (Pos != New.end() && Pos->first == A)
    Pos->second = std::max(Pos->second, Stamp);
  else
    New.insert(Pos, {A, Stamp});
  uint32_t Id = uint32_t(ReadSets.size());
  ReadSets.push_back(std::move(New));
  ReadSetAdds[Key] = Id;
  return Id;
}

//===----------------------------------------------------------------------===//
// mbarriers
//===----------------------------------------------------------------------===//

std::string SIMTEmulator::describeMbarrier(uint32_t B) const {
  const Mbarrier &X = Mbarriers[B];
  return "'%" + Buffers[X.Buf].getName().str() + "[" + std::to_string(X.Elem) +
         "]'";
}

bool SIMTEmulator::mbarriersOf(const XStmt &S, const XRegion &R,
                               const LaneList &M, uint32_t *Out,
                               bool MustBeInit) {
  std::vector<int64_t> Starts = regionStarts(R, M);
  if (Failed)
    return false;
  const Buffer &B = Buffers[R.Buf];
  for (uint32_t L : M) {
    if (!checkFootprint(S, R, Starts[L], 1, L, "uses"))
      return false;
    uint32_t Id = uint32_t(B.MbarrierBase + Starts[L]);
    Out[L] = Id;
    const Mbarrier &X = Mbarriers[Id];
    if (!MustBeInit)
      continue;
    if (!X.Init) {
      fail(R.Loc, "'" + S.opName() + "' uses " + describeMbarrier(Id) +
                      ", which is not an initialized mbarrier (no "
                      "cuda.mbarrier_init of it ran in this block)",
           L);
      return false;
    }
    if (!orderedBefore(X.InitThread, X.InitClock, uint32_t(X.InitEpoch), L)) {
      fail(R.Loc, "'" + S.opName() + "' uses " + describeMbarrier(Id) +
                      ", which thread " + Twine(X.InitThread) +
                      " initialized with no barrier since; other threads may "
                      "use an mbarrier once a barrier follows its "
                      "initialization",
           L);
      return false;
    }
  }
  return true;
}

void SIMTEmulator::completePhaseIfDone(uint32_t B) {
  Mbarrier &X = Mbarriers[B];
  if (X.Pending != 0 || X.Tx != 0)
    return;
  ++X.Phase;
  X.Pending = X.Expected;
  X.Completed = X.Released;
  X.Observed = false;
  // Boxes that land from now on belong to the next phase.
  ++Clock[agentIndex(accessor::TmaOn - int32_t(B))];
  ++Progress;
}

bool SIMTEmulator::arriveOn(uint32_t B, int64_t Tx, SMLoc Loc, int64_t Lane,
                            bool Releases, int32_t Agent) {
  Mbarrier &X = Mbarriers[B];
  llvm::StringRef Op = Releases ? "cuda.mbarrier_arrive" : "cuda.ldgsts_arrive";
  if (X.Phase > 0 && !X.Observed) {
    fail(Loc, "'" + Op + "' arrives on " + describeMbarrier(B) + " in its phase " +
                  Twine(X.Phase) + ", but no wait has seen its phase " +
                  Twine(X.Phase - 1) + " complete; the PTX ISA requires a "
                  "successful wait on each phase before an arrival in the next",
         Lane);
    return false;
  }
  if (Tx) {
    X.Tx += Tx;
    if (X.Tx > MaxMbarrierCount) {
      fail(Loc, "'" + Op + "' raises the tx-count of " + describeMbarrier(B) +
                    " to " + Twine(X.Tx) + ", above its limit of 2^20 - 1",
           Lane);
      return false;
    }
  }
  if (X.Pending == 0) {
    fail(Loc, "'" + Op + "' arrives on " + describeMbarrier(B) + ", whose phase " +
                  Twine(X.Phase) + " has had all its " + Twine(X.Expected) +
                  " arrivals and waits for " + Twine(X.Tx) +
                  " transaction bytes: more arrivals than the mbarrier was "
                  "initialized with",
         Lane);
    return false;
  }
  if (X.Released.empty())
    X.Released.assign(NumAgents, 0);
  releaseClocks(X.Released, Releases ? Lane : -1, Agent);
  --X.Pending;
  ++Progress;
  completePhaseIfDone(B);
  return true;
}

bool SIMTEmulator::completeTx(uint32_t B, int64_t Bytes, SMLoc Loc) {
  Mbarrier &X = Mbarriers[B];
  X.Tx -= Bytes;
  if (X.Tx < -MaxMbarrierCount) {
    fail(Loc, "'cuda.tma_load' lowers the tx-count of " + describeMbarrier(B) +
                  " to " + Twine(X.Tx) + ", below its limit of -(2^20 - 1)");
    return false;
  }
  if (X.Pending == 0 && X.Tx < 0) {
    fail(Loc, "'cuda.tma_load' completes " + Twine(Bytes) + " bytes on " +
                  describeMbarrier(B) + ", whose phase " + Twine(X.Phase) +
                  " has had all its arrivals and expected " +
                  Twine(X.Tx + Bytes) + " more: its tx-count goes to " +
                  Twine(X.Tx) + ", and the phase can no longer complete");
    return false;
  }
  uint32_t Idx = agentIndex(accessor::TmaOn - int32_t(B));
  X.Released[Idx] = std::max(X.Released[Idx], Clock[Idx]);
  ++Progress;
  completePhaseIfDone(B);
  return true;
}

void SIMTEmulator::execMbarrierInit(const XStmt &S, const LaneList &M) {
  std::vector<uint32_t> Bars(MaxLanes);
  if (!mbarriersOf(S, S.Regions[0], M, Bars.data(), /*MustBeInit=*/false))
    return;
  LaneValues Count = evalOperand(S.Exprs[0], M);
  if (Failed)
    return;
  for (uint32_t L : M) {
    int64_t N = Count.at(L).I;
    if (N < 1 || N > MaxMbarrierCount) {
      fail(Nodes[S.Exprs[0]].Loc.isValid() ? Nodes[S.Exprs[0]].Loc : S.getLoc(),
           "'cuda.mbarrier_init' arrival count " + Twine(N) +
               " is outside 1 to 2^20 - 1",
           L);
      return;
    }
    Mbarrier &X = Mbarriers[Bars[L]];
    if (X.Init) {
      fail(S.getLoc(), "'cuda.mbarrier_init' of " + describeMbarrier(Bars[L]) +
                           ", which thread " + Twine(X.InitThread) +
                           " already initialized; the PTX ISA leaves "
                           "initializing a valid mbarrier undefined",
           L);
      return;
    }
    X.Init = true;
    X.Expected = X.Pending = N;
    X.Tx = 0;
    X.Phase = 0;
    X.InitThread = int32_t(L);
    X.InitClock = Clock[L];
    X.InitEpoch = BarrierEpoch + 1;
    X.Fenced = false;
    X.Observed = false;
    X.Released.assign(NumAgents, 0);
    X.Completed.assign(NumAgents, 0);
    const Buffer &B = Buffers[X.Buf];
    std::memset(&SmemMbarrier[size_t(B.SmemOffset + X.Elem * 8)], 1, 8);
  }
}

void SIMTEmulator::execFenceMbarrierInit(const XStmt &S, const LaneList &M) {
  for (uint32_t L : M)
    for (Mbarrier &X : Mbarriers)
      if (X.Init && X.InitThread == int32_t(L))
        X.Fenced = true;
}

void SIMTEmulator::execMbarrierArrive(const XStmt &S, const LaneList &M) {
  int64_t Tx = S.Ints[0];
  bool PerWarp = S.Ints[1];
  // per_warp: a whole warp executes it, its lane 0 arrives.
  LaneList Arriving;
  if (PerWarp) {
    std::vector<std::pair<uint32_t, uint32_t>> Warps;
    if (!splitGroups(S, M, 32, "warp", Warps))
      return;
    for (auto [First, Size] : Warps)
      Arriving.push_back(First);
  } else {
    Arriving = M;
  }
  std::vector<uint32_t> Bars(MaxLanes);
  if (!mbarriersOf(S, S.Regions[0], Arriving, Bars.data()))
    return;
  for (uint32_t L : Arriving)
    if (!arriveOn(Bars[L], Tx, S.getLoc(), L, /*Releases=*/true, int32_t(L)))
      return;
}

bool SIMTEmulator::execMbarrierWait(const XStmt &S, const LaneList &M) {
  Group &G = *Running;
  if (!(G.St == Group::State::Blocked && G.BlockedAt == &S))
    G.WaitDone.assign(M.size(), 0);
  std::vector<uint32_t> Bars(MaxLanes);
  if (!mbarriersOf(S, S.Regions[0], M, Bars.data()))
    return true;
  LaneValues Parity = evalOperand(S.Exprs[0], M);
  if (Failed)
    return true;
  bool All = true;
  for (size_t I = 0; I != M.size(); ++I) {
    if (G.WaitDone[I])
      continue;
    uint32_t L = M[I];
    Mbarrier &X = Mbarriers[Bars[L]];
    // try_wait.parity P succeeds when the phase of parity P just before the
    // current one completed: the current phase has the other parity (a
    // fresh barrier's phase 0 counts the one of parity 1 before it).
    if ((X.Phase & 1) == (uint64_t(Parity.at(L).I) & 1)) {
      All = false;
      continue;
    }
    acquireClocks(L, X.Completed);
    if (X.Phase > 0)
      X.Observed = true;
    G.WaitDone[I] = 1;
    ++Progress;
  }
  MaskClocksValid = false;
  return All;
}

void SIMTEmulator::execLdgstsArrive(const XStmt &S, const LaneList &M) {
  std::vector<uint32_t> Bars(MaxLanes);
  if (!mbarriersOf(S, S.Regions[0], M, Bars.data()))
    return;
  for (uint32_t L : M) {
    CopyGroups &C = Copies[L];
    bool InFlight = !C.Open.empty();
    for (const auto &G : C.Committed)
      InFlight |= !G.empty();
    // The arrival comes when the thread's copies so far land.
    if (InFlight) {
      C.ArriveOns.push_back({C.NextSeq - 1, Bars[L], S.getLoc()});
      continue;
    }
    if (!arriveOn(Bars[L], 0, S.getLoc(), L, /*Releases=*/false,
                  accessor::CopiesOf - int32_t(L)))
      return;
  }
}

bool SIMTEmulator::landArriveOns(uint32_t Lane) {
  CopyGroups &C = Copies[Lane];
  if (C.ArriveOns.empty())
    return false;
  while (!C.ArriveOns.empty() && !Failed) {
    ArriveOn A = C.ArriveOns.front();
    C.ArriveOns.pop_front();
    for (auto &G : C.Committed)
      landGroup(G, Lane, A.Seq);
    landGroup(C.Open, Lane, A.Seq);
    arriveOn(A.Bar, 0, A.Loc, Lane, /*Releases=*/false,
             accessor::CopiesOf - int32_t(Lane));
  }
  return true;
}

bool SIMTEmulator::landInFlight() {
  bool Any = false;
  while (!TmaInFlight.empty() && !Failed) {
    TmaCopy C = std::move(TmaInFlight.front());
    TmaInFlight.pop_front();
    for (const AsyncCopy &Chunk : C.Chunks) {
      for (uint32_t B = Chunk.Addr; B != Chunk.Addr + 16; ++B)
        --SmemTma[B];
      // The async proxy writes: no proxy fence needed before a wgmma.
      writeShared(Chunk.Addr, Chunk.Data, 16, accessor::TmaOn - int32_t(C.Bar),
                  /*GenericProxy=*/false);
    }
    completeTx(C.Bar, C.Bytes, C.Loc);
    Any = true;
  }
  for (uint32_t L = 0; L != Threads && !Failed; ++L)
    Any |= landArriveOns(L);
  return Any;
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

void SIMTEmulator::describeTmaMaps(const XStmt &K) {
  for (uint32_t I = K.TmaMapBegin; I != K.TmaMapEnd && !Failed; ++I) {
    TmaMap &M = TmaMaps[I];
    const Buffer &T = Buffers[M.Tensor];
    ArtifactTensorMap A;
    A.Name = T.getName().str();
    std::tie(A.TypeCode, A.Bits) = getDLPackType(T.Ty);
    A.Box.assign(T.Shape.size() - 2, 1);
    A.Box.push_back(uint32_t(M.BoxRows));
    A.Box.push_back(uint32_t(M.BoxCols));
    A.Swizzle = uint32_t(M.Swizzle);
    A.L2Promotion = 128;
    A.Optional = M.Optional;
    // The device address the tensor's data has: 256-byte aligned plus the
    // DLPack byte offset (only its alignment matters).
    const void *Data = reinterpret_cast<const void *>(uintptr_t(256 + Opts.DataOffset));
    auto Req = describeTiledTensorMap(A, Data, T.Shape, T.Strides);
    if (!Req) {
      fail(M.Loc, "'cuda.tma_load' reads '%" + T.getName() +
                               "' through a tensor map the runtime refuses to "
                               "build, so the launch fails: " +
                               llvm::toString(Req.takeError()));
      return;
    }
    M.Built = Req->has_value();
    if (M.Built)
      continue;
    // Why not: what the runtime would say of a map that is not optional.
    A.Optional = false;
    auto Strict = describeTiledTensorMap(A, Data, T.Shape, T.Strides);
    if (Strict) {
      M.WhyNot = "the tensor is empty";
      continue;
    }
    std::string Msg = llvm::toString(Strict.takeError());
    llvm::StringRef Why = Msg;
    Why.consume_front("the tensor map of '" + A.Name +
                      "' cannot describe the tensor passed: ");
    M.WhyNot = Why.str();
  }
}

void SIMTEmulator::storeEachLane(const XStmt &S, const XRegion &Dst,
                                 const LaneList &M,
                                 llvm::function_ref<double(uint32_t)> Value) {
  Buffer &DB = Buffers[Dst.Buf];
  std::vector<int64_t> DS = regionStarts(Dst, M);
  if (Failed)
    return;
  for (uint32_t L : M) {
    if (!checkFootprint(S, Dst, DS[L], 1, L, "writes"))
      return;
    storeElement(DB, DS[L], L, Value(L), S.getLoc());
    if (Failed)
      return;
  }
}

void SIMTEmulator::execTmaReady(const XStmt &S, const LaneList &M) {
  const Buffer &T = Buffers[S.Regions[0].Buf];
  LaneValues Pitch = evalOperand(S.Exprs[0], M);
  if (Failed)
    return;
  storeEachLane(S, S.Regions[1], M, [&](uint32_t L) {
    // The test code generation makes: the data's start and the row pitch
    // in bytes, both multiples of 16, and no empty dimension.
    uint64_t RowBytes = uint64_t(Pitch.at(L).I) * T.Bytes;
    bool Ready = (256 + Opts.DataOffset) % 16 == 0 && RowBytes % 16 == 0 &&
                 llvm::all_of(T.Shape, [](int64_t D) { return D > 0; });
    return Ready ? 1.0 : 0.0;
  });
}

void SIMTEmulator::execAligned(const XStmt &S, const LaneList &M) {
  // Every tensor's data starts DataOffset bytes past a 256-byte boundary.
  bool Ok = (256 + Opts.DataOffset) % S.Ints[0] == 0;
  storeEachLane(S, S.Regions[1], M, [&](uint32_t) { return Ok ? 1.0 : 0.0; });
}

void SIMTEmulator::execLaunchedBlocks(const XStmt &S, const LaneList &M) {
  storeEachLane(S, S.Regions[0], M,
                [&](uint32_t) { return double(LaunchedBlocks); });
}

void SIMTEmulator::execTmaLoad(const XStmt &S, const LaneList &M) {
  const XRegion &Src = S.Regions[0], &Dst = S.Regions[1], &BarR = S.Regions[2];
  Buffer &T = Buffers[Src.Buf], &D = Buffers[Dst.Buf];
  const TmaMap &Map = TmaMaps[size_t(S.Ints[3])];
  int64_t Rows = S.Ints[0], Cols = S.Ints[1], Span = S.Ints[2];
  int64_t E = T.Bytes, RowBytes = Cols * E;
  unsigned Rank = unsigned(T.Shape.size());
  std::vector<uint32_t> Bars(MaxLanes);
  if (!mbarriersOf(S, BarR, M, Bars.data()))
    return;
  LaneValues Row = evalOperand(S.Exprs[0], M), Col = evalOperand(S.Exprs[1], M);
  // The leading indices of a rank 3 to 5 tensor are the box's coordinates.
  llvm::SmallVector<LaneValues, 3> Lead;
  for (unsigned Dim = 0; Dim + 2 < Rank; ++Dim)
    Lead.push_back(evalOperand(Src.Off[Dim], M));
  std::vector<int64_t> DS = regionStarts(Dst, M);
  if (Failed)
    return;
  int64_t DstLo = D.SmemOffset, DstHi = D.SmemOffset + D.NumElems * D.Bytes;
  for (uint32_t L : M) {
    if (!Map.Built) {
      fail(S.getLoc(), "'cuda.tma_load' reads '%" + T.getName() +
                           "' through a tensor map the runtime does not build "
                           "for this launch (" + Map.WhyNot +
                           "; an optional map is passed as zeros); the kernel "
                           "must test the tensor with cuda.tma_ready first",
           L);
      return;
    }
    const Mbarrier &X = Mbarriers[Bars[L]];
    if (!X.Fenced) {
      fail(BarR.Loc, "'cuda.tma_load' completes on " + describeMbarrier(Bars[L]) +
                         ", but no cuda.fence_mbarrier_init of thread " +
                         Twine(X.InitThread) +
                         " made its initialization visible to the "
                         "asynchronous proxy",
           L);
      return;
    }
    int64_t Base = D.SmemOffset + DS[L] * E;
    if (DS[L] < 0 || Base % 128) {
      fail(Dst.Loc, "'cuda.tma_load' destination " +
                        (DS[L] < 0 ? "element " + std::to_string(DS[L]) + " of '%" +
                                         D.getName().str() + "'"
                                   : describeSharedByte(uint32_t(Base))) +
                        " is not 128-byte aligned",
           L);
      return;
    }
    // The box, read now: element (r, c) of the box is the tensor's at the
    // coordinates (lead..., row + r, col + c), zero outside the tensor.
    TmaCopy Box;
    Box.Bar = Bars[L];
    Box.Issuer = L;
    Box.Bytes = Rows * RowBytes;
    Box.Loc = S.getLoc();
    int64_t LeadOffset = 0;
    bool LeadInside = true;
    for (unsigned Dim = 0; Dim + 2 < Rank; ++Dim) {
      int64_t C = Lead[Dim].at(L).I;
      LeadInside &= C >= 0 && C < T.Shape[Dim];
      LeadOffset += C * T.Strides[Dim];
    }
    int64_t R0 = Row.at(L).I, C0 = Col.at(L).I;
    for (int64_t R = 0; R != Rows; ++R)
      for (int64_t K = 0; K != RowBytes / 16; ++K) {
        int64_t Linear = Base + R * RowBytes + K * 16;
        int64_t Phys = swizzleChunk(Linear, Span);
        if (Phys < DstLo || Phys + 16 > DstHi) {
          fail(Dst.Loc, "'cuda.tma_load' writes box row " + Twine(R) +
                            ", bytes [" + Twine(K * 16) + ", " + Twine(K * 16 + 16) +
                            "), to shared byte " + Twine(Phys) + ", outside '%" +
                            D.getName() + "' (bytes " + Twine(DstLo) + " to " +
                            Twine(DstHi) + "): a " + Twine(Rows) + " x " +
                            Twine(Cols) + " box from element " + Twine(DS[L]) +
                            " does not fit it",
               L);
          return;
        }
        AsyncCopy Chunk;
        Chunk.Addr = uint32_t(Phys);
        Chunk.Loc = S.getLoc();
        for (int64_t Q = 0; Q != 16 / E; ++Q) {
          int64_t GR = R0 + R, GC = C0 + K * (16 / E) + Q;
          bool Inside = LeadInside && GR >= 0 && GR < T.Shape[Rank - 2] &&
                        GC >= 0 && GC < T.Shape[Rank - 1];
          double V = Inside ? T.Data[LeadOffset + GR * T.Strides[Rank - 2] +
                                     GC * T.Strides[Rank - 1]]
                            : 0.0;
          encodeElement(V, T.Ty, Chunk.Data + Q * E);
        }
        if (!prepareSharedWrite(Chunk.Addr, Chunk.Data, 16, L, S.getLoc(),
                                "'cuda.tma_load'"))
          return;
        Box.Chunks.push_back(Chunk);
      }
    for (const AsyncCopy &Chunk : Box.Chunks)
      for (uint32_t B = Chunk.Addr; B != Chunk.Addr + 16; ++B)
        ++SmemTma[B];
    TmaInFlight.push_back(std::move(Box));
  }
}

//===----------------------------------------------------------------------===//
// setmaxnreg
//===----------------------------------------------------------------------===//

bool SIMTEmulator::execSetmaxnreg(const XStmt &S, const LaneList &M) {
  bool Inc = S.Ints[0];
  int64_t Count = S.Ints[1];
  if (Threads % 128) {
    fail(S.getLoc(), "'cuda.setmaxnreg' is executed by whole warpgroups of 128 "
                     "threads, but the block has " +
                         Twine(Threads) + " threads");
    return true;
  }
  uint32_t WG = M[0] / 128;
  int64_t Cur = WgRegisters[WG];
  if (WgSetmaxnregEpoch[WG] == BarrierEpoch + 1) {
    fail(S.getLoc(), "'cuda.setmaxnreg' follows another setmaxnreg of warpgroup " +
                         Twine(WG) + " with no barrier in between; the PTX ISA "
                         "requires the warps of a warpgroup to synchronize "
                         "between two");
    return true;
  }
  if (Inc ? Count < Cur : Count > Cur) {
    fail(S.getLoc(), "'cuda.setmaxnreg' " + Twine(Inc ? "inc" : "dec") + " to " +
                         Twine(Count) + " registers per thread, but warpgroup " +
                         Twine(WG) + " holds " + Twine(Cur) + " (" +
                         Twine(Inc ? "inc may only raise" : "dec may only lower") +
                         " the count; ptxas starts the kernel's warpgroups at " +
                         Twine(EntryRegisters) + ")");
    return true;
  }
  int64_t Delta = warpgroupRegisters(Count) - warpgroupRegisters(Cur);
  // inc waits until the block's pool has the registers.
  if (Delta > RegisterPool)
    return false;
  RegisterPool -= Delta;
  WgRegisters[WG] = Count;
  WgSetmaxnregEpoch[WG] = BarrierEpoch + 1;
  ++Progress;
  return true;
}

//===----------------------------------------------------------------------===//
// Named barriers
//===----------------------------------------------------------------------===//

bool SIMTEmulator::execNamedBarrier(const XStmt &S, const LaneList &M) {
  Group &G = *Running;
  // Polled again while it waits: the last arrival releases it.
  if (G.St == Group::State::Blocked && G.BlockedAt == &S)
    return false;
  bool Sync = S.Op == EmuOp::BarSync;
  llvm::StringRef Op = S.opName();
  if (M.size() != G.Lanes.size()) {
    uint32_t Missing = firstMissingLane(G.Lanes, M);
    fail(S.getLoc(), "'" + Op + "' under thread-dependent control flow: " +
                         Twine(M.size()) + " of the " + Twine(G.Lanes.size()) +
                         " threads of warp " + Twine(G.Index) + " reach it (thread " +
                         Twine(Missing) + " does not)");
    return true;
  }
  LaneValues Id = evalOperand(S.Exprs[0], M);
  if (Failed)
    return true;
  int64_t B = Id.at(M[0]).I;
  for (uint32_t L : M)
    if (Id.at(L).I != B) {
      fail(S.getLoc(), "'" + Op + "' names barrier " + Twine(B) + " in thread " +
                           Twine(M[0]) + " but " + Twine(Id.at(L).I) + " in thread " +
                           Twine(L) + " of the same warp",
           L);
      return true;
    }
  if (B < 1 || B > 15) {
    fail(S.getLoc(), "'" + Op + "' barrier id must be between 1 and 15, not " +
                         Twine(B),
         M[0]);
    return true;
  }
  int64_t Threads = S.Ints[0];
  NamedBarrier &N = NamedBarriers[size_t(B)];
  if (N.Arrived == 0) {
    N.Threads = Threads;
    N.Released.assign(NumAgents, 0);
  } else if (N.Threads != Threads) {
    fail(S.getLoc(), "'" + Op + "' arrives at named barrier " + Twine(B) +
                         " with threads = " + Twine(Threads) + ", but the " +
                         Twine(N.Arrived) + " threads there came with threads = " +
                         Twine(N.Threads) + " (" + where(N.LastLoc) + ")",
         M[0]);
    return true;
  }
  // Each thread releases what it did so far.
  for (uint32_t L : M)
    releaseClocks(N.Released, L, int32_t(L));
  N.Arrived += int64_t(M.size());
  N.LastLoc = S.getLoc();
  ++Progress;
  if (Sync)
    N.Waiting.push_back(G.Index);
  if (N.Arrived < N.Threads)
    return !Sync;
  // Complete: the waiting warps see every arrival's release, and the
  // barrier starts over.
  for (uint32_t W : N.Waiting) {
    for (uint32_t L : Groups[W].Lanes)
      acquireClocks(L, N.Released);
    if (W != G.Index)
      Groups[W].St = Group::State::Released;
  }
  MaskClocksValid = false;
  N = NamedBarrier();
  return true;
}

void SIMTEmulator::checkNamedBarriersIdle() {
  for (size_t B = 1; B != NamedBarriers.size(); ++B) {
    const NamedBarrier &N = NamedBarriers[B];
    if (N.Arrived == 0)
      continue;
    fail(N.LastLoc, "the block ends with " + Twine(N.Arrived) + " of the " +
                        Twine(N.Threads) + " threads of named barrier " + Twine(B) +
                        " arrived (the last here): every 'cuda.bar_arrive' "
                        "and 'cuda.bar_sync' needs its barrier to complete");
    return;
  }
}
