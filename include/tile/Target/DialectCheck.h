//===- DialectCheck.h - Dialect ops against the resolved target -*- C++ -*-===//
//
// Backend dialect ops (cuda.wgmma, rocm.mfma, ...) are lowered only by the
// backends that declare their dialect. Before a pipeline runs, every op of
// the module is checked against the BackendContext: an op of another
// backend's dialect, or one needing a feature the target lacks, is a
// located error naming the op, its dialect, the target and what would
// accept it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_DIALECTCHECK_H
#define TILE_TARGET_DIALECTCHECK_H

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

class TargetRegistry;

/// Reports every dialect op in \p M that \p Ctx's backend cannot lower.
/// Returns true when there is none.
bool verifyDialectUse(const TargetRegistry &Registry,
                      const BackendContext &Ctx, const Module &M,
                      DiagnosticEngine &Diag);

} // namespace tile

#endif // TILE_TARGET_DIALECTCHECK_H
