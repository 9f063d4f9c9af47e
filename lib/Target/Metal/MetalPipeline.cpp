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

#include "tile/Target/SIMTPipeline.h"

#define GET_TILE_PASS_DECLS
#include "MetalPasses.inc"
#define GET_TILE_PASS_TABLE
#include "MetalPasses.inc"

namespace tile {

/// The Metal pipeline, in order. Rasterized grids keep their dimensions:
/// threadgroups per grid are bounded per dimension by the device, and the
/// grid stays within the bounds it was written for.
void buildMetalPipeline(const BackendContext &Ctx, PassManager &PM) {
  SIMTPipeline P;
  P.CheckTypes = createMetalCheckTypesPass();
  P.LowerGemm = createMetalLowerGemmSimdgroupPass();
  // Reduces of few rows over the whole threadgroup: simd_sum / simd_max /
  // simd_min in each 32-thread simdgroup, then one value per simdgroup in
  // threadgroup memory.
  P.ReduceOptions = {{{"reduce-op", "metal.simd_reduce"}, {"subgroup-size", "32"}}};
  // Over the limit, tiles copied from global memory are read from there.
  P.SIMTOptions = getPrivateSIMTOptions(Ctx, /*LimitSharedMemory=*/true);
  addSIMTPipeline(PM, std::move(P));
}

} // namespace tile
