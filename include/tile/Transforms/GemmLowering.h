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

#include "tile/IR/IR.h"
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
};

/// Classifies the uses of the buffers of \p K, given the gemm ops \p Gemms
/// that the pass lowers.
AccumulatorUses
classifyAccumulatorUses(KernelStmt &K,
                        const llvm::DenseSet<const OpStmt *> &Gemms);

} // namespace tile

#endif // TILE_TRANSFORMS_GEMMLOWERING_H
