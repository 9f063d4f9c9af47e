//===- PersistentGrid.h - Tiles of a persistent kernel ----------*- C++ -*-===//
//
// A persistent kernel is launched with as many blocks as the device runs at
// once, each looping over the tiles of the grid it was written for: tile t
// of gx * gy * gz is (bx, by, bz) in the launch order (x fastest), or, where
// the work of a tile grows with one block index (a causal FlashAttention's
// key loop runs to %bx), with that index slowest and descending, so that the
// longest tiles start first and the last wave holds the shortest. These are
// the analyses and rewrites hopper-wgmma-fragments uses to make its
// warp-specialized kernels persistent.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_PERSISTENTGRID_H
#define TILE_LIB_TARGET_CUDA_PERSISTENTGRID_H

#include "WGMMABuilder.h"
#include "llvm/ADT/DenseMap.h"
#include <optional>

namespace tile {
namespace hopper {

/// The order in which a persistent kernel takes its tiles.
struct TileOrder {
  /// The block index taken slowest and from its last value down, or -1 for
  /// the launch order.
  int Descending = -1;
  /// The tiles' work differs: the loop's trip count depends on a block
  /// index.
  bool Uneven = false;
};

/// How \p E changes as \p V grows, the other values fixed: 1 never
/// decreases, -1 never increases, 0 does not depend on \p V; nullopt where
/// the expression's form does not tell (lets are followed through \p Lets).
std::optional<int> monotonicity(const Expr &E, const Value *V, const LetInits &Lets);

/// The order for a kernel whose tiles run a loop from \p Lo to \p Hi (null:
/// no loop) with the block indices \p Blocks: where the trip count grows
/// with exactly one block index and with no other, that index descending;
/// else the launch order. Uneven where the trip count depends on any.
TileOrder chooseTileOrder(const Expr *Lo, const Expr *Hi,
                          llvm::ArrayRef<const Value *> Blocks, const LetInits &Lets);

/// Replaces every use of a key of \p Map in \p Body (and the statements
/// nested in it) by its value.
void remapValues(std::vector<StmtPtr> &Body,
                 const llvm::DenseMap<const Value *, Value *> &Map);

} // namespace hopper
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_PERSISTENTGRID_H
