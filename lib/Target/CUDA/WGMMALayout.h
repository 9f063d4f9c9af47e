//===- WGMMALayout.h - Shared-memory and register layouts of wgmma -*- C++ -*-===//
//
// The layouts hopper-lower-gemm-wgmma builds its index expressions from
// and the PTX emission encodes into matrix descriptors; nothing else knows
// them. Facts from the PTX ISA (warpgroup-level matrix multiply-accumulate:
// shared memory matrix layouts, matrix descriptor format, register
// fragments of D).
//
// Operand tiles in shared memory. A tile stored row-major as [Rows,
// Contig] (Contig the contiguous dimension, E bytes per element) is cut
// along Contig into blocks W bytes wide (W, the swizzle width, is 32, 64
// or 128); block b holds every row, W bytes each:
//   byte(r, c) = (c*E / W) * Rows*W + r*W + (c*E % W)
// and the 16-byte chunks of each row are permuted by the swizzle:
//   phys = byte ^ (((byte >> 7) & (W/16 - 1)) << 4)
// which is the hardware's own function of the address bits, so the tile
// must start at a multiple of 8*W bytes (1024 always works).
//
// K-major operands (A [M, K], B stored [N, K]): Contig = K. One k16 step
// of rows [r0, r0+64) (A) or [n0, n0+N) (B) starts at byte
//   (k*E / W) * Rows*W + r0*W + (k*E % W)
// with stride byte offset (between 8-row core-matrix groups) 8*W; the
// leading byte offset is unused.
// MN-major operands (A stored [K, M], B [K, N]): Contig = M or N, Rows = K.
// The k16 step at MN offset m0 starts at byte
//   (m0*E / W) * K*W + k*W
// with leading byte offset K*W (between W-wide MN blocks) and stride byte
// offset 8*W (between groups of 8 k rows).
//
// Descriptor (64 bits): start address >> 4 in bits 0-13, leading byte
// offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, swizzle mode in
// 62-63 (1: 128B, 2: 64B, 3: 32B).
//
// Accumulators of m64nNk16 (f32): thread t of the warpgroup, warp w = t/32,
// lane l = t%32, holds N/2 values; value i is
//   row 16w + l/4 + 8*((i/2)%2),  column 8*(i/4) + 2*(l%4) + i%2.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_WGMMALAYOUT_H
#define TILE_LIB_TARGET_CUDA_WGMMALAYOUT_H

#include <cstdint>

namespace tile {
namespace hopper {

constexpr int64_t WarpgroupSize = 128;
/// Rows of A per instruction, and K per instruction.
constexpr int64_t InstM = 64, InstK = 16;
/// Bytes per cuda.ldgsts chunk and per swizzle unit.
constexpr int64_t ChunkBytes = 16;
/// Alignment of every operand ring and stage (covers all swizzle modes).
constexpr int64_t StageAlign = 1024;
/// Most rows of one TMA box.
constexpr int64_t MaxTmaBoxRows = 256;

/// The swizzle width for a tile whose contiguous dimension has \p Bytes
/// bytes: 32, 64 or 128, or 0 when no width fits.
inline int64_t swizzleWidthFor(int64_t Bytes) {
  if (Bytes == 32 || Bytes == 64)
    return Bytes;
  if (Bytes > 0 && Bytes % 128 == 0)
    return 128;
  return 0;
}

/// The descriptor's 2-bit swizzle mode for a width in bytes.
inline uint64_t swizzleMode(int64_t W) {
  return W == 128 ? 1 : W == 64 ? 2 : 3;
}

/// The constant fields of a matrix descriptor (all but the start address).
inline uint64_t descriptorFields(int64_t LBO, int64_t SBO, int64_t W) {
  return (uint64_t(LBO >> 4) & 0x3FFF) << 16 |
         (uint64_t(SBO >> 4) & 0x3FFF) << 32 | swizzleMode(W) << 62;
}

} // namespace hopper
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_WGMMALAYOUT_H
