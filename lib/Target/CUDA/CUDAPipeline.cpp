//===- CUDAPipeline.cpp - The pass pipeline of the CUDA backend -----------===//
//
// The ordered pass list for NVIDIA GPUs before sm_90a. Kernels with
// raster_swizzle, and GEMM-shaped kernels without it (panels of 8), first
// take their blocks in panels (tile-rasterize-grid, in one grid
// dimension: x takes up to 2^31 - 1 blocks, y only 65535).
// Tensor-core gemm next (cuda-lower-gemm-mma: mma.sync with ldmatrix, accumulators in
// registers, pipelined copies as multi-stage cp.async; cuda-mma-fragments
// for the gemm chains it leaves, such as FlashAttention, on the Hopper
// pass's register layouts), then the shared
// SIMT path for what it leaves: pipelined loops in order, fragments of
// memory-bound kernels kept in registers (cuda-register-fragments: 16-byte
// copies, warp-shuffle reductions), remaining tile ops to element loops,
// parallel loops shared out over the block's threads with the other
// fragments in shared memory and barriers between block-level statements,
// then simplification, and last the shared-memory plan
// (tile-plan-shared-memory: buffers whose uses a barrier separates share
// bytes of the dynamic shared memory). This file also holds the table of the cuda-* passes
// (CUDAPasses.td), registered for both NVIDIA backends.
//
//===----------------------------------------------------------------------===//

#include "CUDAPipelineUtil.h"

#define GET_TILE_PASS_TABLE
#include "CUDAPasses.inc"

namespace tile {

void buildCUDAPipeline(const BackendContext &, PassManager &PM) {
  PM.addPass(createNVIDIARasterizeGridPass());
  PM.addPass(createInferLayoutsPass());
  PM.addPass(createLowerGemmToMMAPass());
  PM.addPass(createMMAFragmentsPass());
  appendSIMTPasses(PM);
}

} // namespace tile
