//===- WGMMAGemmPlan.h - A GEMM K loop planned for wgmma --------*- C++ -*-===//
//
// What hopper-lower-gemm-wgmma decides about one gemm K loop before it
// writes any code: the two operand tiles in their stored layouts with the
// copies that fill them, the accumulator, the instruction shape and the
// ring depth. Both of its code generators read it: the cp.async ring
// every thread fills (LowerGemmToWGMMA.cpp) and the warp-specialized
// kernel whose producer warpgroup loads through TMA
// (WarpSpecializedGemm.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_WGMMAGEMMPLAN_H
#define TILE_LIB_TARGET_CUDA_WGMMAGEMMPLAN_H

#include "WGMMABuilder.h"
#include "llvm/ADT/DenseMap.h"

namespace tile {
namespace hopper {

/// A and B: the shared tile in its stored layout, the copy that fills it.
struct OperandPlan : SharedTile {
  OpStmt *Copy = nullptr;
};

struct GemmPlan {
  OpStmt *Op = nullptr;
  ForStmt *Loop = nullptr;
  OperandPlan A, B;
  BufferValue *C = nullptr;
  WgmmaShape Shape;
  int64_t BM = 0, BN = 0, Stages = 2;

  /// Accumulator elements each thread holds.
  int64_t accPerThread() const { return Shape.MT * BN / 2; }
};

/// For each whole copy out of an accumulator: the target dimensions of its
/// rows and columns.
using CopyDimsMap =
    llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>>;

} // namespace hopper
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_WGMMAGEMMPLAN_H
