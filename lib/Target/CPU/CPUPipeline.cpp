//===- CPUPipeline.cpp - The pass pipeline of the CPU backend -------------===//
//
// The ordered pass list for CPUs (kernel launch as serial loops,
// vectorization). The passes come with the pass-manager work; until then
// the entry point reports that it cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runCPUPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the CPU pass pipeline");
}

} // namespace tile
