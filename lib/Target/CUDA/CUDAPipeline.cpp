//===- CUDAPipeline.cpp - The pass pipeline of the CUDA backend -----------===//
//
// The ordered pass list for NVIDIA targets before sm_90a (mma.sync,
// cp.async pipelining). The passes come with the pass-manager work; until
// then the entry point reports that it cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runCUDAPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the CUDA pass pipeline");
}

} // namespace tile
