//===- HopperPipeline.cpp - The pass pipeline of the Hopper backend -------===//
//
// The Hopper variant (cuda with arch >= sm_90a) owns its pipeline. First,
// hopper-lower-gemm-wgmma turns qualifying f16/bf16 gemm K loops into
// cp.async rings feeding wgmma with register accumulators; everything else
// (and every gemm it leaves) then takes the same shared SIMT passes as the
// CUDA backend.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

#define GET_TILE_PASS_DECLS
#include "HopperPasses.inc"
#define GET_TILE_PASS_TABLE
#include "HopperPasses.inc"

namespace tile {

void buildHopperPipeline(const BackendContext &, PassManager &PM) {
  PM.addPass(createLowerGemmToWGMMAPass());
  appendSIMTPasses(PM);
}

llvm::Error runHopperPipeline(const BackendContext &Ctx, Module &M) {
  return runBackendPipeline(Ctx, M, buildHopperPipeline, "Hopper");
}

} // namespace tile
