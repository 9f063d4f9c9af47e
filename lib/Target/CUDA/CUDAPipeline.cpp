//===- CUDAPipeline.cpp - The pass pipeline of the CUDA backend -----------===//
//
// The ordered pass list for NVIDIA GPUs before sm_90a. Tensor-core gemm
// first (cuda-lower-gemm-mma: mma.sync with ldmatrix, accumulators in
// registers, pipelined copies as multi-stage cp.async), then the shared
// SIMT path for what it leaves: pipelined loops in order, fragments of
// memory-bound kernels kept in registers (cuda-register-fragments: 16-byte
// copies, warp-shuffle reductions), remaining tile ops to element loops,
// parallel loops shared out over the block's threads with the other
// fragments in shared memory and barriers between block-level statements,
// then simplification. This file also holds the table of the cuda-* passes
// (CUDAPasses.td), registered for both NVIDIA backends.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

#define GET_TILE_PASS_TABLE
#include "CUDAPasses.inc"

namespace tile {

void buildCUDAPipeline(const BackendContext &, PassManager &PM) {
  PM.addPass(createLowerGemmToMMAPass());
  appendSIMTPasses(PM);
}

llvm::Error runCUDAPipeline(const BackendContext &Ctx, Module &M) {
  return runBackendPipeline(Ctx, M, buildCUDAPipeline, "CUDA");
}

} // namespace tile
