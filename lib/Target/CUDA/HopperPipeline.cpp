//===- HopperPipeline.cpp - The pass pipeline of the Hopper backend -------===//
//
// The Hopper variant (cuda with arch >= sm_90a) owns its pipeline. First,
// kernels with raster_swizzle take their blocks in panels in one grid
// dimension (tile-rasterize-grid, as for the CUDA backend); then
// hopper-lower-gemm-wgmma turns qualifying f16/bf16 gemm K loops into
// rings feeding wgmma with register accumulators (filled through TMA by a
// producer warpgroup in kernels that are only the K loop, by cp.async
// from every thread otherwise); then
// hopper-wgmma-fragments takes kernels whose fragments all fit the wgmma
// accumulator layout (gemm chains with softmax-like code between them, as
// in FlashAttention); gemms they leave go to the CUDA backend's mma.sync
// lowering (cuda-lower-gemm-mma), and everything else takes the same
// shared SIMT passes as the CUDA backend, the shared-memory plan last (the
// rings, which wgmma and TMA read, keep their 1024-byte aligned offsets).
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

namespace tile {

void buildHopperPipeline(const BackendContext &, PassManager &PM) {
  PM.addPass(createNVIDIARasterizeGridPass());
  PM.addPass(createInferLayoutsPass());
  PM.addPass(createLowerGemmToWGMMAPass());
  PM.addPass(createWGMMAFragmentsPass());
  PM.addPass(createLowerGemmToMMAPass());
  appendSIMTPasses(PM);
}

} // namespace tile
