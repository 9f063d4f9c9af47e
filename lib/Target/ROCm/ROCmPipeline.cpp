//===- ROCmPipeline.cpp - The pass pipeline of the ROCm backend -----------===//
//
// The ordered pass list for AMD GPUs (MFMA lowering, LDS planning). The
// passes come with the pass-manager work; until then the entry point
// reports that it cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runROCmPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the ROCm pass pipeline");
}

} // namespace tile
