//===- CUDACodeGen.cpp - Device and host codegen for NVIDIA targets -------===//
//
// PTX through LLVM's NVPTX backend (cubin through ptxas or the driver) and
// the host launcher for the cuda execution backend; shared by the CUDA and
// Hopper backends. Codegen comes with the CodeGen work; until then the
// entry points report that they cannot generate code yet.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error generateCUDADeviceCode(const BackendContext &Ctx, const Module &M,
                                   KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "PTX device codegen");
}

llvm::Error generateCUDAHostCode(const BackendContext &Ctx, const Module &M,
                                 KernelArtifact &Artifact) {
  return makeNotImplementedError(Ctx, "host codegen for the cuda execution backend");
}

} // namespace tile
