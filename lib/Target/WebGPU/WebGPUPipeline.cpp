//===- WebGPUPipeline.cpp - The pass pipeline of the WebGPU backend -------===//
//
// WGSL runs a workgroup's invocations in lockstep-free SIMT style, with
// workgroup memory and workgroupBarrier, and has no asynchronous copies or
// matrix units: kernels with raster_swizzle take their blocks in panels
// (keeping the grid's dimensions), dtypes are checked on the original
// ops, pipelined loops
// become serial, tile ops become element loops, and the block-level kernel
// becomes per-thread code with fragments each invocation alone touches in
// function-scope arrays, the others in workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "tile/Target/SIMTPipeline.h"

#define GET_TILE_PASS_DECLS
#include "WebGPUPasses.inc"
#define GET_TILE_PASS_TABLE
#include "WebGPUPasses.inc"

namespace tile {

/// The WebGPU pipeline, in order. Rasterized grids keep their dimensions:
/// a dispatch takes at most 65535 workgroups per dimension
/// (maxComputeWorkgroupsPerDimension).
void buildWebGPUPipeline(const BackendContext &Ctx, PassManager &PM) {
  SIMTPipeline P;
  P.CheckTypes = createWebGPUCheckTypesPass();
  // Reduces to one value per workgroup over the whole workgroup, through
  // subgroupAdd / subgroupMax / subgroupMin where the device has
  // subgroups; the device picks their size, so the first invocation of
  // each subgroup writes its value to a slot of its own.
  if (Ctx.hasFeature("subgroups"))
    P.ReduceOptions = {{{"reduce-op", "webgpu.subgroup_reduce"}}};
  else
    P.ReduceOptions = {{{"unavailable",
                         "the target does not use subgroups (add -subgroups to the "
                         "target when the device has the 'subgroups' feature)"}}};
  // Each element of a gemm's C computed by the invocation that owns it, so
  // that accumulators and what the elementwise code reads with them stay
  // per invocation (FlashAttention's P, 16 KiB as f32 without shader-f16,
  // and its row statistics would otherwise be in workgroup memory).
  P.LowerTileOpsOptions = {{"gemm-parallel-c", "true"}};
  // Over the limit, tiles copied from global memory are read from there.
  P.SIMTOptions = getPrivateSIMTOptions(Ctx, /*LimitSharedMemory=*/true);
  if (!Ctx.hasFeature("shader_f16"))
    P.SIMTOptions.push_back({"wide-16bit-floats", "true"});
  addSIMTPipeline(PM, std::move(P));
}

} // namespace tile
