//===- CheckTypes.cpp - metal-check-types ---------------------------------===//
//
// Runs first in the Metal pipeline so that a dtype MSL cannot express is
// reported at the op of the original program that uses it.
//
//===----------------------------------------------------------------------===//

#include "MSLTarget.h"
#include "tile/Transforms/Pass.h"

using namespace tile;

#define GET_TILE_PASS_DECLS
#include "MetalPasses.inc"

namespace {
class MetalCheckTypesPass : public Pass {
public:
  using Pass::Pass;
  bool run(Module &M, PassState &S) override {
    return checkSourceDTypes(M, MSLTarget(S.Backend), S.Diag);
  }
};
} // namespace

std::unique_ptr<Pass> tile::createMetalCheckTypesPass() {
  return std::make_unique<MetalCheckTypesPass>(getMetalCheckTypesPassInfo());
}
