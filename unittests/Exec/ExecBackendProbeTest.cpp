//===- ExecBackendProbeTest.cpp - Execution backend tables and probes -----===//
//
// Links libTileExec only. The generated tables match ExecutionBackends.td;
// probes are lazy, cached, and name the library and the failing step.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/ExecutionBackend.h"
#include "gtest/gtest.h"
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
  EXPECT_EQ(Names, (std::vector<std::string>{"cuda", "hsa", "level-zero",
                                             "metal", "orc", "webgpu"}));
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
