//===- GemmLowering.h - What register-level gemm lowerings share -*- C++ -*-===//
//
// The target passes that lower gemm to per-thread matrix instructions
// (cuda-lower-gemm-mma, hopper-lower-gemm-wgmma, rocm-lower-gemm-mfma)
// keep an accumulator in registers only when every use of it follows the
// instruction's layout. These are the checks they share.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_GEMMLOWERING_H
#define TILE_TRANSFORMS_GEMMLOWERING_H

#include "tile/Analysis/LinearLayout.h"
#include "tile/IR/IR.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <optional>
#include <utility>

namespace tile {

/// For `copy %C -> X` out of a 2-D buffer: the two dimensions of X that C's
/// rows and columns map to, when X's non-unit extents are exactly C's.
std::optional<std::pair<unsigned, unsigned>>
getAccumulatorCopyDims(const OpStmt &Copy);

/// How the buffers of a kernel are used, as a register-accumulator lowering
/// sees it.
struct AccumulatorUses {
  /// Buffers with a use other than the c operand of one of the lowered
  /// gemms, a whole-buffer clear or fill, or a whole copy out: an
  /// expression, a store, any other op operand.
  llvm::DenseSet<const BufferValue *> Rejected;
  /// The whole copies out, with the target dimensions of C's rows and
  /// columns.
  llvm::DenseMap<const OpStmt *, std::pair<unsigned, unsigned>> CopyDims;
  /// Epilogues: parallel loops over an accumulator's whole shape that read
  /// and write it only at their own variables, and the accumulator. Any
  /// elementwise code over the accumulator (bias by row or column, scales,
  /// activations, casts) runs on the registers that hold it.
  llvm::DenseMap<const ForStmt *, const BufferValue *> Epilogues;
  /// Companions: fragments of an accumulator's shape written and read only
  /// in its epilogues at the loop variables, and otherwise only cleared,
  /// filled or copied out whole (the bf16 copy of a result), with that
  /// accumulator. They take the accumulator's layout.
  llvm::DenseMap<const BufferValue *, const BufferValue *> Companions;
};

/// Classifies the uses of the buffers of \p K, given the gemm ops \p Gemms
/// that the pass lowers. With \p Epilogues, elementwise parallel loops over
/// the accumulators (and their companions) are accepted uses. The `src` of
/// each op in \p Reductions (reduces the pass lowers on the registers) is
/// an accepted use too.
AccumulatorUses
classifyAccumulatorUses(KernelStmt &K,
                        const llvm::DenseSet<const OpStmt *> &Gemms,
                        bool Epilogues = false,
                        const llvm::DenseSet<const OpStmt *> *Reductions = nullptr);

/// The store of \p V (converted to the destination's dtype) to the element
/// of copy-out destination \p Dst at accumulator row \p Row and column
/// \p Col (Dst's dimensions \p RowDim and \p ColDim, as
/// getAccumulatorCopyDims gives them), under a bounds test when Dst is in
/// global memory.
StmtPtr storeAccumulatorElement(const Region &Dst, unsigned RowDim,
                                unsigned ColDim, const Expr &Row,
                                const Expr &Col, ExprPtr V);

/// The per-thread code of epilogue \p F over register fragments laid out
/// by \p L (an accumulator and its companions, each now an array of
/// L.getSize(Register) elements in \p RegFrags): each thread runs the body
/// once per register r, the loop variables replaced by the coordinates L
/// gives r (with \p Tid's lane and warp, \p WarpSize threads a warp) and
/// each access of a register fragment by its element r. \p L must be
/// bit-disjoint (LinearLayout::isBitDisjoint). The caller makes the code
/// per-thread.
std::vector<StmtPtr>
lowerEpilogue(const ForStmt &F, const LinearLayout &L, Value *Tid,
              int64_t WarpSize,
              const llvm::DenseSet<const BufferValue *> &RegFrags,
              NameGenerator &Names);

} // namespace tile

#endif // TILE_TRANSFORMS_GEMMLOWERING_H
