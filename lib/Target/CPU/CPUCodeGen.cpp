//===- CPUCodeGen.cpp - Device and host codegen for CPUs ------------------===//
//
// LLVM IR (or C source for kind `c`) for kernels and host entry points, run
// by the orc execution backend. Codegen comes with the CodeGen work; until
// then the entry points report that they cannot generate code yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error generateCPUDeviceCode(const BackendContext &Ctx, const Module &M,
                                  KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "CPU kernel codegen");
}

llvm::Error generateCPUHostCode(const BackendContext &Ctx, const Module &M,
                                KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "host codegen");
}

} // namespace tile
