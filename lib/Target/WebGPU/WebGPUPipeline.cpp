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

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Transforms/PassManager.h"

#define GET_TILE_PASS_DECLS
#include "WebGPUPasses.inc"
#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"
#define GET_TILE_PASS_TABLE
#include "WebGPUPasses.inc"

namespace tile {

/// The WebGPU pipeline, in order.
void buildWebGPUPipeline(const BackendContext &Ctx, PassManager &PM) {
  // Rasterized grids keep their dimensions: a dispatch takes at most 65535
  // workgroups per dimension (maxComputeWorkgroupsPerDimension).
  std::unique_ptr<Pass> Raster = createRasterizeGridPass();
  llvm::cantFail(Raster->setOption("flatten", "false"));
  PM.addPass(std::move(Raster));
  PM.addPass(createWebGPUCheckTypesPass());
  PM.addPass(createLowerPipelinedPass());
  // Reduces to one value per workgroup over the whole workgroup, through
  // subgroupAdd / subgroupMax / subgroupMin where the device has
  // subgroups; the device picks their size, so the first invocation of
  // each subgroup writes its value to a slot of its own.
  std::unique_ptr<Pass> Reduce = createLowerReduceToSubgroupsPass();
  if (Ctx.hasFeature("subgroups"))
    llvm::cantFail(Reduce->setOption("reduce-op", "webgpu.subgroup_reduce"));
  else
    llvm::cantFail(Reduce->setOption(
        "unavailable", "the target does not use subgroups (add -subgroups to the "
                       "target when the device has the 'subgroups' feature)"));
  PM.addPass(std::move(Reduce));
  // Each element of a gemm's C computed by the invocation that owns it, so
  // that accumulators and what the elementwise code reads with them stay
  // per invocation (FlashAttention's P, 16 KiB as f32 without shader-f16,
  // and its row statistics would otherwise be in workgroup memory).
  std::unique_ptr<Pass> Lower = createLowerTileOpsPass();
  llvm::cantFail(Lower->setOption("gemm-parallel-c", "true"));
  PM.addPass(std::move(Lower));
  std::unique_ptr<Pass> SIMT = createLowerToSIMTPass();
  llvm::cantFail(SIMT->setOption("private-fragments", "true"));
  // Over the limit, tiles copied from global memory are read from there.
  if (std::optional<AppliedLimit> L =
          getResourceLimit(Ctx, ResourceKind::SharedMemoryPerBlock))
    llvm::cantFail(SIMT->setOption("shared-memory-limit", std::to_string(L->Value)));
  if (!Ctx.hasFeature("shader_f16"))
    llvm::cantFail(SIMT->setOption("wide-16bit-floats", "true"));
  PM.addPass(std::move(SIMT));
  PM.addPass(createSimplifyPass());
}

} // namespace tile
