//===- InterpreterTest.cpp - The reference interpreter, by hand -----------===//
//
// Small programs whose results are computed by hand: every expression kind,
// every tile op and attribute, loops, per-thread code, guards at buffer
// edges, argument binding and the errors, each located.
//
//===----------------------------------------------------------------------===//

#include "InterpreterTestUtil.h"
#include "tile/IR/OpRegistry.h"
#include <cmath>
#include <limits>

using namespace tile;
using namespace tile::interptest;

namespace {

const double NaN = std::numeric_limits<double>::quiet_NaN();
const double Inf = std::numeric_limits<double>::infinity();

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, IntegerExpressions) {
  const Function &F = parse(R"(
func @f(%O: i32[36], %n: i32) {
  kernel grid(1) threads(1) (%bx) {
    let %c300 = 300
    let %c200 = 200
    let %m1 = -1
    let %m16 = -16
    %O[0] = 7 / 2
    %O[1] = -7 / 2
    %O[2] = -7 % 2
    %O[3] = 7 % -2
    %O[4] = floordiv(-7, 2)
    %O[5] = floormod(-7, 2)
    %O[6] = floordiv(7, -2)
    %O[7] = floormod(7, -2)
    %O[8] = ceildiv(7, 2)
    %O[9] = ceildiv(-7, 2)
    %O[10] = floordiv(6, 3)
    %O[11] = 6 & 3
    %O[12] = 6 | 3
    %O[13] = 6 ^ 3
    %O[14] = 1 << 4
    %O[15] = -16 >> 2
    %O[16] = min(3, -2)
    %O[17] = max(3, -2)
    %O[18] = abs(-5)
    %O[19] = select(3 < 2, 10, 20)
    %O[20] = cast<i32>(cast<i8>(%c300))
    %O[21] = cast<i32>(cast<i8>(%c200))
    %O[22] = cast<i32>(cast<u8>(%m1))
    %O[23] = %n + 1
    %O[24] = cast<i32>(cast<u32>(%m1) > cast<u32>(1))
    %O[25] = cast<i32>(-1 > 1)
    %O[26] = cast<i32>(true && !false)
    %O[27] = cast<i32>(false || 2 >= 2)
    %O[28] = cast<i32>(cast<u32>(%m16) >> cast<u32>(28))
    %O[29] = -(-2147483647 - 1)
    %O[30] = 65536 * 65536 + 3
    %O[31] = cast<i32>(cast<i1>(2))
    %O[32] = floordiv(7, 2)
    %O[33] = floormod(7, 2)
    %O[34] = floordiv(-7, -2)
    %O[35] = floormod(-7, -2)
  }
}
)");
  TensorArg O = TensorArg::filled({36}, NaN);
  ASSERT_SUCCEEDED(run(F, {O, ArgValue::integer(2147483647)}));
  const double Want[] = {3,  -3, -1, 1,   -4,  1,
                         -4, -1, 4,  -3,  2,   2,
                         7,  5,  16, -4,  -2,  3,
                         5,  20, 44, -56, 255, -2147483648.0,
                         1,  0,  1,  1,   15,  -2147483648.0,
                         3,  1,  3,  1,   3,   -1};
  for (int I = 0; I != 36; ++I)
    EXPECT_EQ(O.Data[I], Want[I]) << "element " << I;
}

TEST_F(InterpreterTest, FloatExpressionsStayInF64) {
  const Function &F = parse(R"(
func @f(%O: f32[24], %x: f32) {
  kernel grid(1) threads(1) (%bx) {
    %O[0] = 1.0 / 3.0
    %O[1] = 7.5 % 2.0
    %O[2] = -7.5 % 2.0
    %O[3] = exp(1.0)
    %O[4] = exp2(3.0)
    %O[5] = log(2.0)
    %O[6] = log2(8.0)
    %O[7] = sqrt(2.0)
    %O[8] = rsqrt(4.0)
    %O[9] = tanh(0.5)
    %O[10] = abs(-2.5)
    %O[11] = min(1.5, -0.5)
    %O[12] = max(1.5, -0.5)
    %O[13] = -inf<f32>()
    %O[14] = cast<f32>(7) / 2.0
    %O[15] = cast<f32>(cast<i32>(-2.7))
    %O[16] = cast<f32>(cast<i32>(2.7))
    %O[17] = cast<f32>(cast<i8>(300.5))
    %O[18] = cast<f32>(cast<u8>(-3.5))
    %O[19] = select(%x > 0.0, %x * 2.0, -%x)
    %O[20] = cast<f32>(%x != %x)
    %O[21] = max(%x, 0.0 / 0.0)
    %O[22] = cast<f32>(cast<f16>(%x))
    %O[23] = cast<f32>(cast<i1>(0.25))
  }
}
)");
  TensorArg O = TensorArg::filled({24}, NaN);
  ASSERT_SUCCEEDED(run(F, {O, ArgValue::scalar(0.1)}));
  // Exact in f64: no rounding to f32 anywhere.
  const double Want[] = {1.0 / 3.0, 1.5,
                         -1.5,      std::exp(1.0),
                         8,         std::log(2.0),
                         3,         std::sqrt(2.0),
                         0.5,       std::tanh(0.5),
                         2.5,       -0.5,
                         1.5,       -Inf,
                         3.5,       -2,
                         2,         127,
                         0,         0.2,
                         0};
  for (int I = 0; I != 21; ++I)
    EXPECT_EQ(O.Data[I], Want[I]) << "element " << I;
  EXPECT_TRUE(std::isnan(O.Data[21])) << "max propagates NaN";
  EXPECT_EQ(O.Data[22], 0.1) << "cast to f16 keeps f64";
  EXPECT_EQ(O.Data[23], 1);
}

TEST_F(InterpreterTest, RoundStoresRoundsToTheStorageType) {
  const Function &F = parse(R"(
func @f(%A: f32[1], %H: f16[1], %B: bf16[1], %D: f64[1]) {
  kernel grid(1) threads(1) (%bx) {
    let %third = 1.0 / 3.0
    %A[0] = %third
    %H[0] = cast<f16>(%third)
    %B[0] = cast<bf16>(%third)
    %D[0] = cast<f64>(%third)
  }
}
)");
  TensorArg A({1}, {NaN}), H({1}, {NaN}), B({1}, {NaN}), D({1}, {NaN});
  InterpretOptions Opts;
  Opts.RoundStores = true;
  ASSERT_SUCCEEDED(run(F, {A, H, B, D}, Opts));
  EXPECT_EQ(A.Data[0], double(1.0f / 3.0f));
  EXPECT_EQ(H.Data[0], 0.333251953125); // 0x3555
  EXPECT_EQ(B.Data[0], 0.333984375);    // 0x3eab
  EXPECT_EQ(D.Data[0], 1.0 / 3.0);
  EXPECT_EQ(roundToDType(448.0, DType::F8E4M3), 448.0);
  EXPECT_EQ(roundToDType(0.3, DType::F8E5M2), 0.3125);
}

TEST_F(InterpreterTest, ShortCircuitAndSelectSkipTheUnusedLoad) {
  // %X[%i] with %i == N would be out of range; && and select never read it.
  const Function &F = parse(R"(
func @f(%X: f32[N], %Y: f32[2]) {
  kernel grid(1) threads(1) (%bx) {
    let %i = N
    %Y[0] = select(%i < N, %X[%i], -1.0)
    %Y[1] = cast<f32>(%i < N && %X[%i] > 0.0)
  }
}
)");
  TensorArg X({3}, {1, 2, 3}), Y({2}, {NaN, NaN});
  ASSERT_SUCCEEDED(run(F, {X, Y}));
  EXPECT_EQ(Y.Data, (std::vector<double>{-1, 0}));
}

TEST_F(InterpreterTest, IntegerFaultsAreErrors) {
  const char *Cases[][2] = {
      {"%O[0] = 1 / %z", "8:15: error: integer division by zero"},
      {"%O[0] = 1 % %z", "8:15: error: integer division by zero"},
      {"%O[0] = floordiv(1, %z)",
       "8:13: error: integer division by zero in 'floordiv'"},
      {"%O[0] = (-2147483647 - 1) / -1",
       "8:31: error: signed division overflows: -2147483648 / -1 is not a "
       "value of i32"},
      {"%O[0] = 1 << 32", "8:15: error: shift amount 32 is out of range for "
                          "i32 (0 to 31)"},
      {"%O[0] = 1 >> -1", "8:15: error: shift amount -1 is out of range"},
      {"%O[0] = %t[0]", "8:13: error: load of an element of '%t' that was "
                        "never written"},
      {"%O[0] = %O[2]",
       "8:13: error: load of '%O[2]' is out of range of its shape [2]"},
      {"%O[%z - 1] = 0", "8:5: error: store to '%O[-1]' is out of range of "
                         "its shape [2]"},
  };
  for (auto &C : Cases) {
    std::string Text = substitute(R"(
func @f(%O: i32[2], %z: i32) {
  kernel grid(1) threads(1) (%bx) {
    %t = alloc fragment i32[4]


    let %unused = 0
    $0
  }
}
)",
                                  {C[0]});
    const Function &F = parse(Text);
    TensorArg O({2}, {0, 0});
    std::string Err = runError(F, {O, ArgValue::integer(0)});
    EXPECT_NE(Err.find(C[1]), std::string::npos) << C[0] << "\n  gave: " << Err;
  }
}

//===----------------------------------------------------------------------===//
// Loops, lets, vars and per-thread code
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Loops) {
  const Function &F = parse(R"(
func @f(%O: i32[2, 3], %S: i32[3]) {
  kernel grid(1) threads(1) (%bx) {
    %acc = alloc var i32
    for %i, %j in parallel(2, 3) {
      %O[%i, %j] = %i * 10 + %j
    }
    %acc = 0
    for %k in serial(1, 10, step = 3) {
      %acc = %acc + %k
    }
    %S[0] = %acc
    %acc = 0
    for %k in unroll(0, 4) {
      %acc = %acc * 2 + 1
    }
    %S[1] = %acc
    %acc = 0
    for %k in pipelined(0, 5, stages = 2) {
      let %sq = %k * %k
      %acc = %acc + %sq
    }
    %S[2] = %acc
  }
}
)");
  TensorArg O = TensorArg::filled({2, 3}, NaN), S = TensorArg::filled({3}, NaN);
  ASSERT_SUCCEEDED(run(F, {O, S}));
  EXPECT_EQ(O.Data, (std::vector<double>{0, 1, 2, 10, 11, 12}));
  EXPECT_EQ(S.Data, (std::vector<double>{1 + 4 + 7, 15, 0 + 1 + 4 + 9 + 16}));
}

TEST_F(InterpreterTest, ThreadDependentStatementsRunPerThread) {
  const Function &F = parse(R"(
func @f(%Y: f32[N], %Z: f32[G], %V: f32[G, 4]) {
  kernel grid(G) threads(4) (%bx) thread(%tx) {
    %acc = alloc var f32
    %s = alloc shared f32[4]
    %acc = 0.0
    let %i = %bx * 4 + %tx
    if %i < N {
      %Y[%i] = cast<f32>(%i) * 2.0
    }
    %acc = %acc + 100.0
    %acc = %acc + cast<f32>(%tx)
    for %k in serial(0, %tx) {
      %acc = %acc + 1000.0
    }
    %s[%tx] = cast<f32>(%tx)
    barrier
    let %v = %s[3 - %tx]
    barrier
    %s[%tx] = -1.0
    barrier
    %V[%bx, %tx] = %v
    if %tx == 3 {
      %Z[%bx] = %acc + cast<f32>(%i)
    }
  }
}
)");
  TensorArg Y = TensorArg::filled({10}, NaN), Z = TensorArg::filled({3}, NaN);
  TensorArg V = TensorArg::filled({3, 4}, NaN);
  ASSERT_SUCCEEDED(run(F, {Y, Z, V}));
  for (int I = 0; I != 10; ++I)
    EXPECT_EQ(Y.Data[I], 2.0 * I);
  // Block-level statements run once per block (100); per-thread ones once
  // per thread, one after another (0+1+2+3, and 0+1+2+3 thousands); thread
  // 3 adds its own %i.
  for (int B = 0; B != 3; ++B)
    EXPECT_EQ(Z.Data[B], 100 + 6 + 6000 + (4 * B + 3)) << "block " << B;
  // A let keeps the value it was bound to, per thread, across later writes.
  for (int B = 0; B != 3; ++B)
    for (int T = 0; T != 4; ++T)
      EXPECT_EQ(V.at({B, T}), 3 - T);
}

TEST_F(InterpreterTest, IfElseChains) {
  const Function &F = parse(R"(
func @f(%Y: i32[6]) {
  kernel grid(1) threads(6) (%bx) thread(%tx) {
    if %tx < 2 {
      %Y[%tx] = 10
    } else if %tx < 4 {
      %Y[%tx] = 20
    } else {
      %Y[%tx] = 30
    }
  }
}
)");
  TensorArg Y = TensorArg::filled({6}, NaN);
  ASSERT_SUCCEEDED(run(F, {Y}));
  EXPECT_EQ(Y.Data, (std::vector<double>{10, 10, 20, 20, 30, 30}));
}

TEST_F(InterpreterTest, BarrierEndsAPerThreadRun) {
  // Each thread reads its neighbour's element. Thread t runs the whole run
  // before thread t + 1 starts, so without the barrier thread 0 would read
  // %s[1] before thread 1 wrote it (the NaN poison).
  const Function &F = parse(R"(
func @f(%Y: f32[4]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %s = alloc shared f32[4]
    %s[%tx] = cast<f32>(%tx) * 10.0
    barrier
    %Y[%tx] = %s[(%tx + 1) % 4]
  }
}
)");
  TensorArg Y = TensorArg::filled({4}, NaN);
  ASSERT_SUCCEEDED(run(F, {Y}));
  EXPECT_EQ(Y.Data, (std::vector<double>{10, 20, 30, 0}));
}

TEST_F(InterpreterTest, AtomicsFromSeveralBlocks) {
  const Function &F = parse(R"(
func @f(%X: f32[8], %Y: f32[2], %M: f32[2], %E: f32[1]) {
  %W = alloc global f32[2]
  %Wm = alloc global f32[2]
  %We = alloc global f32[1]
  kernel grid(4) threads(4) (%bx) thread(%tx) {
    %t = alloc fragment f32[2]
    copy %X[%bx * 2] -> %t
    atomic add %t -> %W
    atomic max %t -> %Wm
    atomic_elem add %We[0], cast<f32>(%tx)
  }
  kernel grid(1) threads(1) (%bx) {
    copy %W -> %Y
    copy %Wm -> %M
    copy %We -> %E
  }
}
)");
  TensorArg X({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  TensorArg Y({2}, {NaN, NaN}), M({2}, {NaN, NaN}), E({1}, {NaN});
  ASSERT_SUCCEEDED(run(F, {X, Y, M, E}));
  EXPECT_EQ(Y.Data, (std::vector<double>{1 + 3 + 5 + 7, 2 + 4 + 6 + 8}));
  EXPECT_EQ(M.Data, (std::vector<double>{7, 8}));
  EXPECT_EQ(E.Data, (std::vector<double>{4 * (0 + 1 + 2 + 3)}));
}

TEST_F(InterpreterTest, AtomicIsGuardedAndConvertsAndMins) {
  const Function &F = parse(R"(
func @f(%X: f32[4], %W: i32[3]) {
  kernel grid(1) threads(1) (%bx) {
    %t = alloc fragment f32[4]
    copy %X -> %t
    atomic min %t -> %W[0]
  }
}
)");
  TensorArg X({4}, {-2.5, 9, 1.9, -100}), W({3}, {0, 5, 5});
  ASSERT_SUCCEEDED(run(F, {X, W}));
  // The fourth element falls outside %W and is dropped.
  EXPECT_EQ(W.Data, (std::vector<double>{-2, 5, 1}));
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

/// A = [[1, 2, 3], [4, 5, 6]], B = [[7, 8], [9, 10], [11, 12]]:
/// A x B = [[58, 64], [139, 154]].
const std::vector<double> GemmA = {1, 2, 3, 4, 5, 6};
const std::vector<double> GemmAT = {1, 4, 2, 5, 3, 6};
const std::vector<double> GemmB = {7, 8, 9, 10, 11, 12};
const std::vector<double> GemmBT = {7, 9, 11, 8, 10, 12};

TEST_F(InterpreterTest, GemmWithTransposesAndAccumulate) {
  struct Case {
    bool TA, TB, ClearAccum;
  } Cases[] = {{false, false, false},
               {true, false, false},
               {false, true, true},
               {true, true, true}};
  for (const Case &C : Cases) {
    std::string Text =
        substitute(R"(
func @g(%A: f32[$0], %B: f32[$1], %C: f32[2, 2]) {
  kernel grid(1) threads(32) (%bx) {
    %a = alloc shared f32[$0]
    %b = alloc fragment f32[$1]
    %c = alloc fragment f32[2, 2]
    copy %A -> %a
    copy %B -> %b
    fill %c, 1.0
    gemm %a, %b -> %c {transpose_a = $2, transpose_b = $3, clear_accum = $4}
    copy %c -> %C
  }
}
)",
                   {C.TA ? "3, 2" : "2, 3", C.TB ? "2, 3" : "3, 2",
                    boolStr(C.TA), boolStr(C.TB), boolStr(C.ClearAccum)});
    const Function &F = parse(Text);
    TensorArg A({C.TA ? 3 : 2, C.TA ? 2 : 3}, C.TA ? GemmAT : GemmA);
    TensorArg B({C.TB ? 2 : 3, C.TB ? 3 : 2}, C.TB ? GemmBT : GemmB);
    TensorArg Out = TensorArg::filled({2, 2}, NaN);
    ASSERT_SUCCEEDED(run(F, {A, B, Out}));
    double Add = C.ClearAccum ? 0 : 1;
    EXPECT_EQ(Out.Data,
              (std::vector<double>{58 + Add, 64 + Add, 139 + Add, 154 + Add}))
        << "transpose_a " << C.TA << " transpose_b " << C.TB;
  }
}

TEST_F(InterpreterTest, GemmOnSubTilesAndIntegers) {
  // Explicit-extent regions of larger tiles, an i8 x i8 -> i32 product, and
  // a leading unit dimension.
  const Function &F = parse(R"(
func @g(%A: i8[2, 3], %B: i8[3, 2], %C: i32[2, 2]) {
  kernel grid(1) threads(32) (%bx) {
    %a = alloc shared i8[4, 4]
    %b = alloc shared i8[1, 3, 2]
    %c = alloc fragment i32[2, 2]
    copy %A -> %a[1 : 2, 1 : 3]
    copy %B -> %b
    clear %c
    gemm %a[1 : 2, 1 : 3], %b -> %c
    copy %c -> %C
  }
}
)");
  TensorArg A({2, 3}, {1, 2, 3, 4, 5, 6}), B({3, 2}, {7, 8, 9, 10, 11, -12});
  TensorArg C = TensorArg::filled({2, 2}, NaN);
  ASSERT_SUCCEEDED(run(F, {A, B, C}));
  EXPECT_EQ(C.Data, (std::vector<double>{58, -8, 139, 10}));
}

struct ReduceCase {
  const char *Kind;
  int Dim;
  bool Clear;
  std::vector<double> Want;
};

TEST_F(InterpreterTest, ReduceEveryKind) {
  // X = [[1, -5, 3], [-2, 4, -6]]; dst starts as D.
  const ReduceCase Cases[] = {
      {"sum", 1, true, {-1, -4}},       {"max", 1, true, {3, 4}},
      {"min", 1, true, {-5, -6}},       {"abssum", 1, true, {9, 12}},
      {"absmax", 1, true, {5, 6}},      {"sum", 1, false, {9, -14}},
      {"max", 1, false, {10, 4}},       {"min", 1, false, {-5, -10}},
      {"abssum", 1, false, {19, 2}},    {"absmax", 1, false, {10, 6}},
      {"sum", 0, true, {-1, -1, -3}},   {"max", 0, false, {10, 4, 3}},
      {"absmax", 0, false, {10, 5, 6}},
  };
  for (const ReduceCase &C : Cases) {
    int DstLen = C.Dim == 1 ? 2 : 3;
    std::string Text = substitute(R"(
func @r(%X: f32[2, 3], %D: f32[$0], %Y: f32[$0]) {
  kernel grid(1) threads(32) (%bx) {
    %x = alloc fragment f32[2, 3]
    %d = alloc fragment f32[$0]
    copy %X -> %x
    copy %D -> %d
    reduce $1 %x -> %d {dim = $2, clear = $3}
    copy %d -> %Y
  }
}
)",
                                  {std::to_string(DstLen), C.Kind,
                                   std::to_string(C.Dim), boolStr(C.Clear)});
    const Function &F = parse(Text);
    TensorArg X({2, 3}, {1, -5, 3, -2, 4, -6});
    TensorArg D =
        DstLen == 2 ? TensorArg({2}, {10, -10}) : TensorArg({3}, {10, -10, 0});
    TensorArg Y = TensorArg::filled({DstLen}, NaN);
    ASSERT_SUCCEEDED(run(F, {X, D, Y}));
    EXPECT_EQ(Y.Data, C.Want)
        << C.Kind << " dim " << C.Dim << " clear " << C.Clear;
  }
}

TEST_F(InterpreterTest, ReduceIntoAUnitShapedDestination) {
  const Function &F = parse(R"(
func @r(%X: f32[1, 4], %Y: f32[1]) {
  kernel grid(1) threads(32) (%bx) {
    %x = alloc fragment f32[1, 4]
    %acc = alloc fragment f32[1]
    copy %X -> %x
    reduce sum %x -> %acc {dim = 1}
    reduce min %x[0 : 1, 1 : 2] -> %acc {dim = 1, clear = false}
    copy %acc -> %Y
  }
}
)");
  TensorArg X({1, 4}, {1, 20, 3, 4}), Y({1}, {NaN});
  ASSERT_SUCCEEDED(run(F, {X, Y}));
  EXPECT_EQ(Y.Data[0], 3);
}

TEST_F(InterpreterTest, CumsumForwardAndReverse) {
  struct Case {
    int Dim;
    bool Reverse;
    std::vector<double> Want;
  } Cases[] = {{1, false, {1, 3, 6, 4, 9, 15}},
               {1, true, {6, 5, 3, 15, 11, 6}},
               {0, false, {1, 2, 3, 5, 7, 9}},
               {0, true, {5, 7, 9, 4, 5, 6}}};
  for (const Case &C : Cases) {
    std::string Text = substitute(R"(
func @c(%X: f32[2, 3], %Y: f32[2, 3]) {
  kernel grid(1) threads(32) (%bx) {
    cumsum %X -> %Y {dim = $0, reverse = $1}
  }
}
)",
                                  {std::to_string(C.Dim), boolStr(C.Reverse)});
    const Function &F = parse(Text);
    TensorArg X({2, 3}, {1, 2, 3, 4, 5, 6}), Y = TensorArg::filled({2, 3}, NaN);
    ASSERT_SUCCEEDED(run(F, {X, Y}));
    EXPECT_EQ(Y.Data, C.Want) << "dim " << C.Dim << " reverse " << C.Reverse;
  }
}

TEST_F(InterpreterTest, CopyIsGuardedAtGlobalEdges) {
  // Tiles of 2x2 over a 3x3 matrix: block (1, 1) reads A[2:4, 2:4], of
  // which only A[2, 2] exists; the rest reads 0. The padded output (row
  // stride 4) shows that nothing is written outside the shape.
  const Function &F = parse(R"(
func @c(%A: f32[3, 3], %B: f32[4, 4], %C: f32[3, 3] strides(4, 1)) {
  kernel grid(2, 2) threads(32) (%bx, %by) {
    %t = alloc fragment f32[2, 2]
    copy %A[%by * 2, %bx * 2] -> %t
    copy %t -> %B[%by * 2, %bx * 2]
    copy %t -> %C[%by * 2, %bx * 2]
  }
}
)");
  TensorArg A({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  TensorArg B = TensorArg::filled({4, 4}, NaN);
  TensorArg C;
  C.Shape = {3, 3};
  C.Strides = {4, 1};
  C.Data.assign(12, -42.0);
  ASSERT_SUCCEEDED(run(F, {A, B, C}));
  EXPECT_EQ(B.Data, (std::vector<double>{1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 0,
                                         0, 0, 0}));
  EXPECT_EQ(C.Data,
            (std::vector<double>{1, 2, 3, -42, 4, 5, 6, -42, 7, 8, 9, -42}));
}

TEST_F(InterpreterTest, CopyInfersExtentsAndConvertsTypes) {
  // %X[%b, 0] takes its extents from %t, right-aligned: X[b, 0:4].
  // i32 -> i8 wraps; f32 -> i8 truncates toward zero and saturates.
  const Function &F = parse(R"(
func @c(%X: i32[2, 4], %F: f32[4], %Y: i8[2, 4], %Z: i8[4]) {
  kernel grid(2) threads(32) (%bx) {
    %t = alloc fragment i32[4]
    %u = alloc fragment i8[4]
    copy %X[%bx, 0] -> %t
    copy %t -> %u
    copy %u -> %Y[%bx, 0]
    copy %F -> %Z
  }
}
)");
  TensorArg X({2, 4}, {300, -129, 255, 1, -1, 128, 127, 65536 + 5});
  TensorArg Fl({4}, {300.7, -1.5, 2.9, -200});
  TensorArg Y = TensorArg::filled({2, 4}, NaN), Z = TensorArg::filled({4}, NaN);
  ASSERT_SUCCEEDED(run(F, {X, Fl, Y, Z}));
  EXPECT_EQ(Y.Data, (std::vector<double>{44, 127, -1, 1, -1, -128, 127, 5}));
  EXPECT_EQ(Z.Data, (std::vector<double>{127, -1, 2, -128}));
}

TEST_F(InterpreterTest, FillClearAndPoison) {
  const Function &F = parse(R"(
func @f(%Y: f32[4], %n: f32) {
  kernel grid(1) threads(32) (%bx) {
    %t = alloc fragment f32[4]
    fill %t[1 : 2], %n * 2.0
    clear %t[3 : 1]
    copy %t -> %Y
  }
}
)");
  TensorArg Y = TensorArg::filled({4}, -1);
  ASSERT_SUCCEEDED(run(F, {Y, ArgValue::scalar(1.25)}));
  EXPECT_TRUE(std::isnan(Y.Data[0])) << "never written: the poison shows";
  EXPECT_EQ(Y.Data[1], 2.5);
  EXPECT_EQ(Y.Data[2], 2.5);
  EXPECT_EQ(Y.Data[3], 0);
  InterpretOptions NoPoison;
  NoPoison.PoisonOnChip = false;
  ASSERT_SUCCEEDED(run(F, {Y, ArgValue::scalar(1.25)}, NoPoison));
  EXPECT_EQ(Y.Data[0], 0);
}

TEST_F(InterpreterTest, GlobalWorkspaceWithSymbolicShapeStartsAtZero) {
  const Function &F = parse(R"(
func @f(%X: f32[N], %Y: f32[N]) {
  let %n2 = N * 2
  %W = alloc global f32[%n2]
  kernel grid(1) threads(1) (%bx) {
    %W[N] = 5.0
  }
  kernel grid(1) threads(1) (%bx) {
    copy %W[N : N] -> %Y
  }
}
)");
  TensorArg X({3}, {0, 0, 0}), Y = TensorArg::filled({3}, NaN);
  ASSERT_SUCCEEDED(run(F, {X, Y}));
  EXPECT_EQ(Y.Data, (std::vector<double>{5, 0, 0}));
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

const char *ArgsKernel = R"(
func @g(%A: f32[M, K], %B: f32[K, 4], %C: f32[M] strides(S), %k: i8) {
  kernel grid(1) threads(1) (%bx) {
    %C[0] = %A[0, 0] + cast<f32>(%k)
  }
}
)";

TEST_F(InterpreterTest, ArgumentsBindSymbolsAndStrides) {
  const Function &F = parse(ArgsKernel);
  TensorArg A({2, 3}, {1, 0, 0, 0, 0, 0}), B({3, 4}, std::vector<double>(12));
  TensorArg C;
  C.Shape = {2};
  C.Strides = {3};
  C.Data = {NaN, NaN, NaN, NaN};
  ASSERT_SUCCEEDED(run(F, {A, B, C, ArgValue::scalar(-3)}));
  EXPECT_EQ(C.Data[0], -2);
}

TEST_F(InterpreterTest, ArgumentErrorsNameTheParameter) {
  const Function &F = parse(ArgsKernel);
  TensorArg A({2, 3}, std::vector<double>(6)),
      B({3, 4}, std::vector<double>(12));
  TensorArg C({2}, {0, 0});
  TensorArg A3({2, 3, 1}, std::vector<double>(6));
  TensorArg BadK({4, 4}, std::vector<double>(16));
  TensorArg BadLit({3, 5}, std::vector<double>(15));
  TensorArg Short({2, 3}, std::vector<double>(5));
  TensorArg IntData({2}, {0.5, 0});
  auto K = ArgValue::integer(1);
  EXPECT_EQ(runError(F, {A, B, C}),
            "test.tile:2:6: error: @g takes 4 arguments (%A, %B, %C, %k) but "
            "3 were given; no argument for '%k'");
  EXPECT_EQ(runError(F, {A3, B, C, K}),
            "test.tile:2:9: error: argument 1 ('%A': f32[M, K]): expected "
            "rank 2, got a tensor of rank 3 and shape [2, 3, 1]");
  EXPECT_EQ(runError(F, {A, BadK, C, K}),
            "test.tile:2:32: error: argument 2 ('%B': f32[K, 4]): dimension 0 "
            "is K = 3 (bound by dimension 1 of '%A'), but the tensor has 4");
  EXPECT_EQ(runError(F, {A, BadLit, C, K}),
            "test.tile:2:35: error: argument 2 ('%B': f32[K, 4]): dimension 1 "
            "must be 4, got 5");
  EXPECT_EQ(runError(F, {Short, B, C, K}),
            "test.tile:2:9: error: argument 1 ('%A': f32[M, K]): the tensor's "
            "shape and strides need 6 elements of data, it has 5");
  EXPECT_EQ(runError(F, {A, B, K, K}),
            "test.tile:2:39: error: argument 3 ('%C': f32[M]): expected a "
            "tensor, got a scalar");
  EXPECT_EQ(runError(F, {A, B, C, C}),
            "test.tile:2:62: error: argument 4 ('%k': i8): expected a scalar, "
            "got a tensor");
  EXPECT_EQ(runError(F, {A, B, C, ArgValue::integer(200)}),
            "test.tile:2:62: error: argument 4 ('%k': i8): 200 is not a value "
            "of i8");
  EXPECT_EQ(runError(F, {A, B, C, ArgValue::scalar(1.5)}),
            "test.tile:2:62: error: argument 4 ('%k': i8): 1.5 is not a value "
            "of i8");
  // The output of a function over integers may be poisoned, but not hold
  // fractions.
  const Function &G = parse(R"(
func @h(%X: i32[N]) {
  kernel grid(1) threads(1) (%bx) {
    %X[0] = 1
  }
}
)");
  EXPECT_EQ(runError(G, {IntData}),
            "test.tile:2:9: error: argument 1 ('%X': i32[N]): element [0] is "
            "0.5, which is not a value of i32");
  TensorArg Poisoned({2}, {NaN, NaN});
  EXPECT_SUCCEEDED(run(G, {Poisoned}));
}

TEST_F(InterpreterTest, ContiguousParameterRejectsStridedTensor) {
  const Function &F = parse(R"(
func @f(%X: f32[2, 2]) {
  kernel grid(1) threads(1) (%bx) {
    %X[0, 0] = 1.0
  }
}
)");
  TensorArg X;
  X.Shape = {2, 2};
  X.Strides = {1, 2};
  X.Data.assign(4, 0);
  EXPECT_EQ(runError(F, {X}),
            "test.tile:2:9: error: argument 1 ('%X': f32[2, 2]): the parameter "
            "is row-major and contiguous but the tensor has strides [1, 2]; "
            "declare them with strides(...)");
}

//===----------------------------------------------------------------------===//
// Run-time faults and unsupported ops
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, OnChipRegionOutOfRangeIsAnError) {
  const Function &F = parse(R"(
func @f(%X: f32[8], %Y: f32[4]) {
  kernel grid(2) threads(32) (%bx) {
    %t = alloc fragment f32[8]
    copy %X -> %t
    copy %t[%bx * 6 : 4] -> %Y
  }
}
)");
  TensorArg X({8}, std::vector<double>(8, 1)), Y({4}, std::vector<double>(4));
  EXPECT_EQ(runErrorFull(F, {X, Y}),
            "test.tile:6:10: error: 'copy' region of '%t' at offsets [6] with "
            "extents [4] is out of range of its shape [8] (only global memory "
            "is guarded)\n"
            "    copy %t[%bx * 6 : 4] -> %Y\n"
            "         ^");
}

const OpOperandInfo FakeOperands[] = {
    {"dst", OperandKind::Region, "the destination", true}};
const OpInfo FakeOps[] = {{"fake.zero", "fake", "", "", "", "$dst attr-dict",
                           FakeOperands, 1, nullptr, 0, nullptr, 0, false}};

TEST_F(InterpreterTest, DialectOpsAreRejectedBeforeRunning) {
  Ctx.getOpRegistry().registerDialect("fake", FakeOps);
  const Function &F = parse(R"(
func @f(%X: f32[4]) {
  kernel grid(1) threads(32) (%bx) {
    %t = alloc shared f32[4]
    clear %t
    copy %t -> %X
    fake.zero %t
  }
}
)");
  TensorArg X({4}, {1, 2, 3, 4});
  EXPECT_EQ(runErrorFull(F, {X}),
            "test.tile:7:5: error: op 'fake.zero' of the 'fake' dialect cannot "
            "be interpreted: the reference interpreter runs the common tile "
            "language only; check the program before lowering it to a backend\n"
            "    fake.zero %t\n"
            "    ^");
  EXPECT_EQ(X.Data, (std::vector<double>{1, 2, 3, 4})) << "nothing ran";
}

TEST_F(InterpreterTest, ErrorsWithoutASourceManagerAreTheMessage) {
  const Function &F = parse(R"(
func @f(%X: f32[4]) {
  kernel grid(1) threads(1) (%bx) {
    %X[4] = 1.0
  }
}
)");
  TensorArg X({4}, std::vector<double>(4));
  llvm::Error E = interpretFunction(F, {X});
  EXPECT_EQ(llvm::toString(std::move(E)),
            "store to '%X[4]' is out of range of its shape [4]");
}

} // namespace
