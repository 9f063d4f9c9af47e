//===- CPUPipeline.cpp - The pass pipeline of the CPU backend -------------===//
//
// The complete, ordered pass list for CPUs. Kernels with raster_swizzle
// take their blocks in panels, in one grid dimension, so that the tasks of
// cpu-coarsen-grid run contiguous runs of panel order (blocks running at
// one time share their A and B tiles in the shared last-level cache, as on
// a GPU in L2). Pipelined loops run in order,
// gemm becomes register-blocked loops that LLVM turns into FMA
// micro-kernels (cpu-lower-gemm), element-wise runs over fragments one
// loop over global memory (cpu-fuse-elementwise), the other tile ops loops
// over elements, a block's threads run one after another, each task runs
// a contiguous range of blocks (cpu-coarsen-grid), a vector that every
// block reads at the same indices is widened once per task
// (cpu-hoist-row-invariant), a pass that reads a
// block's input again prefetches the next block's (cpu-prefetch-next-block),
// a pass that computes exp of elements an earlier pass computed it of reads
// the earlier values (cpu-reuse-exp),
// and what is left is simplified for LLVM, whose O3 pipeline vectorizes the parallel
// loops during codegen.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/PassManager.h"

#define GET_TILE_PASS_DECLS
#include "CPUPasses.inc"
#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"
#define GET_TILE_PASS_TABLE
#include "CPUPasses.inc"

namespace tile {

/// The CPU pipeline, in order.
void buildCPUPipeline(const BackendContext &, PassManager &PM) {
  PM.addPass(createRasterizeGridPass());
  PM.addPass(createLowerPipelinedPass());
  PM.addPass(createCPULowerGemmPass());
  PM.addPass(createCPUFuseElementwisePass());
  std::unique_ptr<Pass> Lower = createLowerTileOpsPass();
  llvm::cantFail(Lower->setOption("skip-gemm", "true"));
  PM.addPass(std::move(Lower));
  PM.addPass(createMaterializeLaunchPass());
  PM.addPass(createCPUCoarsenGridPass());
  PM.addPass(createCPUHoistRowInvariantPass());
  PM.addPass(createCPUPrefetchNextBlockPass());
  PM.addPass(createCPUReuseExpPass());
  PM.addPass(createSimplifyPass());
}

} // namespace tile
