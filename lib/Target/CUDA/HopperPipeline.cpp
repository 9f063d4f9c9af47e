//===- HopperPipeline.cpp - The pass pipeline of the Hopper backend -------===//
//
// The Hopper variant (cuda with arch >= sm_90a) owns its pipeline: it is
// where TMA copies, wgmma and warp specialization enter. Until they land it
// runs the same shared SIMT passes as the CUDA backend, in its own list.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

namespace tile {

void buildHopperPipeline(const BackendContext &, PassManager &PM) {
  appendSIMTPasses(PM);
}

llvm::Error runHopperPipeline(const BackendContext &Ctx, Module &M) {
  return runBackendPipeline(Ctx, M, buildHopperPipeline, "Hopper");
}

} // namespace tile
