//===- WebGPUCodeGen.cpp - WGSL device codegen ----------------------------===//
//
// The shared source printer with the WGSL hooks. The artifact holds the
// WGSL text as device code and, per kernel, the launch description the
// webgpu execution backend binds and dispatches from.
//
//===----------------------------------------------------------------------===//

#include "WGSLTarget.h"
#include "tile/Target/BackendContext.h"

namespace tile {

llvm::Error generateWebGPUDeviceCode(const BackendContext &Ctx, const Module &M,
                                     KernelArtifact &Artifact) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  DiagnosticEngine Diag(M.getContext().getSourceMgr(), &OS);
  WGSLTarget T(&Ctx);
  if (llvm::Error E = emitSourceKernels(M, T, Diag, Artifact)) {
    if (Text.empty())
      return E;
    llvm::consumeError(std::move(E));
    return llvm::createStringError(Text);
  }
  Artifact.DeviceFmt = DeviceFormat::WGSL;
  return llvm::Error::success();
}

} // namespace tile
