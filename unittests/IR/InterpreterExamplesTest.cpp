//===- InterpreterExamplesTest.cpp - The reference kernels, interpreted ---===//
//
// Every kernel in examples/ runs in the interpreter on random inputs (fixed
// seed) with sizes that are not multiples of its tiles and outputs poisoned
// with NaN, and is compared with naive loops in double written here. Both
// sides compute in f64, so the tolerance is tight: |got - want| <=
// 1e-12 * max(1, |want|). Every output element must have been written.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cmath>
#include <limits>
#include <random>

using namespace tile;
using namespace tile::interptest;

namespace {

constexpr double Tolerance = 1e-12;
const double NaN = std::numeric_limits<double>::quiet_NaN();

class InterpreterExamplesTest : public InterpreterTest {
protected:
  /// Parses examples/\p File and returns its function \p Name.
  const Function &load(llvm::StringRef File, llvm::StringRef Name) {
    std::string Path = std::string(TILE_SOURCE_DIR "/examples/") + File.str();
    auto Buf = llvm::MemoryBuffer::getFile(Path);
    if (!Buf) {
      ADD_FAILURE() << "cannot read " << Path;
      return parse("func @missing() {\n}\n");
    }
    parse((*Buf)->getBuffer());
    return lookup(Name);
  }

  TensorArg random(std::vector<int64_t> Shape) {
    TensorArg T = TensorArg::filled(std::move(Shape), 0);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    for (double &V : T.Data)
      V = U(Rng);
    return T;
  }

  static TensorArg poisoned(std::vector<int64_t> Shape) {
    return TensorArg::filled(std::move(Shape), NaN);
  }

  std::mt19937_64 Rng{20261129};
};

/// Checks \p Got against \p Want element by element: no NaN left (every
/// element written) and within the tolerance.
void expectClose(const TensorArg &Got, const std::vector<double> &Want) {
  ASSERT_EQ(Got.Data.size(), Want.size());
  int64_t Unwritten = 0, Wrong = 0;
  for (size_t I = 0; I != Want.size(); ++I) {
    double G = Got.Data[I], W = Want[I];
    if (std::isnan(G)) {
      if (++Unwritten <= 3)
        ADD_FAILURE() << "element " << I << " was never written";
      continue;
    }
    if (!(std::fabs(G - W) <= Tolerance * std::max(1.0, std::fabs(W))))
      if (++Wrong <= 3)
        ADD_FAILURE() << "element " << I << ": got " << G << ", want " << W;
  }
  EXPECT_EQ(Unwritten, 0) << "elements left unwritten";
  EXPECT_EQ(Wrong, 0) << "elements outside the tolerance";
}

struct GemmSize {
  int64_t M, N, K;
};

void PrintTo(const GemmSize &S, std::ostream *OS) {
  *OS << "M=" << S.M << " N=" << S.N << " K=" << S.K;
}

class GemmExample : public InterpreterExamplesTest,
                    public ::testing::WithParamInterface<GemmSize> {};

TEST_P(GemmExample, MatchesNaiveLoops) {
  auto [M, N, K] = GetParam();
  const Function &F = load("gemm.tile", "gemm");
  TensorArg A = random({M, K}), B = random({K, N}), C = poisoned({M, N});
  TensorArg A0 = A, B0 = B;
  ASSERT_SUCCEEDED(run(F, {A, B, C}));
  std::vector<double> Want(static_cast<size_t>(M * N));
  for (int64_t I = 0; I != M; ++I)
    for (int64_t J = 0; J != N; ++J) {
      double Acc = 0;
      for (int64_t P = 0; P != K; ++P)
        Acc += A.Data[I * K + P] * B.Data[P * N + J];
      Want[I * N + J] = Acc;
    }
  expectClose(C, Want);
  EXPECT_EQ(A.Data, A0.Data) << "inputs are read only";
  EXPECT_EQ(B.Data, B0.Data) << "inputs are read only";
}

INSTANTIATE_TEST_SUITE_P(Sizes, GemmExample,
                         ::testing::Values(GemmSize{150, 130, 70},
                                           GemmSize{128, 256, 64},
                                           GemmSize{1, 1, 1},
                                           GemmSize{129, 3, 33}),
                         [](const auto &Info) {
                           const GemmSize &S = Info.param;
                           return "M" + std::to_string(S.M) + "_N" +
                                  std::to_string(S.N) + "_K" +
                                  std::to_string(S.K);
                         });

struct AttentionSize {
  int64_t B, H, S;
  bool Causal;
};

void PrintTo(const AttentionSize &S, std::ostream *OS) {
  *OS << "B=" << S.B << " H=" << S.H << " S=" << S.S
      << (S.Causal ? " causal" : "");
}

class AttentionExample : public InterpreterExamplesTest,
                         public ::testing::WithParamInterface<AttentionSize> {};

TEST_P(AttentionExample, MatchesNaiveSoftmaxAttention) {
  auto [B, H, S, Causal] = GetParam();
  const int64_t D = 128;
  const Function &F =
      load("flash_attention.tile",
           Causal ? "flash_attention_causal" : "flash_attention");
  TensorArg Q = random({B, H, S, D}), K = random({B, H, S, D});
  TensorArg V = random({B, H, S, D}), O = poisoned({B, H, S, D});
  double Scale = 1.0 / std::sqrt(double(D));
  ASSERT_SUCCEEDED(run(F, {Q, K, V, O, ArgValue::scalar(Scale)}));
  std::vector<double> Want(O.Data.size());
  std::vector<double> P(static_cast<size_t>(S));
  for (int64_t Bi = 0; Bi != B; ++Bi)
    for (int64_t Hi = 0; Hi != H; ++Hi) {
      int64_t Base = (Bi * H + Hi) * S * D;
      for (int64_t I = 0; I != S; ++I) {
        int64_t Keys = Causal ? I + 1 : S;
        double Max = -std::numeric_limits<double>::infinity();
        for (int64_t J = 0; J != Keys; ++J) {
          double Dot = 0;
          for (int64_t C = 0; C != D; ++C)
            Dot += Q.Data[Base + I * D + C] * K.Data[Base + J * D + C];
          P[J] = Dot * Scale;
          Max = std::max(Max, P[J]);
        }
        double Sum = 0;
        for (int64_t J = 0; J != Keys; ++J)
          Sum += P[J] = std::exp(P[J] - Max);
        for (int64_t C = 0; C != D; ++C) {
          double Acc = 0;
          for (int64_t J = 0; J != Keys; ++J)
            Acc += P[J] * V.Data[Base + J * D + C];
          Want[Base + I * D + C] = Acc / Sum;
        }
      }
    }
  expectClose(O, Want);
}

INSTANTIATE_TEST_SUITE_P(Sizes, AttentionExample,
                         ::testing::Values(AttentionSize{1, 2, 100, false},
                                           AttentionSize{1, 2, 100, true},
                                           AttentionSize{2, 1, 130, false},
                                           AttentionSize{2, 1, 130, true},
                                           AttentionSize{1, 1, 64, true}),
                         [](const auto &Info) {
                           const AttentionSize &S = Info.param;
                           return "B" + std::to_string(S.B) + "_H" +
                                  std::to_string(S.H) + "_S" +
                                  std::to_string(S.S) +
                                  (S.Causal ? "_causal" : "");
                         });

TEST_F(InterpreterExamplesTest, RMSNorm) {
  const int64_t M = 3, N = 1500;
  const double Eps = 1e-6;
  const Function &F = load("rmsnorm.tile", "rmsnorm");
  TensorArg X = random({M, N}), W = random({N}), Y = poisoned({M, N});
  ASSERT_SUCCEEDED(run(F, {X, W, Y, ArgValue::scalar(Eps)}));
  std::vector<double> Want(static_cast<size_t>(M * N));
  for (int64_t R = 0; R != M; ++R) {
    double SumSq = 0;
    for (int64_t C = 0; C != N; ++C)
      SumSq += X.Data[R * N + C] * X.Data[R * N + C];
    double Inv = 1.0 / std::sqrt(SumSq / double(N) + Eps);
    for (int64_t C = 0; C != N; ++C)
      Want[R * N + C] = X.Data[R * N + C] * Inv * W.Data[C];
  }
  expectClose(Y, Want);
}

TEST_F(InterpreterExamplesTest, Softmax) {
  for (int64_t N : {2100, 1024, 7}) {
    const int64_t M = 3;
    const Function &F = load("softmax.tile", "softmax");
    TensorArg X = random({M, N}), Y = poisoned({M, N});
    ASSERT_SUCCEEDED(run(F, {X, Y}));
    std::vector<double> Want(static_cast<size_t>(M * N));
    for (int64_t R = 0; R != M; ++R) {
      double Max = -std::numeric_limits<double>::infinity(), Sum = 0;
      for (int64_t C = 0; C != N; ++C)
        Max = std::max(Max, X.Data[R * N + C]);
      for (int64_t C = 0; C != N; ++C)
        Sum += std::exp(X.Data[R * N + C] - Max);
      for (int64_t C = 0; C != N; ++C)
        Want[R * N + C] = std::exp(X.Data[R * N + C] - Max) / Sum;
    }
    SCOPED_TRACE("N = " + std::to_string(N));
    expectClose(Y, Want);
  }
}

TEST_F(InterpreterExamplesTest, ElementwiseAdd) {
  const int64_t N = 3000;
  const Function &F = load("elementwise_add.tile", "add");
  TensorArg A = random({N}), B = random({N}), C = poisoned({N});
  ASSERT_SUCCEEDED(run(F, {A, B, C}));
  std::vector<double> Want(static_cast<size_t>(N));
  for (int64_t I = 0; I != N; ++I)
    Want[I] = A.Data[I] + B.Data[I];
  expectClose(C, Want);
}

TEST_F(InterpreterExamplesTest, Gemv) {
  const int64_t M = 100, K = 700;
  const Function &F = load("gemv.tile", "gemv");
  TensorArg A = random({M, K}), X = random({K}), Y = poisoned({M});
  ASSERT_SUCCEEDED(run(F, {A, X, Y}));
  std::vector<double> Want(static_cast<size_t>(M));
  for (int64_t I = 0; I != M; ++I)
    for (int64_t P = 0; P != K; ++P)
      Want[I] += A.Data[I * K + P] * X.Data[P];
  expectClose(Y, Want);
}

TEST_F(InterpreterExamplesTest, Transpose) {
  const int64_t M = 70, N = 130;
  const Function &F = load("transpose.tile", "transpose");
  TensorArg A = random({M, N}), B = poisoned({N, M});
  ASSERT_SUCCEEDED(run(F, {A, B}));
  std::vector<double> Want(static_cast<size_t>(M * N));
  for (int64_t I = 0; I != M; ++I)
    for (int64_t J = 0; J != N; ++J)
      Want[J * M + I] = A.Data[I * N + J];
  expectClose(B, Want);
}

} // namespace
