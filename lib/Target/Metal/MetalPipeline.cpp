//===- MetalPipeline.cpp - The pass pipeline of the Metal backend ---------===//
//
// Apple GPUs run threadgroups of SIMT threads in 32-wide simdgroups with
// threadgroup memory and 8x8 simdgroup matrices: kernels with
// raster_swizzle take their blocks in panels (keeping the grid's
// dimensions), dtypes are checked on the original ops, pipelined loops become serial, gemms that fit become
// metal.simdgroup_mma, the other tile ops become element loops, and the
// block-level kernel becomes per-thread code with fragments each thread alone touches in thread
// arrays, the others in threadgroup
// memory.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Transforms/PassManager.h"

#define GET_TILE_PASS_DECLS
#include "MetalPasses.inc"
#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"
#define GET_TILE_PASS_TABLE
#include "MetalPasses.inc"

namespace tile {

/// The Metal pipeline, in order.
void buildMetalPipeline(const BackendContext &Ctx, PassManager &PM) {
  // Rasterized grids keep their dimensions: threadgroups per grid are
  // bounded per dimension by the device, and the grid stays within the
  // bounds it was written for.
  std::unique_ptr<Pass> Raster = createRasterizeGridPass();
  llvm::cantFail(Raster->setOption("flatten", "false"));
  PM.addPass(std::move(Raster));
  PM.addPass(createMetalCheckTypesPass());
  PM.addPass(createLowerPipelinedPass());
  PM.addPass(createMetalLowerGemmSimdgroupPass());
  // Reduces of few rows over the whole threadgroup: simd_sum / simd_max /
  // simd_min in each 32-thread simdgroup, then one value per simdgroup in
  // threadgroup memory.
  std::unique_ptr<Pass> Reduce = createLowerReduceToSubgroupsPass();
  llvm::cantFail(Reduce->setOption("reduce-op", "metal.simd_reduce"));
  llvm::cantFail(Reduce->setOption("subgroup-size", "32"));
  PM.addPass(std::move(Reduce));
  PM.addPass(createLowerTileOpsPass());
  std::unique_ptr<Pass> SIMT = createLowerToSIMTPass();
  llvm::cantFail(SIMT->setOption("private-fragments", "true"));
  // Over the limit, tiles copied from global memory are read from there.
  if (std::optional<AppliedLimit> L =
          getResourceLimit(Ctx, ResourceKind::SharedMemoryPerBlock))
    llvm::cantFail(SIMT->setOption("shared-memory-limit", std::to_string(L->Value)));
  PM.addPass(std::move(SIMT));
  PM.addPass(createSimplifyPass());
}

} // namespace tile
