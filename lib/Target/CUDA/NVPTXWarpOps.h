//===- NVPTXWarpOps.h - Code for the cuda dialect's per-thread ops -*- C++ -*-===//

#ifndef TILE_LIB_TARGET_CUDA_NVPTXWARPOPS_H
#define TILE_LIB_TARGET_CUDA_NVPTXWARPOPS_H

#include "tile/IR/IR.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace tile::cuda {

/// Emits cuda.vload, cuda.vstore or cuda.shfl_xor (\p Operands as
/// LLVMDeviceTarget::emitTargetOp passes them); std::nullopt for any other
/// op.
std::optional<llvm::Error>
emitNVPTXWarpOp(llvm::IRBuilder<> &B, const OpStmt &Op,
                llvm::ArrayRef<llvm::Value *> Operands);

} // namespace tile::cuda

#endif // TILE_LIB_TARGET_CUDA_NVPTXWARPOPS_H
