//===- MMALayout.h - Thread layouts of mma.sync m16n8k16 --------*- C++ -*-===//
//
// Which elements of A (16x16), B (16x8) and C (16x8) each thread of a warp
// holds for mma.sync.aligned.m16n8k16.row.col with f16/bf16 operands and
// f32 accumulators (PTX ISA, "Matrix Fragments for mma.m16n8k16"), and
// where ldmatrix.x4 puts them. With g = lane / 4 and t = lane % 4, element
// i of a thread is
//   A: row g + 8 * ((i / 2) % 2), column 2t + i % 2 + 8 * (i / 4)  (i < 8)
//   B: row 2t + i % 2 + 8 * (i / 2), column g                      (i < 4)
//   C: row g + 8 * (i / 2),           column 2t + i % 2            (i < 4)
// ldmatrix.x4 gives a thread two elements (row g, columns 2t, 2t+1) of each
// of four 8x8 matrices whose rows threads 8j..8j+7 address; loading the
// four 8x8 quarters of a 16x16 block in the order (rows 0-7, cols 0-7),
// (8-15, 0-7), (0-7, 8-15), (8-15, 8-15) yields an A operand, and with
// .trans of a [K, N] block two B operands (n 0-7 and n 8-15).
//
// cuda-lower-gemm-mma builds its index expressions from these; the
// accumulator of a warp's WM x WN sub-tile is an array of
// (WM / 16) * (WN / 8) * 4 floats, tile (mi, ni) at (mi * (WN / 8) + ni) * 4.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_MMALAYOUT_H
#define TILE_LIB_TARGET_CUDA_MMALAYOUT_H

#include <cstdint>

namespace tile {
namespace cuda {

constexpr int64_t WarpSize = 32;
/// The instruction's tile: m16n8k16.
constexpr int64_t MmaM = 16, MmaN = 8, MmaK = 16;
/// Per thread: A, B and C elements of one instruction.
constexpr int64_t APerThread = 8, BPerThread = 4, CPerThread = 4;
/// Elements of a 16-byte chunk of a b16 matrix row: what ldmatrix and
/// cp.async move per thread.
constexpr int64_t ChunkElems = 8, ChunkBytes = 16;

/// Row and column offsets of C element \p I of a thread, given lane / 4 and
/// lane % 4 (as above).
inline int64_t accRowOffset(int64_t I) { return 8 * (I / 2); }
inline int64_t accColOffset(int64_t I) { return I % 2; }

} // namespace cuda
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_MMALAYOUT_H
