//===- MaskGuard.h - Running a mask only on tiles it can change -*- C++ -*-===//
//
// FlashAttention masks the scores of each key tile with a per-element
// select on block-level values and the loop's indices:
//
//   for %i, %c in parallel(BM, BN) {
//     %Sc[%i, %c] = select(%j * BN + %c < S, %Sc[%i, %c], -inf<f32>())
//   }
//
// Such a loop changes nothing on a tile where the condition holds for every
// (%i, %c), which is every key tile but the last (and, causal, the
// diagonal). maskGuard derives a block-level condition that is false on
// those tiles, so that the loop can run under `if` and the other tiles skip
// its compares and selects.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CUDA_MASKGUARD_H
#define TILE_TARGET_CUDA_MASKGUARD_H

#include "tile/IR/IR.h"

#include <string>

namespace tile {

/// For a parallel loop \p L whose every store keeps its element where a
/// condition holds (`%X[idx] = select(c, %X[idx], v)`, c reading no
/// buffer), a condition of values outside \p L that is true wherever some
/// c is false in \p L's index space: each c must be a conjunction of
/// <, <=, > and >= comparisons whose sides are monotone in each of \p L's
/// indices, and the bound is each comparison at its least favourable
/// corner. Null when \p L is no such loop: \p Why then says why, or is
/// empty when \p L holds no select (not a mask).
ExprPtr maskGuard(const ForStmt &L, std::string &Why);

} // namespace tile

#endif // TILE_TARGET_CUDA_MASKGUARD_H
