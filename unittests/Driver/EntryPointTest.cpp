//===- EntryPointTest.cpp - Generated entry points on the CPU -------------===//
//
// Compiles small kernels for target "cpu" through the same flow as tile-jit
// (registry, parse, resolveBackendContext, compileModule, the orc executor)
// and calls the generated `tile_<f>` entry points with hand-made TileArg and
// DLTensor values: the argument checks tile-jit cannot provoke (null
// tensors and data, strides, alignment, device type, argument kinds and
// count), each with its exact message and an output left as it was; the
// results of good calls; exported artifacts read back, intact or not; and
// host libraries (KernelArtifact::HostLibrary): linked, written, read back
// and loaded with dlopen, a damaged section rejected, a library the loader
// refuses replaced by the objects with a warning, a failed link.
//
//===----------------------------------------------------------------------===//

#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/Driver/CompileModule.h"
#include "tile/Exec/Executor.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <dlpack/dlpack.h>
#include <optional>

using namespace tile;

namespace {

// Scalar code only, so the tests depend on the argument checks and not on
// how tile ops are lowered.
const char *const kKernels = R"(
func @mm(%A: f32[M, K], %B: f32[K, N], %C: f32[M, N]) {
  kernel grid(M) threads(1) (%i) {
    %acc = alloc var f32
    for %j in serial(0, N) {
      %acc = 0.0
      for %k in serial(0, K) {
        %acc = %acc + %A[%i, %k] * %B[%k, %j]
      }
      %C[%i, %j] = %acc
    }
  }
}
func @strided(%X: f32[R, W] strides(S, 1), %Y: f32[R, W]) {
  kernel grid(R) threads(1) (%r) {
    for %c in serial(0, W) {
      %Y[%r, %c] = %X[%r, %c] + cast<f32>(S)
    }
  }
}
func @colmajor(%X: f32[R, W] strides(1, R), %Y: f32[R, W]) {
  kernel grid(R) threads(1) (%r) {
    for %c in serial(0, W) {
      %Y[%r, %c] = %X[%r, %c]
    }
  }
}
func @axpy(%X: f32[N], %Y: f32[N], %alpha: f32, %offset: i32) {
  kernel grid(1) threads(1) (%b) {
    for %i in serial(0, N) {
      %Y[%i] = %alpha * %X[%i] + cast<f32>(%offset)
    }
  }
}
)";

/// The registry, the context and the artifact of kKernels, made once for
/// the whole suite (codegen is the slow part).
struct Compiled {
  TargetRegistry Registry;
  KernelArtifact Artifact;
  std::string Error;
};

Compiled &getCompiled() {
  static Compiled *C = [] {
    auto *R = new Compiled;
    if (llvm::Error E = registerAllTargetBackends(R->Registry)) {
      R->Error = llvm::toString(std::move(E));
      return R;
    }
    TileContext TC;
    R->Registry.registerDialects(TC.getOpRegistry());
    llvm::SourceMgr SM;
    std::string Diags;
    llvm::raw_string_ostream OS(Diags);
    DiagnosticEngine Diag(&SM, &OS);
    std::unique_ptr<Module> M =
        parseModuleString(kKernels, "kernels.tile", SM, TC, Diag);
    if (!M || !verifyModule(*M, Diag)) {
      R->Error = "parse: " + Diags;
      return R;
    }
    llvm::Expected<BackendContext> Ctx =
        resolveBackendContext(R->Registry, "cpu", "", "orc");
    if (!Ctx) {
      R->Error = llvm::toString(Ctx.takeError());
      return R;
    }
    llvm::Expected<KernelArtifact> A =
        compileModule(R->Registry, *Ctx, *M, Diag);
    if (!A) {
      R->Error = llvm::toString(A.takeError()) + "\n" + Diags;
      return R;
    }
    R->Artifact = std::move(*A);
    return R;
  }();
  return *C;
}

/// A host tensor and the DLTensor describing it.
struct Tensor {
  Tensor(std::vector<int64_t> Shape, std::vector<float> Values)
      : Shape(std::move(Shape)), Values(std::move(Values)) {
    DL.data = this->Values.data();
    DL.device = {kDLCPU, 0};
    DL.ndim = int32_t(this->Shape.size());
    DL.dtype = {kDLFloat, 32, 1};
    DL.shape = this->Shape.data();
    DL.strides = nullptr;
    DL.byte_offset = 0;
  }
  /// A tensor every element of which is the poison pattern.
  static Tensor poisoned(std::vector<int64_t> Shape) {
    int64_t N = 1;
    for (int64_t D : Shape)
      N *= D;
    return Tensor(std::move(Shape), std::vector<float>(N, poison()));
  }
  static float poison() {
    uint32_t Bits = 0x7fc0dead; // a NaN no kernel computes
    float F;
    std::memcpy(&F, &Bits, 4);
    return F;
  }
  bool isPoisoned() const {
    for (float V : Values)
      if (std::memcmp(&V, &Values[0], 4) != 0 || !std::isnan(V))
        return false;
    return !Values.empty();
  }
  TileArg arg() {
    TileArg A{};
    A.kind = TILE_ARG_TENSOR;
    A.value.tensor = &DL;
    return A;
  }
  std::vector<int64_t> Shape;
  std::vector<float> Values;
  DLTensor DL;
};

TileArg floatArg(double V) {
  TileArg A{};
  A.kind = TILE_ARG_FLOAT;
  A.value.f64 = V;
  return A;
}

TileArg intArg(int64_t V) {
  TileArg A{};
  A.kind = TILE_ARG_INT;
  A.value.i64 = V;
  return A;
}

class DriverEntryPointTest : public ::testing::Test {
protected:
  void SetUp() override {
    Compiled &C = getCompiled();
    ASSERT_EQ(C.Error, "");
    auto E = Executor::create(ExecBackendKind::Orc);
    ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
    Exec = std::move(*E);
    auto L = Exec->load(C.Artifact);
    ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
    Loaded = std::move(*L);
  }

  /// Calls \p Entry; the error text, or "" on success.
  std::string call(llvm::StringRef Entry, std::vector<TileArg> Args) {
    if (llvm::Error E = Loaded->call(Entry, Args))
      return llvm::toString(std::move(E));
    return "";
  }

  /// A = [M, K], B = [K, N] with small distinct values, C poisoned.
  void makeMatmul(int64_t M, int64_t K, int64_t N) {
    std::vector<float> AV(M * K), BV(K * N);
    for (int64_t I = 0; I != M * K; ++I)
      AV[I] = float(I % 5) - 2;
    for (int64_t I = 0; I != K * N; ++I)
      BV[I] = float(I % 3) * 0.5f;
    A.emplace(std::vector<int64_t>{M, K}, AV);
    B.emplace(std::vector<int64_t>{K, N}, BV);
    C.emplace(Tensor::poisoned({M, N}));
  }
  std::vector<TileArg> mmArgs() { return {A->arg(), B->arg(), C->arg()}; }

  std::unique_ptr<Executor> Exec;
  std::unique_ptr<LoadedArtifact> Loaded;
  std::optional<Tensor> A, B, C;
};

//===----------------------------------------------------------------------===//
// Good calls
//===----------------------------------------------------------------------===//

TEST_F(DriverEntryPointTest, MatmulWritesTheProduct) {
  makeMatmul(5, 7, 3);
  ASSERT_EQ(call("mm", mmArgs()), "");
  for (int64_t I = 0; I != 5; ++I)
    for (int64_t J = 0; J != 3; ++J) {
      double Want = 0;
      for (int64_t K = 0; K != 7; ++K)
        Want += double(A->Values[I * 7 + K]) * B->Values[K * 3 + J];
      EXPECT_EQ(C->Values[I * 3 + J], float(Want)) << "C[" << I << ", " << J << "]";
    }
}

TEST_F(DriverEntryPointTest, ExplicitRowMajorStridesAreAccepted) {
  makeMatmul(2, 3, 4);
  int64_t AS[2] = {3, 1}, BS[2] = {4, 1};
  A->DL.strides = AS;
  B->DL.strides = BS;
  ASSERT_EQ(call("mm", mmArgs()), "");
  EXPECT_FALSE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, EmptyTensorMayHaveNullData) {
  // M = 0: nothing to read or write, so null data is fine.
  makeMatmul(0, 3, 4);
  A->DL.data = nullptr;
  C->DL.data = nullptr;
  EXPECT_EQ(call("mm", mmArgs()), "");
}

TEST_F(DriverEntryPointTest, DeclaredStrideBindsItsSymbol) {
  // X is a [3, 4] window with row stride 6 into a [3, 6] buffer; the
  // kernel adds S to each element, so S must be 6 and the skipped columns
  // must not be read.
  std::vector<float> Buf(3 * 6);
  for (int I = 0; I != 18; ++I)
    Buf[I] = float(I);
  Tensor X({3, 4}, Buf);
  int64_t XS[2] = {6, 1};
  X.DL.strides = XS;
  Tensor Y = Tensor::poisoned({3, 4});
  ASSERT_EQ(call("strided", {X.arg(), Y.arg()}), "");
  for (int R = 0; R != 3; ++R)
    for (int Col = 0; Col != 4; ++Col)
      EXPECT_EQ(Y.Values[R * 4 + Col], float(R * 6 + Col + 6))
          << "Y[" << R << ", " << Col << "]";
}

TEST_F(DriverEntryPointTest, DeclaredStrideDefaultsToRowMajor) {
  // Without strides, S is the row length.
  Tensor X({2, 5}, std::vector<float>(10, 1.0f));
  Tensor Y = Tensor::poisoned({2, 5});
  ASSERT_EQ(call("strided", {X.arg(), Y.arg()}), "");
  EXPECT_EQ(Y.Values, std::vector<float>(10, 6.0f));
}

TEST_F(DriverEntryPointTest, ScalarsArePassedByKind) {
  Tensor X({4}, {1, 2, 3, 4});
  Tensor Y = Tensor::poisoned({4});
  ASSERT_EQ(call("axpy", {X.arg(), Y.arg(), floatArg(0.5), intArg(-3)}), "");
  EXPECT_EQ(Y.Values, (std::vector<float>{-2.5f, -2, -1.5f, -1}));
}

//===----------------------------------------------------------------------===//
// Rejected calls: the exact message, and the output untouched
//===----------------------------------------------------------------------===//

TEST_F(DriverEntryPointTest, WrongArgumentCount) {
  makeMatmul(2, 3, 4);
  EXPECT_EQ(call("mm", {A->arg(), B->arg()}), "'tile_mm' takes 3 arguments, got 2");
  std::vector<TileArg> Four = mmArgs();
  Four.push_back(intArg(1));
  EXPECT_EQ(call("mm", Four), "'tile_mm' takes 3 arguments, got 4");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, UnknownEntryPoint) {
  makeMatmul(2, 3, 4);
  EXPECT_EQ(call("matmul", mmArgs()),
            "no entry point 'matmul' in the artifact; it has: mm, strided, colmajor, axpy");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, PreparedEntryRunsAndChecksEachCall) {
  auto Unknown = Loaded->prepare("matmul");
  ASSERT_FALSE(bool(Unknown));
  EXPECT_EQ(llvm::toString(Unknown.takeError()),
            "no entry point 'matmul' in the artifact; it has: mm, strided, colmajor, axpy");
  auto P = Loaded->prepare("mm");
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  makeMatmul(3, 2, 4);
  ASSERT_FALSE(bool((*P)->call(mmArgs())));
  EXPECT_FALSE(C->isPoisoned());
  // Another shape through the same prepared entry, then a refused one.
  makeMatmul(2, 5, 1);
  ASSERT_FALSE(bool((*P)->call(mmArgs())));
  for (int64_t I = 0; I != 2; ++I) {
    double Want = 0;
    for (int64_t K = 0; K != 5; ++K)
      Want += double(A->Values[I * 5 + K]) * B->Values[K];
    EXPECT_EQ(C->Values[I], float(Want)) << "C[" << I << "]";
  }
  makeMatmul(2, 3, 4);
  std::vector<TileArg> Args = mmArgs();
  Args[1] = intArg(7);
  llvm::Error E = (*P)->call(Args);
  bool Refused = E.isA<ArgumentError>();
  EXPECT_EQ(llvm::toString(std::move(E)).find("argument 'B' (#1)"), 0u);
  EXPECT_TRUE(Refused);
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, WrongArgumentKind) {
  makeMatmul(2, 3, 4);
  std::vector<TileArg> Args = mmArgs();
  Args[1] = intArg(7);
  EXPECT_EQ(call("mm", Args),
            "argument 'B' (#1) must be a tensor (TileArg kind 0), got kind 1");
  EXPECT_TRUE(C->isPoisoned());

  Tensor X({4}, {1, 2, 3, 4});
  Tensor Y = Tensor::poisoned({4});
  EXPECT_EQ(call("axpy", {X.arg(), Y.arg(), intArg(1), intArg(2)}),
            "argument 'alpha' (#2) must be a float scalar of type f32 (TileArg "
            "kind 2), got kind 1");
  EXPECT_EQ(call("axpy", {X.arg(), Y.arg(), floatArg(1), floatArg(2)}),
            "argument 'offset' (#3) must be an integer scalar of type i32 "
            "(TileArg kind 1), got kind 2");
  EXPECT_EQ(call("axpy", {X.arg(), Y.arg(), X.arg(), intArg(2)}),
            "argument 'alpha' (#2) must be a float scalar of type f32 (TileArg "
            "kind 2), got kind 0");
  EXPECT_TRUE(Y.isPoisoned());
}

TEST_F(DriverEntryPointTest, NullTensor) {
  makeMatmul(2, 3, 4);
  std::vector<TileArg> Args = mmArgs();
  Args[0].value.tensor = nullptr;
  EXPECT_EQ(call("mm", Args), "argument 'A' (#0) is a null tensor");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, NullDataPointer) {
  makeMatmul(2, 3, 4);
  B->DL.data = nullptr;
  EXPECT_EQ(call("mm", mmArgs()), "argument 'B' (#1) has a null data pointer");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, NullShapePointer) {
  makeMatmul(2, 3, 4);
  A->DL.shape = nullptr;
  EXPECT_EQ(call("mm", mmArgs()), "argument 'A' (#0) has a null shape pointer");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, WrongDeviceType) {
  makeMatmul(2, 3, 4);
  A->DL.device = {kDLCUDA, 0};
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'A' (#0): tensor is on DLPack device type 2, expected 1");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, WrongRankAndDType) {
  makeMatmul(2, 3, 4);
  B->DL.ndim = 1;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'B' (#1): expected a tensor of rank 2, got rank 1");
  B->DL.ndim = 2;
  B->DL.dtype = {kDLFloat, 32, 2};
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'B' (#1): expected dtype f32 (DLPack f32), got f32x2");
  B->DL.dtype = {kDLBfloat, 16, 1};
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'B' (#1): expected dtype f32 (DLPack f32), got bf16");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, SharedDimensionMismatch) {
  makeMatmul(2, 3, 4);
  int64_t CS[2] = {2, 5};
  C->DL.shape = CS;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'C' (#2) dimension 1 (N) is 5, but argument 'B' (#1) "
            "dimension 1 set N = 4");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, DimensionBeyond32Bits) {
  makeMatmul(2, 3, 4);
  int64_t AS[2] = {int64_t(1) << 31, 3};
  A->DL.shape = AS;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'A' (#0) dimension 0 (M) is 2147483648, beyond the "
            "32-bit index range (at most 2147483647)");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, NonRowMajorStrides) {
  makeMatmul(2, 3, 4);
  int64_t AS[2] = {1, 2}; // column-major
  A->DL.strides = AS;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'A' (#0) stride of dimension 0 is 1, expected 3 "
            "(row-major; pass a contiguous tensor)");
  EXPECT_TRUE(C->isPoisoned());
  // A padded row is not contiguous either.
  int64_t CS[2] = {8, 1};
  A->DL.strides = nullptr;
  C->DL.strides = CS;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'C' (#2) stride of dimension 0 is 8, expected 4 "
            "(row-major; pass a contiguous tensor)");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, StrideOfUnitDimensionIsIgnored) {
  // A dimension of extent 1 may have any stride (as PyTorch makes them).
  makeMatmul(1, 3, 4);
  int64_t AS[2] = {12345, 1};
  A->DL.strides = AS;
  EXPECT_EQ(call("mm", mmArgs()), "");
  EXPECT_FALSE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, DeclaredUnitStrideEnforced) {
  // strides(S, 1): the inner stride must be 1.
  Tensor X({2, 3}, std::vector<float>(12, 1.0f));
  int64_t XS[2] = {6, 2};
  X.DL.strides = XS;
  Tensor Y = Tensor::poisoned({2, 3});
  EXPECT_EQ(call("strided", {X.arg(), Y.arg()}),
            "argument 'X' (#0) stride of dimension 1 is 2, expected 1 (as "
            "declared; a tensor without strides is row-major)");
  EXPECT_TRUE(Y.isPoisoned());
}

TEST_F(DriverEntryPointTest, DeclaredStridesCheckedWithoutStrides) {
  // strides(1, R) is column-major; a tensor without strides is row-major
  // (DLPack), so it is refused rather than read in the declared layout.
  Tensor X({2, 3}, std::vector<float>(6, 1.0f));
  X.DL.strides = nullptr;
  Tensor Y = Tensor::poisoned({2, 3});
  EXPECT_EQ(call("colmajor", {X.arg(), Y.arg()}),
            "argument 'X' (#0) stride of dimension 0 is 3, expected 1 (as "
            "declared; a tensor without strides is row-major)");
  EXPECT_TRUE(Y.isPoisoned());
  // The same tensor with its column-major strides given runs.
  int64_t XS[2] = {1, 2};
  X.DL.strides = XS;
  EXPECT_EQ(call("colmajor", {X.arg(), Y.arg()}), "");
  EXPECT_FALSE(Y.isPoisoned());
}

TEST_F(DriverEntryPointTest, MisalignedData) {
  makeMatmul(2, 3, 4);
  // 2 bytes past a 4-byte boundary.
  std::vector<char> Raw(2 + 4 * 6 + 4);
  char *Base = reinterpret_cast<char *>(
      (reinterpret_cast<uintptr_t>(Raw.data()) + 3) & ~uintptr_t(3));
  A->DL.data = Base + 2;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'A' (#0) data is not aligned to 4 bytes (address % "
            "alignment = 2)");
  EXPECT_TRUE(C->isPoisoned());
  // byte_offset counts: aligned data plus an offset of 1.
  A->DL.data = A->Values.data();
  A->DL.byte_offset = 1;
  EXPECT_EQ(call("mm", mmArgs()),
            "argument 'A' (#0) data is not aligned to 4 bytes (address % "
            "alignment = 1)");
  EXPECT_TRUE(C->isPoisoned());
}

TEST_F(DriverEntryPointTest, ByteOffsetIsApplied) {
  // The tensor starts 4 floats into its buffer.
  makeMatmul(2, 3, 4);
  std::vector<float> Shifted(4, -100.0f);
  Shifted.insert(Shifted.end(), A->Values.begin(), A->Values.end());
  std::vector<float> Want;
  {
    ASSERT_EQ(call("mm", mmArgs()), "");
    Want = C->Values;
  }
  C->Values.assign(C->Values.size(), Tensor::poison());
  A->DL.data = Shifted.data();
  A->DL.byte_offset = 16;
  ASSERT_EQ(call("mm", mmArgs()), "");
  EXPECT_EQ(C->Values, Want);
}

//===----------------------------------------------------------------------===//
// Exported artifacts
//===----------------------------------------------------------------------===//

class DriverArtifactTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(getCompiled().Error, ""); }
};

TEST_F(DriverArtifactTest, RoundTripLoadsAndRuns) {
  const KernelArtifact &Orig = getCompiled().Artifact;
  std::string Bytes = Orig.serialize();
  llvm::Expected<KernelArtifact> Back = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->serialize(), Bytes);
  EXPECT_EQ(Back->Target, Orig.Target);
  EXPECT_EQ(Back->ExecBackend, "orc");
  ASSERT_EQ(Back->Entries.size(), 4u);
  const ArtifactEntry *S = Back->findEntry("strided");
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Symbol, "tile_strided");
  ASSERT_EQ(S->Params.size(), 2u);
  EXPECT_EQ(S->Params[0].Shape, (std::vector<std::string>{"R", "W"}));
  EXPECT_EQ(S->Params[0].Strides, (std::vector<std::string>{"S", "1"}));
  EXPECT_EQ(S->Params[0].DType, "f32");

  auto E = Executor::create(ExecBackendKind::Orc);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  auto L = (*E)->load(*Back);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  Tensor X({4}, {1, 2, 3, 4});
  Tensor Y = Tensor::poisoned({4});
  std::vector<TileArg> Args = {X.arg(), Y.arg(), floatArg(2), intArg(1)};
  ASSERT_FALSE(bool((*L)->call("axpy", Args)));
  EXPECT_EQ(Y.Values, (std::vector<float>{3, 5, 7, 9}));
}

TEST_F(DriverArtifactTest, CorruptArtifactsAreRejected) {
  std::string Bytes = getCompiled().Artifact.serialize();
  auto Text = [](llvm::StringRef B) {
    llvm::Expected<KernelArtifact> A = KernelArtifact::deserialize(B);
    if (A)
      return std::string("success");
    return llvm::toString(A.takeError());
  };
  EXPECT_EQ(Text(""), "corrupt Tile artifact: bad magic (not a Tile artifact)");
  std::string BadMagic = Bytes;
  BadMagic[0] = 'X';
  EXPECT_EQ(Text(BadMagic), "corrupt Tile artifact: bad magic (not a Tile artifact)");
  EXPECT_EQ(Text(llvm::StringRef(Bytes).take_front(10)),
            "corrupt Tile artifact: truncated header");
  std::string BadVersion = Bytes;
  BadVersion[8] = 9;
  EXPECT_EQ(Text(BadVersion), "corrupt Tile artifact: version 9, expected 2");
  // Cut anywhere, it is an error, never a crash or a partial artifact.
  for (size_t Cut : {size_t(16), size_t(40), Bytes.size() / 2, Bytes.size() - 1})
    EXPECT_EQ(Text(llvm::StringRef(Bytes).take_front(Cut)),
              "corrupt Tile artifact: truncated")
        << "cut at " << Cut << " of " << Bytes.size();
  EXPECT_EQ(Text(Bytes + "xyz"), "corrupt Tile artifact: 3 trailing bytes");
}

/// Little-endian u64 at \p At of \p B.
uint64_t readU64(llvm::StringRef B, size_t At) {
  uint64_t V = 0;
  std::memcpy(&V, B.data() + At, 8);
  return V;
}
std::string u64Bytes(uint64_t V) {
  std::string S(8, '\0');
  std::memcpy(S.data(), &V, 8);
  return S;
}

TEST_F(DriverArtifactTest, DeviceFormatIsWrittenByNameAndVersion1IsRead) {
  // After the magic, the version, the target and the execution backend:
  // the format's name, then the device architecture (on the CPU, the CPU
  // the code is for).
  const KernelArtifact &Compiled = getCompiled().Artifact;
  ASSERT_FALSE(Compiled.DeviceArch.empty());
  std::string WithArch = Compiled.serialize();
  size_t At = 16;
  At += 8 + readU64(WithArch, At); // target
  At += 8 + readU64(WithArch, At); // execution backend
  size_t FormatAt = At;
  ASSERT_EQ(readU64(WithArch, At), 6u);
  EXPECT_EQ(llvm::StringRef(WithArch).substr(At + 8, 6), "object");
  At += 8 + 6;
  ASSERT_EQ(readU64(WithArch, At), Compiled.DeviceArch.size());
  EXPECT_EQ(llvm::StringRef(WithArch).substr(At + 8, Compiled.DeviceArch.size()),
            Compiled.DeviceArch);

  // The rest on the artifact without an architecture, which version 1
  // could write.
  KernelArtifact A = Compiled;
  A.DeviceArch.clear();
  std::string Bytes = A.serialize();
  EXPECT_EQ(readU64(Bytes, At), 0u);
  size_t AfterArch = At + 8;

  std::string Unknown = Bytes;
  Unknown.replace(FormatAt + 8, 6, "objekt");
  llvm::Expected<KernelArtifact> U = KernelArtifact::deserialize(Unknown);
  EXPECT_EQ(U ? std::string("success") : llvm::toString(U.takeError()),
            "corrupt Tile artifact: unknown device format 'objekt' (a target "
            "backend that declares it registers it)");

  // Version 1 numbered the shared formats and had no architecture field.
  std::string V1 = Bytes.substr(0, 8) + u64Bytes(1) +
                   Bytes.substr(16, FormatAt - 16) +
                   u64Bytes(unsigned(DeviceFormat::Object)) +
                   Bytes.substr(AfterArch);
  llvm::Expected<KernelArtifact> Old = KernelArtifact::deserialize(V1);
  ASSERT_TRUE(bool(Old)) << llvm::toString(Old.takeError());
  EXPECT_EQ(Old->DeviceFmt, DeviceFormat::Object);
  EXPECT_EQ(Old->serialize(), Bytes);
  std::string V1Bad = V1;
  V1Bad.replace(FormatAt, 8, u64Bytes(1000));
  llvm::Expected<KernelArtifact> Bad = KernelArtifact::deserialize(V1Bad);
  EXPECT_EQ(Bad ? std::string("success") : llvm::toString(Bad.takeError()),
            "corrupt Tile artifact: unknown device format 1000");
}

TEST_F(DriverArtifactTest, TimingsAreTypedAndNotWritten) {
  const KernelArtifact &A = getCompiled().Artifact;
  // The CPU backend times its phases, in the order they ran.
  std::vector<std::string> Phases;
  for (const KernelArtifact::CodeGenTiming &T : A.Timings) {
    Phases.push_back(T.Phase);
    EXPECT_GE(T.Seconds, 0.0) << T.Phase;
  }
  EXPECT_EQ(Phases, (std::vector<std::string>{"llvm-ir", "llvm-setup",
                                              "llvm-opt", "llvm-codegen"}));
  for (const auto &[K, V] : A.Notes)
    EXPECT_FALSE(llvm::StringRef(K).starts_with("time.")) << K;
  llvm::Expected<KernelArtifact> Back =
      KernelArtifact::deserialize(A.serialize());
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->Timings.empty());
}

TEST_F(DriverArtifactTest, FileRoundTripAndUnreadableFile) {
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("entry-test", "tileart", Path));
  ASSERT_FALSE(bool(getCompiled().Artifact.writeToFile(Path)));
  llvm::Expected<KernelArtifact> A = KernelArtifact::readFromFile(Path);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_EQ(A->serialize(), getCompiled().Artifact.serialize());
  llvm::sys::fs::remove(Path);
  llvm::Expected<KernelArtifact> Gone = KernelArtifact::readFromFile(Path);
  ASSERT_FALSE(bool(Gone));
  EXPECT_EQ(llvm::toString(Gone.takeError()),
            "cannot read '" + Path.str().str() + "': No such file or directory");
}


//===----------------------------------------------------------------------===//
// Host libraries
//===----------------------------------------------------------------------===//

/// Calls axpy on \p L and checks its result; "" on success.
std::string runAxpy(LoadedArtifact &L) {
  Tensor X({4}, {1, 2, 3, 4});
  Tensor Y = Tensor::poisoned({4});
  std::vector<TileArg> Args = {X.arg(), Y.arg(), floatArg(2), intArg(1)};
  if (llvm::Error E = L.call("axpy", Args))
    return llvm::toString(std::move(E));
  if (Y.Values != std::vector<float>{3, 5, 7, 9})
    return "wrong result";
  return "";
}

/// The suite's artifact with its host code linked into a host library, or
/// the reason there is none.
llvm::Expected<KernelArtifact> getLinkedArtifact() {
  std::optional<std::string> Linker = findLinker();
  if (!Linker)
    return llvm::createStringError("no ld.lld of LLVM 22");
  KernelArtifact A = getCompiled().Artifact;
  if (llvm::Error E = linkHostLibrary(A, *Linker))
    return std::move(E);
  return A;
}

/// The serialized bytes of \p A and where its host library section starts.
std::pair<std::string, size_t> serializeWithSection(const KernelArtifact &A) {
  std::string Bytes = A.serialize();
  return {Bytes, Bytes.rfind("HOSTLIB1")};
}

TEST_F(DriverArtifactTest, HostLibraryRoundTripsAndLoadsWithDlopen) {
  if (!findLinker())
    GTEST_SKIP() << "no ld.lld of LLVM 22";
  llvm::Expected<KernelArtifact> A = getLinkedArtifact();
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  ASSERT_TRUE(llvm::StringRef(A->HostLibrary).starts_with("\x7f" "ELF"));
  EXPECT_EQ(A->Notes.count("toolchain:" + *findLinker()), 1u);
  // The objects stay: a process that cannot load the library links them.
  EXPECT_TRUE(A->HostObject == getCompiled().Artifact.HostObject);

  auto [Bytes, At] = serializeWithSection(*A);
  // The section is the last one: the tag, the length, the library.
  ASSERT_NE(At, std::string::npos);
  EXPECT_EQ(Bytes.size(), At + 8 + 8 + A->HostLibrary.size());
  EXPECT_EQ(readU64(Bytes, At + 8), A->HostLibrary.size());
  // Without a library, no section, and the rest is written as before.
  KernelArtifact Without = *A;
  Without.HostLibrary.clear();
  EXPECT_TRUE(llvm::StringRef(Bytes).take_front(At) == Without.serialize());

  llvm::Expected<KernelArtifact> Back = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_TRUE(Back->HostLibrary == A->HostLibrary);
  EXPECT_TRUE(Back->serialize() == Bytes);

  auto E = Executor::create(ExecBackendKind::Orc);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  auto L = (*E)->load(*Back);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ((*L)->getHostCodeKind(), LoadedArtifact::HostCodeKind::Library);
  EXPECT_TRUE((*L)->getWarnings().empty());
  EXPECT_EQ(runAxpy(**L), "");
  // Without the library, the same artifact links its objects.
  auto O = (*E)->load(getCompiled().Artifact);
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  EXPECT_EQ((*O)->getHostCodeKind(), LoadedArtifact::HostCodeKind::Objects);
  EXPECT_EQ(runAxpy(**O), "");
}

TEST_F(DriverArtifactTest, DamagedHostLibrarySectionIsRejected) {
  // Made by hand: the section does not need a linker to be read.
  KernelArtifact A = getCompiled().Artifact;
  A.HostLibrary = std::string("\x7f" "ELF", 4) + std::string(60, 'L');
  auto [Bytes, At] = serializeWithSection(A);
  ASSERT_NE(At, std::string::npos);
  auto Text = [](llvm::StringRef B) {
    llvm::Expected<KernelArtifact> R = KernelArtifact::deserialize(B);
    return R ? std::string("success") : llvm::toString(R.takeError());
  };
  ASSERT_EQ(Text(Bytes), "success");
  // Cut in the length or in the library.
  for (size_t Cut : {At + 8, At + 12, At + 16, At + 16 + 30, Bytes.size() - 1})
    EXPECT_EQ(Text(llvm::StringRef(Bytes).take_front(Cut)),
              "corrupt Tile artifact: truncated host library")
        << "cut at " << Cut << " of " << Bytes.size();
  // Cut in the tag: bytes that are no section.
  EXPECT_EQ(Text(llvm::StringRef(Bytes).take_front(At + 5)),
            "corrupt Tile artifact: 5 trailing bytes");
  // A length past the end.
  std::string Long = Bytes;
  Long.replace(At + 8, 8, u64Bytes(A.HostLibrary.size() + 1));
  EXPECT_EQ(Text(Long), "corrupt Tile artifact: truncated host library");
  // A length short of the end leaves bytes no section claims.
  std::string Short = Bytes;
  Short.replace(At + 8, 8, u64Bytes(A.HostLibrary.size() - 3));
  EXPECT_EQ(Text(Short), "corrupt Tile artifact: 3 trailing bytes");
  // An empty library is never written.
  std::string Empty = Bytes.substr(0, At + 8) + u64Bytes(0);
  EXPECT_EQ(Text(Empty), "corrupt Tile artifact: empty host library (an "
                         "artifact without one has no host library section)");
  EXPECT_EQ(Text(Bytes + "x"), "corrupt Tile artifact: 1 trailing bytes");
}

TEST_F(DriverArtifactTest, RefusedHostLibraryLinksTheObjectsWithAWarning) {
  KernelArtifact A = getCompiled().Artifact;
  A.HostLibrary = "not a shared object";
  auto E = Executor::create(ExecBackendKind::Orc);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  auto L = (*E)->load(A);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ((*L)->getHostCodeKind(), LoadedArtifact::HostCodeKind::Objects);
  ASSERT_EQ((*L)->getWarnings().size(), 1u);
  EXPECT_TRUE(llvm::StringRef((*L)->getWarnings()[0])
                  .starts_with("the artifact's host library was not used "
                               "(cannot load the artifact's host library: "))
      << (*L)->getWarnings()[0];
  EXPECT_TRUE(llvm::StringRef((*L)->getWarnings()[0])
                  .ends_with("); its host objects were linked through ORC "
                             "instead, which is slower to load"))
      << (*L)->getWarnings()[0];
  EXPECT_EQ(runAxpy(**L), "");

  // Without objects to fall back on, the load fails with the loader's
  // reason.
  A.HostObject.clear();
  A.DeviceCode.clear();
  A.DeviceFmt = DeviceFormat::Object;
  auto Bad = (*E)->load(A);
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_TRUE(llvm::StringRef(Msg).starts_with("the artifact has no host object"))
      << Msg;
}

TEST_F(DriverArtifactTest, AFailedLinkLeavesTheArtifactUnchanged) {
  KernelArtifact A = getCompiled().Artifact;
  std::string Before = A.serialize();
  llvm::Error E = linkHostLibrary(A, "/bin/false");
  ASSERT_TRUE(bool(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "/bin/false failed (exit 1) and printed nothing");
  EXPECT_EQ(A.serialize(), Before);
  EXPECT_EQ(A.Notes.count("toolchain:/bin/false"), 0u);

  llvm::Error Missing = linkHostLibrary(A, "/nonexistent/ld.lld");
  ASSERT_TRUE(bool(Missing));
  EXPECT_TRUE(llvm::StringRef(llvm::toString(std::move(Missing)))
                  .starts_with("/nonexistent/ld.lld failed ("));
  EXPECT_EQ(A.serialize(), Before);

  KernelArtifact NoHost;
  NoHost.DeviceCode = "device code";
  llvm::Error None = linkHostLibrary(NoHost, "/bin/false");
  EXPECT_EQ(llvm::toString(std::move(None)), "the artifact has no host object");
}

TEST(ExternalTool, NoneAsksForNoProgram) {
  ::setenv("TILE_TEST_TOOL", "none", 1);
  EXPECT_FALSE(findExternalTool("TILE_TEST_TOOL", "sh", "/bin/sh").has_value());
  ::setenv("TILE_TEST_TOOL", "/opt/some/tool", 1);
  EXPECT_EQ(findExternalTool("TILE_TEST_TOOL", "sh", "/bin/sh"),
            std::optional<std::string>("/opt/some/tool"));
  ::unsetenv("TILE_TEST_TOOL");
  EXPECT_TRUE(findExternalTool("TILE_TEST_TOOL", "sh", "/bin/sh").has_value());
  const char *Saved = std::getenv("TILE_LD_LLD");
  std::optional<std::string> Restore;
  if (Saved)
    Restore = Saved;
  ::setenv("TILE_LD_LLD", "none", 1);
  EXPECT_FALSE(findLinker().has_value());
  if (Restore)
    ::setenv("TILE_LD_LLD", Restore->c_str(), 1);
  else
    ::unsetenv("TILE_LD_LLD");
}

} // namespace
