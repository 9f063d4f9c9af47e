//===- HopperPipeline.cpp - The pass pipeline of the Hopper backend -------===//
//
// The ordered pass list for sm_90a: TMA copies, wgmma, warp specialization
// and register reallocation. Distinct from the CUDA pipeline although both
// lower the cuda dialect. The passes come with the pass-manager work; until
// then the entry point reports that it cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runHopperPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the Hopper pass pipeline");
}

} // namespace tile
