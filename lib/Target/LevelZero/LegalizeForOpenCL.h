//===- LegalizeForOpenCL.h - LLVM IR that OpenCL 1.2 SPIR-V accepts -*- C++ -*-===//

#ifndef TILE_LIB_TARGET_LEVELZERO_LEGALIZEFOROPENCL_H
#define TILE_LIB_TARGET_LEVELZERO_LEGALIZEFOROPENCL_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Rewrites \p M (before optimization) so that LLVM's SPIR-V backend emits
/// a module valid for OpenCL 1.2: f16/bf16 values computed in f32 and
/// rounded, stored as i16; floating-point atomics as compare-exchange loops.
/// Fails on a 16-bit float operation it does not know.
llvm::Error legalizeForOpenCL12(llvm::Module &M);

} // namespace tile

#endif // TILE_LIB_TARGET_LEVELZERO_LEGALIZEFOROPENCL_H
