//===- CUDAPipeline.cpp - The pass pipeline of the CUDA backend -----------===//
//
// The ordered pass list for NVIDIA GPUs before sm_90a. Today it is the
// shared SIMT path: tile ops to element loops, pipelined loops in order,
// parallel loops shared out over the block's threads with fragments in
// shared memory and barriers between block-level statements, then
// simplification. Tensor-core gemm (mma.sync with ldmatrix), cp.async
// pipelining and register layouts for fragments replace parts of it as
// they land.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

namespace tile {

void buildCUDAPipeline(const BackendContext &, PassManager &PM) {
  appendSIMTPasses(PM);
}

llvm::Error runCUDAPipeline(const BackendContext &Ctx, Module &M) {
  return runBackendPipeline(Ctx, M, buildCUDAPipeline, "CUDA");
}

} // namespace tile
