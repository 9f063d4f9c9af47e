//===- TestBackend.cpp - The unit-test target backend ---------------------===//
//
// Entry points of the TestDev backend, its dialect table and its generated
// descriptor list. Its pipeline has no passes; codegen is not provided.
//
//===----------------------------------------------------------------------===//

#include "TestBackend.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error runTestDevPipeline(const BackendContext &Ctx, Module &M) {
  return llvm::Error::success();
}

llvm::Error generateTestDevDeviceCode(const BackendContext &Ctx,
                                      const Module &M,
                                      KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "TestDev device codegen");
}

llvm::Error generateTestDevHostCode(const BackendContext &Ctx, const Module &M,
                                    KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "TestDev host codegen");
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "TestDevOps.inc"

#define GET_TILE_TARGET_BACKEND_TABLE
#include "TestBackend.inc"
