//===- SIMTTest.cpp - Lowerings preserve meaning, checked by the oracle ---===//
//
// Each reference kernel is run by the reference interpreter before and
// after a pass pipeline (the CPU one, and the SIMT one GPU backends use),
// on the same random inputs; the results must agree. The interpreter runs
// per-thread code thread by thread, so this checks that the SIMT lowering
// covers every iteration exactly once and keeps block-level effects single;
// it cannot see a missing barrier (the interpreter has no races), which the
// lit tests of the pass and GPU race checking cover.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Parser.h"
#include "tile/IR/Specialize.h"
#include "tile/IR/Interpreter.h"
#include "tile/IR/Verifier.h"
#include "tile/Transforms/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <cmath>
#include <map>
#include <random>

using namespace tile;

namespace {

struct Case {
  const char *File, *Entry;
  std::map<std::string, int64_t> Dims;
};

std::vector<double> run(const Function &F, const std::map<std::string, int64_t> &Dims,
                        std::vector<TensorArg> &Tensors, std::string &Err) {
  std::vector<ArgValue> Args;
  size_t T = 0;
  for (const auto &P : F.getParams())
    Args.push_back(P->isBuffer() ? ArgValue::tensor(Tensors[T++]) : ArgValue::scalar(0.75));
  if (llvm::Error E = interpretFunction(F, Args))
    Err = llvm::toString(std::move(E));
  std::vector<double> All;
  for (TensorArg &X : Tensors)
    All.insert(All.end(), X.Data.begin(), X.Data.end());
  return All;
}

void checkPipeline(const Case &C, llvm::StringRef Pipeline) {
  llvm::SourceMgr SM;
  TileContext Ctx;
  DiagnosticEngine Diag(&SM);
  auto M = parseSourceFile(std::string(TILE_SOURCE_DIR) + "/examples/" + C.File, SM, Ctx, Diag);
  ASSERT_TRUE(M);
  // The examples' tunable parameters take their defaults.
  llvm::Error SE = specializeAndVerifyModule(*M, {}, Diag);
  ASSERT_FALSE(bool(SE)) << llvm::toString(std::move(SE));
  std::unique_ptr<Module> Lowered = M->clone();
  PassRegistry R;
  registerTransformsPasses(R);
  PassManager PM;
  ASSERT_FALSE(bool(parsePassPipeline(Pipeline, R, PM)));
  PassState S{Diag};
  ASSERT_TRUE(PM.run(*Lowered, S));
  const Function &Before = *M->lookupFunction(C.Entry);
  const Function &After = *Lowered->lookupFunction(C.Entry);
  // Random inputs (outputs too: poisoning is the interpreter's job on
  // on-chip buffers; here both runs start from identical tensors).
  std::mt19937_64 Rng(11);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<TensorArg> T0;
  for (const auto &P : Before.getParams()) {
    if (!P->isBuffer())
      continue;
    TensorArg T;
    int64_t N = 1;
    for (const ExprPtr &D : llvm::cast<BufferValue>(*P).getShape()) {
      int64_t V = D->getConstInt() ? *D->getConstInt()
                                   : C.Dims.at(llvm::cast<RefExpr>(*D).getValue()->getName().str());
      T.Shape.push_back(V);
      N *= V;
    }
    for (int64_t I = 0; I != N; ++I)
      T.Data.push_back(U(Rng));
    T0.push_back(std::move(T));
  }
  std::vector<TensorArg> T1 = T0;
  std::string E0, E1;
  std::vector<double> A = run(Before, C.Dims, T0, E0);
  std::vector<double> B = run(After, C.Dims, T1, E1);
  ASSERT_EQ(E0, "");
  ASSERT_EQ(E1, "");
  ASSERT_EQ(A.size(), B.size());
  for (size_t I = 0; I != A.size(); ++I)
    ASSERT_NEAR(A[I], B[I], 1e-9 * (1 + std::fabs(A[I])))
        << C.File << " element " << I << " after " << Pipeline.str();
}

const Case Cases[] = {
    {"gemm.tile", "gemm", {{"M", 130}, {"N", 70}, {"K", 50}}},
    {"elementwise_add.tile", "add", {{"N", 3000}}},
    {"rmsnorm.tile", "rmsnorm", {{"M", 3}, {"N", 1100}}},
    {"softmax.tile", "softmax", {{"M", 2}, {"N", 1500}}},
    {"gemv.tile", "gemv", {{"M", 70}, {"K", 300}}},
    {"transpose.tile", "transpose", {{"M", 70}, {"N", 100}}},
    {"flash_attention.tile", "flash_attention", {{"B", 1}, {"H", 1}, {"S", 70}}},
    {"flash_attention.tile", "flash_attention_causal", {{"B", 1}, {"H", 1}, {"S", 70}}},
};

class Lowering : public ::testing::TestWithParam<Case> {};

TEST_P(Lowering, TileOpsToLoopsPreservesResults) {
  checkPipeline(GetParam(), "tile-lower-pipelined,tile-lower-tile-ops,tile-simplify");
}

TEST_P(Lowering, SIMTPreservesResults) {
  checkPipeline(GetParam(), "tile-lower-pipelined,tile-lower-tile-ops,"
                            "tile-lower-to-simt,tile-simplify");
}

INSTANTIATE_TEST_SUITE_P(Examples, Lowering, ::testing::ValuesIn(Cases),
                         [](const auto &I) {
                           return std::string(I.param.Entry);
                         });

} // namespace
