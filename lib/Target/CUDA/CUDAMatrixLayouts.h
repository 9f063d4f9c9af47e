//===- CUDAMatrixLayouts.h - Fragment layouts of mma.sync and wgmma -*- C++ -*-===//
//
// The CUDA backends' hook into the shared fragment layout analysis
// (tile/Analysis/FragmentLayouts.h): the accumulator layouts of mma.sync
// m16n8k16 (sm_80 on) and wgmma m64nNk16 (sm_90a) as linear layouts, in
// the register order the lowerings keep their accumulators in, and the
// providers that hand them to the analysis.
//
// mma.sync: the block's warps form a WarpsM x WarpsN grid (the most square
// with sides that are multiples of 16); warp (wm, wn) owns the WM x WN
// sub-tile at (wm WM, wn WN), and register (mi * WN/8 + ni) * 4 + 2h + d of
// lane l holds row wm WM + 16 mi + l/4 + 8h, column wn WN + 8 ni + 2(l%4) + d.
//
// wgmma: warpgroup g owns the 64-row slices g MT .. g MT + MT - 1; register
// (mt * NI + ni) * NInst/2 + 2j + d of lane l of warp w (of the warpgroup)
// holds row 64 (g MT + mt) + 16 w + l/4 + 8 (j%2), column NInst ni + 8
// (j/2) + 2(l%4) + d.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_CUDAMATRIXLAYOUTS_H
#define TILE_LIB_TARGET_CUDA_CUDAMATRIXLAYOUTS_H

#include "tile/Analysis/FragmentLayouts.h"
#include <optional>

namespace tile {
namespace cuda {

/// How mma.sync shares an M x N accumulator over the block's warps.
struct MMAWarpGrid {
  int64_t WarpsM = 1, WarpsN = 1, WM = 0, WN = 0;
};

/// The most square warp grid with sides that are multiples of 16; nullopt
/// when none splits M x N over \p Warps.
std::optional<MMAWarpGrid> chooseMMAWarpGrid(int64_t M, int64_t N,
                                             int64_t Warps);

/// The mma.sync accumulator layout over grid \p G; nullopt unless the
/// grid's sides and tile counts are powers of two.
std::optional<LinearLayout> getMMAAccumulatorLayout(const MMAWarpGrid &G);

/// The wgmma accumulator layout of \p Warpgroups warpgroups holding \p MT
/// 64-row slices each, columns split as \p NI instructions of \p NInst;
/// nullopt unless all are powers of two.
std::optional<LinearLayout> getWGMMAAccumulatorLayout(int64_t MT, int64_t NInst,
                                                      int64_t NI,
                                                      int64_t Warpgroups);

/// mma.sync m16n8k16 (cuda, sm_80 on).
class MMASyncLayouts : public MatrixLayoutProvider {
public:
  llvm::StringRef getInstructionName() const override {
    return "mma.sync m16n8k16";
  }
  llvm::Expected<LinearLayout>
  getAccumulatorLayout(const OpStmt &Gemm, int64_t M, int64_t N,
                       int64_t Threads) const override;
};

/// wgmma m64nNk16 (cuda, sm_90a).
class WGMMALayouts : public MatrixLayoutProvider {
public:
  llvm::StringRef getInstructionName() const override {
    return "wgmma m64nNk16";
  }
  llvm::Expected<LinearLayout>
  getAccumulatorLayout(const OpStmt &Gemm, int64_t M, int64_t N,
                       int64_t Threads) const override;
};

} // namespace cuda
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_CUDAMATRIXLAYOUTS_H
