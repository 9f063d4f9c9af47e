//===- SIMTEmulatorSchedule.cpp - Statements and the block's scheduler ----===//
//
// How the CUDA emulator (SIMTEmulator.h) runs statements: each group of
// threads -- the block, or one warp of a kernel that uses mbarriers --
// executes a stack of frames (statement lists, loops with their counters)
// under active masks, so that a warp can stop at any statement and resume
// there. The scheduler runs the groups of a block one after another until
// each blocks or finishes; when none can advance it lands what is in
// flight (SIMTEmulatorSync.cpp), and when nothing is, it reports the
// deadlock with what each warp waits for.
//
//===----------------------------------------------------------------------===//

#include "SIMTEmulator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace tile;
using namespace tile::cuda::emu;
using llvm::cast;
using llvm::SMLoc;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void SIMTEmulator::execSimple(const XStmt &S, const LaneList &M) {
  switch (S.K) {
  case XStmt::Kind::Let: {
    SlotRef V = S.Vars[0];
    if (V.Uniform) {
      slot(V, 0) = evalUniform(S.Exprs[0], UniformReader);
    } else {
      LaneValues X = eval(S.Exprs[0], M);
      for (uint32_t L : M)
        Slots[V.Base + L] = X.at(L);
    }
    return;
  }
  case XStmt::Kind::Store:
    return execStore(S, M);
  case XStmt::Kind::Alloc:
    return execAlloc(S, M);
  default:
    llvm_unreachable("not a simple statement");
  }
}

void SIMTEmulator::execStore(const XStmt &S, const LaneList &M) {
  Buffer &B = Buffers[S.Buf];
  unsigned N = S.Exprs.size() - 1;
  bool Once = B.Where != Storage::Thread;
  llvm::SmallVector<LaneValues, 4> Idx;
  for (unsigned D = 0; D != N; ++D) {
    Idx.push_back(eval(S.Exprs[D], M));
    Once &= Idx.back().Uniform;
  }
  LaneValues V = eval(S.Exprs[N], M);
  Once &= V.Uniform;
  if (Failed)
    return;
  DType VTy = Nodes[S.Exprs[N]].Ty;
  int64_t I[8];
  // Every thread storing one value to one shared or global element is one
  // store.
  for (uint32_t L : M) {
    for (unsigned D = 0; D != N; ++D)
      I[D] = Idx[D].at(L).I;
    int64_t E = elementIndex(B, I, N, S.getLoc(), "store to", L);
    if (E < 0)
      return;
    storeElement(B, E, Once && M.size() > 1 ? -1 : int64_t(L),
                 convertElement(toStored(V.at(L), VTy), VTy, B.Ty), S.getLoc());
    if (Failed || Once)
      return;
  }
}

void SIMTEmulator::execAlloc(const XStmt &S, const LaneList &M) {
  Buffer &B = Buffers[S.Buf];
  constexpr double Poison = std::numeric_limits<double>::quiet_NaN();
  switch (B.Where) {
  case Storage::Global: {
    B.Shape.clear();
    B.NumElems = 1;
    for (uint32_t E : S.Exprs) {
      int64_t D = evalUniform(E, -1).I;
      if (std::optional<std::string> Fault =
              execution::checkAllocDim(*B.Decl, D))
        fail(Nodes[E].Loc, *Fault);
      if (Failed)
        return;
      B.Shape.push_back(D);
      B.NumElems *= D;
    }
    B.Strides.assign(B.Shape.size(), 1);
    for (size_t D = B.Shape.size(); D-- > 1;)
      B.Strides[D - 1] = B.Strides[D] * B.Shape[D];
    B.Owned.assign(size_t(B.NumElems), 0.0);
    B.Data = B.Owned.data();
    return;
  }
  case Storage::Shared: {
    // The warps of a scheduled kernel each run the allocation; the block's
    // shared memory was poisoned when it started.
    if (Scheduled)
      return;
    size_t Bytes = size_t(B.NumElems * B.Bytes);
    // 0xFF bytes are NaN in every float format.
    std::memset(&Smem[B.SmemOffset], 0xFF, Bytes);
    std::memset(&SmemInit[B.SmemOffset], 0, Bytes);
    return;
  }
  case Storage::Thread:
    for (uint32_t L : M) {
      std::fill_n(B.Lanes.begin() + L * B.NumElems, B.NumElems, Poison);
      if (B.WgmmaOperand)
        B.TouchedSinceFence[L] = 1;
    }
    return;
  }
}

void SIMTEmulator::enterFor(Group &G, const XStmt &S, const LaneList &M) {
  SlotRef V = S.Vars[0];
  DType Ty = S.VarTy;
  Frame Fr;
  Fr.Stmts = &S.Body;
  Fr.Loop = &S;
  if (V.Uniform) {
    int64_t Lo = evalUniform(S.Exprs[0], UniformReader).I;
    int64_t Hi = evalUniform(S.Exprs[1], UniformReader).I;
    int64_t Step = S.HasStep ? evalUniform(S.Exprs[2], UniformReader).I : 1;
    if (Failed)
      return;
    if (std::optional<std::string> Fault = execution::checkLoopStep(Step)) {
      fail(S.getLoc(), *Fault);
      return;
    }
    if (!lessThan(Lo, Hi, Ty))
      return;
    slot(V, 0) = intScalar(Lo);
    Fr.K = Frame::Kind::ForUniform;
    Fr.I = Lo;
    Fr.Hi = Hi;
    Fr.Step = Step;
    Fr.Mask = M;
    G.Stack.push_back(std::move(Fr));
    return;
  }
  // Bounds that differ between threads: each thread counts on its own and
  // the loop runs while one of them is still inside.
  LaneValues Lo = eval(S.Exprs[0], M), Hi = eval(S.Exprs[1], M);
  LaneValues Step;
  if (S.HasStep)
    Step = eval(S.Exprs[2], M);
  if (Failed)
    return;
  Fr.K = Frame::Kind::ForVarying;
  Fr.HiL.assign(MaxLanes, 0);
  Fr.StepL.assign(MaxLanes, 1);
  for (uint32_t L : M) {
    Fr.HiL[L] = Hi.at(L).I;
    if (S.HasStep)
      Fr.StepL[L] = Step.at(L).I;
    if (std::optional<std::string> Fault =
            execution::checkLoopStep(Fr.StepL[L])) {
      fail(S.getLoc(), *Fault, L);
      return;
    }
    Slots[V.Base + L] = Lo.at(L);
    if (lessThan(Lo.at(L).I, Fr.HiL[L], Ty))
      Fr.Mask.push_back(L);
  }
  if (!Fr.Mask.empty())
    G.Stack.push_back(std::move(Fr));
}

void SIMTEmulator::enterIf(Group &G, const XStmt &S, const LaneList &M) {
  LaneValues C = eval(S.Exprs[0], M);
  if (Failed)
    return;
  auto Push = [&](const std::vector<XStmt> &Stmts, LaneList Mask) {
    if (Stmts.empty() || Mask.empty())
      return;
    Frame Fr;
    Fr.Stmts = &Stmts;
    Fr.Mask = std::move(Mask);
    G.Stack.push_back(std::move(Fr));
  };
  if (C.Uniform) {
    if (C.V[0].I)
      Push(S.Body, M);
    else if (S.HasElse)
      Push(S.Else, M);
    return;
  }
  // The then side runs first: it goes on top.
  LaneList T, E;
  splitLanes(C, M, T, E);
  if (S.HasElse)
    Push(S.Else, std::move(E));
  Push(S.Body, std::move(T));
}

void SIMTEmulator::finishFrame(Group &G) {
  Frame &Fr = G.Stack.back();
  switch (Fr.K) {
  case Frame::Kind::List:
    G.Stack.pop_back();
    return;
  case Frame::Kind::ForUniform: {
    std::optional<int64_t> Next =
        execution::nextLoopValue(Fr.I, Fr.Step, Fr.Loop->VarTy);
    if (!Next || !lessThan(*Next, Fr.Hi, Fr.Loop->VarTy)) {
      G.Stack.pop_back();
      return;
    }
    Fr.I = *Next;
    slot(Fr.Loop->Vars[0], 0) = intScalar(Fr.I);
    Fr.Next = 0;
    return;
  }
  case Frame::Kind::ForVarying: {
    SlotRef V = Fr.Loop->Vars[0];
    LaneList Still;
    for (uint32_t L : Fr.Mask) {
      // A thread whose counter would leave its type's range is done.
      std::optional<int64_t> N = execution::nextLoopValue(
          Slots[V.Base + L].I, Fr.StepL[L], Fr.Loop->VarTy);
      if (!N)
        continue;
      Slots[V.Base + L] = intScalar(*N);
      if (lessThan(*N, Fr.HiL[L], Fr.Loop->VarTy))
        Still.push_back(L);
    }
    if (Still.empty()) {
      G.Stack.pop_back();
      return;
    }
    Fr.Mask = std::move(Still);
    Fr.Next = 0;
    return;
  }
  }
}

bool SIMTEmulator::runGroup(Group &G) {
  uint64_t Start = Progress;
  Running = &G;
  CurGroup = G.Index;
  while (!G.Stack.empty() && !Failed) {
    Frame &Fr = G.Stack.back();
    if (Fr.Next == Fr.Stmts->size()) {
      finishFrame(G);
      continue;
    }
    const XStmt &S = (*Fr.Stmts)[Fr.Next];
    size_t Mark = TempTop;
    CurLoc = S.getLoc();
    CurMask = &Fr.Mask;
    MaskClocksValid = false;
    UniformReader = Fr.Mask.size() == 1 ? int64_t(Fr.Mask[0]) : -1;
    switch (S.K) {
    case XStmt::Kind::For: {
      ++Fr.Next;
      LaneList M = Fr.Mask;
      enterFor(G, S, M);
      break;
    }
    case XStmt::Kind::If: {
      ++Fr.Next;
      LaneList M = Fr.Mask;
      enterIf(G, S, M);
      break;
    }
    case XStmt::Kind::Kernel:
      ++Fr.Next;
      execKernel(S);
      Running = &G;
      CurGroup = G.Index;
      break;
    case XStmt::Kind::Op: {
      // Another warp completed the op for this one (a barrier, a
      // warpgroup collective).
      if (G.St == Group::State::Released) {
        assert(G.BlockedAt == &S && "released at another statement");
        G.St = Group::State::Ready;
        G.BlockedAt = nullptr;
        ++Fr.Next;
        break;
      }
      if (!execOp(S, Fr.Mask)) {
        if (Failed)
          break;
        G.St = Group::State::Blocked;
        G.BlockedAt = &S;
        G.BlockedMask = Fr.Mask;
        TempTop = Mark;
        return Progress != Start;
      }
      G.St = Group::State::Ready;
      G.BlockedAt = nullptr;
      ++Fr.Next;
      break;
    }
    default:
      execSimple(S, Fr.Mask);
      ++Fr.Next;
      break;
    }
    TempTop = Mark;
    ++Progress;
  }
  if (!Failed) {
    // Finishing is progress too (a group may have nothing to run).
    G.St = Group::State::Done;
    ++Progress;
  }
  return Progress != Start;
}

//===----------------------------------------------------------------------===//
// Kernels and blocks
//===----------------------------------------------------------------------===//

void SIMTEmulator::startBlock(const XStmt &K) {
  size_t Bytes = size_t(K.Ints[0]);
  Smem.assign(Bytes, 0xFF);
  SmemInit.assign(Bytes, 0);
  SmemCopies.assign(Bytes, 0);
  SmemTma.assign(Bytes, 0);
  SmemWgmmaReads.assign(Bytes, 0);
  SmemMbarrier.assign(Bytes, 0);
  SmemWriter.assign(Bytes, accessor::None);
  SmemReader.assign(Bytes, accessor::None);
  SmemWriteEpoch.assign(Bytes, 0);
  SmemReadEpoch.assign(Bytes, 0);
  TrackProxy = K.HasWgmma;
  SmemUnfenced.assign(TrackProxy ? Bytes : 0, 0);
  UnfencedLog.clear();
  UnfencedLive.clear();
  BarrierEpoch = 0;
  Copies.assign(size_t(Threads), CopyGroups());
  Wgmmas.assign(size_t((Threads + 127) / 128), WgmmaGroups());
  for (Buffer &B : Buffers)
    if (B.Where == Storage::Thread && B.WgmmaOperand) {
      B.InFlight.assign(B.Lanes.size(), 0);
      B.TouchedSinceFence.assign(size_t(Threads), 1);
    }
  // The groups: the block, or its warps.
  Groups.clear();
  uint32_t Size = Scheduled ? 32 : uint32_t(Threads);
  for (uint32_t First = 0; First < Threads; First += Size) {
    Group G;
    G.Index = uint32_t(Groups.size());
    for (uint32_t L = First; L != std::min<uint32_t>(First + Size, uint32_t(Threads)); ++L)
      G.Lanes.push_back(L);
    Frame Top;
    Top.Stmts = &K.Body;
    Top.Mask = G.Lanes;
    G.Stack.push_back(std::move(Top));
    Groups.push_back(std::move(G));
  }
  AtBarrier = 0;
  Meets.assign(size_t((Threads + 127) / 128), WarpgroupMeet());
  if (!Scheduled)
    return;
  // Happens-before: every thread, its cp.async copies and the TMA boxes of
  // each mbarrier are agents with a clock.
  NumAgents = uint32_t(2 * Threads) + K.NumMbarriers;
  VC.assign(size_t(Threads) * NumAgents, 0);
  Clock.assign(NumAgents, 1);
  SmemWriteClock.assign(Bytes, 0);
  SmemReadSet.assign(Bytes, 0);
  ReadSets.assign(1, {});
  ReadSetAdds.clear();
  Mbarriers.assign(K.NumMbarriers, Mbarrier());
  for (uint32_t Id = 0; Id != Buffers.size(); ++Id) {
    const Buffer &B = Buffers[Id];
    if (B.MbarrierBase < 0 || B.MbarrierBase >= K.NumMbarriers ||
        B.Where != Storage::Shared)
      continue;
    for (int64_t E = 0; E != B.NumElems; ++E) {
      Mbarrier &X = Mbarriers[size_t(B.MbarrierBase + E)];
      X.Buf = Id;
      X.Elem = E;
    }
  }
  TmaInFlight.clear();
  NamedBarriers.assign(16, NamedBarrier());
  WgRegisters.assign(size_t((Threads + 127) / 128), K.EntryRegisters);
  WgSetmaxnregEpoch.assign(WgRegisters.size(), 0);
  EntryRegisters = K.EntryRegisters;
  RegisterPool = 0;
}

void SIMTEmulator::execKernel(const XStmt &S) {
  const auto &K = cast<KernelStmt>(*S.Src);
  int64_t Grid[3] = {1, 1, 1};
  for (size_t D = 0; D != S.Exprs.size(); ++D) {
    Grid[D] = evalUniform(S.Exprs[D], -1).I;
    if (std::optional<std::string> Fault = execution::checkGridDim(D, Grid[D]);
        Fault && !Failed)
      fail(K.getGrid()[D]->getLoc(), *Fault);
  }
  if (Failed)
    return;
  // A persistent kernel: as many blocks as the device runs at once.
  if (S.Persistent)
    Grid[0] = std::min<int64_t>(Grid[0], std::max(Opts.ResidentBlocks, 1u));
  LaunchedBlocks = Grid[0];
  Threads = S.Threads;
  Scheduled = S.Scheduled;
  for (int64_t T = 0; T != Threads; ++T)
    if (S.Tx)
      Slots[S.Tx->Base + T] = intScalar(T);
  // The launch: the runtime builds the kernel's tensor maps first.
  describeTmaMaps(S);
  for (int64_t Z = 0; Z < Grid[2] && !Failed; ++Z)
    for (int64_t Y = 0; Y < Grid[1] && !Failed; ++Y)
      for (int64_t X = 0; X < Grid[0] && !Failed; ++X) {
        BlockIdx[0] = X;
        BlockIdx[1] = Y;
        BlockIdx[2] = Z;
        for (size_t D = 0; D != S.Vars.size(); ++D)
          Slots[S.Vars[D].Base] = intScalar(BlockIdx[D]);
        startBlock(S);
        InBlock = true;
        runBlock();
        InBlock = false;
      }
  Threads = 1;
  Scheduled = false;
  Groups.clear();
}

void SIMTEmulator::runBlock() {
  size_t N = Groups.size(), Next = 0;
  while (!Failed) {
    bool Live = false, Advanced = false;
    for (size_t K = 0; K != N && !Failed; ++K) {
      Group &G = Groups[(Next + K) % N];
      if (G.St == Group::State::Done)
        continue;
      Live = true;
      if (runGroup(G)) {
        // The next warp gets its turn.
        Advanced = true;
        Next = (Next + K + 1) % N;
        break;
      }
    }
    if (!Live && !Failed && Scheduled)
      checkNamedBarriersIdle();
    if (!Live || Failed)
      return;
    if (Advanced)
      continue;
    // Every warp waits: what is in flight lands, as late as it may.
    if (landInFlight())
      continue;
    if (!Failed)
      reportDeadlock();
    return;
  }
}

//===----------------------------------------------------------------------===//
// Warps meeting
//===----------------------------------------------------------------------===//

bool SIMTEmulator::meetWarpgroup(const XStmt &S, const LaneList &M,
                                 llvm::function_ref<bool(const LaneList &)> Exec) {
  if (!Scheduled)
    return Exec(M);
  Group &G = *Running;
  uint32_t Warp = G.Index, WG = Warp / 4, First = WG * 128;
  if (int64_t(First + 128) > Threads) {
    fail(S.getLoc(), "'" + S.opName() + "' needs all 128 threads of warpgroup " +
                         Twine(WG) + ", but the block has " + Twine(Threads) +
                         " threads");
    return true;
  }
  WarpgroupMeet &R = Meets[WG];
  uint32_t Bit = 1u << (Warp % 4);
  if (M.size() != G.Lanes.size()) {
    uint32_t Missing = G.Lanes[0];
    for (size_t I = 0; I != M.size() && M[I] == Missing; ++I)
      ++Missing;
    uint32_t Here = uint32_t(M.size());
    if (R.At == &S)
      Here += 32 * uint32_t(llvm::popcount(R.Warps & ~Bit));
    fail(S.getLoc(), "'" + S.opName() + "' needs all 128 threads of warpgroup " +
                         Twine(WG) + " together, but only " + Twine(Here) +
                         " are active here (thread " + Twine(Missing) +
                         " is not)");
    return true;
  }
  if (R.At && R.At != &S) {
    std::vector<uint32_t> There;
    for (uint32_t W = 0; W != 4; ++W)
      if (R.Warps & (1u << W))
        There.push_back(WG * 4 + W);
    fail(S.getLoc(), "'" + S.opName() + "' is reached by warp " + Twine(Warp) +
                         " while " + describeGroups(There) + " of warpgroup " +
                         Twine(WG) + " wait at '" + R.At->opName() + "' (" +
                         where(R.At->getLoc()) +
                         "); the warps of a warpgroup execute its collective "
                         "ops together");
    return true;
  }
  R.At = &S;
  R.Warps |= Bit;
  if (R.Warps != 0xF)
    return false;
  // Every warp is here: the op runs once for the warpgroup.
  LaneList All(128);
  for (uint32_t L = 0; L != 128; ++L)
    All[L] = First + L;
  const LaneList *Saved = CurMask;
  CurMask = &All;
  MaskClocksValid = false;
  UnionOp = true;
  bool Done = Exec(All);
  UnionOp = false;
  CurMask = Saved;
  MaskClocksValid = false;
  if (Failed || !Done)
    return Failed;
  R = WarpgroupMeet();
  for (uint32_t W = 0; W != 4; ++W) {
    Group &O = Groups[WG * 4 + W];
    if (&O != &G) {
      assert(O.St == Group::State::Blocked && O.BlockedAt == &S &&
             "a warp of the warpgroup is elsewhere");
      O.St = Group::State::Released;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Deadlocks
//===----------------------------------------------------------------------===//

std::string SIMTEmulator::describeGroups(llvm::ArrayRef<uint32_t> Ids) const {
  std::vector<std::string> Parts;
  for (size_t I = 0; I != Ids.size();) {
    size_t J = I + 1;
    while (J != Ids.size() && Ids[J] == Ids[J - 1] + 1)
      ++J;
    Parts.push_back(J - I == 1 ? std::to_string(Ids[I])
                               : std::to_string(Ids[I]) + "-" +
                                     std::to_string(Ids[J - 1]));
    I = J;
  }
  bool One = Ids.size() == 1;
  return (One ? "warp " : "warps ") + llvm::join(Parts, ", ");
}

void SIMTEmulator::reportDeadlock() {
  // What each warp does: left the kernel, or waits at an op.
  std::vector<uint32_t> Left;
  llvm::SmallVector<const XStmt *, 8> Sites;
  llvm::DenseMap<const XStmt *, std::vector<uint32_t>> At;
  for (const Group &G : Groups) {
    if (G.St == Group::State::Done) {
      Left.push_back(G.Index);
      continue;
    }
    if (!At.count(G.BlockedAt))
      Sites.push_back(G.BlockedAt);
    At[G.BlockedAt].push_back(G.Index);
  }
  auto Verb = [](llvm::ArrayRef<uint32_t> Ids, const char *One,
                 const char *Many) { return Ids.size() == 1 ? One : Many; };
  auto Others = [&](const XStmt *Here) {
    std::vector<std::string> Parts;
    Parts.push_back(describeGroups(At[Here]) + Verb(At[Here], " waits", " wait") +
                    " here");
    for (const XStmt *S : Sites)
      if (S != Here)
        Parts.push_back(describeGroups(At[S]) + Verb(At[S], " waits", " wait") +
                        " at '" + S->opName().str() + "' (" +
                        where(S->getLoc()) + ")");
    if (!Left.empty())
      Parts.push_back(describeGroups(Left) +
                      Verb(Left, " has left", " have left") + " the kernel");
    return llvm::join(Parts, ", ");
  };
  // An mbarrier wait first: it names the phase the block waits for.
  for (const XStmt *S : Sites) {
    if (S->Op != EmuOp::MbarrierWait)
      continue;
    const Group &G = Groups[At[S].front()];
    uint32_t Lane = G.BlockedMask[0];
    for (size_t I = 0; I != G.BlockedMask.size(); ++I)
      if (!G.WaitDone[I]) {
        Lane = G.BlockedMask[I];
        break;
      }
    CurGroup = G.Index;
    LaneList One{Lane};
    CurMask = &One;
    std::vector<uint32_t> BarOf(MaxLanes);
    if (!mbarriersOf(*S, S->Regions[0], One, BarOf.data()))
      return;
    uint32_t Bar = BarOf[Lane];
    uint64_t Parity = uint64_t(evalOperand(S->Exprs[0], One).at(Lane).I) & 1;
    const Mbarrier &X = Mbarriers[Bar];
    // What the phase still needs.
    std::string Needs;
    if (X.Pending)
      Needs = "still needs " + std::to_string(X.Pending) + " of its " +
              std::to_string(X.Expected) + " arrivals";
    else
      Needs = "has had its " + std::to_string(X.Expected) + " arrivals";
    if (X.Tx > 0)
      Needs += std::string(X.Pending ? " and " : " but still needs ") +
               std::to_string(X.Tx) + " transaction bytes";
    else if (X.Tx < 0)
      Needs += std::string(X.Pending ? " and " : " but ") + "has had " +
               std::to_string(-X.Tx) +
               " transaction bytes more than were announced";
    fail(S->getLoc(), "deadlock: 'cuda.mbarrier_wait' waits for phase " +
                          Twine(X.Phase) + " (parity " + Twine(Parity) + ") of " +
                          describeMbarrier(Bar) + " to complete, which " +
                          Needs + "; no thread of the block can advance (" +
                          Others(S) + ")",
         Lane);
    return;
  }
  // Warps of a warpgroup at a collective that the others never reach.
  for (uint32_t WG = 0; WG != Meets.size(); ++WG) {
    const WarpgroupMeet &R = Meets[WG];
    if (!R.At || R.Warps == 0xF)
      continue;
    uint32_t Missing = 0;
    while (R.Warps & (1u << Missing))
      ++Missing;
    fail(R.At->getLoc(),
         "'" + R.At->opName() + "' needs all 128 threads of warpgroup " +
             Twine(WG) + " together, but only " +
             Twine(32 * llvm::popcount(R.Warps)) + " are active here (thread " +
             Twine(WG * 128 + Missing * 32) + " is not); no thread of the "
             "block can advance (" + Others(R.At) + ")");
    return;
  }
  for (const XStmt *S : Sites) {
    if (S->Op == EmuOp::Barrier) {
      uint32_t Reach = 0, Missing = ~0u;
      for (const Group &G : Groups) {
        if (G.St != Group::State::Done && G.BlockedAt->Op == EmuOp::Barrier)
          Reach += uint32_t(G.Lanes.size());
        else if (Missing == ~0u)
          Missing = G.Lanes[0];
      }
      fail(S->getLoc(), "barrier under thread-dependent control flow: " +
                            Twine(Reach) + " of the " + Twine(Threads) +
                            " threads of the block reach it (thread " +
                            Twine(Missing) + " does not; " + Others(S) + ")");
      return;
    }
    if (S->Op == EmuOp::Setmaxnreg) {
      uint32_t WG = At[S].front() / 4;
      auto Alloc = [](int64_t R) { return (R + 7) / 8 * 8 * 128; };
      std::vector<std::string> Held;
      for (int64_t R : WgRegisters)
        Held.push_back(std::to_string(R));
      fail(S->getLoc(),
           "deadlock: 'cuda.setmaxnreg' inc of warpgroup " + Twine(WG) + " to " +
               Twine(S->Ints[1]) + " registers per thread needs " +
               Twine(Alloc(S->Ints[1]) - Alloc(WgRegisters[WG])) +
               " registers from the block's pool, which holds " +
               Twine(RegisterPool) + " (the warpgroups hold " +
               llvm::join(Held, ", ") + " per thread, from " +
               Twine(EntryRegisters) + " at entry); no thread of the block "
               "can advance (" + Others(S) + ")");
      return;
    }
  }
  // Last, as the other causes explain a named barrier short of threads.
  for (const XStmt *S : Sites) {
    if (S->Op == EmuOp::BarSync) {
      uint32_t Waiter = At[S].front();
      for (size_t B = 1; B != NamedBarriers.size(); ++B) {
        const NamedBarrier &N = NamedBarriers[B];
        if (std::find(N.Waiting.begin(), N.Waiting.end(), Waiter) == N.Waiting.end())
          continue;
        fail(S->getLoc(), "deadlock: 'cuda.bar_sync' waits at named barrier " +
                              Twine(B) + ", which has had " + Twine(N.Arrived) +
                              " of its " + Twine(N.Threads) +
                              " threads; no thread of the block can advance (" +
                              Others(S) + ")",
             Groups[Waiter].Lanes[0]);
        return;
      }
    }
  }
  llvm_unreachable("every warp blocked, but at no op that can block");
}
