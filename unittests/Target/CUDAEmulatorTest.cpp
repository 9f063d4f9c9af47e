//===- CUDAEmulatorTest.cpp - The CUDA backends' emulator, called directly -===//
//
// The emulator reached through the registry (the Emulator entry point of
// the resolved backend), as tile-jit --emulate does but on parsed per-thread
// IR without the pipeline: the errors the pipelines never let through
// (ops they leave for other passes, IR the verifier would reject, argument
// mismatches tile-jit's own checks catch first) and the scalar faults it
// shares with the reference interpreter, each with its located message;
// and the lockstep semantics of divergent loops and lazy selects. The
// errors tile-jit can reach are in test/Target/CUDA/emulator-errors.test.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"
#include "tile/IR/Interpreter.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/AllEmulators.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/Emulator.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace tile;

namespace {

class CUDAEmulatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::cantFail(registerAllTargetBackends(Registry));
    llvm::cantFail(registerAllTargetEmulators(Registry));
    Registry.registerDialects(Ctx.getOpRegistry());
  }

  /// Parses \p Text (and verifies it, with \p Verify) and runs its first
  /// function in the emulator of \p Target on \p Args. Returns the first
  /// line of the error, or "success".
  std::string run(llvm::StringRef Text, std::vector<ArgValue> Args,
                  bool Verify = true,
                  llvm::StringRef Target = "cuda -arch=sm_90a",
                  llvm::function_ref<void(Module &)> Mutate = nullptr) {
    std::string Errors;
    llvm::raw_string_ostream OS(Errors);
    DiagnosticEngine Diag(&SM, &OS);
    Modules.push_back(parseModuleString(Text, "test.tile", SM, Ctx, Diag));
    if (!Modules.back() || (Verify && !verifyModule(*Modules.back(), Diag)))
      return "invalid test program: " + Errors;
    if (Mutate)
      Mutate(*Modules.back());
    ResolveOptions RO;
    RO.RequireAvailable = false;
    llvm::Expected<BackendContext> BC =
        resolveBackendContext(Registry, Target, "", "auto", RO);
    if (!BC)
      return "cannot resolve: " + llvm::toString(BC.takeError());
    EmulatorFn Emulate = Registry.getEmulator(BC->getBackend());
    if (!Emulate)
      return "no emulator registered";
    EmulatorOptions EO;
    EO.SM = &SM;
    std::string Msg = tile::testing::errorText(Emulate(
        *BC, *Modules.back()->getFunctions().front(), Args, EO));
    return Msg.substr(0, Msg.find('\n'));
  }

  TargetRegistry Registry;
  TileContext Ctx;
  llvm::SourceMgr SM;
  std::vector<std::unique_ptr<Module>> Modules;
  /// Statements a mutation took out, kept alive for the values they define.
  static std::vector<StmtPtr> Stashed;
};

std::vector<StmtPtr> CUDAEmulatorTest::Stashed;

TEST_F(CUDAEmulatorTest, DialectOpItDoesNotModel) {
  TensorArg A64 = TensorArg::filled({64, 64}, 0), B64 = A64, C64 = A64;
  // The tile-level TMA copy, which no pipeline lowers.
  EXPECT_EQ(run(R"(func @f(%A: f16[64, 64]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %As = alloc shared f16[64, 64]
    %bar = alloc shared u64[1]
    cuda.tma_copy %A[0, 0] -> %As, %bar[0]
  }
})",
                {A64}),
            "test.tile:5:5: error: op 'cuda.tma_copy' cannot be emulated: the "
            "CUDA emulator does not model it");
  // Other ops it does not know.
  EXPECT_EQ(run(R"(func @f(%A: f16[64, 64], %B: f16[64, 64], %C: f32[64, 64]) {
  kernel grid(1) threads(128) (%bx) {
    %As = alloc shared f16[64, 64]
    %Bs = alloc shared f16[64, 64]
    %Cf = alloc fragment f32[64, 64]
    cuda.wgmma %As, %Bs -> %Cf
  }
})",
                {A64, B64, C64}),
            "test.tile:6:5: error: op 'cuda.wgmma' cannot be emulated: the "
            "CUDA emulator does not model it");
}

TEST_F(CUDAEmulatorTest, TileOpLeftUnlowered) {
  TensorArg Y = TensorArg::filled({128}, 0);
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %s = alloc shared f32[128]
    copy %Y -> %s
  }
})",
                {Y}),
            "test.tile:4:5: error: op 'copy' cannot be emulated: the CUDA "
            "emulator runs the per-thread code the pipeline produces, and the "
            "pipeline left this tile op unlowered");
}

TEST_F(CUDAEmulatorTest, IRTheVerifierRejects) {
  TensorArg Y = TensorArg::filled({128}, 0);
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  %s = alloc shared f32[128]
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %Y[%tx] = %s[%tx]
  }
})",
                {Y}, /*Verify=*/false),
            "test.tile:2:3: error: '%s' is a shared buffer outside a kernel; "
            "the CUDA emulator places on-chip buffers in a kernel's blocks");
  EXPECT_EQ(run(R"(func @f(%Y: f32[N]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %s = alloc shared f32[N]
    %Y[%tx] = %s[%tx]
  }
})",
                {Y}, /*Verify=*/false),
            "test.tile:3:5: error: '%s' needs a constant shape to be placed "
            "in on-chip memory");
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  barrier
})",
                {Y}, /*Verify=*/false),
            "test.tile:2:3: error: op 'barrier' is outside a kernel; it needs "
            "a block's threads");
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  kernel grid(1) threads(128) (%bx) {
    kernel grid(1) threads(128) (%by) {
    }
  }
})",
                {Y}, /*Verify=*/false),
            "test.tile:3:5: error: kernels cannot be nested");
  EXPECT_EQ(run(R"(func @f(%Y: f32[N]) {
  kernel grid(1) threads(N) (%bx) {
  }
})",
                {Y}, /*Verify=*/false),
            "test.tile:2:26: error: thread count must be a positive integer "
            "constant");
}

/// The statements of the first kernel of \p M's first function.
std::vector<StmtPtr> &kernelBody(Module &M) {
  Function &F = *M.getFunctions().front();
  for (StmtPtr &S : F.getBodyMutable().Stmts)
    if (auto *K = llvm::dyn_cast<KernelStmt>(S.get()))
      return K->getBodyMutable().Stmts;
  llvm_unreachable("no kernel");
}

/// IR that no parser produces, as a faulty pass might: values and buffers
/// used where they are not bound.
TEST_F(CUDAEmulatorTest, TmaAndMbarrierOperandsTheVerifierRejects) {
  TensorArg Y = TensorArg::filled({128}, 0);
  TensorArg A = TensorArg::filled({8, 64}, 0);
  // An mbarrier that is not an element of a shared 64-bit integer buffer.
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %bar = alloc shared f32[2]
    cuda.mbarrier_init %bar[0], 1
  }
})",
                {Y}, /*Verify=*/false),
            "test.tile:4:24: error: 'cuda.mbarrier_init' takes an mbarrier, an "
            "element of a shared u64 or i64 buffer, not one of '%bar'");
  // A TMA tensor of rank 1, and a destination of another dtype.
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %s = alloc shared f32[128]
    %bar = alloc shared u64[1]
    cuda.tma_load %Y, 0, 0 -> %s[0], %bar[0] {box_rows = 1, box_cols = 4}
  }
})",
                {Y}, /*Verify=*/false),
            "test.tile:5:19: error: 'cuda.tma_load' reads a global tensor of "
            "rank 2 to 5, not '%Y'");
  EXPECT_EQ(run(R"(func @f(%A: f16[8, 64]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %s = alloc shared f32[512]
    %bar = alloc shared u64[1]
    cuda.tma_load %A, 0, 0 -> %s[0], %bar[0] {box_rows = 8, box_cols = 64}
  }
})",
                {A}, /*Verify=*/false),
            "test.tile:5:31: error: 'cuda.tma_load' writes shared memory of "
            "the tensor's dtype, not '%s'");
  // cuda.tma_ready's flag in shared memory.
  EXPECT_EQ(run(R"(func @f(%A: f16[8, 64]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %ok = alloc shared i32[1]
    cuda.tma_ready %A, 64 -> %ok[0]
  }
})",
                {A}, /*Verify=*/false),
            "test.tile:4:30: error: 'cuda.tma_ready' writes an integer flag to "
            "a thread's registers, not to '%ok'");
}

TEST_F(CUDAEmulatorTest, KernelsWithNothingToRun) {
  // An empty body: the block's one group finishes without a statement (a
  // crash before: the scheduler took that for a deadlock).
  TensorArg Y = TensorArg::filled({4}, 0);
  EXPECT_EQ(run(R"(func @f(%Y: f32[4]) {
  kernel grid(2) threads(64) (%bx) {
  }
})",
                {Y}, true, "cuda -arch=sm_80"),
            "success");
  // Warps of a kernel with mbarriers that do nothing but finish.
  EXPECT_EQ(run(R"(func @f(%Y: f32[4]) {
  kernel grid(2) threads(128) (%bx) thread(%tx) {
    %bar = alloc shared u64[1]
    if %tx == 0 {
      cuda.mbarrier_init %bar[0], 1
    }
  }
})",
                {Y}),
            "success");
}

TEST_F(CUDAEmulatorTest, ValuesUsedOutsideTheirScope) {
  TensorArg Y = TensorArg::filled({4}, 0);
  const char *Text = R"(func @f(%Y: f32[4]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %s = alloc shared f32[4]
    let %a = 2.0
    %Y[%tx] = %a
  }
})";
  // The let is gone, its use stays.
  EXPECT_EQ(run(Text, {Y}, true, "cuda -arch=sm_90a",
                [](Module &M) {
                  std::vector<StmtPtr> &B = kernelBody(M);
                  Stashed.push_back(std::move(B[1]));
                  B.erase(B.begin() + 1);
                }),
            "test.tile:5:15: error: 'a' is used where it is not bound");
  // The allocation moves after the uses.
  auto AllocLast = [](Module &M) {
    std::vector<StmtPtr> &B = kernelBody(M);
    StmtPtr A = std::move(B.front());
    B.erase(B.begin());
    B.push_back(std::move(A));
  };
  EXPECT_EQ(run(R"(func @f(%Y: f32[4]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %s = alloc shared f32[4]
    %Y[%tx] = %s[%tx]
  }
})",
                {Y}, true, "cuda -arch=sm_90a", AllocLast),
            "test.tile:4:15: error: '%s' is used before it is allocated");
  EXPECT_EQ(run(R"(func @f(%Y: f32[4]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %s = alloc shared f32[4]
    %s[%tx] = 1.0
  }
})",
                {Y}, true, "cuda -arch=sm_90a", AllocLast),
            "test.tile:4:5: error: '%s' is stored to before it is allocated");
  EXPECT_EQ(run(R"(func @f(%Y: f32[4]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %v = alloc local f32[2]
    cuda.store_pair %v[0 : 2] -> %Y[0]
  }
})",
                {Y}, true, "cuda -arch=sm_90a", AllocLast),
            "test.tile:4:21: error: '%v' is used before it is allocated");
}

/// Parameters of a shape no parser writes: an expression, and a symbol no
/// parameter has.
TEST_F(CUDAEmulatorTest, ParametersNoParserWrites) {
  TensorArg Y = TensorArg::filled({4}, 0);
  const char *Text = R"(func @f(%Y: f32[N]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %Y[%tx] = 0.0
  }
})";
  EXPECT_EQ(run(Text, {Y}, true, "cuda -arch=sm_90a",
                [](Module &M) {
                  Function &F = *M.getFunctions().front();
                  auto &Shape = llvm::cast<BufferValue>(*F.getParams()[0])
                                    .getShapeMutable();
                  llvm::SMLoc Loc = Shape[0]->getLoc();
                  Shape[0] = std::make_unique<BinaryExpr>(
                      BinaryOp::Add, std::move(Shape[0]),
                      std::make_unique<IntLitExpr>(1, DType::I32), DType::I32,
                      Loc);
                }),
            "test.tile:1:17: error: argument 1 ('%Y': f32[N + 1]): dimension 0 "
            "is neither an integer nor a symbol");
  EXPECT_EQ(run(Text, {Y}, true, "cuda -arch=sm_90a",
                [](Module &M) {
                  M.getFunctions().front()->getOrCreateDim("Q");
                }),
            "symbol Q is not bound by any tensor's shape or strides");
}

TEST_F(CUDAEmulatorTest, IntegerTensorHoldingPoison) {
  TensorArg X = TensorArg::filled({4}, NAN), Y = TensorArg::filled({4}, 0);
  EXPECT_EQ(run(R"(func @f(%X: i32[4], %Y: i32[4]) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %Y[%tx] = %X[%tx]
  }
})",
                {X, Y}),
            "test.tile:3:15: error: load of an element of '%X' that was never "
            "written (it holds the NaN poison) (thread 0 of block (0, 0, 0))");
}

const char *const Add = R"(func @f(%A: f32[N], %B: f32[4, N], %n: i8) {
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %B[0, %tx] = %A[%tx]
  }
})";

TEST_F(CUDAEmulatorTest, Arguments) {
  TensorArg A = TensorArg::filled({32}, 1), B = TensorArg::filled({4, 32}, 0);
  TensorArg Short = TensorArg::filled({4, 32}, 0);
  Short.Data.resize(100);
  EXPECT_EQ(run(Add, {A, B}),
            "test.tile:1:6: error: @f takes 3 arguments (%A, %B, %n) but 2 "
            "were given; no argument for '%n'");
  EXPECT_EQ(run(Add, {A, ArgValue::scalar(1), ArgValue::integer(1)}),
            "test.tile:1:21: error: argument 2 ('%B': f32[4, N]): expected a "
            "tensor, got a scalar");
  EXPECT_EQ(run(Add, {A, B, B}),
            "test.tile:1:36: error: argument 3 ('%n': i8): expected a scalar, "
            "got a tensor");
  EXPECT_EQ(run(Add, {A, A, ArgValue::integer(1)}),
            "test.tile:1:21: error: argument 2 ('%B': f32[4, N]): expected rank "
            "2, got a tensor of rank 1 and shape [32]");
  TensorArg B5 = TensorArg::filled({5, 32}, 0);
  EXPECT_EQ(run(Add, {A, B5, ArgValue::integer(1)}),
            "test.tile:1:29: error: argument 2 ('%B': f32[4, N]): dimension 0 "
            "must be 4, got 5");
  EXPECT_EQ(run(Add, {A, Short, ArgValue::integer(1)}),
            "test.tile:1:21: error: argument 2 ('%B': f32[4, N]): the tensor's "
            "shape and strides need 128 elements of data, it has 100");
  EXPECT_EQ(run(Add, {A, B, ArgValue::integer(300)}),
            "test.tile:1:36: error: argument 3 ('%n': i8): 300 is not a value "
            "of i8");
  EXPECT_EQ(run(Add, {A, B, ArgValue::scalar(1.5)}),
            "test.tile:1:36: error: argument 3 ('%n': i8): 1.5 is not a value "
            "of i8");
  TensorArg Huge;
  Huge.Shape = {int64_t(1) << 31};
  EXPECT_EQ(run(Add, {Huge, B, ArgValue::integer(1)}),
            "test.tile:1:17: error: argument 1 ('%A': f32[N]): dimension 0 N = "
            "2147483648 does not fit the symbol's type i32");
}

/// The emulator binds arguments with the interpreter's binder
/// (tile/IR/ExecutionCore.h): what the interpreter refuses, it refuses
/// with the same message.
TEST_F(CUDAEmulatorTest, ArgumentsCheckedAsTheInterpreterChecksThem) {
  const char *Text = R"(func @f(%X: i32[4], %Y: f32[4, 8], %u: u8) {
  kernel grid(1) threads(4) (%bx) thread(%tx) {
    %Y[%tx, 0] = cast<f32>(%X[%tx])
  }
})";
  auto Interpret = [&](std::vector<ArgValue> Args) {
    const Function &F = *Modules.back()->getFunctions().front();
    InterpretOptions IO;
    IO.SM = &SM;
    std::string Msg =
        tile::testing::errorText(interpretFunction(F, Args, IO));
    return Msg.substr(0, Msg.find('\n'));
  };
  TensorArg X = TensorArg::filled({4}, 1), Y = TensorArg::filled({4, 8}, 0);
  TensorArg Fraction = X;
  Fraction.Data[1] = 1.5;
  TensorArg ColumnMajor = Y;
  ColumnMajor.Strides = {1, 4};
  TensorArg Negative;
  Negative.Shape = {-1};
  std::vector<std::pair<std::vector<ArgValue>, const char *>> Cases = {
      {{Fraction, Y, ArgValue::integer(1)},
       "test.tile:1:9: error: argument 1 ('%X': i32[4]): element [1] is 1.5, "
       "which is not a value of i32"},
      {{X, ColumnMajor, ArgValue::integer(1)},
       "test.tile:1:21: error: argument 2 ('%Y': f32[4, 8]): the parameter "
       "is row-major and contiguous but the tensor has strides [1, 4]; "
       "declare them with strides(...)"},
      {{Negative, Y, ArgValue::integer(1)},
       "test.tile:1:9: error: argument 1 ('%X': i32[4]): dimension 0 of the "
       "tensor is negative"},
      {{X, Y, ArgValue::integer(-1)},
       "test.tile:1:36: error: argument 3 ('%u': u8): -1 is not a value of "
       "u8"},
  };
  for (auto &[Args, Want] : Cases) {
    EXPECT_EQ(run(Text, Args), Want);
    EXPECT_EQ(Interpret(Args), Want);
  }
}

/// A per-thread kernel computing %Y[%tx] = EXPR with i32 scalars %a, %b.
std::string intKernel(const std::string &Expr) {
  return "func @f(%Y: i32[32], %a: i32, %b: i32) {\n"
         "  kernel grid(1) threads(32) (%bx) thread(%tx) {\n"
         "    %Y[%tx] = " + Expr + "\n  }\n}\n";
}

TEST_F(CUDAEmulatorTest, ScalarFaultsAsTheInterpreter) {
  TensorArg Y = TensorArg::filled({32}, 0);
  auto Run = [&](const std::string &Expr, int64_t A, int64_t B) {
    return run(intKernel(Expr), {Y, ArgValue::integer(A), ArgValue::integer(B)});
  };
  // The faults name the thread when the operands differ between threads.
  EXPECT_EQ(Run("%tx / %a", 0, 0),
            "test.tile:3:19: error: integer division by zero (thread 0 of "
            "block (0, 0, 0))");
  EXPECT_EQ(Run("%a % %b", 1, 0),
            "test.tile:3:18: error: integer division by zero (block (0, 0, 0))");
  EXPECT_EQ(Run("%a / %b", -2147483647 - 1, -1),
            "test.tile:3:18: error: signed division overflows: -2147483648 / "
            "-1 is not a value of i32 (block (0, 0, 0))");
  EXPECT_EQ(Run("%tx << %a", 32, 0),
            "test.tile:3:19: error: shift amount 32 is out of range for i32 (0 "
            "to 31) (thread 0 of block (0, 0, 0))");
  EXPECT_EQ(Run("floordiv(%tx, %a)", 0, 0),
            "test.tile:3:15: error: integer division by zero in 'floordiv' "
            "(thread 0 of block (0, 0, 0))");
  EXPECT_EQ(Run("ceildiv(%a, %b)", -2147483647 - 1, -1),
            "test.tile:3:15: error: 'ceildiv' overflows: -2147483648 / -1 is "
            "not a value of i32 (block (0, 0, 0))");
  // Guarded operands are not evaluated: select, && and || are lazy per
  // thread.
  EXPECT_EQ(Run("select(%tx < 16, %tx / (16 - %tx), %tx % (%tx - 15 + %a))",
                0, 0),
            "success");
  for (int64_t T = 0; T != 32; ++T)
    EXPECT_EQ(Y.Data[size_t(T)], T < 16 ? T / (16 - T) : T % (T - 15)) << T;
  EXPECT_EQ(Run("select(%tx >= 16 || 32 / (16 - %tx) > 2, 1, 0) + "
                "select(%tx < 15 && 32 / (%tx - 15) < 0, 2, 0)",
                0, 0),
            "success");
  for (int64_t T = 0; T != 32; ++T)
    EXPECT_EQ(Y.Data[size_t(T)],
              (T >= 16 || 32 / (16 - T) > 2 ? 1 : 0) + (T < 15 ? 2 : 0))
        << T;
}

TEST_F(CUDAEmulatorTest, LoopsAndGrids) {
  TensorArg Y = TensorArg::filled({32}, 0);
  // Threads leave a loop with thread-dependent bounds one by one.
  EXPECT_EQ(run(R"(func @f(%Y: i32[32]) {
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %n = alloc local i32[1]
    %n[0] = 0
    for %i in serial(%tx % 3, %tx, step = 2) {
      %n[0] = %n[0] + %i
    }
    %Y[%tx] = %n[0]
  }
})",
                {Y}),
            "success");
  for (int64_t T = 0; T != 32; ++T) {
    int64_t Sum = 0;
    for (int64_t I = T % 3; I < T; I += 2)
      Sum += I;
    EXPECT_EQ(Y.Data[size_t(T)], Sum) << T;
  }
  auto Step = [&](const char *Step) {
    return run(std::string("func @f(%Y: i32[32], %s: i32) {\n"
                           "  kernel grid(1) threads(32) (%bx) thread(%tx) {\n"
                           "    for %i in serial(0, 4, step = ") +
                   Step +
                   ") {\n      %Y[%tx] = %i\n    }\n  }\n}\n",
               {Y, ArgValue::integer(0)});
  };
  EXPECT_EQ(Step("%s"),
            "test.tile:3:5: error: loop step must be positive, got 0 (block (0, "
            "0, 0))");
  EXPECT_EQ(Step("%s - %tx"),
            "test.tile:3:5: error: loop step must be positive, got 0 (thread 0 "
            "of block (0, 0, 0))");
  EXPECT_EQ(run(R"(func @f(%Y: i32[32], %g: i32) {
  kernel grid(%g) threads(32) (%bx) thread(%tx) {
    %Y[%tx] = 0
  }
})",
                {Y, ArgValue::integer(-1)}),
            "test.tile:2:15: error: grid dimension 0 is negative, -1");
  EXPECT_EQ(run(R"(func @f(%Y: i32[32], %g: i32) {
  %w = alloc global f32[%g]
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %Y[%tx] = 0
  }
})",
                {Y, ArgValue::integer(-3)}),
            "test.tile:2:25: error: '%w' would have a negative dimension, -3");
}

TEST_F(CUDAEmulatorTest, OperandsOutsideTheirRegisters) {
  TensorArg Y = TensorArg::filled({32}, 0), Y128 = TensorArg::filled({128}, 0);
  TensorArg X = TensorArg::filled({256}, 1);
  // Register offsets the verifier cannot see, past the arrays' ends.
  EXPECT_EQ(run(R"(func @f(%Y: f32[32], %o: i32) {
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %a = alloc local f16[8]
    %b = alloc local f16[4]
    %c = alloc local f32[4]
    cuda.mma_sync %a[%o : 8], %b[0 : 4] -> %c[0 : 4]
    %Y[%tx] = %c[0]
  }
})",
                {Y, ArgValue::integer(2)}, true, "cuda -arch=sm_80"),
            "test.tile:6:19: error: 'cuda.mma_sync' reads elements [2, 10) of "
            "'%a', outside its 8 elements (thread 0 of block (0, 0, 0))");
  EXPECT_EQ(run(R"(func @f(%Y: f32[32], %o: i32) {
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %v = alloc local f32[2]
    %v[0] = 1.0
    %v[1] = 2.0
    cuda.store_pair %v[%o : 2] -> %Y[%tx]
  }
})",
                {Y, ArgValue::integer(1)}, true, "cuda -arch=sm_80"),
            "test.tile:6:21: error: 'cuda.store_pair' reads elements [1, 3) of "
            "'%v', outside its 2 elements (thread 0 of block (0, 0, 0))");
  EXPECT_EQ(run(R"(func @f(%Y: f32[32]) {
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %s = alloc shared f16[64, 8]
    %r = alloc local f16[8]
    cuda.ldmatrix %s[%tx + 40, 0] -> %r[0 : 8]
    %Y[%tx] = 0.0
  }
})",
                {Y}, true, "cuda -arch=sm_80"),
            "test.tile:5:19: error: 'cuda.ldmatrix' row address (element 512) "
            "is outside '%s' (thread 24 of block (0, 0, 0))");
  EXPECT_EQ(run(R"(func @f(%X: f16[256], %Y: f32[32]) {
  kernel grid(1) threads(32) (%bx) thread(%tx) {
    %s = alloc shared f16[256]
    cuda.cp_async %X[%tx * 8] -> %s[%tx * 8 + 8], 16
    %Y[%tx] = 0.0
  }
})",
                {X, Y}, true, "cuda -arch=sm_80"),
            "test.tile:4:34: error: 'cuda.cp_async' writes 16 bytes at element "
            "256 of '%s', outside it (thread 31 of block (0, 0, 0))");
  EXPECT_EQ(run(R"(func @f(%Y: f32[128]) {
  kernel grid(1) threads(128) (%bx) thread(%tx) {
    %As = alloc shared f16[1024]
    %Bs = alloc shared f16[128]
    %acc = alloc local f32[4]
    cuda.wgmma_fence %acc
    cuda.wgmma_mma %As, %Bs -> %acc[0 : 4], 0, 0 {n = 16}
    %Y[%tx] = 0.0
  }
})",
                {Y128}),
            "test.tile:7:32: error: 'cuda.wgmma_mma' accumulates into elements "
            "[0, 8) of '%acc', outside its 4 elements (thread 0 of block (0, "
            "0, 0))");
}

} // namespace
