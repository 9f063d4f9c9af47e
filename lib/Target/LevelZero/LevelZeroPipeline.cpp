//===- LevelZeroPipeline.cpp - The pass pipeline of the Level Zero backend -===//
//
// The ordered pass list for Intel GPUs through SPIR-V. Kernels with
// raster_swizzle take their blocks in panels (keeping the grid's
// dimensions), pipelined loops run in order, reduces of few rows run over
// the whole work-group through sub-group reductions (with -subgroups),
// tile ops become element loops (gemm on the work-items, there
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

#include "tile/Target/SIMTPipeline.h"

namespace tile {

/// The Level Zero pipeline, in order. Rasterized grids keep their
/// dimensions: each dimension's group count is bounded by the device
/// (maxGroupCountX/Y/Z), and the grid stays within the bounds it was
/// written for.
void buildLevelZeroPipeline(const BackendContext &Ctx, PassManager &PM) {
  SIMTPipeline P;
  // Reduces of few rows over the whole work-group: a sub-group reduction
  // in each sub-group of the required size, then one value per sub-group
  // in workgroup-local memory.
  if (Ctx.hasFeature("group_non_uniform_arithmetic"))
    P.ReduceOptions = {
        {{"reduce-op", "level_zero.sub_group_reduce"},
         {"subgroup-size",
          Ctx.getTarget().getAttr("sub_group_size").value_or("16").str()}}};
  else
    P.ReduceOptions = {{{"unavailable",
                         "the target does not use sub-group operations (add "
                         "-subgroups to the target when the device accepts SPIR-V 1.3)"}}};
  P.SIMTOptions = getPrivateSIMTOptions(Ctx, /*LimitSharedMemory=*/false);
  P.PlanSharedMemory = true;
  addSIMTPipeline(PM, std::move(P));
}

} // namespace tile
