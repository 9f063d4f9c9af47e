//===- LinearLayout.h - Fragment layouts as linear maps over F2 -*- C++ -*-===//
//
// A LinearLayout says where each element of a fragment lives: it maps a
// hardware index, (register, lane, warp), to the coordinates of the tile
// element that register of that thread holds. The map is linear over F2
// (as Triton's linear layouts): each bit of each hardware index has a
// basis, a coordinate vector, and the coordinates of an index are the XOR
// of the bases of its set bits. Every matrix-instruction operand layout
// (mma.sync, wgmma, MFMA, simdgroup) and every blocked or broadcast layout
// of a power-of-two tile is such a map, so one representation covers all
// backends and conversions between layouts are computed, not special
// cased. A basis of zero means replication: the hardware indices that
// differ only in that bit hold the same element (a row vector broadcast
// over the threads of a row, say).
//
// Shapes are powers of two; a fragment of another shape has no linear
// layout (its lowering pads or stays on the generic path).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_LINEARLAYOUT_H
#define TILE_ANALYSIS_LINEARLAYOUT_H

#include "tile/IR/IR.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"
#include <array>
#include <optional>
#include <vector>

namespace tile {

/// The hardware dimensions a fragment is spread over, fastest first.
enum class HwDim : unsigned { Register = 0, Lane = 1, Warp = 2 };
constexpr unsigned NumHwDims = 3;
llvm::StringRef getHwDimName(HwDim D);

/// How a fragment moves from one layout to another, cheapest first.
enum class ConversionKind {
  /// Same layout.
  None,
  /// Every thread already holds its elements; only registers move.
  RegisterPermute,
  /// Elements move between lanes of a warp only (warp shuffles).
  WarpShuffle,
  /// Elements move between warps (through shared memory).
  SharedMemory,
};
llvm::StringRef getConversionKindName(ConversionKind K);

class LinearLayout {
public:
  /// Coordinates in the tile, one per tile dimension.
  using Coords = llvm::SmallVector<int64_t, 4>;

  /// An empty layout (one register, one lane, one warp) over \p Shape, all
  /// of whose extents are powers of two.
  explicit LinearLayout(std::vector<int64_t> Shape);

  /// Appends the basis of the next bit of \p D.
  LinearLayout &addBasis(HwDim D, Coords Basis);
  /// Appends bits to \p D that walk dimension \p Dim from \p Stride
  /// upward: \p Count bits with bases Stride, 2 Stride, 4 Stride, ...
  LinearLayout &addRun(HwDim D, unsigned Dim, int64_t Stride, unsigned Count);
  /// Appends \p Count bits of replication (zero bases) to \p D.
  LinearLayout &addReplication(HwDim D, unsigned Count);

  llvm::ArrayRef<int64_t> getShape() const { return Shape; }
  unsigned getRank() const { return Shape.size(); }
  llvm::ArrayRef<Coords> getBases(HwDim D) const {
    return Bases[unsigned(D)];
  }
  unsigned getNumBits(HwDim D) const { return Bases[unsigned(D)].size(); }
  /// Registers per thread, lanes per warp, warps.
  int64_t getSize(HwDim D) const { return int64_t(1) << getNumBits(D); }
  /// Elements of the tile.
  int64_t getNumElements() const;

  /// The coordinates that register \p Reg of lane \p Lane of warp \p Warp
  /// holds.
  Coords apply(int64_t Reg, int64_t Lane, int64_t Warp) const;

  /// The bits of \p D whose basis is zero (replication), as a mask.
  int64_t getReplicationMask(HwDim D) const;
  /// Whether every element of the tile is held by some register.
  bool coversTile() const;

  /// The layout of the fragment that keeps only tile dimensions \p Dims of
  /// this one, in that order (a reduce result, or a row or column vector
  /// broadcast along the others): the dropped dimensions' bases become
  /// replication.
  LinearLayout project(llvm::ArrayRef<unsigned> Dims) const;

  /// What it takes to move a fragment from \p From to \p To (same shape).
  static ConversionKind classifyConversion(const LinearLayout &From,
                                           const LinearLayout &To);

  bool operator==(const LinearLayout &O) const {
    return Shape == O.Shape && Bases == O.Bases;
  }
  bool operator!=(const LinearLayout &O) const { return !(*this == O); }

  /// `register: [[0, 1], [8, 0]], lane: [...], warp: [...]`.
  void print(llvm::raw_ostream &OS) const;

  /// The coordinates of (Reg, Lane, Warp) along tile dimension \p Dim as an
  /// i32 expression; consecutive bits with consecutive power-of-two bases
  /// become one `(x / 2^b) % 2^n * s` term. Requires bases that each set
  /// one bit of one dimension and are distinct (so XOR is a sum).
  ExprPtr buildCoordinate(unsigned Dim, const Expr &Reg, const Expr &Lane,
                          const Expr &Warp) const;
  /// Whether buildCoordinate applies: every nonzero basis is a power of two
  /// along one dimension and no two bases share a bit.
  bool isBitDisjoint() const;

private:
  std::vector<int64_t> Shape;
  std::array<std::vector<Coords>, NumHwDims> Bases;
};

/// Whether \p X is a positive power of two.
inline bool isPowerOfTwo(int64_t X) { return X > 0 && (X & (X - 1)) == 0; }
/// log2 of a power of two.
unsigned log2Exact(int64_t X);

} // namespace tile

#endif // TILE_ANALYSIS_LINEARLAYOUT_H
