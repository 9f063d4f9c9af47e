//===- CAPITest.cpp - The C API of tile-c/Tile.h --------------------------===//
//
// Parse, resolve, compile, artifacts in memory and on disk, executors and
// launches with DLPack tensors and scalars on the CPU target, and every
// kind of failure: each returns an error with its message, none aborts.
//
//===----------------------------------------------------------------------===//

#include "tile-c/Tile.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

/// Takes \p E: its message, or "" for success.
std::string take(TileErrorRef E, TileErrorKind *Kind = nullptr) {
  if (!E)
    return "";
  if (Kind)
    *Kind = tileErrorGetKind(E);
  std::string M = tileErrorGetMessage(E);
  tileErrorDestroy(E);
  return M;
}

const char *const AxpySource = R"(func @axpy(%X: f32[N], %Y: f32[N], %a: f32, %n: i32) {
  kernel grid(ceildiv(N, 256)) threads(128) (%bx) {
    %x = alloc fragment f32[256]
    %y = alloc fragment f32[256]
    copy %X[%bx * 256] -> %x
    copy %Y[%bx * 256] -> %y
    for %i in parallel(256) {
      %y[%i] = %a * %x[%i] + %y[%i] + cast<f32>(%n)
    }
    copy %y -> %Y[%bx * 256]
  }
}
)";

class CAPITest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(take(tileContextCreate(&Ctx)), "");
  }
  void TearDown() override {
    tileProgramDestroy(Program);
    tileExecutorDestroy(Exec);
    tileArtifactDestroy(Artifact);
    tileTargetDestroy(Target);
    tileModuleDestroy(Module);
    tileContextDestroy(Ctx);
  }

  /// Compiles AxpySource for the CPU and loads it on its executor.
  void loadAxpy() {
    ASSERT_EQ(take(tileModuleParseString(Ctx, AxpySource, strlen(AxpySource),
                                         "axpy.tile", &Module)),
              "");
    ASSERT_EQ(take(tileTargetResolve(Ctx, "cpu", nullptr, &Target)), "");
    ASSERT_EQ(take(tileCompile(Module, Target, "axpy", &Artifact)), "");
    ASSERT_EQ(take(tileExecutorCreate(tileArtifactGetExecBackend(Artifact), 2,
                                      &Exec)),
              "");
    ASSERT_EQ(take(tileProgramLoad(Exec, Artifact, &Program)), "");
  }

  TileContextRef Ctx = nullptr;
  TileModuleRef Module = nullptr;
  TileTargetRef Target = nullptr;
  TileArtifactRef Artifact = nullptr;
  TileExecutorRef Exec = nullptr;
  TileProgramRef Program = nullptr;
};

/// A row-major f32 vector as a DLTensor.
struct Vec {
  explicit Vec(int64_t N) : Data(N), Shape{N} {
    T.data = Data.data();
    T.device = {kDLCPU, 0};
    T.ndim = 1;
    T.dtype = {kDLFloat, 32, 1};
    T.shape = Shape;
    T.strides = nullptr;
    T.byte_offset = 0;
  }
  std::vector<float> Data;
  int64_t Shape[1];
  DLTensor T;
};

TEST(CAPIVersion, NamesTheProjectVersion) {
  std::string V = tileGetVersion();
  EXPECT_EQ(V.rfind("0.1.0", 0), 0u) << V;
}

TEST_F(CAPITest, LaunchesWithTensorsAndScalarsAgainstAReference) {
  loadAxpy();
  ASSERT_EQ(tileArtifactGetNumEntries(Artifact), 1u);
  EXPECT_STREQ(tileArtifactGetEntryName(Artifact, 0), "axpy");
  ASSERT_EQ(tileArtifactGetNumParams(Artifact, 0), 4);
  EXPECT_STREQ(tileArtifactGetParamName(Artifact, 0, 1), "Y");
  EXPECT_EQ(tileArtifactGetParamKind(Artifact, 0, 1), TILE_ARG_TENSOR);
  EXPECT_EQ(tileArtifactGetParamKind(Artifact, 0, 2), TILE_ARG_FLOAT);
  EXPECT_EQ(tileArtifactGetParamKind(Artifact, 0, 3), TILE_ARG_INT);
  EXPECT_STREQ(tileArtifactGetParamDType(Artifact, 0, 0), "f32");
  EXPECT_EQ(tileArtifactGetParamRank(Artifact, 0, 0), 1);
  EXPECT_EQ(tileArtifactGetParamRank(Artifact, 0, 9), -1);
  EXPECT_EQ(tileArtifactGetParamNumStrides(Artifact, 0, 0), 0);
  EXPECT_EQ(tileArtifactGetParamNumStrides(Artifact, 0, 2), 0);
  EXPECT_EQ(tileArtifactGetParamNumStrides(Artifact, 0, 9), -1);
  EXPECT_EQ(tileArtifactGetParamName(Artifact, 3, 0), nullptr);
  EXPECT_EQ(tileExecutorGetDeviceType(Exec), kDLCPU);

  // 1000 is not a multiple of the 256-wide tiles: the tail is guarded.
  const int64_t N = 1000;
  Vec X(N), Y(N);
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> U(-1, 1);
  std::vector<float> Want(N);
  for (int64_t I = 0; I != N; ++I) {
    X.Data[I] = U(Rng);
    Y.Data[I] = U(Rng);
    Want[I] = float(0.5 * X.Data[I] + Y.Data[I] + 3);
  }
  TileArg Args[] = {tileArgTensor(&X.T), tileArgTensor(&Y.T),
                    tileArgFloat(0.5), tileArgInt(3)};
  ASSERT_EQ(take(tileProgramLaunch(Program, "axpy", Args, 4)), "");
  ASSERT_EQ(take(tileExecutorSynchronize(Exec)), "");
  for (int64_t I = 0; I != N; ++I)
    ASSERT_NEAR(Y.Data[I], Want[I], 1e-6f) << "at " << I;

  // A DLManagedTensor goes in as its dl_tensor; NULL names the only entry.
  DLManagedTensor MX{X.T, nullptr, nullptr};
  TileArg Managed[] = {tileArgTensor(&MX.dl_tensor), tileArgTensor(&Y.T),
                       tileArgFloat(0), tileArgInt(0)};
  std::vector<float> Before = Y.Data;
  ASSERT_EQ(take(tileProgramLaunch(Program, nullptr, Managed, 4)), "");
  EXPECT_EQ(Y.Data, Before);
}

TEST_F(CAPITest, ArgumentsThatDoNotMatchAreRefusedByName) {
  loadAxpy();
  Vec X(64), Y(64);
  TileArg Args[] = {tileArgTensor(&X.T), tileArgTensor(&Y.T),
                    tileArgFloat(1), tileArgInt(1)};
  TileErrorKind K{};
  // Wrong dtype.
  Y.T.dtype = {kDLFloat, 16, 1};
  EXPECT_EQ(take(tileProgramLaunch(Program, "axpy", Args, 4), &K),
            "argument 'Y' (#1): expected dtype f32 (DLPack f32), got f16");
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  Y.T.dtype = {kDLFloat, 32, 1};
  // Wrong rank.
  X.T.ndim = 2;
  EXPECT_EQ(take(tileProgramLaunch(Program, "axpy", Args, 4), &K),
            "argument 'X' (#0): expected a tensor of rank 1, got rank 2");
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  X.T.ndim = 1;
  // Not contiguous.
  int64_t Stride[] = {2};
  X.T.strides = Stride;
  EXPECT_EQ(take(tileProgramLaunch(Program, "axpy", Args, 4), &K),
            "argument 'X' (#0) stride of dimension 0 is 2, expected 1 "
            "(row-major; pass a contiguous tensor)");
  X.T.strides = nullptr;
  // A missing argument.
  EXPECT_EQ(take(tileProgramLaunch(Program, "axpy", Args, 3), &K),
            "'tile_axpy' takes 4 arguments, got 3");
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  // An entry the artifact lacks.
  EXPECT_EQ(take(tileProgramLaunch(Program, "gemm", Args, 4), &K),
            "no entry point 'gemm' in the artifact; it has: axpy");
  EXPECT_EQ(K, TILE_ERROR_TARGET);
}

TEST_F(CAPITest, PreparedLaunchesRunAndCheckEveryCall) {
  loadAxpy();
  TileLaunchRef Launch = nullptr;
  TileErrorKind K{};
  EXPECT_EQ(take(tileProgramPrepareLaunch(Program, "gemm", &Launch), &K),
            "no entry point 'gemm' in the artifact; it has: axpy");
  EXPECT_EQ(K, TILE_ERROR_TARGET);
  EXPECT_EQ(Launch, nullptr);
  ASSERT_EQ(take(tileProgramPrepareLaunch(Program, nullptr, &Launch)), "");
  ASSERT_NE(Launch, nullptr);

  // The same prepared entry on tensors of different lengths and values.
  std::mt19937 Rng(11);
  std::uniform_real_distribution<float> U(-1, 1);
  for (int64_t N : {1000, 37, 4096}) {
    Vec X(N), Y(N);
    std::vector<float> Want(N);
    for (int64_t I = 0; I != N; ++I) {
      X.Data[I] = U(Rng);
      Y.Data[I] = U(Rng);
      Want[I] = float(-2.0 * X.Data[I] + Y.Data[I] + 5);
    }
    TileArg Args[] = {tileArgTensor(&X.T), tileArgTensor(&Y.T),
                      tileArgFloat(-2), tileArgInt(5)};
    ASSERT_EQ(take(tileLaunchCall(Launch, Args, 4)), "");
    ASSERT_EQ(take(tileExecutorSynchronize(Exec)), "");
    for (int64_t I = 0; I != N; ++I)
      ASSERT_NEAR(Y.Data[I], Want[I], 1e-6f) << "N " << N << " at " << I;
  }

  // Nothing is checked once for all: each call's arguments are.
  Vec X(64), Y(64), Short(63);
  TileArg Args[] = {tileArgTensor(&X.T), tileArgTensor(&Y.T),
                    tileArgFloat(1), tileArgInt(1)};
  Y.T.dtype = {kDLFloat, 16, 1};
  EXPECT_EQ(take(tileLaunchCall(Launch, Args, 4), &K),
            "argument 'Y' (#1): expected dtype f32 (DLPack f32), got f16");
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  Y.T.dtype = {kDLFloat, 32, 1};
  Args[1] = tileArgTensor(&Short.T);
  EXPECT_EQ(take(tileLaunchCall(Launch, Args, 4), &K).find("argument 'Y' (#1)"),
            0u);
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  Args[1] = tileArgTensor(&Y.T);
  Args[3] = tileArgFloat(1);
  EXPECT_EQ(take(tileLaunchCall(Launch, Args, 4), &K).find("argument 'n' (#3)"),
            0u);
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  EXPECT_EQ(take(tileLaunchCall(Launch, Args, 3), &K),
            "'tile_axpy' takes 4 arguments, got 3");
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  EXPECT_EQ(take(tileLaunchCall(Launch, nullptr, 4), &K),
            "tileLaunchCall: the arguments is NULL");
  EXPECT_EQ(K, TILE_ERROR_INVALID_CALL);

  // The packed form is the same call: it runs, and refuses the same way.
  for (size_t I = 0; I != 64; ++I)
    X.Data[I] = float(I), Y.Data[I] = 1;
  Args[3] = tileArgInt(3);
  TileLaunchCallArgs Call = {Launch, Args, 4};
  ASSERT_EQ(take(tileLaunchCallPacked(&Call)), "");
  ASSERT_EQ(take(tileExecutorSynchronize(Exec)), "");
  for (size_t I = 0; I != 64; ++I)
    ASSERT_EQ(Y.Data[I], float(I) + 1 + 3) << I;
  Call.NumArgs = 3;
  EXPECT_EQ(take(tileLaunchCallPacked(&Call), &K),
            "'tile_axpy' takes 4 arguments, got 3");
  EXPECT_EQ(K, TILE_ERROR_ARGUMENT);
  EXPECT_EQ(take(tileLaunchCallPacked(nullptr), &K),
            "tileLaunchCallPacked: the call is NULL");
  EXPECT_EQ(K, TILE_ERROR_INVALID_CALL);
  tileLaunchDestroy(Launch);
}

TEST_F(CAPITest, DeclaredStridesAreCounted) {
  // Python's launcher gives NULL strides only to parameters without them.
  const char *Src = R"(func @copy(%X: f32[M, N] strides(S, 1), %Y: f32[M, N]) {
  kernel grid(M) threads(32) (%bx) {
    %x = alloc fragment f32[1, 32]
    copy %X[%bx, 0] -> %x
    copy %x -> %Y[%bx, 0]
  }
}
)";
  ASSERT_EQ(take(tileModuleParseString(Ctx, Src, strlen(Src), "copy.tile",
                                       &Module)),
            "");
  ASSERT_EQ(take(tileTargetResolve(Ctx, "cpu", nullptr, &Target)), "");
  ASSERT_EQ(take(tileCompile(Module, Target, "copy", &Artifact)), "");
  EXPECT_EQ(tileArtifactGetParamNumStrides(Artifact, 0, 0), 2);
  EXPECT_EQ(tileArtifactGetParamNumStrides(Artifact, 0, 1), 0);
  EXPECT_EQ(tileArtifactGetParamNumStrides(nullptr, 0, 0), -1);
}

TEST_F(CAPITest, SourceErrorsAreLocated) {
  const char *Bad = "func @f(%A: f32[N]) {\n  kernel grid(1) threads(32) (%bx) {\n"
                    "    copy %B -> %A\n  }\n}\n";
  TileErrorKind K{};
  std::string M = take(tileModuleParseString(Ctx, Bad, strlen(Bad), "bad.tile",
                                             &Module),
                       &K);
  EXPECT_EQ(K, TILE_ERROR_SOURCE);
  EXPECT_EQ(M.rfind("bad.tile:3:10: error: ", 0), 0u) << M;
  EXPECT_NE(M.find("    copy %B -> %A\n"), std::string::npos) << M;
  EXPECT_EQ(Module, nullptr);
}

TEST_F(CAPITest, FilesAndArtifactsRoundTrip) {
  std::string Dir = ::testing::TempDir();
  std::string Src = Dir + "/capi-add.tile", Art = Dir + "/capi-add.tart";
  TileErrorKind K{};
  EXPECT_EQ(take(tileModuleParseFile(Ctx, (Dir + "/missing.tile").c_str(),
                                     &Module),
                 &K)
                .rfind("cannot read '", 0),
            0u);
  EXPECT_EQ(K, TILE_ERROR_IO);
  ASSERT_EQ(take(tileModuleParseFile(
                Ctx, TILE_SOURCE_DIR "/examples/elementwise_add.tile", &Module)),
            "");
  ASSERT_EQ(tileModuleGetNumFunctions(Module), 1u);
  EXPECT_STREQ(tileModuleGetFunctionName(Module, 0), "add");
  EXPECT_EQ(tileModuleGetFunctionName(Module, 1), nullptr);
  ASSERT_EQ(take(tileTargetResolve(Ctx, "cpu", "orc", &Target)), "");
  EXPECT_STREQ(tileTargetGetExecBackend(Target), "orc");
  EXPECT_EQ(std::string(tileTargetGetName(Target)).rfind("cpu", 0), 0u);
  ASSERT_EQ(take(tileCompile(Module, Target, nullptr, &Artifact)), "");
  EXPECT_STREQ(tileArtifactGetTarget(Artifact), tileTargetGetName(Target));
  ASSERT_EQ(take(tileArtifactWriteToFile(Artifact, Art.c_str())), "");

  // The file and the in-memory bytes read back to the same artifact.
  TileArtifactRef FromFile = nullptr, FromMemory = nullptr;
  ASSERT_EQ(take(tileArtifactReadFromFile(Art.c_str(), &FromFile)), "");
  const void *Data;
  size_t Size;
  tileArtifactGetData(Artifact, &Data, &Size);
  ASSERT_EQ(take(tileArtifactReadFromMemory(Data, Size, &FromMemory)), "");
  const void *Data2;
  size_t Size2;
  tileArtifactGetData(FromFile, &Data2, &Size2);
  EXPECT_EQ(std::string((const char *)Data, Size),
            std::string((const char *)Data2, Size2));
  tileArtifactDestroy(FromFile);

  // Truncated bytes are a corrupt artifact, reported.
  TileArtifactRef Bad = nullptr;
  EXPECT_NE(take(tileArtifactReadFromMemory(Data, Size / 2, &Bad), &K), "");
  EXPECT_EQ(K, TILE_ERROR_IO);
  EXPECT_EQ(Bad, nullptr);

  // The artifact read from memory runs.
  ASSERT_EQ(take(tileExecutorCreate("orc", 1, &Exec)), "");
  ASSERT_EQ(take(tileProgramLoad(Exec, FromMemory, &Program)), "");
  tileArtifactDestroy(FromMemory);
  Vec A(5000), B(5000), C(5000);
  for (int I = 0; I != 5000; ++I) {
    A.Data[I] = float(I);
    B.Data[I] = float(2 * I + 1);
    C.Data[I] = NAN; // poisoned
  }
  TileArg Args[] = {tileArgTensor(&A.T), tileArgTensor(&B.T),
                    tileArgTensor(&C.T)};
  ASSERT_EQ(take(tileProgramLaunch(Program, "add", Args, 3)), "");
  for (int I = 0; I != 5000; ++I)
    ASSERT_EQ(C.Data[I], float(3 * I + 1)) << "at " << I;
  unlink(Art.c_str());
}

TEST_F(CAPITest, TargetsAndBackendsAreChecked) {
  TileErrorKind K{};
  std::string M = take(tileTargetResolve(Ctx, "tpu", nullptr, &Target), &K);
  EXPECT_EQ(K, TILE_ERROR_TARGET);
  EXPECT_NE(M.find("tpu"), std::string::npos) << M;
  EXPECT_EQ(Target, nullptr);
  M = take(tileExecutorCreate("warp-drive", 0, &Exec), &K);
  EXPECT_EQ(K, TILE_ERROR_TARGET);
  EXPECT_EQ(M.rfind("unknown execution backend 'warp-drive'; expected one of: ",
                    0),
            0u)
      << M;

  // A GPU target compiles here; its executor is not available without the
  // driver, and says so.
  ASSERT_EQ(take(tileModuleParseFile(
                Ctx, TILE_SOURCE_DIR "/examples/elementwise_add.tile", &Module)),
            "");
  ASSERT_EQ(take(tileTargetResolve(Ctx, "cuda -arch=sm_80", nullptr, &Target)),
            "");
  EXPECT_STREQ(tileTargetGetExecBackend(Target), "cuda");
  ASSERT_EQ(take(tileCompile(Module, Target, "add", &Artifact)), "");
  M = take(tileCompile(Module, Target, "gemm", nullptr), &K);
  EXPECT_EQ(K, TILE_ERROR_INVALID_CALL);
  TileArtifactRef None = nullptr;
  M = take(tileCompile(Module, Target, "gemm", &None), &K);
  EXPECT_EQ(M, "no function '@gemm' in the module; it has: @add");
  TileErrorRef E = tileExecutorCreate("cuda", 0, &Exec);
  if (E) {
    EXPECT_EQ(tileErrorGetKind(E), TILE_ERROR_EXECUTION);
    EXPECT_NE(std::string(tileErrorGetMessage(E)).find("cuda"),
              std::string::npos);
    tileErrorDestroy(E);
  }
}

TEST(CAPINull, NullHandlesAreErrorsNotCrashes) {
  TileErrorKind K{};
  EXPECT_EQ(take(tileContextCreate(nullptr), &K),
            "tileContextCreate: the result pointer is NULL");
  EXPECT_EQ(K, TILE_ERROR_INVALID_CALL);
  TileModuleRef M = nullptr;
  EXPECT_EQ(take(tileModuleParseString(nullptr, "", 0, nullptr, &M)),
            "tileModuleParseString: the context is NULL");
  EXPECT_EQ(take(tileProgramLaunch(nullptr, "f", nullptr, 0)),
            "tileProgramLaunch: the program is NULL");
  TileLaunchRef L = nullptr;
  EXPECT_EQ(take(tileProgramPrepareLaunch(nullptr, "f", &L)),
            "tileProgramPrepareLaunch: the program is NULL");
  EXPECT_EQ(take(tileLaunchCall(nullptr, nullptr, 0)),
            "tileLaunchCall: the launch is NULL");
  tileLaunchDestroy(nullptr);
  EXPECT_EQ(tileErrorGetKind(nullptr), TILE_ERROR_INVALID_CALL);
  EXPECT_STREQ(tileErrorGetMessage(nullptr), "");
  tileErrorDestroy(nullptr);
  tileContextDestroy(nullptr);
  tileArtifactDestroy(nullptr);
}

} // namespace
