//===- NVPTXTMAOps.h - LLVM IR for TMA, mbarriers, setmaxnreg ---*- C++ -*-===//
//
// The emission of the cuda dialect's per-thread asynchronous-copy ops
// (cuda.tma_load, cuda.ldgsts_arrive), mbarrier ops and
// cuda.setmaxnreg, and the kernel arguments and attributes they need: one
// tensor map argument per (tensor, box, swizzle) a kernel's cuda.tma_load
// ops read through, and the launch bounds under which ptxas honours
// setmaxnreg.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_NVPTXTMAOPS_H
#define TILE_LIB_TARGET_CUDA_NVPTXTMAOPS_H

#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/IR/IR.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/Error.h"

namespace tile {

/// Fills K.TensorMaps with one map per distinct (tensor, box, swizzle,
/// optional) of the kernel's cuda.tma_load ops, numbered as the kernel
/// arguments after its captures.
void collectTensorMaps(KernelEmission &K);

/// The LLVM type of a tensor map argument and its parameter attributes
/// (byval, 64-byte aligned, a grid constant whose address the TMA reads).
llvm::Type *getTensorMapArgType(llvm::LLVMContext &C);
void addTensorMapParamAttrs(llvm::Function &F, unsigned ArgNo);

/// Whether the kernel contains cuda.setmaxnreg (and so needs a register
/// count fixed at entry: one block per multiprocessor).
bool kernelUsesSetmaxnreg(const KernelStmt &K);

/// Emits \p Op if it is one of the ops above; returns false for any other
/// op. \p Operands are as LLVMDeviceTarget::emitTargetOp gives them.
llvm::Expected<bool> emitNVPTXTMAOp(llvm::IRBuilder<> &B, KernelEmission &K,
                                    const OpStmt &Op,
                                    llvm::ArrayRef<llvm::Value *> Operands);

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_NVPTXTMAOPS_H
