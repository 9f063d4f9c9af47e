//===- WebGPUBackend.cpp - The WebGPU backend's entry points --------------===//
//
// Pipeline and WGSL codegen come with later work; until then the entry
// points report that they cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runWebGPUPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the WebGPU pass pipeline");
}

llvm::Error generateWebGPUDeviceCode(const BackendContext &Ctx,
                                     const Module &M,
                                     KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "WGSL codegen");
}

} // namespace tile
