//===- CUDAPipelineUtil.h - Running a backend's pass list -------*- C++ -*-===//

#ifndef TILE_LIB_TARGET_CUDA_CUDAPIPELINEUTIL_H
#define TILE_LIB_TARGET_CUDA_CUDAPIPELINEUTIL_H

#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/PassManager.h"

#define GET_TILE_PASS_DECLS
#include "tile/Transforms/Passes.inc"

namespace tile {

/// The shared SIMT path both NVIDIA pipelines start from: tile ops to
/// element loops, pipelined loops in order, per-thread code, clean-up.
inline void appendSIMTPasses(PassManager &PM) {
  PM.addPass(createLowerPipelinedPass());
  PM.addPass(createLowerTileOpsPass());
  PM.addPass(createLowerToSIMTPass());
  PM.addPass(createSimplifyPass());
}

/// Builds the pass list with \p Build and runs it over \p M; located errors
/// of the passes come back as the error's text.
inline llvm::Error
runPassPipeline(const BackendContext &Ctx, Module &M,
                void (*Build)(const BackendContext &, PassManager &),
                llvm::StringRef Backend) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  DiagnosticEngine Diag(M.getContext().getSourceMgr(), &OS);
  PassManager PM;
  Build(Ctx, PM);
  PassState S{Diag, &Ctx};
  if (!PM.run(M, S))
    return llvm::createStringError(
        Text.empty() ? ("the " + Backend + " pipeline failed").str() : Text);
  return llvm::Error::success();
}

} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_CUDAPIPELINEUTIL_H
