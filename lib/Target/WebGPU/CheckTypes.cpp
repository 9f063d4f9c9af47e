//===- CheckTypes.cpp - webgpu-check-types --------------------------------===//
//
// Runs first in the WebGPU pipeline so that a dtype WGSL cannot express is
// reported at the op of the original program that uses it (a `copy` of an
// f16 tensor, say), not at a loop the lowering made of it.
//
//===----------------------------------------------------------------------===//

#include "WGSLTarget.h"
#include "tile/Transforms/Pass.h"

using namespace tile;

#define GET_TILE_PASS_DECLS
#include "WebGPUPasses.inc"

namespace {
class WebGPUCheckTypesPass : public Pass {
public:
  using Pass::Pass;
  bool run(Module &M, PassState &S) override {
    return checkSourceDTypes(M, WGSLTarget(S.Backend), S.Diag);
  }
};
} // namespace

std::unique_ptr<Pass> tile::createWebGPUCheckTypesPass() {
  return std::make_unique<WebGPUCheckTypesPass>(getWebGPUCheckTypesPassInfo());
}
