//===- ROCmPipeline.cpp - The pass pipeline of the ROCm backend -----------===//
//
// The ordered pass list for AMD GPUs. Kernels with raster_swizzle take
// their blocks in panels (keeping the grid's dimensions); pipelined loops
// run in order; gemms
// with f16/bf16 operands and f32 accumulators become per-lane MFMA code
// (rocm-lower-gemm-mfma), with the accumulator in registers where its uses
// allow (its elementwise loops and row reductions then run on them); the remaining tile ops become element loops; the block-level code
// is shared out over the work-items of a workgroup (waves of 64), with
// fragments each work-item alone touches private, the others in LDS, and
// barriers between block-level statements that touch
// it; then the result is simplified for LLVM, and LDS is planned
// (tile-plan-shared-memory: buffers whose uses a barrier separates share
// bytes).
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Transforms/PassManager.h"
#include "llvm/IR/PrintPasses.h"

#define GET_TILE_PASS_DECLS
#include "ROCmPasses.inc"
#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"
#define GET_TILE_PASS_TABLE
#include "ROCmPasses.inc"

namespace tile {

/// The ROCm pipeline, in order.
void buildROCmPipeline(const BackendContext &Ctx, PassManager &PM) {
  // Rasterized grids keep their dimensions: an HSA dispatch counts its grid
  // in work-items, 32 bits per dimension, so one dimension of gx * gy
  // blocks would reach the limit sooner than the grid did.
  std::unique_ptr<Pass> Raster = createRasterizeGridPass();
  llvm::cantFail(Raster->setOption("flatten", "false"));
  PM.addPass(std::move(Raster));
  PM.addPass(createLowerPipelinedPass());
  // MFMA where the fragments its code keeps in LDS fit there.
  std::unique_ptr<Pass> MFMA = createLowerGemmToMFMAPass();
  std::optional<AppliedLimit> LDS =
      getResourceLimit(Ctx, ResourceKind::SharedMemoryPerBlock);
  if (LDS)
    llvm::cantFail(MFMA->setOption("lds-limit", std::to_string(LDS->Value)));
  PM.addPass(std::move(MFMA));
  PM.addPass(createLowerTileOpsPass());
  std::unique_ptr<Pass> SIMT = createLowerToSIMTPass();
  llvm::cantFail(SIMT->setOption("private-fragments", "true"));
  if (LDS)
    llvm::cantFail(SIMT->setOption("shared-memory-limit", std::to_string(LDS->Value)));
  PM.addPass(std::move(SIMT));
  PM.addPass(createSimplifyPass());
  PM.addPass(createPlanSharedMemoryPass());
}

} // namespace tile
