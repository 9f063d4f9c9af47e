//===- CUDAMatrixLayouts.cpp - Fragment layouts of mma.sync and wgmma -----===//

#include "CUDAMatrixLayouts.h"
#include <cstdlib>

using namespace tile;
using namespace tile::cuda;

std::optional<MMAWarpGrid> cuda::chooseMMAWarpGrid(int64_t M, int64_t N,
                                                   int64_t Warps) {
  std::optional<MMAWarpGrid> Best;
  int64_t BestScore = -1;
  for (int64_t WarpsM = 1; WarpsM <= Warps; ++WarpsM) {
    if (Warps % WarpsM != 0)
      continue;
    int64_t WarpsN = Warps / WarpsM;
    if (M % (WarpsM * 16) != 0 || N % (WarpsN * 16) != 0)
      continue;
    int64_t WM = M / WarpsM, WN = N / WarpsN;
    int64_t Score = std::abs(WM - WN);
    if (BestScore < 0 || Score < BestScore) {
      BestScore = Score;
      Best = MMAWarpGrid{WarpsM, WarpsN, WM, WN};
    }
  }
  return Best;
}

std::optional<LinearLayout> cuda::getMMAAccumulatorLayout(const MMAWarpGrid &G) {
  int64_t TM = G.WM / 16, TN = G.WN / 8;
  for (int64_t X : {G.WarpsM, G.WarpsN, TM, TN})
    if (!isPowerOfTwo(X))
      return std::nullopt;
  LinearLayout L({G.WarpsM * G.WM, G.WarpsN * G.WN});
  L.addRun(HwDim::Register, 1, 1, 1)                    // d: column + 1
      .addRun(HwDim::Register, 0, 8, 1)                 // h: row + 8
      .addRun(HwDim::Register, 1, 8, log2Exact(TN))     // ni: column + 8 ni
      .addRun(HwDim::Register, 0, 16, log2Exact(TM))    // mi: row + 16 mi
      .addRun(HwDim::Lane, 1, 2, 2)                     // 2 (l % 4)
      .addRun(HwDim::Lane, 0, 1, 3)                     // l / 4
      .addRun(HwDim::Warp, 1, G.WN, log2Exact(G.WarpsN)) // wn
      .addRun(HwDim::Warp, 0, G.WM, log2Exact(G.WarpsM)); // wm
  return L;
}

std::optional<LinearLayout> cuda::getWGMMAAccumulatorLayout(int64_t MT,
                                                            int64_t NInst,
                                                            int64_t NI,
                                                            int64_t Warpgroups) {
  for (int64_t X : {MT, NInst, NI, Warpgroups})
    if (!isPowerOfTwo(X))
      return std::nullopt;
  if (NInst < 8)
    return std::nullopt;
  LinearLayout L({64 * MT * Warpgroups, NInst * NI});
  L.addRun(HwDim::Register, 1, 1, 1)                      // d
      .addRun(HwDim::Register, 0, 8, 1)                   // j % 2
      .addRun(HwDim::Register, 1, 8, log2Exact(NInst / 8)) // j / 2
      .addRun(HwDim::Register, 1, NInst, log2Exact(NI))   // ni
      .addRun(HwDim::Register, 0, 64, log2Exact(MT))      // mt
      .addRun(HwDim::Lane, 1, 2, 2)
      .addRun(HwDim::Lane, 0, 1, 3)
      .addRun(HwDim::Warp, 0, 16, 2)                      // warp of the group
      .addRun(HwDim::Warp, 0, 64 * MT, log2Exact(Warpgroups));
  return L;
}

static llvm::Error why(const llvm::Twine &Msg) {
  return llvm::createStringError(Msg);
}

llvm::Expected<LinearLayout>
MMASyncLayouts::getAccumulatorLayout(const OpStmt &, int64_t M, int64_t N,
                                     int64_t Threads) const {
  if (Threads % 32 != 0)
    return why("the kernel's " + llvm::Twine(Threads) +
               " threads are not whole warps");
  std::optional<MMAWarpGrid> G = chooseMMAWarpGrid(M, N, Threads / 32);
  if (!G)
    return why("[" + llvm::Twine(M) + ", " + llvm::Twine(N) +
               "] does not split over " + llvm::Twine(Threads / 32) +
               " warps in multiples of 16");
  std::optional<LinearLayout> L = getMMAAccumulatorLayout(*G);
  if (!L)
    return why("the warp grid " + llvm::Twine(G->WarpsM) + "x" +
               llvm::Twine(G->WarpsN) + " of " + llvm::Twine(G->WM) + "x" +
               llvm::Twine(G->WN) + " sub-tiles is not made of powers of two");
  return std::move(*L);
}

llvm::Expected<LinearLayout>
WGMMALayouts::getAccumulatorLayout(const OpStmt &, int64_t M, int64_t N,
                                   int64_t Threads) const {
  if (Threads % 128 != 0)
    return why("the kernel's " + llvm::Twine(Threads) +
               " threads are not whole warpgroups of 128");
  int64_t WG = Threads / 128;
  if (M % (64 * WG) != 0)
    return why("M = " + llvm::Twine(M) + " is not a multiple of 64 rows per "
               "warpgroup");
  int64_t NInst = N <= 256 ? N : 256;
  if (N % 8 != 0 || N % NInst != 0)
    return why("N = " + llvm::Twine(N) +
               " is neither a multiple of 8 up to 256 nor a multiple of 256");
  std::optional<LinearLayout> L =
      getWGMMAAccumulatorLayout(M / 64 / WG, NInst, N / NInst, WG);
  if (!L)
    return why("the accumulator's slices and column split are not powers of "
               "two");
  return std::move(*L);
}
