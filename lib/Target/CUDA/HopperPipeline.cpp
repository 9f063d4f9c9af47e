//===- HopperPipeline.cpp - The pass pipeline of the Hopper backend -------===//
//
// The Hopper variant (cuda with arch >= sm_90a) owns its pipeline: it is
// where TMA copies, wgmma and warp specialization enter. Until they land it
// runs the CUDA backend's passes in its own list: tensor-core gemm with
// cp.async pipelines (cuda-lower-gemm-mma), then the shared SIMT passes.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

namespace tile {

void buildHopperPipeline(const BackendContext &, PassManager &PM) {
  PM.addPass(createLowerGemmToMMAPass());
  appendSIMTPasses(PM);
}

llvm::Error runHopperPipeline(const BackendContext &Ctx, Module &M) {
  return runBackendPipeline(Ctx, M, buildHopperPipeline, "Hopper");
}

} // namespace tile
