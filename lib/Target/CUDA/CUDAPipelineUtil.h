//===- CUDAPipelineUtil.h - Running a backend's pass list -------*- C++ -*-===//

#ifndef TILE_LIB_TARGET_CUDA_CUDAPIPELINEUTIL_H
#define TILE_LIB_TARGET_CUDA_CUDAPIPELINEUTIL_H

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/PassManager.h"

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"
#define GET_TILE_PASS_DECLS
#include "CUDAPasses.inc"

namespace tile {

/// tile-rasterize-grid as both NVIDIA pipelines run it: raster_swizzle
/// kernels in panels, and GEMM-shaped kernels without the attribute in
/// panels of 8 block rows (gemm-panel=8; measured on an H100 2026-12-05:
/// bench/gpu/linear_bf16.tile 0.90x torch in launch order, 1.02x in
/// panels of 8), with a passed remark.
inline std::unique_ptr<Pass> createNVIDIARasterizeGridPass() {
  std::unique_ptr<Pass> P = createRasterizeGridPass();
  llvm::cantFail(P->setOption("gemm-panel", "8"));
  return P;
}

/// The shared SIMT path both NVIDIA pipelines start from: pipelined loops
/// in order, fragments of memory-bound kernels in registers (vector
/// copies, warp-shuffle reductions), the remaining tile ops to element
/// loops, per-thread code, clean-up, then the shared-memory plan (buffers
/// whose uses a block-wide barrier separates share bytes).
inline void appendSIMTPasses(PassManager &PM) {
  PM.addPass(createLowerPipelinedPass());
  PM.addPass(createRegisterFragmentsPass());
  PM.addPass(createLowerTileOpsPass());
  PM.addPass(createLowerToSIMTPass());
  PM.addPass(createSimplifyPass());
  PM.addPass(createPlanSharedMemoryPass());
}

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_CUDAPIPELINEUTIL_H
