//===- FragmentOwnership.h - Fragments only their owner thread touches -*- C++ -*-===//
//
// Which fragments of a block-level kernel (after tile-lower-tile-ops) can
// live in per-thread memory under tile-lower-to-simt's partition, naming
// no target. tile-lower-to-simt shares a parallel loop out over the T
// threads by the linear index of the dimensions it distributes: thread %tx
// takes iterations %tx, %tx + T, ...; the loop's other dimensions each
// thread runs in full. A fragment F is private when a choice of its owned
// dimensions D (in order) and of each loop's distributed dimensions makes
// every access to F, in every parallel loop, index the dimensions D with
// exactly the loop's distributed variables in the same order and extents:
// the element with coordinates c is then touched only by thread
// lin(c[D]) mod T, which keeps it at slot
//   (lin(c[D]) / T) * prod(shape[other dims]) + lin(c[other dims]).
// A fragment also accessed outside parallel loops, inside a parallel loop
// nested in another, by a tile op, or across threads (a row vector read at
// every column, a gemm operand read along k) is not private, with the
// reason. The owned dimensions start as all of a fragment's and shrink to
// a fixed point, so that reading a row statistic m[i] in a loop over
// (i, j) makes the loop, and the fragments it indexes, share out rows.
// Fragments are taken largest first, each kept where it can be private
// together with those kept before it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_FRAGMENTOWNERSHIP_H
#define TILE_TRANSFORMS_FRAGMENTOWNERSHIP_H

#include "tile/IR/IR.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <string>
#include <vector>

namespace tile {

class FragmentOwnership {
public:
  /// Analyzes the fragments of \p K, whose block has \p Threads threads;
  /// \p SharedOut holds the parallel loops tile-lower-to-simt shares out
  /// over them (the others are left as written, running on every thread).
  FragmentOwnership(const KernelStmt &K, int64_t Threads,
                    const llvm::DenseSet<const ForStmt *> &SharedOut);

  /// The kernel's fragments in allocation order.
  llvm::ArrayRef<const BufferValue *> getFragments() const { return Frags; }
  bool isPrivate(const BufferValue *B) const { return Owned.count(B); }
  /// Why \p B is not private (empty when it is).
  llvm::StringRef getWhyShared(const BufferValue *B) const;
  /// Slots a thread holds of private \p B.
  int64_t getSlots(const BufferValue *B) const;
  /// The slot of element \p Idx of private \p B (expressions cloned).
  ExprPtr getSlot(const BufferValue *B, llvm::ArrayRef<ExprPtr> Idx) const;
  /// The dimensions, in linearization order, that parallel loop \p F shares
  /// out over the threads; none when it keeps the default (all, in order).
  std::optional<std::vector<unsigned>> getDistributedDims(const ForStmt &F) const;

private:
  struct Access {
    const BufferValue *Buf;
    const ForStmt *Loop; // null: outside any parallel loop
    /// Per buffer dimension: the loop dimension whose variable indexes it
    /// alone, or -1.
    std::vector<int> Map;
  };

  void collect(const Block &B, const ForStmt *Loop);
  void access(const BufferValue *B, llvm::ArrayRef<ExprPtr> Idx,
              const ForStmt *Loop);
  /// Whether \p Cands can all be private together (else false and the
  /// reason); on success Owned and LoopDims hold the solution.
  bool solve(const llvm::DenseSet<const BufferValue *> &Cands,
             std::string &Reason);
  void drop(const BufferValue *B, std::string Why);

  int64_t Threads;
  llvm::DenseSet<const ForStmt *> SharedOut;
  std::vector<const BufferValue *> Frags;
  llvm::DenseMap<const BufferValue *, std::vector<int64_t>> Shapes;
  llvm::DenseMap<const BufferValue *, std::string> Why;
  std::vector<Access> Accesses;
  /// Private fragments: their owned dimensions, ascending.
  llvm::DenseMap<const BufferValue *, std::vector<unsigned>> Owned;
  /// Loops with private accesses: their distributed dimensions in order.
  llvm::DenseMap<const ForStmt *, std::vector<unsigned>> LoopDims;
};

} // namespace tile

#endif // TILE_TRANSFORMS_FRAGMENTOWNERSHIP_H
