//===- WebGPUCodeGen.cpp - WGSL device codegen ----------------------------===//
//
// The shared source printer with the WGSL hooks. The artifact holds the
// WGSL text as device code and, per kernel, the launch description the
// webgpu execution backend binds and dispatches from.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/DiagnosticError.h"
#include "WGSLTarget.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error generateWebGPUDeviceCode(const BackendContext &Ctx, const Module &M,
                                     KernelArtifact &Artifact) {
  DiagnosticCollector DC(M.getContext().getSourceMgr());
  DiagnosticEngine &Diag = DC.getEngine();
  WGSLTarget T(&Ctx);
  if (llvm::Error E = emitSourceKernels(M, T, Diag, Artifact)) {
    if (!DC.hadError())
      return E;
    llvm::consumeError(std::move(E));
    return DC.takeError(ErrorCategory::Unsupported, "code generation failed");
  }
  Artifact.DeviceFmt = DeviceFormat::WGSL;
  return llvm::Error::success();
}

} // namespace tile
