//===- MetalBackend.cpp - The Metal backend's entry points and dialect ----===//
//
// The metal dialect's op table, the pipeline and MSL codegen entry points.
// Pipeline and codegen come with later work; until then the entry points
// report that they cannot compile yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runMetalPipeline(const BackendContext &Ctx, Module &M) {
  return makeNotImplementedError(Ctx, "the Metal pass pipeline");
}

llvm::Error generateMetalDeviceCode(const BackendContext &Ctx, const Module &M,
                                    KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "MSL codegen");
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "MetalOps.inc"
