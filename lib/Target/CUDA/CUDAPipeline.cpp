//===- CUDAPipeline.cpp - The pass pipeline of the CUDA backend -----------===//
//
// The ordered pass list for NVIDIA GPUs before sm_90a. Today it is the
// shared SIMT path: pipelined loops in order, fragments of memory-bound
// kernels kept in registers (cuda-register-fragments: 16-byte copies,
// warp-shuffle reductions), remaining tile ops to element loops, parallel
// loops shared out over the block's threads with the other fragments in
// shared memory and barriers between block-level statements, then
// simplification. This file also holds the table of the cuda-* SIMT
// passes (SIMTPasses.td), registered for both NVIDIA backends. Tensor-core gemm (mma.sync with ldmatrix), cp.async
// pipelining and register layouts for fragments replace parts of it as
// they land.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

#define GET_TILE_PASS_TABLE
#include "SIMTPasses.inc"

namespace tile {

void buildCUDAPipeline(const BackendContext &, PassManager &PM) {
  appendSIMTPasses(PM);
}

llvm::Error runCUDAPipeline(const BackendContext &Ctx, Module &M) {
  return runBackendPipeline(Ctx, M, buildCUDAPipeline, "CUDA");
}

} // namespace tile
