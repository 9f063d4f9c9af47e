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

#include "tile/Target/SIMTPipeline.h"

#define GET_TILE_PASS_DECLS
#include "ROCmPasses.inc"
#define GET_TILE_PASS_TABLE
#include "ROCmPasses.inc"

namespace tile {

/// The ROCm pipeline, in order. Rasterized grids keep their dimensions: an
/// HSA dispatch counts its grid in work-items, 32 bits per dimension, so
/// one dimension of gx * gy blocks would reach the limit sooner than the
/// grid did.
void buildROCmPipeline(const BackendContext &Ctx, PassManager &PM) {
  SIMTPipeline P;
  // MFMA where the fragments its code keeps in LDS fit there.
  P.LowerGemm = createLowerGemmToMFMAPass();
  if (std::optional<AppliedLimit> LDS =
          getResourceLimit(Ctx, ResourceKind::SharedMemoryPerBlock))
    llvm::cantFail(P.LowerGemm->setOption("lds-limit", std::to_string(LDS->Value)));
  P.SIMTOptions = getPrivateSIMTOptions(Ctx, /*LimitSharedMemory=*/true);
  P.PlanSharedMemory = true;
  addSIMTPipeline(PM, std::move(P));
}

} // namespace tile
