//===- ReferenceInterpreterTest.cpp - The f64 oracle on known answers -----===//
//
// Small programs whose results are worked out by hand, one or more per
// construct, plus the argument checks and the reference comparator that
// tile-jit --check uses.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/Reference.h"
#include "tile/IR/Parser.h"
#include "tile/IR/ReferenceInterpreter.h"
#include "tile/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace tile;

namespace {

class Interp : public ::testing::Test {
protected:
  const Function &parse(llvm::StringRef Text) {
    std::string Errs;
    llvm::raw_string_ostream OS(Errs);
    DiagnosticEngine D(&SM, &OS);
    M = parseModuleString(Text, "test.tile", SM, Ctx, D);
    EXPECT_TRUE(M) << Errs;
    EXPECT_TRUE(verifyModule(*M, D)) << Errs;
    return *M->getFunctions().front();
  }
  /// Runs and returns the error text ("" on success).
  std::string run(const Function &F, std::vector<RefArg> Args) {
    InterpreterOptions O;
    O.SM = &SM;
    if (llvm::Error E = interpretFunction(F, Args, O))
      return llvm::toString(std::move(E));
    return "";
  }
  static RefTensor tensor(std::vector<int64_t> Shape, std::vector<double> V) {
    return {std::move(Shape), std::move(V)};
  }
  static RefTensor poisoned(std::vector<int64_t> Shape) {
    int64_t N = 1;
    for (int64_t D : Shape)
      N *= D;
    return {std::move(Shape), std::vector<double>(N, std::nan(""))};
  }

  llvm::SourceMgr SM;
  TileContext Ctx;
  std::unique_ptr<Module> M;
};

TEST_F(Interp, GemmWithTransposesAndAccumulation) {
  // C (2x2) = A (2x3) * B (3x2); A given transposed ([3, 2]) and B given
  // transposed ([2, 3]); then a second gemm accumulates the same product.
  const Function &F = parse(R"(
func @g(%At: f32[3, 2], %Bt: f32[2, 3], %C: f32[2, 2]) {
  kernel grid(1) threads(32) (%b) {
    %a = alloc shared f32[3, 2]
    %bs = alloc shared f32[2, 3]
    %c = alloc fragment f32[2, 2]
    copy %At -> %a
    copy %Bt -> %bs
    gemm %a, %bs -> %c {transpose_a = true, transpose_b = true, clear_accum = true}
    gemm %a, %bs -> %c {transpose_a = true, transpose_b = true}
    copy %c -> %C
  }
}
)");
  // A = [[1, 2, 3], [4, 5, 6]] so At = [[1, 4], [2, 5], [3, 6]];
  // B = [[1, 0], [0, 1], [1, 1]] so Bt = [[1, 0, 1], [0, 1, 1]].
  RefTensor At = tensor({3, 2}, {1, 4, 2, 5, 3, 6});
  RefTensor Bt = tensor({2, 3}, {1, 0, 1, 0, 1, 1});
  RefTensor C = poisoned({2, 2});
  ASSERT_EQ(run(F, {RefArg::tensor(At), RefArg::tensor(Bt), RefArg::tensor(C)}), "");
  // A * B = [[4, 5], [10, 11]], twice.
  EXPECT_EQ(C.Data, (std::vector<double>{8, 10, 20, 22}));
}

TEST_F(Interp, CopyGuardsGlobalEdges) {
  // Tiles of 4 over N = 6: the second block reads two zeros past the end
  // and writes only the two elements inside.
  const Function &F = parse(R"(
func @c(%X: f32[N], %Y: f32[N], %Z: f32[8]) {
  kernel grid(ceildiv(N, 4)) threads(4) (%b) {
    %t = alloc fragment f32[4]
    copy %X[%b * 4] -> %t
    copy %t -> %Y[%b * 4]
    copy %t -> %Z[%b * 4]
  }
}
)");
  RefTensor X = tensor({6}, {1, 2, 3, 4, 5, 6}), Y = poisoned({6});
  RefTensor Z = tensor({8}, {9, 9, 9, 9, 9, 9, 9, 9});
  ASSERT_EQ(run(F, {RefArg::tensor(X), RefArg::tensor(Y), RefArg::tensor(Z)}), "");
  EXPECT_EQ(Y.Data, (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Z.Data, (std::vector<double>{1, 2, 3, 4, 5, 6, 0, 0}));
}

TEST_F(Interp, ReduceKindsClearAndAccumulate) {
  const Function &F = parse(R"(
func @r(%X: f32[2, 3], %S: f32[2], %Mx: f32[2], %Mn: f32[3], %AS: f32[2], %AM: f32[2]) {
  kernel grid(1) threads(32) (%b) {
    %x = alloc fragment f32[2, 3]
    %s = alloc fragment f32[2]
    %mx = alloc fragment f32[2]
    %mn = alloc fragment f32[3]
    %as = alloc fragment f32[2]
    %am = alloc fragment f32[2]
    copy %X -> %x
    reduce sum %x -> %s {dim = 1}
    reduce sum %x -> %s {dim = 1, clear = false}
    reduce max %x -> %mx {dim = 1}
    reduce min %x -> %mn {dim = 0}
    fill %as, 100.0
    reduce abssum %x -> %as {dim = 1, clear = false}
    reduce absmax %x -> %am {dim = 1}
    copy %s -> %S
    copy %mx -> %Mx
    copy %mn -> %Mn
    copy %as -> %AS
    copy %am -> %AM
  }
}
)");
  RefTensor X = tensor({2, 3}, {1, -5, 2, -3, 4, 0});
  RefTensor S = poisoned({2}), Mx = poisoned({2}), Mn = poisoned({3}),
            AS = poisoned({2}), AM = poisoned({2});
  ASSERT_EQ(run(F, {RefArg::tensor(X), RefArg::tensor(S), RefArg::tensor(Mx),
                    RefArg::tensor(Mn), RefArg::tensor(AS), RefArg::tensor(AM)}),
            "");
  EXPECT_EQ(S.Data, (std::vector<double>{-4, 2}));     // 2 * (-2), 2 * 1
  EXPECT_EQ(Mx.Data, (std::vector<double>{2, 4}));
  EXPECT_EQ(Mn.Data, (std::vector<double>{-3, -5, 0}));
  EXPECT_EQ(AS.Data, (std::vector<double>{108, 107})); // 100 + 8, 100 + 7
  EXPECT_EQ(AM.Data, (std::vector<double>{5, 4}));
}

TEST_F(Interp, CumsumForwardAndReverse) {
  const Function &F = parse(R"(
func @s(%X: f32[2, 3], %F: f32[2, 3], %R: f32[2, 3]) {
  kernel grid(1) threads(32) (%b) {
    %x = alloc fragment f32[2, 3]
    %y = alloc fragment f32[2, 3]
    copy %X -> %x
    cumsum %x -> %y {dim = 1}
    copy %y -> %F
    cumsum %x -> %y {dim = 0, reverse = true}
    copy %y -> %R
  }
}
)");
  RefTensor X = tensor({2, 3}, {1, 2, 3, 10, 20, 30});
  RefTensor Fw = poisoned({2, 3}), Rv = poisoned({2, 3});
  ASSERT_EQ(run(F, {RefArg::tensor(X), RefArg::tensor(Fw), RefArg::tensor(Rv)}), "");
  EXPECT_EQ(Fw.Data, (std::vector<double>{1, 3, 6, 10, 30, 60}));
  EXPECT_EQ(Rv.Data, (std::vector<double>{11, 22, 33, 10, 20, 30}));
}

TEST_F(Interp, IntegerSemantics) {
  // Wrapping on store, C-style division, floor division and modulus of
  // negatives, saturating float-to-int casts, shifts.
  const Function &F = parse(R"(
func @i(%O: i32[8], %B: i8[2]) {
  let %big = 300
  let %lots = 200
  kernel grid(1) threads(1) (%b) {
    %O[0] = -7 / 2
    %O[1] = -7 % 2
    %O[2] = floordiv(-7, 2)
    %O[3] = floormod(-7, 2)
    %O[4] = ceildiv(7, 2)
    %O[5] = cast<i32>(-2.9)
    %O[6] = 1 << 4 | 3
    %O[7] = cast<i32>(cast<i8>(%big))
    %B[0] = cast<i8>(1000.0)
    %B[1] = cast<i8>(%lots)
  }
}
)");
  RefTensor O = poisoned({8}), B = poisoned({2});
  ASSERT_EQ(run(F, {RefArg::tensor(O), RefArg::tensor(B)}), "");
  EXPECT_EQ(O.Data, (std::vector<double>{-3, -1, -4, 1, 4, -2, 19, 44}));
  EXPECT_EQ(B.Data, (std::vector<double>{127, -56}));
}

TEST_F(Interp, FloatMathAndSelect) {
  const Function &F = parse(R"(
func @m(%O: f64[6], %x: f64) {
  kernel grid(1) threads(1) (%b) {
    %O[0] = exp(%x)
    %O[1] = rsqrt(%x * 8.0)
    %O[2] = select(%x > 0.0, tanh(%x), -1.0)
    %O[3] = max(-inf<f64>(), %x)
    %O[4] = abs(-%x)
    %O[5] = log2(%x * 16.0) + exp2(%x * 4.0)
  }
}
)");
  RefTensor O = poisoned({6});
  ASSERT_EQ(run(F, {RefArg::tensor(O), RefArg::scalar(0.5)}), "");
  EXPECT_DOUBLE_EQ(O.Data[0], std::exp(0.5));
  EXPECT_DOUBLE_EQ(O.Data[1], 0.5);
  EXPECT_DOUBLE_EQ(O.Data[2], std::tanh(0.5));
  EXPECT_DOUBLE_EQ(O.Data[3], 0.5);
  EXPECT_DOUBLE_EQ(O.Data[4], 0.5);
  EXPECT_DOUBLE_EQ(O.Data[5], 7.0);
}

TEST_F(Interp, PerThreadCodeVarsAndLoops) {
  // Each thread writes its own element; a var accumulates a serial loop.
  const Function &F = parse(R"(
func @t(%Y: i32[N], %S: i32[1]) {
  kernel grid(ceildiv(N, 4)) threads(4) (%b) thread(%tx) {
    let %i = %b * 4 + %tx
    if %i < N {
      %Y[%i] = %i * %i
    }
    %acc = alloc var i32
    %acc = 0
    for %k in serial(0, 10, step = 3) {
      %acc = %acc + %k
    }
    if %b == 0 {
      %S[0] = %acc
    }
  }
}
)");
  RefTensor Y = poisoned({6}), S = poisoned({1});
  ASSERT_EQ(run(F, {RefArg::tensor(Y), RefArg::tensor(S)}), "");
  EXPECT_EQ(Y.Data, (std::vector<double>{0, 1, 4, 9, 16, 25}));
  EXPECT_EQ(S.Data, (std::vector<double>{18})); // 0 + 3 + 6 + 9
}

TEST_F(Interp, AtomicsAcrossBlocksIntoAWorkspace) {
  const Function &F = parse(R"(
func @a(%X: f32[N], %Out: f32[2]) {
  %W = alloc global f32[2]
  kernel grid(N) threads(1) (%b) {
    atomic_elem add %W[0], %X[%b]
    atomic_elem max %W[1], %X[%b]
  }
  kernel grid(1) threads(1) (%b) {
    %t = alloc fragment f32[2]
    copy %W -> %t
    atomic add %t -> %Out
  }
}
)");
  RefTensor X = tensor({4}, {1, 7, -2, 3}), Out = tensor({2}, {10, 10});
  ASSERT_EQ(run(F, {RefArg::tensor(X), RefArg::tensor(Out)}), "");
  EXPECT_EQ(Out.Data, (std::vector<double>{19, 17})); // 10 + 9, 10 + 7
}

TEST_F(Interp, ArgumentErrorsNameTheArgument) {
  const Function &F = parse(R"(
func @e(%A: f32[M, 4], %B: f32[M]) {
  kernel grid(1) threads(1) (%b) {
    %B[0] = %A[0, 0]
  }
}
)");
  RefTensor A = poisoned({3, 4}), B = poisoned({2}), Bad = poisoned({3, 5});
  EXPECT_EQ(run(F, {RefArg::tensor(A), RefArg::tensor(B)}),
            "argument 'B' (#1) dimension 0 (M) is 2, but argument 'A' (#0) "
            "dimension 0 set M = 3");
  EXPECT_EQ(run(F, {RefArg::tensor(Bad), RefArg::tensor(B)}),
            "argument 'A' (#0) dimension 1 is 5, expected 4");
  EXPECT_EQ(run(F, {RefArg::tensor(A)}), "'@e' takes 2 arguments, got 1");
  EXPECT_EQ(run(F, {RefArg::tensor(A), RefArg::scalar(1)}),
            "argument 'B' (#1) must be a tensor");
}

TEST_F(Interp, OutOfRangeDirectAccessIsALocatedError) {
  const Function &F = parse(R"(
func @o(%A: f32[4]) {
  kernel grid(1) threads(1) (%b) {
    %A[4] = 1.0
  }
}
)");
  RefTensor A = poisoned({4});
  EXPECT_EQ(run(F, {RefArg::tensor(A)}),
            "test.tile:4:5: error: write of '%A[4]' is out of range");
}

TEST(ReferenceCompare, ToleranceNaNAndPoison) {
  HostTensor T(DType::F32, {3});
  T.set(0, 1.0);
  T.set(1, 2.00001);
  T.set(2, std::nan(""));
  ReferenceResult R{{3}, {1.0, 2.0, 3.0}};
  CheckReport C = compareWithReference(T, R);
  EXPECT_EQ(C.Failures, 1); // the NaN (an unwritten, poisoned element)
  EXPECT_EQ(C.FirstBad, 2);
  T.set(2, 3.1);
  C = compareWithReference(T, R);
  EXPECT_EQ(C.Failures, 1); // 0.1 is beyond 1e-4 + 1e-4 * 3
  EXPECT_NEAR(C.MaxAbsErr, 0.1, 1e-6);
  T.set(2, 3.0);
  EXPECT_EQ(compareWithReference(T, R).Failures, 0);
  HostTensor I(DType::I32, {1});
  I.set(0, 5);
  EXPECT_EQ(compareWithReference(I, ReferenceResult{{1}, {6}}).Failures, 1);
}

} // namespace
