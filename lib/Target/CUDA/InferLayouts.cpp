//===- InferLayouts.cpp - cuda-infer-layouts ------------------------------===//
//
// Runs the shared fragment layout analysis (tile/Analysis/FragmentLayouts.h)
// on every kernel with the matrix instruction of the target (wgmma where
// the target has it, mma.sync otherwise, or the pass option), prints the
// layouts where the context asks for them (tile-opt and tile-llc
// -print-layouts), and reports each conversion the layouts need as an
// analysis remark. The IR is unchanged.
//
//===----------------------------------------------------------------------===//

#include "CUDAMatrixLayouts.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "tile/Transforms/Pass.h"

using namespace tile;
using llvm::dyn_cast;

#define GET_TILE_PASS_DECLS
#include "CUDAPasses.inc"

namespace {

class InferLayoutsPass : public Pass {
public:
  using Pass::Pass;

  bool run(Module &M, PassState &S) override {
    std::string Matrix = getStringOption("matrix");
    if (Matrix == "auto")
      Matrix = S.Backend && S.Backend->hasFeature("wgmma") ? "wgmma" : "mma";
    cuda::MMASyncLayouts MMA;
    cuda::WGMMALayouts WGMMA;
    const MatrixLayoutProvider *P = nullptr;
    if (Matrix == "mma")
      P = &MMA;
    else if (Matrix == "wgmma")
      P = &WGMMA;
    else if (Matrix != "none") {
      S.Diag.error(llvm::SMLoc(), "cuda-infer-layouts: matrix=" + Matrix +
                                      " is not one of auto, mma, wgmma, none");
      return false;
    }
    TileContext &Ctx = M.getContext();
    RemarkEmitter Remarks = getRemarks(M);
    for (const auto &F : M.getFunctions())
      walkStmts(F->getBody(), [&](const Stmt &St) {
        const auto *K = dyn_cast<KernelStmt>(&St);
        if (!K || !K->getThreads()->getConstInt())
          return;
        FragmentLayoutAnalysis A(*K, P);
        if (llvm::raw_ostream *OS = Ctx.getLayoutOutput()) {
          // As comments, so that tile-opt's output still parses.
          std::string Text;
          llvm::raw_string_ostream TS(Text);
          TS << "@" << F->getName() << ": ";
          A.print(TS, Ctx.getSourceMgr());
          llvm::SmallVector<llvm::StringRef> Lines;
          llvm::StringRef(Text).rtrim('\n').split(Lines, '\n');
          for (llvm::StringRef L : Lines)
            *OS << "// " << L << "\n";
        }
        for (const LayoutConversion &C : A.getConversions())
          Remarks.analysis(C.At->getLoc(),
                           "%" + C.Buf->getName() + " changes layout here (" +
                               getConversionKindName(C.Kind) + ")");
      });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tile::createInferLayoutsPass() {
  return std::make_unique<InferLayoutsPass>(getInferLayoutsPassInfo());
}
