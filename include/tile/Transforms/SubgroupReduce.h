//===- SubgroupReduce.h - The backends' subgroup-reduce ops -----*- C++ -*-===//
//
// tile-lower-reduce-subgroups writes a backend's subgroup-reduce op
// (metal.simd_reduce, webgpu.subgroup_reduce, level_zero.sub_group_reduce):
// each combines a value across the lanes of a subgroup into a local buffer
// of f32, i32 or u32. Their verifiers check that one contract here.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_SUBGROUPREDUCE_H
#define TILE_TRANSFORMS_SUBGROUPREDUCE_H

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/StringRef.h"

namespace tile {

/// Verifies the `dst` of a subgroup-reduce op: a local buffer (\p Holder
/// names what that is on the backend, e.g. "the thread's registers") of
/// f32, i32 or u32; reports a located error through \p Diag otherwise.
bool verifySubgroupReduceDst(const OpStmt &Op, DiagnosticEngine &Diag,
                             llvm::StringRef Holder);

} // namespace tile

#endif // TILE_TRANSFORMS_SUBGROUPREDUCE_H
