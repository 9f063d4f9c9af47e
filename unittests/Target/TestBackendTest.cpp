//===- TestBackendTest.cpp - A backend added without shared-code edits ----===//
//
// The TestDev backend is defined only in unittests/Target/TestBackend (its
// .td, dialect and entry points, with its own generated registration
// function). Registered next to the built-in backends it resolves, lists,
// orders its execution backends as declared and brings its dialect.
//
//===----------------------------------------------------------------------===//

#include "TestBackend.h"
#include "TestHelpers.h"
#include "tile/IR/IR.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetListing.h"
#include "tile/Target/TargetRegistry.h"
#include "tile/Tools/LLCTool.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#define GET_TILE_TARGET_ENUMS
#include "TestBackend.inc"

using namespace tile;
using tile::testing::errorText;

namespace {

TargetRegistry makeRegistry() {
  TargetRegistry R;
  llvm::cantFail(registerAllTargetBackends(R));
  llvm::cantFail(registerTestTargetBackends(R));
  return R;
}

void setAvailable(TargetRegistry &R, std::vector<ExecBackendKind> Yes) {
  R.setAvailabilityFn([Yes](ExecBackendKind K) {
    if (llvm::is_contained(Yes, K))
      return ExecAvailability::available("test");
    return ExecAvailability::unavailable("not in this test");
  });
}

TEST(TestBackend, RegistersNextToTheBuiltInBackends) {
  TargetRegistry Builtin;
  llvm::cantFail(registerAllTargetBackends(Builtin));
  TargetRegistry R = makeRegistry();
  EXPECT_EQ(R.getBackends().size(), Builtin.getBackends().size() + 1);
  const TargetBackendInfo *B = R.lookupBackend("TestDev");
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(R.lookupKind("tdev"), R.lookupKind("testdev"));
  EXPECT_TRUE(tile::testing::sortedWithMembers(
      tile::testing::listBetween(R.listKinds(), ""), {"cpu", "testdev"}));
  EXPECT_EQ(errorText(registerTestTargetBackends(R)),
            "target backend 'TestDev' is already registered");
}

TEST(TestBackend, ResolvesWithItsAttributesAndFeatures) {
  TargetRegistry R = makeRegistry();
  ResolveOptions Compile;
  Compile.RequireAvailable = false;
  llvm::Expected<BackendContext> Plain =
      resolveBackendContext(R, "tdev", "", "auto", Compile);
  ASSERT_EQ(errorText(Plain), "success");
  EXPECT_EQ(Plain->getTarget().str(), "testdev -model=m1 -fast=false -lanes=32");
  EXPECT_STREQ(Plain->getBackend().Name, "TestDev");
  EXPECT_TRUE(Plain->getFeatureNames().empty());

  llvm::Expected<BackendContext> Magic = resolveBackendContext(
      R, "testdev -model=m3 -fast -lanes=64", "", "auto", Compile);
  ASSERT_EQ(errorText(Magic), "success");
  EXPECT_EQ(Magic->getTarget().str(), "testdev -model=m3 -fast=true -lanes=64");
  EXPECT_EQ(Magic->getFeatureNames(),
            (std::vector<llvm::StringRef>{"test_magic", "test_vector"}));
  EXPECT_TRUE(
      Magic->hasFeature(unsigned(testbackend::Feature::TestMagic)));

  EXPECT_EQ(errorText(resolveBackendContext(R, "testdev -lanes=many", "",
                                            "auto", Compile)
                          .takeError()),
            "attribute 'lanes' of target kind 'testdev' takes an integer, "
            "not 'many'");
  EXPECT_EQ(errorText(resolveBackendContext(R, "testdev -fast=maybe", "",
                                            "auto", Compile)
                          .takeError()),
            "invalid value 'maybe' for attribute 'fast' of target kind "
            "'testdev'; allowed values: false, true");
}

TEST(TestBackend, AutoTakesTheFirstAvailableInDeclaredOrder) {
  TargetRegistry R = makeRegistry();
  setAvailable(R, {ExecBackendKind::Cuda, ExecBackendKind::Orc});
  llvm::Expected<BackendContext> Both = resolveBackendContext(R, "testdev");
  ASSERT_EQ(errorText(Both), "success");
  EXPECT_STREQ(Both->getExecBackend().Name, "cuda");
  EXPECT_EQ(Both->getExecContract().formats(),
            llvm::ArrayRef<DeviceFormat>(DeviceFormat::PTX));

  setAvailable(R, {ExecBackendKind::Orc});
  llvm::Expected<BackendContext> OrcOnly = resolveBackendContext(R, "testdev");
  ASSERT_EQ(errorText(OrcOnly), "success");
  EXPECT_STREQ(OrcOnly->getExecBackend().Name, "orc");
  EXPECT_EQ(OrcOnly->getExecContract().formats(),
            llvm::ArrayRef<DeviceFormat>(DeviceFormat::LLVMIR));

  // An explicit request skips the order.
  setAvailable(R, {ExecBackendKind::Cuda, ExecBackendKind::Orc});
  llvm::Expected<BackendContext> Asked =
      resolveBackendContext(R, "testdev", "", "orc");
  ASSERT_EQ(errorText(Asked), "success");
  EXPECT_STREQ(Asked->getExecBackend().Name, "orc");

  setAvailable(R, {});
  EXPECT_EQ(errorText(resolveBackendContext(R, "testdev").takeError()),
            "no execution backend is available for target 'testdev "
            "-model=m1 -fast=false -lanes=32' (backend TestDev): 'cuda' is "
            "not available: not in this test; 'orc' is not available: not in "
            "this test; run where one of them is available, or resolve for "
            "compilation only");
  EXPECT_EQ(errorText(resolveBackendContext(R, "testdev", "", "hsa")
                          .takeError()),
            "execution backend 'hsa' cannot run target 'testdev -model=m1 "
            "-fast=false -lanes=32' (backend TestDev); compatible execution "
            "backends, in auto order: cuda, orc");
}

TEST(TestBackend, BringsItsDialectAndRunsItsPipeline) {
  TargetRegistry R = makeRegistry();
  TileContext Ctx;
  R.registerDialects(Ctx.getOpRegistry());
  const OpInfo *Magic = Ctx.getOpRegistry().lookup("testdev.magic");
  ASSERT_NE(Magic, nullptr);
  EXPECT_STREQ(Magic->Dialect, "testdev");

  ResolveOptions Compile;
  Compile.RequireAvailable = false;
  llvm::Expected<BackendContext> BC =
      resolveBackendContext(R, "testdev", "", "auto", Compile);
  ASSERT_EQ(errorText(BC), "success");
  Module M(Ctx);
  EXPECT_EQ(errorText(BC->getBackend().Pipeline(*BC, M)), "success");
}

TEST(TestBackend, IsListed) {
  TargetRegistry R = makeRegistry();
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  printTargets(R, OS, /*ProbeAvailability=*/false);
  EXPECT_NE(Out.find("  testdev: backend TestDev\n"
                     "    a device that exists only in unit tests\n"
                     "    aliases: tdev\n"
                     "    -model=m1|m2|m3 (default m1): device model\n"
                     "    -fast=<bool> (default false): take the fast path\n"
                     "    -lanes=<int> (default 32): SIMD lanes\n"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("  TestDev: unit-test device: PTX for cuda, LLVM IR for "
                     "orc\n"
                     "    kinds: testdev\n"
                     "    features: test_magic (model >= m2 and fast == "
                     "true), test_vector (model >= m2 and fast == true)\n"
                     "    dialects: testdev\n"
                     "    outputs: ptx (source), llvm-ir (source)\n"
                     "    entry points: pipeline runTestDevPipeline, device "
                     "codegen generateTestDevDeviceCode, host codegen "
                     "generateTestDevHostCode, emulator none\n"
                     "    execution backends (auto order): cuda [ptx], orc "
                     "[llvm-ir]\n"),
            std::string::npos)
      << Out;
}

TEST(TestBackend, TileLLCCompilesForIt) {
  TargetRegistry R = makeRegistry();
  llvm::SmallString<64> Path;
  int FD;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("testdev", "tile", FD, Path));
  {
    llvm::raw_fd_ostream File(FD, /*shouldClose=*/true);
    File << "func @f(%A: f32[64]) {\n"
            "  kernel grid(1) threads(32) (%bx) {\n"
            "    %T = alloc shared f32[64]\n"
            "    copy %A -> %T\n"
            "    testdev.magic %T\n"
            "  }\n"
            "}\n";
  }
  LLCOptions Opts;
  Opts.InputFile = std::string(Path);
  Opts.Target = "testdev -model=m2 -fast";
  Opts.PrintBackendContext = true;
  Opts.Emit = "tile"; // the test backend has a pipeline, no codegen
  std::string Out, Err;
  llvm::raw_string_ostream OS(Out), ES(Err);
  EXPECT_EQ(runLLC(Opts, R, OS, ES), 0) << Err;
  EXPECT_NE(Out.find("backend:            TestDev\n"), std::string::npos)
      << Out;

  // Without the fast path there is no magic unit: a located error.
  Opts.Target = "testdev -model=m2";
  Out.clear();
  Err.clear();
  EXPECT_EQ(runLLC(Opts, R, OS, ES), 1);
  EXPECT_NE(Err.find(":5:5: error: op 'testdev.magic' needs target feature "
                     "'test_magic', which target 'testdev -model=m2 "
                     "-fast=false -lanes=32' (backend TestDev) does not have; "
                     "it is enabled for testdev targets of backend TestDev "
                     "with model >= m2 and fast == true"),
            std::string::npos)
      << Err;
  llvm::sys::fs::remove(Path);
}

} // namespace
