//===- LaunchFlags.h - Kernel tests the host can make before launch -*- C++ -*-===//
//
// Some cuda ops compute a flag that depends only on what the host passes
// to a kernel: cuda.tma_ready (TMA can read a tensor) and cuda.aligned (a
// tensor's data starts at a multiple of some bytes). A kernel whose fast
// path hangs on such flags, marked `specialize = true` by the pass that
// made them where a second compile pays, is compiled twice: as written (the general
// kernel) and specialized with every flag 1 (and its condition assumed,
// so that LLVM folds the other side of each test away). Host code makes
// the same tests before the launch and launches the specialization where
// they all hold, else the general kernel (docs/Targets.md, "Launch
// specialization").
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_LAUNCHFLAGS_H
#define TILE_LIB_TARGET_CUDA_LAUNCHFLAGS_H

#include "tile/IR/IR.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include <string>
#include <vector>

namespace tile {
namespace cuda {

/// The flag ops of \p K (in program order) that ask for a specialization
/// (`specialize = true`) and whose operands use only values from outside
/// the kernel, which host code can therefore evaluate before the launch;
/// empty when there is none.
std::vector<const OpStmt *> getLaunchFlags(const KernelStmt &K);

/// Whether \p Op is one of getLaunchFlags(K)'s ops for its kernel \p K.
bool isLaunchFlag(const KernelStmt &K, const OpStmt &Op);

/// The conditions (i1) whose conjunction is flag op \p Op's value, for the
/// tensor whose data is at \p Data; \p Emit evaluates the op's
/// expressions and the tensor's extents where the code is emitted (host
/// or device), so that both make the same test.
llvm::SmallVector<llvm::Value *, 4>
emitLaunchFlagConditions(llvm::IRBuilder<> &B, const OpStmt &Op,
                         llvm::Value *Data,
                         llvm::function_ref<llvm::Value *(const Expr &)> Emit);

/// What \p Op tests, for a remark: "%A is read by TMA (data 16-byte
/// aligned, rows of whole 16-byte chunks, no empty dimension)".
std::string describeLaunchFlag(const OpStmt &Op);

} // namespace cuda
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_LAUNCHFLAGS_H
