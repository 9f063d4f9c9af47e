//===- NVPTXTensorCoreOps.h - LLVM IR for the per-thread cuda ops -*- C++ -*-===//
//
// The LLVM NVPTX intrinsics behind cuda.ldmatrix, cuda.mma_sync,
// cuda.cp_async(_commit, _wait) and cuda.store_pair, for the CUDA device
// target's emitTargetOp.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_NVPTXTENSORCOREOPS_H
#define TILE_LIB_TARGET_CUDA_NVPTXTENSORCOREOPS_H

#include "tile/IR/IR.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Whether emitNVPTXTensorCoreOp handles the op named \p Name.
bool isNVPTXTensorCoreOp(llvm::StringRef Name);

/// Emits \p Op; \p Operands are the addresses of its regions' first elements
/// and the values of its expressions, in operand order.
llvm::Error emitNVPTXTensorCoreOp(llvm::IRBuilder<> &B, const OpStmt &Op,
                                  llvm::ArrayRef<llvm::Value *> Operands);

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_NVPTXTENSORCOREOPS_H
