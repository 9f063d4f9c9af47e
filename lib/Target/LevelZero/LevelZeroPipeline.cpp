//===- LevelZeroPipeline.cpp - The pass pipeline of the Level Zero backend -===//
//
// The ordered pass list for Intel GPUs through SPIR-V. Kernels with
// raster_swizzle take their blocks in panels (keeping the grid's
// dimensions), pipelined loops run in order, tile ops become element loops (gemm on the work-items, there
// being no matrix-engine lowering yet), and the block-level code is shared
// out over the work-items of a work-group (which the device runs as
// subgroups), with fragments each work-item alone touches in private memory, the
// others in workgroup-local memory, and barriers
// between block-level statements that touch it; then the result is
// simplified for LLVM, and local memory is planned
// (tile-plan-shared-memory: buffers whose uses a barrier separates share
// bytes).
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/PassManager.h"
#include "llvm/IR/PrintPasses.h"

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace tile {

/// The Level Zero pipeline, in order.
void buildLevelZeroPipeline(const BackendContext &, PassManager &PM) {
  // Rasterized grids keep their dimensions: each dimension's group count
  // is bounded by the device (maxGroupCountX/Y/Z), and the grid stays
  // within the bounds it was written for.
  std::unique_ptr<Pass> Raster = createRasterizeGridPass();
  llvm::cantFail(Raster->setOption("flatten", "false"));
  PM.addPass(std::move(Raster));
  PM.addPass(createLowerPipelinedPass());
  PM.addPass(createLowerTileOpsPass());
  std::unique_ptr<Pass> SIMT = createLowerToSIMTPass();
  llvm::cantFail(SIMT->setOption("private-fragments", "true"));
  PM.addPass(std::move(SIMT));
  PM.addPass(createSimplifyPass());
  PM.addPass(createPlanSharedMemoryPass());
}

} // namespace tile
