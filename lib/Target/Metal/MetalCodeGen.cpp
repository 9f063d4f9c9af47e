//===- MetalCodeGen.cpp - MSL device codegen ----------------------------===//
//
// The shared source printer with the MSL hooks. The artifact holds the MSL
// text as device code and, per kernel, the launch description (buffer
// indices, the constant block, threadgroup size and grid) that a Metal
// execution backend binds and dispatches from. MSL is not compiled here:
// there is no Metal compiler on Linux.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/DiagnosticError.h"
#include "MSLTarget.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error generateMetalDeviceCode(const BackendContext &Ctx, const Module &M,
                                     KernelArtifact &Artifact) {
  DiagnosticCollector DC(M.getContext().getSourceMgr());
  DiagnosticEngine &Diag = DC.getEngine();
  MSLTarget T(&Ctx);
  if (llvm::Error E = emitSourceKernels(M, T, Diag, Artifact)) {
    if (!DC.hadError())
      return E;
    llvm::consumeError(std::move(E));
    return DC.takeError(ErrorCategory::Unsupported, "code generation failed");
  }
  Artifact.DeviceFmt = DeviceFormat::MSL;
  return llvm::Error::success();
}

} // namespace tile
