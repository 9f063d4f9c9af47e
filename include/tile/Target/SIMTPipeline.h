//===- SIMTPipeline.h - The pass list the SIMT GPU backends share -*- C++ -*-===//
//
// The skeleton of the pipelines of the GPU backends that share a block's
// work out over its threads with tile-lower-to-simt and keep the fragments
// each thread alone touches in private memory (Metal, WebGPU, ROCm, Level
// Zero): the common passes in their order, with the places and options
// where the backends differ. Header-only, for backend libraries, which
// link libTileTarget and libTileTransforms both.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_SIMTPIPELINE_H
#define TILE_TARGET_SIMTPIPELINE_H

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Transforms/PassManager.h"
#include <optional>
#include <string>
#include <vector>

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace tile {

/// What a SIMT GPU pipeline adds to or sets on the common passes.
struct SIMTPipeline {
  /// Checks of the original ops, right after rasterizing (none if null).
  std::unique_ptr<Pass> CheckTypes;
  /// The backend's gemm lowering, after pipelined loops (none if null).
  std::unique_ptr<Pass> LowerGemm;
  /// tile-lower-reduce-subgroups's options; unset, the pass is not run.
  std::optional<std::vector<PassOptionValue>> ReduceOptions;
  std::vector<PassOptionValue> LowerTileOpsOptions;
  std::vector<PassOptionValue> SIMTOptions;
  /// tile-plan-shared-memory last.
  bool PlanSharedMemory = false;
};

/// Appends the pipeline \p P describes, in order: tile-rasterize-grid
/// keeping the grid's dimensions (devices bound each dimension), CheckTypes,
/// tile-lower-pipelined, LowerGemm, tile-lower-reduce-subgroups,
/// tile-lower-tile-ops, tile-lower-to-simt, tile-simplify and
/// tile-plan-shared-memory.
inline void addSIMTPipeline(PassManager &PM, SIMTPipeline P) {
  PM.addPass(createRasterizeGridPass(), {{"flatten", "false"}});
  if (P.CheckTypes)
    PM.addPass(std::move(P.CheckTypes));
  PM.addPass(createLowerPipelinedPass());
  if (P.LowerGemm)
    PM.addPass(std::move(P.LowerGemm));
  if (P.ReduceOptions)
    PM.addPass(createLowerReduceToSubgroupsPass(), *P.ReduceOptions);
  PM.addPass(createLowerTileOpsPass(), P.LowerTileOpsOptions);
  PM.addPass(createLowerToSIMTPass(), P.SIMTOptions);
  PM.addPass(createSimplifyPass());
  if (P.PlanSharedMemory)
    PM.addPass(createPlanSharedMemoryPass());
}

/// tile-lower-to-simt's options: fragments each thread alone touches in
/// private memory and, with \p LimitSharedMemory where the target limits
/// shared memory per block (SharedMemoryPerBlock), that limit, over which
/// tiles copied from global memory are read from there.
inline std::vector<PassOptionValue>
getPrivateSIMTOptions(const BackendContext &Ctx, bool LimitSharedMemory) {
  std::vector<PassOptionValue> Options = {{"private-fragments", "true"}};
  if (!LimitSharedMemory)
    return Options;
  if (std::optional<AppliedLimit> L =
          getResourceLimit(Ctx, ResourceKind::SharedMemoryPerBlock))
    Options.push_back({"shared-memory-limit", std::to_string(L->Value)});
  return Options;
}

} // namespace tile

#endif // TILE_TARGET_SIMTPIPELINE_H
