//===- AllocationBytes.h - Bytes a kernel's allocations take ---*- C++ -*-===//
//
// How much on-chip memory the allocations of a block of statements take,
// for the lowerings that decide a plan by a memory limit (LDS on ROCm,
// shared memory in tile-lower-to-simt). Which buffers count and how many
// bytes an element takes differ between them (a fragment kept in
// registers is not in LDS; a 16-bit element may be widened to a 32-bit
// word), so both are parameters.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_ALLOCATIONBYTES_H
#define TILE_ANALYSIS_ALLOCATIONBYTES_H

#include "tile/IR/IR.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>

namespace tile {

/// The bytes of \p B at \p ElemBytes bytes per element of its constant
/// shape; 0 where the shape is not constant.
int64_t getConstShapeBytes(const BufferValue &B, int64_t ElemBytes);

/// The sum over the buffers allocated in \p Body, nested blocks included,
/// that \p Counts selects, of the bytes \p BytesOf measures.
int64_t
sumAllocationBytes(const Block &Body,
                   llvm::function_ref<bool(const BufferValue &)> Counts,
                   llvm::function_ref<int64_t(const BufferValue &)> BytesOf);

} // namespace tile

#endif // TILE_ANALYSIS_ALLOCATIONBYTES_H
