//===- ROCmCodeGen.cpp - Device and host codegen for AMD GPUs -------------===//
//
// AMDGPU LLVM IR, HSA code objects through llc and ld.lld-22, and the host
// launcher for the hsa execution backend. Codegen comes with the CodeGen
// work; until then the entry points report that they cannot generate code.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error generateROCmDeviceCode(const BackendContext &Ctx, const Module &M,
                                   KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "AMDGPU device codegen");
}

llvm::Error generateROCmHostCode(const BackendContext &Ctx, const Module &M,
                                 KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "host codegen for the hsa execution backend");
}

} // namespace tile
