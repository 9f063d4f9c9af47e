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
