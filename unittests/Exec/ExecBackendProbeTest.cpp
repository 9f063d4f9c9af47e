//===- ExecBackendProbeTest.cpp - Execution backend tables and probes -----===//
//
// Links libTileExec only. The generated tables match ExecutionBackends.td;
// formats and execution backends a target backend declares are added at run
// time; probes are lazy, cached, and name the library and the failing step.
// Tests name the backends they check and never the whole list, so a new
// execution backend changes none of them.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/ExecutionBackend.h"
#include "tile/Exec/Executor.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <dlfcn.h>

using namespace tile;

namespace {

TEST(ExecBackends, TablesInNameOrder) {
  std::vector<std::string> Names;
  for (const ExecBackendInfo &E : getExecBackends()) {
    Names.push_back(E.Name);
    EXPECT_EQ(&getExecBackendInfo(E.Kind), &E);
    EXPECT_EQ(lookupExecBackend(E.Name), &E);
    EXPECT_NE(E.Probe, nullptr);
  }
  // The shared ones come first, in name order.
  ASSERT_GE(Names.size(), NumExecBackends);
  EXPECT_TRUE(std::is_sorted(Names.begin(), Names.begin() + NumExecBackends));
  for (const char *Shared : {"cuda", "hsa", "level-zero", "orc", "webgpu"})
    EXPECT_TRUE(llvm::is_contained(Names, Shared)) << Shared;
  EXPECT_EQ(lookupExecBackend("nvrtc"), nullptr);
  const ExecBackendInfo &Cuda = getExecBackendInfo(ExecBackendKind::Cuda);
  EXPECT_TRUE(Cuda.consumes(DeviceFormat::PTX));
  EXPECT_TRUE(Cuda.consumes(DeviceFormat::Cubin));
  EXPECT_FALSE(Cuda.consumes(DeviceFormat::HSACO));
  EXPECT_TRUE(Cuda.NeedsHostCodeGen);
  EXPECT_EQ(Cuda.Compile, DeviceCompile::Eager);
  const ExecBackendInfo &WebGPU = getExecBackendInfo(ExecBackendKind::WebGPU);
  EXPECT_FALSE(WebGPU.NeedsHostCodeGen);
  EXPECT_EQ(WebGPU.Compile, DeviceCompile::Deferred);
  ASSERT_NE(lookupDeviceFormat("llvm-ir"), nullptr);
  EXPECT_EQ(lookupDeviceFormat("llvm-ir")->Format, DeviceFormat::LLVMIR);
  EXPECT_TRUE(getDeviceFormatInfo(DeviceFormat::PTX).IsText);
  EXPECT_FALSE(getDeviceFormatInfo(DeviceFormat::Cubin).IsText);
}

TEST(ExecBackends, ExecutorFactoriesComeFromTheTable) {
  // Every shared backend with an executor names its factory; one without
  // says so at Executor::create.
  EXPECT_NE(getExecBackendInfo(ExecBackendKind::Orc).Create, nullptr);
  EXPECT_NE(getExecBackendInfo(ExecBackendKind::Cuda).Create, nullptr);
  EXPECT_EQ(getExecBackendInfo(ExecBackendKind::Metal).Create, nullptr);
  llvm::Expected<std::unique_ptr<Executor>> Orc =
      Executor::create(ExecBackendKind::Orc);
  ASSERT_TRUE(bool(Orc)) << llvm::toString(Orc.takeError());
  EXPECT_EQ((*Orc)->getKind(), ExecBackendKind::Orc);
}

// A format and an execution backend registered the way a target backend's
// generated registration function does it.
unsigned ProbeCalls = 0;
ExecAvailability probeRegistered() {
  ++ProbeCalls;
  return ExecAvailability::available("registered in a unit test");
}
ExecAvailability probeNever() {
  return ExecAvailability::unavailable("no device in a unit test");
}

TEST(ExecBackends, TargetBackendsRegisterFormatsAndExecutionBackends) {
  DeviceFormatInfo Fmt{DeviceFormat(0), "unit-test-bin", "a unit test's",
                       false};
  llvm::Expected<DeviceFormat> F = registerDeviceFormat(Fmt);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_GE(unsigned(*F), NumDeviceFormats);
  EXPECT_EQ(lookupDeviceFormat("unit-test-bin")->Format, *F);
  EXPECT_STREQ(getDeviceFormatInfo(*F).Summary, "a unit test's");
  // Again, as a second registry registering the same backends does.
  llvm::Expected<DeviceFormat> Again = registerDeviceFormat(Fmt);
  ASSERT_TRUE(bool(Again));
  EXPECT_EQ(*Again, *F);

  static DeviceFormat Consumes[] = {DeviceFormat::LLVMIR, DeviceFormat(~0u)};
  Consumes[1] = *F;
  ExecBackendInfo Exec{ExecBackendKind(0), "unit-test-rt", "a unit test's",
                       Consumes, 2, false, DeviceCompile::Deferred,
                       probeRegistered, nullptr};
  llvm::Expected<ExecBackendKind> K = registerExecBackend(Exec);
  ASSERT_TRUE(bool(K)) << llvm::toString(K.takeError());
  EXPECT_GE(unsigned(*K), NumExecBackends);
  EXPECT_EQ(lookupExecBackend("unit-test-rt")->Kind, *K);
  EXPECT_TRUE(getExecBackendInfo(*K).consumes(*F));
  EXPECT_EQ(getExecBackends().back().Kind, *K);
  llvm::Expected<ExecBackendKind> KAgain = registerExecBackend(Exec);
  ASSERT_TRUE(bool(KAgain));
  EXPECT_EQ(*KAgain, *K);

  // Probed once; no factory: Executor::create says so.
  EXPECT_TRUE(getExecAvailability(*K).Available);
  EXPECT_TRUE(getExecAvailability(*K).Available);
  EXPECT_EQ(ProbeCalls, 1u);
  llvm::Expected<std::unique_ptr<Executor>> Ex = Executor::create(*K);
  EXPECT_EQ(llvm::toString(Ex.takeError()),
            "execution backend 'unit-test-rt' has no executor in this build "
            "yet");

  ExecBackendInfo Absent = Exec;
  Absent.Name = "unit-test-absent";
  Absent.Probe = probeNever;
  llvm::Expected<ExecBackendKind> A = registerExecBackend(Absent);
  ASSERT_TRUE(bool(A));
  EXPECT_EQ(llvm::toString(Executor::create(*A).takeError()),
            "execution backend 'unit-test-absent' is not available: no "
            "device in a unit test");
}

TEST(ExecBackends, RegistrationConflictsAreErrors) {
  DeviceFormatInfo PTX{DeviceFormat(0), "ptx", "another PTX", true};
  EXPECT_EQ(llvm::toString(registerDeviceFormat(PTX).takeError()),
            "device format 'ptx' is already a shared format of libTileExec");
  DeviceFormatInfo Mine{DeviceFormat(0), "unit-test-conflict", "first", true};
  ASSERT_TRUE(bool(registerDeviceFormat(Mine)));
  Mine.Summary = "second";
  EXPECT_EQ(llvm::toString(registerDeviceFormat(Mine).takeError()),
            "device format 'unit-test-conflict' is already registered with "
            "another description");

  static DeviceFormat Consumes[] = {DeviceFormat::PTX};
  ExecBackendInfo Cuda{ExecBackendKind(0), "cuda", "another cuda", Consumes,
                       1, true, DeviceCompile::Eager, probeNever, nullptr};
  EXPECT_EQ(llvm::toString(registerExecBackend(Cuda).takeError()),
            "execution backend 'cuda' is already a shared execution backend "
            "of libTileExec");
  static DeviceFormat Unknown[] = {DeviceFormat(~0u)};
  ExecBackendInfo Bad = Cuda;
  Bad.Name = "unit-test-bad";
  Bad.Consumes = Unknown;
  EXPECT_EQ(llvm::toString(registerExecBackend(Bad).takeError()),
            "execution backend 'unit-test-bad' consumes a device format that "
            "is not registered");
  ExecBackendInfo NoProbe = Cuda;
  NoProbe.Name = "unit-test-noprobe";
  NoProbe.Probe = nullptr;
  EXPECT_EQ(llvm::toString(registerExecBackend(NoProbe).takeError()),
            "execution backend 'unit-test-noprobe' needs a probe and a device "
            "format");
}

TEST(ExecBackends, OrcIsAlwaysAvailable) {
  const ExecAvailability &A = getExecAvailability(ExecBackendKind::Orc);
  EXPECT_TRUE(A.Available);
  EXPECT_NE(A.Reason.find("LLVM ORC JIT"), std::string::npos);
  EXPECT_FALSE(checkExecAvailable(ExecBackendKind::Orc));
}

TEST(ExecBackends, ProbesAreCached) {
  const ExecAvailability &First = getExecAvailability(ExecBackendKind::Hsa);
  const ExecAvailability &Second = getExecAvailability(ExecBackendKind::Hsa);
  EXPECT_EQ(&First, &Second);
}

bool loadable(const char *Lib) {
  void *H = dlopen(Lib, RTLD_NOW | RTLD_LOCAL);
  if (H)
    dlclose(H);
  return H != nullptr;
}

TEST(ExecBackends, MissingDriverNamesTheLibrary) {
  if (loadable("libcuda.so.1"))
    GTEST_SKIP() << "libcuda.so.1 loads here";
  const ExecAvailability &A = getExecAvailability(ExecBackendKind::Cuda);
  EXPECT_FALSE(A.Available);
  EXPECT_EQ(A.Reason.rfind("libcuda.so.1 could not be loaded (libcuda.so.1: ",
                           0),
            0u)
      << A.Reason;
  llvm::Error E = checkExecAvailable(ExecBackendKind::Cuda);
  EXPECT_EQ(llvm::toString(std::move(E)),
            "execution backend 'cuda' is not available: " + A.Reason);
}

TEST(ExecBackends, DriverWithoutDeviceNamesTheFailingCall) {
  const ExecAvailability &Hsa = getExecAvailability(ExecBackendKind::Hsa);
  if (Hsa.Available)
    GTEST_SKIP() << "an HSA GPU is available here";
  if (!loadable("libhsa-runtime64.so.1"))
    EXPECT_NE(Hsa.Reason.find("libhsa-runtime64.so.1 could not be loaded"),
              std::string::npos)
        << Hsa.Reason;
  else
    EXPECT_EQ(Hsa.Reason.rfind("libhsa-runtime64.so.1 was ", 0), 0u)
        << Hsa.Reason;

  const ExecAvailability &Ze = getExecAvailability(ExecBackendKind::LevelZero);
  if (Ze.Available)
    return;
  if (!loadable("libze_loader.so.1"))
    EXPECT_NE(Ze.Reason.find("libze_loader.so.1 could not be loaded"),
              std::string::npos)
        << Ze.Reason;
  else
    EXPECT_EQ(Ze.Reason.rfind("libze_loader.so.1 was ", 0), 0u) << Ze.Reason;
}

} // namespace
