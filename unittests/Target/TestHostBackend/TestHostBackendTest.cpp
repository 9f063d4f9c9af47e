//===- TestHostBackendTest.cpp - A backend with its own runtime -----------===//
//
// The TestHost backend (TestHost.td) declares a device format and an
// execution backend of its own. Once its generated registration function
// has run, both are in libTileExec's tables next to the shared ones,
// resolution picks its execution backend, compiling produces its format,
// and Executor::create runs the result through its executor.
//
//===----------------------------------------------------------------------===//

#include "TestHostBackend.h"
#include "tile/Driver/CompileModule.h"
#include "tile/Exec/Executor.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Verifier.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"
#include <dlpack/dlpack.h>

using namespace tile;

namespace {

const char *const kAxpy = R"(
func @axpy(%X: f32[N], %Y: f32[N], %alpha: f32) {
  kernel grid(N) threads(1) (%i) {
    %Y[%i] = %alpha * %X[%i] + %Y[%i]
  }
}
)";

TargetRegistry makeRegistry() {
  TargetRegistry R;
  llvm::cantFail(registerTestHostTargetBackends(R));
  return R;
}

std::string errorText(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : "success";
}

TEST(TestHostBackend, RegistersItsFormatAndExecutionBackend) {
  TargetRegistry R = makeRegistry();
  const DeviceFormatInfo *F = lookupDeviceFormat("testhost-object");
  ASSERT_NE(F, nullptr);
  EXPECT_FALSE(F->IsText);
  EXPECT_GE(unsigned(F->Format), NumDeviceFormats);
  const ExecBackendInfo *E = lookupExecBackend("testhost-orc");
  ASSERT_NE(E, nullptr);
  EXPECT_GE(unsigned(E->Kind), NumExecBackends);
  EXPECT_TRUE(E->consumes(F->Format));
  EXPECT_TRUE(E->NeedsHostCodeGen);
  EXPECT_NE(E->Create, nullptr);
  EXPECT_TRUE(llvm::any_of(getExecBackends(), [&](const ExecBackendInfo &I) {
    return &I == E;
  }));

  const TargetBackendInfo *B = R.lookupBackend("TestHost");
  ASSERT_NE(B, nullptr);
  ASSERT_EQ(B->outputs().size(), 1u);
  EXPECT_EQ(B->outputs()[0].Format, F->Format);
  ASSERT_EQ(B->execBackends().size(), 1u);
  EXPECT_EQ(B->execBackends()[0].Exec, E->Kind);

  // A second registry registers the same backend: the format and the
  // execution backend keep their values.
  TargetRegistry Again = makeRegistry();
  EXPECT_EQ(lookupDeviceFormat("testhost-object"), F);
  EXPECT_EQ(lookupExecBackend("testhost-orc"), E);
  EXPECT_EQ(errorText(registerTestHostTargetBackends(R)),
            "target backend 'TestHost' is already registered");
}

TEST(TestHostBackend, ResolvesToItsExecutionBackend) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Ctx =
      resolveBackendContext(R, "testhost", "", "auto");
  ASSERT_TRUE(bool(Ctx)) << llvm::toString(Ctx.takeError());
  EXPECT_STREQ(Ctx->getBackend().Name, "TestHost");
  EXPECT_STREQ(Ctx->getExecBackend().Name, "testhost-orc");
  ASSERT_EQ(Ctx->getExecContract().formats().size(), 1u);
  EXPECT_STREQ(
      getDeviceFormatInfo(Ctx->getExecContract().formats()[0]).Name,
      "testhost-object");
  EXPECT_NE(
      getExecAvailability(Ctx->getExecBackend().Kind).Reason.find("testhost"),
      std::string::npos);
  // The shared execution backends cannot run it.
  llvm::Expected<BackendContext> Orc =
      resolveBackendContext(R, "testhost", "", "orc");
  EXPECT_EQ(errorText(Orc.takeError()),
            "execution backend 'orc' cannot run target 'testhost "
            "-mcpu=native' (backend TestHost); compatible execution "
            "backends, in auto order: testhost-orc");
}

/// Compiles kAxpy for `testhost`.
llvm::Expected<KernelArtifact> compileAxpy(TargetRegistry &R) {
  TileContext TC;
  R.registerDialects(TC.getOpRegistry());
  llvm::SourceMgr SM;
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  DiagnosticEngine Diag(&SM, &OS);
  std::unique_ptr<Module> M = parseModuleString(kAxpy, "axpy.tile", SM, TC, Diag);
  if (!M || !verifyModule(*M, Diag))
    return llvm::createStringError("parse: " + Diags);
  llvm::Expected<BackendContext> Ctx =
      resolveBackendContext(R, "testhost", "", "auto");
  if (!Ctx)
    return Ctx.takeError();
  llvm::Expected<KernelArtifact> A = compileModule(R, *Ctx, *M, Diag);
  if (!A)
    return llvm::createStringError(llvm::toString(A.takeError()) + "\n" +
                                   Diags);
  return A;
}

DLTensor tensorOf(std::vector<float> &V, int64_t &N) {
  DLTensor T{};
  T.data = V.data();
  T.device = {kDLCPU, 0};
  T.ndim = 1;
  T.dtype = {kDLFloat, 32, 1};
  N = int64_t(V.size());
  T.shape = &N;
  return T;
}

TEST(TestHostBackend, CompilesToItsFormatAndRunsOnItsExecutor) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<KernelArtifact> A = compileAxpy(R);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_STREQ(getDeviceFormatInfo(A->DeviceFmt).Name, "testhost-object");
  EXPECT_EQ(A->ExecBackend, "testhost-orc");
  EXPECT_FALSE(A->DeviceCode.empty());
  EXPECT_FALSE(A->HostObject.empty());

  const ExecBackendInfo *Info = lookupExecBackend("testhost-orc");
  ASSERT_NE(Info, nullptr);
  llvm::Expected<std::unique_ptr<Executor>> Ex = Executor::create(Info->Kind);
  ASSERT_TRUE(bool(Ex)) << llvm::toString(Ex.takeError());
  EXPECT_EQ((*Ex)->getKind(), Info->Kind);
  llvm::Expected<std::unique_ptr<LoadedArtifact>> L = (*Ex)->load(*A);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());

  std::vector<float> X(100), Y(100);
  for (unsigned I = 0; I != 100; ++I) {
    X[I] = float(I);
    Y[I] = 1.0f;
  }
  int64_t NX, NY;
  DLTensor TX = tensorOf(X, NX), TY = tensorOf(Y, NY);
  TileArg Args[3] = {};
  Args[0].kind = TILE_ARG_TENSOR;
  Args[0].value.tensor = &TX;
  Args[1].kind = TILE_ARG_TENSOR;
  Args[1].value.tensor = &TY;
  Args[2].kind = TILE_ARG_FLOAT;
  Args[2].value.f64 = 2.0;
  ASSERT_EQ(errorText((*L)->call("axpy", Args)), "success");
  ASSERT_EQ(errorText((*Ex)->synchronize()), "success");
  for (unsigned I = 0; I != 100; ++I)
    ASSERT_EQ(Y[I], 2.0f * float(I) + 1.0f) << I;

  // Written and read back, the artifact keeps its format.
  std::string Bytes = A->serialize();
  llvm::Expected<KernelArtifact> Back = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  EXPECT_EQ(Back->DeviceFmt, A->DeviceFmt);
}

TEST(TestHostBackend, ItsExecutorRefusesOtherFormats) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<KernelArtifact> A = compileAxpy(R);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  A->DeviceFmt = DeviceFormat::Object;
  llvm::Expected<std::unique_ptr<Executor>> Ex =
      Executor::create(lookupExecBackend("testhost-orc")->Kind);
  ASSERT_TRUE(bool(Ex)) << llvm::toString(Ex.takeError());
  EXPECT_EQ(errorText((*Ex)->load(*A).takeError()),
            "execution backend 'testhost-orc' loads testhost-object device "
            "code, not object");
}

} // namespace
