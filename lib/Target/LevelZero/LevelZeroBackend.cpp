//===- LevelZeroBackend.cpp - The Level Zero backend's entry points -------===//
//
// Pipeline, SPIR-V codegen and the host launcher for the level-zero
// execution backend come with later work; until then the entry points
// report that they cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runLevelZeroPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the Level Zero pass pipeline");
}

llvm::Error generateLevelZeroDeviceCode(const BackendContext &Ctx,
                                        const Module &M,
                                        KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "SPIR-V codegen");
}

llvm::Error generateLevelZeroHostCode(const BackendContext &Ctx,
                                      const Module &M,
                                      KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx,
                                 "host codegen for the level-zero execution "
                                 "backend");
}

} // namespace tile
