//===- NVPTXHopperOps.h - LLVM IR for the cuda dialect's Hopper ops -*- C++ -*-===//

#ifndef TILE_LIB_TARGET_CUDA_NVPTXHOPPEROPS_H
#define TILE_LIB_TARGET_CUDA_NVPTXHOPPEROPS_H

#include "tile/IR/IR.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Emits \p Op if it is one of the per-thread Hopper ops of the cuda
/// dialect (cuda.wgmma_mma, cuda.wgmma_fence/commit/wait, cuda.ldgsts,
/// cuda.ldgsts_commit/wait, cuda.fence_proxy_async); returns false for any
/// other op. \p Operands are as LLVMDeviceTarget::emitTargetOp gives them.
llvm::Expected<bool> emitNVPTXHopperOp(llvm::IRBuilder<> &B, const OpStmt &Op,
                                       llvm::ArrayRef<llvm::Value *> Operands);

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_NVPTXHOPPEROPS_H
