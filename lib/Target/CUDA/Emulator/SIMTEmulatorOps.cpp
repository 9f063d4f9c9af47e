//===- SIMTEmulatorOps.cpp - The cuda dialect in the CUDA emulator --------===//
//
// The ops of per-thread CUDA code, as the PTX ISA defines the instructions
// they stand for (SIMTEmulator.h has the model): the dispatch of every op,
// barrier and atomic_elem, vector accesses, warp shuffles, ldmatrix and
// mma.sync m16n8k16 over a warp, cp.async with its groups, and
// wgmma.mma_async m64nNk16 over a warpgroup, its operands read through
// shared-memory matrix descriptors. The mbarrier, TMA and setmaxnreg ops
// are in SIMTEmulatorSync.cpp.
// The layouts here are written from the ISA's definitions (matrix
// fragments of mma.m16n8k16, ldmatrix, wgmma register fragments, shared
// memory matrix layouts and the matrix descriptor), not from the
// lowerings' WGMMALayout.h and MMALayout.h, so that they check them.
//
//===----------------------------------------------------------------------===//

#include "SIMTEmulator.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <cmath>
#include <cstring>

using namespace tile;
using namespace tile::cuda::emu;
using llvm::SMLoc;
using llvm::Twine;

std::vector<int64_t> SIMTEmulator::regionStarts(const XRegion &R,
                                                const LaneList &M) {
  const Buffer &B = Buffers[R.Buf];
  std::vector<int64_t> Out(MaxLanes);
  llvm::SmallVector<LaneValues, 4> Off;
  for (uint32_t Id : R.Off)
    Off.push_back(evalOperand(Id, M));
  if (Failed)
    return Out;
  // The address of the first element, as code generation computes it:
  // offsets times strides, without a bound per dimension.
  for (uint32_t L : M) {
    int64_t S = 0;
    for (size_t D = 0; D != Off.size(); ++D)
      S += Off[D].at(L).I * B.Strides[D];
    Out[L] = S;
  }
  return Out;
}

bool SIMTEmulator::checkFootprint(const XStmt &S, const XRegion &R,
                                  int64_t Start, int64_t N, int64_t Lane,
                                  const char *What) {
  const Buffer &B = Buffers[R.Buf];
  if (Start >= 0 && Start + N <= B.NumElems)
    return true;
  fail(R.Loc, "'" + S.opName() + "' " + What + " elements [" + Twine(Start) +
                  ", " + Twine(Start + N) + ") of '%" + B.getName() +
                  "', outside its " + Twine(B.NumElems) + " elements",
       Lane);
  return false;
}

bool SIMTEmulator::splitGroups(
    const XStmt &S, const LaneList &M, uint32_t Size, const char *GroupName,
    std::vector<std::pair<uint32_t, uint32_t>> &Groups) {
  Groups.clear();
  for (size_t I = 0; I != M.size();) {
    uint32_t G = M[I] / Size;
    size_t J = I;
    while (J != M.size() && M[J] / Size == G)
      ++J;
    uint32_t First = G * Size;
    if (int64_t(First + Size) > Threads) {
      fail(S.getLoc(), "'" + S.opName() + "' needs all " + Twine(Size) +
                           " threads of " + GroupName + " " + Twine(G) +
                           ", but the block has " + Twine(Threads) + " threads");
      return false;
    }
    if (J - I != Size) {
      uint32_t Missing = First;
      for (size_t K = I; K != J && M[K] == Missing; ++K)
        ++Missing;
      fail(S.getLoc(), "'" + S.opName() + "' needs all " + Twine(Size) +
                           " threads of " + GroupName + " " + Twine(G) +
                           " together, but only " + Twine(J - I) +
                           " are active here (thread " + Twine(Missing) +
                           " is not)");
      return false;
    }
    Groups.push_back({First, Size});
    I = J;
  }
  return true;
}

bool SIMTEmulator::execOp(const XStmt &S, const LaneList &M) {
  // The warpgroup collectives: in a kernel whose warps run as groups, the
  // four warps meet first.
  auto Collective = [&](auto Fn) {
    return meetWarpgroup(S, M, [&](const LaneList &All) {
      Fn(All);
      return true;
    });
  };
  switch (S.Op) {
  case EmuOp::Barrier:
    return execBarrier(S, M);
  case EmuOp::AtomicElem:
    execAtomicElem(S, M);
    return true;
  case EmuOp::VLoad:
  case EmuOp::VStore:
    execVecAccess(S, M);
    return true;
  case EmuOp::StorePair:
    execStorePair(S, M);
    return true;
  case EmuOp::ShflXor:
    execShflXor(S, M);
    return true;
  case EmuOp::Ldmatrix:
    execLdmatrix(S, M);
    return true;
  case EmuOp::MmaSync:
    execMmaSync(S, M);
    return true;
  case EmuOp::CpAsync:
  case EmuOp::Ldgsts:
    execAsyncCopy(S, M);
    return true;
  case EmuOp::AsyncCommit:
    for (uint32_t L : M) {
      Copies[L].Committed.push_back(std::move(Copies[L].Open));
      Copies[L].Open.clear();
    }
    return true;
  case EmuOp::AsyncWait:
    execAsyncWait(S, M);
    return true;
  case EmuOp::FenceProxyAsync:
    execFenceProxyAsync(S, M);
    return true;
  case EmuOp::WgmmaMma:
  case EmuOp::WgmmaMmaRs:
    return Collective([&](const LaneList &All) { execWgmma(S, All); });
  case EmuOp::WgmmaFence:
  case EmuOp::WgmmaCommit:
  case EmuOp::WgmmaWait:
    return Collective([&](const LaneList &All) { execWgmmaSync(S, All); });
  case EmuOp::TmaReady:
    execTmaReady(S, M);
    return true;
  case EmuOp::Aligned:
    execAligned(S, M);
    return true;
  case EmuOp::LaunchedBlocks:
    execLaunchedBlocks(S, M);
    return true;
  case EmuOp::StoreIf:
    execStoreIf(S, M);
    return true;
  case EmuOp::TmaLoad:
    execTmaLoad(S, M);
    return true;
  case EmuOp::MbarrierInit:
    execMbarrierInit(S, M);
    return true;
  case EmuOp::MbarrierArrive:
    execMbarrierArrive(S, M);
    return true;
  case EmuOp::MbarrierWait:
    return execMbarrierWait(S, M);
  case EmuOp::LdgstsArrive:
    execLdgstsArrive(S, M);
    return true;
  case EmuOp::FenceMbarrierInit:
    execFenceMbarrierInit(S, M);
    return true;
  case EmuOp::Setmaxnreg:
    return meetWarpgroup(S, M, [&](const LaneList &All) {
      return execSetmaxnreg(S, All);
    });
  case EmuOp::BarSync:
  case EmuOp::BarArrive:
    return execNamedBarrier(S, M);
  }
  llvm_unreachable("unknown op");
}

//===----------------------------------------------------------------------===//
// Barrier, atomics, vector accesses
//===----------------------------------------------------------------------===//

bool SIMTEmulator::execBarrier(const XStmt &S, const LaneList &M) {
  const LaneList &Lanes = Running->Lanes;
  if (M.size() != Lanes.size()) {
    uint32_t Missing = firstMissingLane(Lanes, M);
    fail(S.getLoc(), "barrier under thread-dependent control flow: " +
                         Twine(M.size()) + " of the " + Twine(Lanes.size()) +
                         " threads of " +
                         (Scheduled ? "warp " + Twine(Running->Index)
                                    : Twine("the block")) +
                         " reach it (thread " + Twine(Missing) + " does not)");
    return true;
  }
  // bar.sync 0: the block's warps may reach it at different statements.
  if (Scheduled) {
    if (!(Running->St == Group::State::Blocked && Running->BlockedAt == &S))
      ++AtBarrier;
    if (AtBarrier != Groups.size())
      return false;
    AtBarrier = 0;
    for (Group &G : Groups)
      if (&G != Running && G.St == Group::State::Blocked)
        G.St = Group::State::Released;
  }
  ++BarrierEpoch;
  return true;
}

void SIMTEmulator::execAtomicElem(const XStmt &S, const LaneList &M) {
  const XRegion &R = S.Regions[0];
  Buffer &B = Buffers[R.Buf];
  llvm::SmallVector<LaneValues, 4> Idx;
  for (uint32_t Id : R.Off)
    Idx.push_back(eval(Id, M));
  LaneValues V = eval(S.Exprs[0], M);
  if (Failed)
    return;
  DType Ty = Nodes[S.Exprs[0]].Ty;
  int64_t I[8];
  // Threads in ascending order: one serialization of the atomics.
  for (uint32_t L : M) {
    for (size_t D = 0; D != Idx.size(); ++D)
      I[D] = Idx[D].at(L).I;
    int64_t E = elementIndex(B, I, Idx.size(), R.Loc, "'atomic_elem' on", L);
    if (E < 0)
      return;
    double X = convertElement(toStored(V.at(L), Ty), Ty, B.Ty);
    // Atomics of several threads to one element do not race.
    InAtomic = true;
    double Cur = loadElement(B, E, L, S.getLoc());
    double New = S.Ints[0] == 1   ? maxOf(Cur, X)
                 : S.Ints[0] == 2 ? minOf(Cur, X)
                                  : Cur + X;
    if (!Failed)
      storeElement(B, E, L, convertElement(New, B.Ty, B.Ty), S.getLoc());
    InAtomic = false;
    if (Failed)
      return;
  }
}

bool SIMTEmulator::checkVectorAligned(const XRegion &R, const LaneList &M,
                                      int64_t Bytes, int64_t Off,
                                      llvm::function_ref<std::string()> What) {
  const Buffer &B = Buffers[R.Buf];
  std::vector<int64_t> Starts = regionStarts(R, M);
  if (Failed)
    return false;
  bool Shared = B.Where == Storage::Shared;
  int64_t Base = Shared ? B.SmemOffset : 256 + Opts.DataOffset;
  for (uint32_t L : M) {
    int64_t Addr = Base + (Starts[L] + Off) * int64_t(B.Bytes);
    if (Addr % Bytes == 0)
      continue;
    fail(R.Loc,
         What() + (Shared ? " at " + describeSharedByte(uint32_t(Addr)) + ","
                          : std::string(" at an address that is")) +
             " not a multiple of " + std::to_string(Bytes) + " bytes",
         int64_t(L));
    return false;
  }
  return true;
}

void SIMTEmulator::execVecAccess(const XStmt &S, const LaneList &M) {
  int64_t W = S.Ints[0];
  // `aligned` promises what code generation then no longer tests.
  bool Aligned = S.Ints[1];
  for (const XRegion &R : S.Regions) {
    const Buffer &B = Buffers[R.Buf];
    if (!Aligned || B.Where == Storage::Thread)
      continue;
    auto What = [&] {
      std::string Where = B.Where == Storage::Shared
                              ? std::string("shared memory")
                              : "'%" + B.getName().str() + "'";
      return "'" + S.opName().str() + "' is marked aligned but accesses " + Where;
    };
    if (!checkVectorAligned(R, M, W * B.Bytes, 0, What))
      return;
  }
  moveElements(S, M, W);
}

void SIMTEmulator::execStorePair(const XStmt &S, const LaneList &M) {
  // Into shared memory the pair is one vector store with no test of its
  // address (NVPTXTensorCoreOps.cpp).
  const XRegion &Dst = S.Regions[1];
  const Buffer &DB = Buffers[Dst.Buf];
  if (DB.Where == Storage::Shared &&
      !checkVectorAligned(Dst, M, 2 * DB.Bytes, 0,
                          [] { return std::string("'cuda.store_pair' stores a pair"); }))
    return;
  moveElements(S, M, 2);
}

void SIMTEmulator::execStoreIf(const XStmt &S, const LaneList &M) {
  LaneValues C = evalOperand(S.Exprs[0], M);
  if (Failed)
    return;
  LaneList True, False;
  splitLanes(C, M, True, False);
  int64_t W = S.Ints[0], Off = S.Ints[1];
  const XRegion &Dst = S.Regions[1];
  // A pair is one vector store: its address must be a multiple of the
  // pair's size.
  if (W == 2 && !checkVectorAligned(Dst, True, 2 * Buffers[Dst.Buf].Bytes, Off, [] {
        return std::string("'cuda.store_if' stores a pair");
      }))
    return;
  moveElements(S, True, W, Off);
}

void SIMTEmulator::moveElements(const XStmt &S, const LaneList &M, int64_t W,
                                int64_t DstOffset) {
  const XRegion &Src = S.Regions[0], &Dst = S.Regions[1];
  Buffer &SB = Buffers[Src.Buf], &DB = Buffers[Dst.Buf];
  std::vector<int64_t> SS = regionStarts(Src, M), DS = regionStarts(Dst, M);
  for (uint32_t L : M)
    DS[L] += DstOffset;
  if (Failed)
    return;
  llvm::SmallVector<double, 16> V(static_cast<size_t>(W));
  for (uint32_t L : M) {
    if (!checkFootprint(S, Src, SS[L], W, L, "reads") ||
        !checkFootprint(S, Dst, DS[L], W, L, "writes"))
      return;
    // A lane reads all its elements before it writes any, as one vector
    // access does.
    for (int64_t K = 0; K != W && !Failed; ++K)
      V[K] = loadElement(SB, SS[L] + K, L, S.getLoc());
    for (int64_t K = 0; K != W && !Failed; ++K)
      storeElement(DB, DS[L] + K, L, convertElement(V[K], SB.Ty, DB.Ty),
                   S.getLoc());
    if (Failed)
      return;
  }
}

//===----------------------------------------------------------------------===//
// Warp collectives
//===----------------------------------------------------------------------===//

void SIMTEmulator::execShflXor(const XStmt &S, const LaneList &M) {
  std::vector<std::pair<uint32_t, uint32_t>> Warps;
  if (!splitGroups(S, M, 32, "warp", Warps))
    return;
  const XRegion &Dst = S.Regions[0];
  Buffer &DB = Buffers[Dst.Buf];
  LaneValues V = eval(S.Exprs[0], M);
  std::vector<int64_t> DS = regionStarts(Dst, M);
  if (Failed)
    return;
  DType VTy = Nodes[S.Exprs[0]].Ty;
  // Every lane's value is read before any is written.
  std::vector<Scalar> Vals(MaxLanes);
  for (uint32_t L : M)
    Vals[L] = V.at(L);
  uint32_t Offset = uint32_t(S.Ints[0]);
  for (uint32_t L : M) {
    if (!checkFootprint(S, Dst, DS[L], 1, L, "writes"))
      return;
    uint32_t From = (L & ~31u) | ((L & 31u) ^ Offset);
    storeElement(DB, DS[L], L,
                 convertElement(toStored(Vals[From], VTy), VTy, DB.Ty),
                 S.getLoc());
    if (Failed)
      return;
  }
}

/// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}.shared.b16: threads
/// 8i .. 8i+7 give the addresses of the eight 16-byte rows of matrix i;
/// thread l receives, of each matrix, the elements at row l/4, columns
/// 2(l%4) and 2(l%4)+1 -- of the transposed matrix with .trans.
void SIMTEmulator::execLdmatrix(const XStmt &S, const LaneList &M) {
  std::vector<std::pair<uint32_t, uint32_t>> Warps;
  if (!splitGroups(S, M, 32, "warp", Warps))
    return;
  const XRegion &Src = S.Regions[0], &Dst = S.Regions[1];
  Buffer &SB = Buffers[Src.Buf], &DB = Buffers[Dst.Buf];
  int64_t Num = S.Ints[0];
  bool Trans = S.Ints[1];
  std::vector<int64_t> SS = regionStarts(Src, M), DS = regionStarts(Dst, M);
  if (Failed)
    return;
  int64_t SmemEnd = SB.SmemOffset + SB.NumElems * SB.Bytes;
  for (auto [First, Size] : Warps) {
    // Row addresses from the threads that supply them.
    uint32_t Row[32];
    for (uint32_t J = 0; J != 8 * Num; ++J) {
      uint32_t L = First + J;
      int64_t Addr = SB.SmemOffset + SS[L] * SB.Bytes;
      if (SS[L] < 0 || Addr + 16 > SmemEnd) {
        fail(Src.Loc, "'cuda.ldmatrix' row address (element " + Twine(SS[L]) +
                          ") is outside '%" + SB.getName() + "'",
             L);
        return;
      }
      if (Addr % 16) {
        fail(Src.Loc, "'cuda.ldmatrix' row address " + describeSharedByte(Addr) +
                          " is not 16-byte aligned",
             L);
        return;
      }
      // The rows go to the whole warp: a collective read.
      if (!readShared(uint32_t(Addr), 16, -1, S.getLoc(), "'cuda.ldmatrix'"))
        return;
      Row[J] = uint32_t(Addr);
    }
    for (uint32_t J = 0; J != 32; ++J) {
      uint32_t L = First + J;
      if (!checkFootprint(S, Dst, DS[L], 2 * Num, L, "writes"))
        return;
      for (int64_t Mat = 0; Mat != Num; ++Mat)
        for (uint32_t E = 0; E != 2; ++E) {
          uint32_t R = Trans ? 2 * (J % 4) + E : J / 4;
          uint32_t C = Trans ? J / 4 : 2 * (J % 4) + E;
          // The bits move unchanged: read them as the destination's type.
          double V = decodeElement(&Smem[Row[8 * Mat + R] + 2 * C], DB.Ty);
          storeElement(DB, DS[L] + 2 * Mat + E, L, V, S.getLoc());
          if (Failed)
            return;
        }
    }
  }
}

/// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 with
/// g = lane/4, t = lane%4:
///   a[i] = A[g + 8((i/2)%2)][2t + i%2 + 8(i/4)]   (i < 8)
///   b[i] = B[2t + i%2 + 8(i/2)][g]                (i < 4)
///   c[i] = C[g + 8(i/2)][2t + i%2]                (i < 4)
void SIMTEmulator::execMmaSync(const XStmt &S, const LaneList &M) {
  std::vector<std::pair<uint32_t, uint32_t>> Warps;
  if (!splitGroups(S, M, 32, "warp", Warps))
    return;
  const XRegion &RA = S.Regions[0], &RB = S.Regions[1], &RC = S.Regions[2];
  Buffer &A = Buffers[RA.Buf], &B = Buffers[RB.Buf], &C = Buffers[RC.Buf];
  std::vector<int64_t> AS = regionStarts(RA, M), BS = regionStarts(RB, M),
                       CS = regionStarts(RC, M);
  if (Failed)
    return;
  for (auto [First, Size] : Warps) {
    double MA[16][16], MB[16][8], MC[16][8];
    for (uint32_t J = 0; J != 32; ++J) {
      uint32_t L = First + J, G = J / 4, T = J % 4;
      if (!checkFootprint(S, RA, AS[L], 8, L, "reads") ||
          !checkFootprint(S, RB, BS[L], 4, L, "reads") ||
          !checkFootprint(S, RC, CS[L], 4, L, "reads"))
        return;
      for (uint32_t I = 0; I != 8; ++I)
        MA[G + 8 * ((I / 2) % 2)][2 * T + I % 2 + 8 * (I / 4)] =
            loadElement(A, AS[L] + I, L, S.getLoc());
      for (uint32_t I = 0; I != 4; ++I) {
        MB[2 * T + I % 2 + 8 * (I / 2)][G] = loadElement(B, BS[L] + I, L, S.getLoc());
        MC[G + 8 * (I / 2)][2 * T + I % 2] = loadElement(C, CS[L] + I, L, S.getLoc());
      }
      if (Failed)
        return;
    }
    for (int R = 0; R != 16; ++R)
      for (int Col = 0; Col != 8; ++Col) {
        double D = MC[R][Col];
        for (int K = 0; K != 16; ++K)
          D += MA[R][K] * MB[K][Col];
        MC[R][Col] = D;
      }
    for (uint32_t J = 0; J != 32; ++J) {
      uint32_t L = First + J, G = J / 4, T = J % 4;
      for (uint32_t I = 0; I != 4 && !Failed; ++I)
        storeElement(C, CS[L] + I, L,
                     roundToDType(MC[G + 8 * (I / 2)][2 * T + I % 2], C.Ty),
                     S.getLoc());
      if (Failed)
        return;
    }
  }
}

//===----------------------------------------------------------------------===//
// cp.async
//===----------------------------------------------------------------------===//

void SIMTEmulator::issueCopy(const XStmt &S, uint32_t Lane, uint32_t Dst,
                             const uint8_t *Data, bool Sync) {
  if (!prepareSharedWrite(Dst, Data, 16, Lane, S.getLoc(),
                          "'" + S.opName() + "'"))
    return;
  if (Sync) {
    writeShared(Dst, Data, 16, int32_t(Lane));
    return;
  }
  AsyncCopy C;
  C.Addr = Dst;
  std::memcpy(C.Data, Data, 16);
  C.Loc = S.getLoc();
  C.Seq = Copies[Lane].NextSeq++;
  Copies[Lane].Open.push_back(C);
  for (uint32_t B = Dst; B != Dst + 16; ++B)
    ++SmemCopies[B];
}

/// cuda.cp_async (cp.async.cg 16 bytes, `bytes` of them read) and
/// cuda.ldgsts (`count` elements read, or all with `full`): the rest of the
/// 16 bytes is zero-filled. A source that is not 16-byte aligned (for
/// `full`, a tensor whose start is not) is copied element by element,
/// synchronously, as code generation does.
void SIMTEmulator::execAsyncCopy(const XStmt &S, const LaneList &M) {
  const XRegion &Src = S.Regions[0], &Dst = S.Regions[1];
  Buffer &SB = Buffers[Src.Buf], &DB = Buffers[Dst.Buf];
  bool Ldgsts = S.Op == EmuOp::Ldgsts, Full = Ldgsts && S.Ints[0];
  int64_t E = SB.Bytes, PerChunk = 16 / E;
  std::vector<int64_t> SS = regionStarts(Src, M), DS = regionStarts(Dst, M);
  LaneValues N;
  if (!Full)
    N = eval(S.Exprs[0], M);
  if (Failed)
    return;
  int64_t DstEnd = DB.SmemOffset + DB.NumElems * DB.Bytes;
  for (uint32_t L : M) {
    // Bytes to read.
    int64_t Bytes = Full ? 16 : Ldgsts ? N.at(L).I * E : N.at(L).I;
    if (Bytes < 0 || Bytes > 16) {
      fail(S.getLoc(), "'" + S.opName() + "' reads " +
                           (Ldgsts ? Twine(N.at(L).I) + " elements"
                                   : Twine(Bytes) + " bytes") +
                           "; at most 16 bytes fit",
           L);
      return;
    }
    int64_t Addr = DB.SmemOffset + DS[L] * DB.Bytes;
    if (DS[L] < 0 || Addr + 16 > DstEnd) {
      fail(Dst.Loc, "'" + S.opName() + "' writes 16 bytes at element " +
                        Twine(DS[L]) + " of '%" + DB.getName() +
                        "', outside it",
           L);
      return;
    }
    if (Addr % 16) {
      fail(Dst.Loc, "'" + S.opName() + "' destination " +
                        describeSharedByte(uint32_t(Addr)) +
                        " is not 16-byte aligned",
           L);
      return;
    }
    int64_t Elems = (Bytes + E - 1) / E;
    if (Elems && (SS[L] < 0 || SS[L] + Elems > SB.NumElems)) {
      fail(Src.Loc, "'" + S.opName() + "'" + (Full ? " {full = true}" : "") +
                        " reads elements [" + Twine(SS[L]) + ", " +
                        Twine(SS[L] + Elems) + ") of '%" + SB.getName() +
                        "', outside its " + Twine(SB.NumElems) + " elements",
           L);
      return;
    }
    // A tensor's data starts DataOffset bytes past a 256-byte boundary.
    // `full` promises a chunk 16-byte aligned from the tensor's start, and
    // code generation tests only the start.
    bool Aligned = Full ? Opts.DataOffset % 16 == 0
                        : (Opts.DataOffset + SS[L] * E) % 16 == 0;
    if (Full && (SS[L] * E) % 16) {
      fail(Src.Loc, "'cuda.ldgsts' {full = true} promises a chunk 16 bytes "
                    "from the start of '%" + SB.getName() +
                        "' times a whole number, but it starts at element " +
                        Twine(SS[L]),
           L);
      return;
    }
    uint8_t Data[16] = {0};
    for (int64_t K = 0; K != PerChunk; ++K) {
      // The element-by-element path copies whole elements below the count.
      if (K * E >= Bytes)
        break;
      double V = loadElement(SB, SS[L] + K, L, S.getLoc());
      if (Failed)
        return;
      encodeElement(V, SB.Ty, Data + K * E);
    }
    if (Aligned)
      std::memset(Data + Bytes, 0, size_t(16 - Bytes));
    issueCopy(S, L, uint32_t(Addr), Data, /*Sync=*/!Aligned);
    if (Failed)
      return;
  }
}

void SIMTEmulator::landGroup(std::vector<AsyncCopy> &G, uint32_t Lane,
                             uint64_t UpTo) {
  // In a scheduled kernel the copies are the thread's own agent, which an
  // arrive-on releases or a wait acquires.
  int32_t Writer = Scheduled ? accessor::CopiesOf - int32_t(Lane) : int32_t(Lane);
  size_t Keep = 0;
  for (size_t I = 0; I != G.size(); ++I) {
    const AsyncCopy &C = G[I];
    if (C.Seq > UpTo) {
      G[Keep++] = C;
      continue;
    }
    for (uint32_t B = C.Addr; B != C.Addr + 16; ++B)
      --SmemCopies[B];
    writeShared(C.Addr, C.Data, 16, Writer);
  }
  G.resize(Keep);
}

void SIMTEmulator::execAsyncWait(const XStmt &S, const LaneList &M) {
  size_t Pending = size_t(S.Ints[0]);
  for (uint32_t L : M) {
    CopyGroups &G = Copies[L];
    while (G.Committed.size() > Pending) {
      landGroup(G.Committed.front(), L);
      G.Committed.pop_front();
    }
    if (Scheduled) {
      // The thread sees its landed copies.
      uint32_t A = agentIndex(accessor::CopiesOf - int32_t(L));
      uint32_t &Seen = clocksOf(L)[A];
      Seen = std::max(Seen, Clock[A]);
      ++Clock[A];
    }
  }
  MaskClocksValid = false;
}

/// fence.proxy.async: this thread's generic-proxy writes to shared memory,
/// and every thread's from before the last barrier, become visible to the
/// async proxy (wgmma).
void SIMTEmulator::execFenceProxyAsync(const XStmt &S, const LaneList &M) {
  if (!TrackProxy || UnfencedLive.empty())
    return;
  std::vector<uint8_t> Fencing(MaxLanes, 0);
  for (uint32_t L : M)
    Fencing[L] = 1;
  // Scheduled kernels: the latest clock of each agent some fencing thread
  // has seen.
  std::vector<uint32_t> Seen;
  if (Scheduled) {
    Seen.assign(NumAgents, 0);
    for (uint32_t L : M) {
      const uint32_t *V = clocksOf(L);
      for (uint32_t A = 0; A != NumAgents; ++A)
        Seen[A] = std::max(Seen[A], V[A]);
    }
  }
  auto Covers = [&](const UnfencedWrite &W) {
    if (W.Epoch != BarrierEpoch || W.Writer == accessor::Several)
      return true;
    if (W.Writer >= 0 && Fencing[uint32_t(W.Writer)])
      return true;
    if (accessor::isCopies(W.Writer) &&
        Fencing[uint32_t(accessor::CopiesOf - W.Writer)])
      return true;
    return Scheduled && Seen[agentIndex(W.Writer)] >= W.Clock;
  };
  std::vector<uint32_t> Live;
  for (uint32_t Id : UnfencedLive) {
    const UnfencedWrite &W = UnfencedLog[Id];
    if (!Covers(W)) {
      Live.push_back(Id);
      continue;
    }
    for (uint32_t B = W.Addr; B != W.Addr + W.Len; ++B)
      if (SmemUnfenced[B] == int32_t(Id + 1))
        SmemUnfenced[B] = 0;
  }
  UnfencedLive = std::move(Live);
}

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

namespace {

/// The layout attributes of one shared operand.
struct Descriptor {
  int64_t Start = 0;
  bool MNMajor = false;
  int64_t Swizzle = 128, LBO = 16, SBO = 1024;
};

/// The shared-memory address wgmma reads for element (MN, K) of an operand
/// of 16-bit elements (A: MN = m; B: MN = n), from the PTX ISA's canonical
/// layouts. In 16-byte units ("cores") with W = Swizzle / 16:
///   K-major:  core (mn, k / 8) at (mn % 8) * W + (mn / 8) * SBO/16 + k / 8
///             (rows of one 8-row core matrix W cores apart, the two
///             16-byte halves of a k16 step adjacent, 8-row groups SBO
///             apart; LBO unused in swizzled modes);
///   MN-major: core (mn / 8, k) at (mn/8) % W + ((mn/8) / W) * LBO/16 +
///             (k % 8) * W + (k / 8) * SBO/16
///             (W cores of one k row side by side, W-core MN blocks LBO
///             apart, 8-row k groups SBO apart);
/// then the swizzle XORs address bits [4, 4 + log2 W) with bits
/// [7, 7 + log2 W) of the shared-memory address.
int64_t operandAddress(const Descriptor &D, int64_t MN, int64_t K) {
  int64_t W = D.Swizzle / 16;
  int64_t Addr;
  if (!D.MNMajor)
    Addr = D.Start + (K % 8) * 2 + (K / 8) * 16 + (MN % 8) * W * 16 +
           (MN / 8) * D.SBO;
  else
    Addr = D.Start + (MN % 8) * 2 + ((MN / 8) % W) * 16 + ((MN / 8) / W) * D.LBO +
           (K % 8) * W * 16 + (K / 8) * D.SBO;
  return Addr ^ (((Addr >> 7) & (W - 1)) << 4);
}

} // namespace

void SIMTEmulator::execWgmma(const XStmt &S, const LaneList &M) {
  std::vector<std::pair<uint32_t, uint32_t>> Groups;
  if (!splitGroups(S, M, 128, "warpgroup", Groups))
    return;
  bool Rs = S.Op == EmuOp::WgmmaMmaRs;
  const XRegion &RA = S.Regions[0], &RB = S.Regions[1], &RC = S.Regions[2];
  Buffer &A = Buffers[RA.Buf], &B = Buffers[RB.Buf], &C = Buffers[RC.Buf];
  int64_t N = S.Ints[0];
  bool ZeroC = S.Ints[9];
  std::vector<int64_t> AS = regionStarts(RA, M), BS = regionStarts(RB, M),
                       CS = regionStarts(RC, M);
  LaneValues AOff, BOff = evalOperand(S.Exprs[Rs ? 0 : 1], M);
  if (!Rs)
    AOff = evalOperand(S.Exprs[0], M);
  if (Failed)
    return;
  for (const auto &Group : Groups) {
    uint32_t First = Group.first;
    // Operands the hardware takes once per warpgroup must agree.
    auto Same = [&](auto Get, const Twine &What) {
      for (uint32_t L = First + 1; L != First + 128; ++L)
        if (Get(L) != Get(First)) {
          fail(S.getLoc(), "'" + S.opName() + "' " + What + " differs between "
                               "the threads of warpgroup " + Twine(First / 128) +
                               ": " + Twine(Get(First)) + " in thread " +
                               Twine(First) + ", " + Twine(Get(L)) +
                               " in thread " + Twine(L),
               L);
          return false;
        }
      return true;
    };
    if (!Same([&](uint32_t L) { return BS[L]; }, "B region") ||
        !Same([&](uint32_t L) { return BOff.at(L).I; }, "b_offset") ||
        !Same([&](uint32_t L) { return CS[L]; }, "accumulator region") ||
        !Same([&](uint32_t L) { return AS[L]; }, "A region") ||
        (!Rs && !Same([&](uint32_t L) { return AOff.at(L).I; }, "a_offset")))
      return;
    // wgmma.fence orders register accesses before the wgmma.
    for (Buffer *R : {&C, Rs ? &A : nullptr}) {
      if (!R)
        continue;
      for (uint32_t L = First; L != First + 128; ++L)
        if (R->TouchedSinceFence[L]) {
          fail(S.getLoc(), "'" + S.opName() + "' uses '%" + R->getName() +
                               "', which was written or read since its last "
                               "cuda.wgmma_fence (or allocated with none "
                               "since); a cuda.wgmma_fence %" +
                               R->getName() + " must come in between",
               L);
          return;
        }
    }
    if (!checkFootprint(S, RC, CS[First], N / 2, First, "accumulates into") ||
        (Rs && !checkFootprint(S, RA, AS[First], 8, First, "reads")))
      return;
    WgmmaInFlight W;
    W.Acc = RC.Buf;
    W.AccStart = CS[First];
    W.AccCount = N / 2;
    W.Lane0 = First;
    W.Loc = S.getLoc();
    // The shared operands through their descriptors.
    auto Decode = [&](Buffer &Buf, int64_t RegionStart, int64_t Offset,
                      Descriptor D, int64_t Rows, const char *Which,
                      std::vector<double> &Out) {
      D.Start = Buf.SmemOffset + RegionStart * Buf.Bytes + Offset;
      if (D.Start % 16 || D.Start < 0 || D.Start >= (int64_t(1) << 18)) {
        fail(S.getLoc(), "'" + S.opName() + "' descriptor of " + Which +
                             " starts at shared byte " + Twine(D.Start) +
                             ", which is not a 16-byte aligned address below "
                             "2^18",
             -1);
        return false;
      }
      int64_t Lo = Buf.SmemOffset, Hi = Buf.SmemOffset + Buf.NumElems * Buf.Bytes;
      Out.resize(size_t(Rows * 16));
      for (int64_t MN = 0; MN != Rows; ++MN)
        for (int64_t K = 0; K != 16; ++K) {
          int64_t Addr = operandAddress(D, MN, K);
          if (Addr < Lo || Addr + 2 > Hi) {
            fail(S.getLoc(), "'" + S.opName() + "' descriptor of " + Which +
                                 " reads " + describeSharedByte(uint32_t(Addr)) +
                                 " for element (" + Twine(MN) + ", " + Twine(K) +
                                 "), outside '%" + Buf.getName() + "'",
                 -1);
            return false;
          }
          if (!readShared(uint32_t(Addr), 2, -1, S.getLoc(),
                          "'" + S.opName() + "'", /*Record=*/!Scheduled))
            return false;
          if (TrackProxy)
            for (uint32_t Byte = uint32_t(Addr); Byte != uint32_t(Addr) + 2; ++Byte)
              if (int32_t Id = SmemUnfenced[Byte]) {
                const UnfencedWrite &U = UnfencedLog[Id - 1];
                fail(S.getLoc(), "'" + S.opName() + "' reads " +
                                     describeSharedByte(Byte) + ", which " +
                                     describeAccessor(U.Writer) +
                                     " wrote through the generic proxy (a "
                                     "store or cp.async) with no "
                                     "cuda.fence_proxy_async since",
                     -1);
                return false;
              }
          Out[size_t(MN * 16 + K)] = decodeElement(&Smem[Addr], Buf.Ty);
          W.SmemRead.push_back(uint32_t(Addr));
        }
      return true;
    };
    std::vector<double> MA, MB;
    Descriptor DB;
    DB.MNMajor = S.Ints[2];
    DB.Swizzle = S.Ints[4];
    DB.LBO = S.Ints[7];
    DB.SBO = S.Ints[8];
    if (!Decode(B, BS[First], BOff.at(First).I, DB, N, "B", MB))
      return;
    if (!Rs) {
      Descriptor DA;
      DA.MNMajor = S.Ints[1];
      DA.Swizzle = S.Ints[3];
      DA.LBO = S.Ints[5];
      DA.SBO = S.Ints[6];
      if (!Decode(A, AS[First], AOff.at(First).I, DA, 64, "A", MA))
        return;
    } else {
      // The register fragment of A: thread t = 32w + l holds
      //   a[i] = A[16w + l/4 + 8((i/2)%2)][2(l%4) + i%2 + 8(i/4)].
      MA.resize(64 * 16);
      for (uint32_t T = 0; T != 128; ++T) {
        uint32_t Wp = T / 32, L = T % 32;
        for (uint32_t I = 0; I != 8; ++I)
          MA[(16 * Wp + L / 4 + 8 * ((I / 2) % 2)) * 16 + 2 * (L % 4) + I % 2 +
             8 * (I / 4)] = A.Lanes[(First + T) * A.NumElems + AS[First] + I];
      }
      W.ARegs = RA.Buf;
      W.AStart = AS[First];
    }
    // The accumulators D (64 x N, f32): thread t = 32w + l holds
    //   d[i] = D[16w + l/4 + 8((i/2)%2)][8(i/4) + 2(l%4) + i%2].
    std::vector<double> D(size_t(64 * N), 0.0);
    auto Index = [&](uint32_t T, int64_t I) {
      uint32_t Wp = T / 32, L = T % 32;
      return size_t((16 * Wp + L / 4 + 8 * ((I / 2) % 2)) * N + 8 * (I / 4) +
                    2 * (L % 4) + I % 2);
    };
    if (!ZeroC)
      for (uint32_t T = 0; T != 128; ++T)
        for (int64_t I = 0; I != N / 2; ++I)
          D[Index(T, I)] = C.Lanes[(First + T) * C.NumElems + CS[First] + I];
    for (int64_t Row = 0; Row != 64; ++Row)
      for (int64_t Col = 0; Col != N; ++Col) {
        double Sum = D[size_t(Row * N + Col)];
        for (int64_t K = 0; K != 16; ++K)
          Sum += MA[size_t(Row * 16 + K)] * MB[size_t(Col * 16 + K)];
        D[size_t(Row * N + Col)] = Sum;
      }
    for (uint32_t T = 0; T != 128; ++T) {
      size_t Base = (First + T) * C.NumElems + CS[First];
      for (int64_t I = 0; I != N / 2; ++I) {
        C.Lanes[Base + I] = roundToDType(D[Index(T, I)], C.Ty);
        ++C.InFlight[Base + I];
      }
      if (Rs)
        for (int64_t I = 0; I != 8; ++I)
          ++A.InFlight[(First + T) * A.NumElems + AS[First] + I];
    }
    for (uint32_t Addr : W.SmemRead) {
      ++SmemWgmmaReads[Addr];
      ++SmemWgmmaReads[Addr + 1];
    }
    Wgmmas[First / 128].Open.push_back(std::move(W));
  }
}

void SIMTEmulator::retireWgmma(WgmmaInFlight &W) {
  Buffer &C = Buffers[W.Acc];
  for (uint32_t T = W.Lane0; T != W.Lane0 + 128; ++T) {
    for (int64_t I = 0; I != W.AccCount; ++I)
      --C.InFlight[T * C.NumElems + W.AccStart + I];
    if (W.ARegs >= 0) {
      Buffer &A = Buffers[W.ARegs];
      for (int64_t I = 0; I != 8; ++I)
        --A.InFlight[T * A.NumElems + W.AStart + I];
    }
  }
  // Done reading: other warpgroups may overwrite the bytes once ordered
  // after this (a barrier; an arrival of the warpgroup's first thread after
  // the wait that retired it, and a wait on that phase).
  uint32_t Epoch = uint32_t(BarrierEpoch + 1);
  int32_t Reader = accessor::WgmmaOf - int32_t(W.Lane0 / 128);
  uint32_t Stamp = clockOf(Reader);
  for (uint32_t Addr : W.SmemRead)
    for (uint32_t B = Addr; B != Addr + 2; ++B) {
      --SmemWgmmaReads[B];
      if (Scheduled) {
        if (SmemReadEpoch[B] != Epoch)
          SmemReadSet[B] = 0;
        SmemReadSet[B] = addReader(SmemReadSet[B], Reader, Stamp);
      } else if (SmemReadEpoch[B] == Epoch && SmemReader[B] != Reader) {
        SmemReader[B] = accessor::Several;
      } else {
        SmemReader[B] = Reader;
      }
      SmemReadEpoch[B] = Epoch;
    }
}

/// wgmma.fence, wgmma.commit_group and wgmma.wait_group, per warpgroup.
void SIMTEmulator::execWgmmaSync(const XStmt &S, const LaneList &M) {
  std::vector<std::pair<uint32_t, uint32_t>> Groups;
  if (!splitGroups(S, M, 128, "warpgroup", Groups))
    return;
  for (auto [First, Size] : Groups) {
    WgmmaGroups &G = Wgmmas[First / 128];
    switch (S.Op) {
    case EmuOp::WgmmaFence: {
      Buffer &Acc = Buffers[S.Regions[0].Buf];
      for (uint32_t L = First; L != First + Size; ++L)
        Acc.TouchedSinceFence[L] = 0;
      break;
    }
    case EmuOp::WgmmaCommit:
      G.Committed.push_back(std::move(G.Open));
      G.Open.clear();
      break;
    case EmuOp::WgmmaWait:
      while (G.Committed.size() > size_t(S.Ints[0])) {
        for (WgmmaInFlight &W : G.Committed.front())
          retireWgmma(W);
        G.Committed.pop_front();
      }
      break;
    default:
      llvm_unreachable("not a wgmma synchronization");
    }
  }
}
