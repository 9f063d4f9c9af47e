//===- CPUFeaturesTest.cpp - Code for a CPU the host is not ---------------===//
//
// An artifact whose device code is an object for a CPU names the features
// it was compiled with (KernelArtifact::kCPUFeaturesNote); the orc
// executor refuses it, naming them, where the host lacks one.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/Executor.h"
#include "tile/Exec/KernelArtifact.h"
#include "llvm/TargetParser/Host.h"
#include "gtest/gtest.h"

using namespace tile;

namespace {

TEST(CPUFeatures, MissingAreThoseTheHostSaysItLacks) {
  KernelArtifact A;
  EXPECT_TRUE(A.getMissingCPUFeatures({{"avx512f", false}}).empty()); // no note
  A.Notes[KernelArtifact::kCPUFeaturesNote] = "avx2\nfast-gather\navx512f\n\n avx512bw \nsse2\n";
  llvm::StringMap<bool> Host;
  Host["avx2"] = true;
  Host["sse2"] = true;
  Host["avx512f"] = false;
  Host["avx512bw"] = false;
  Host["amx-tile"] = false; // lacked, but not used
  // fast-gather, a tuning flag, is not among the host's features.
  EXPECT_EQ(A.getMissingCPUFeatures(Host), (std::vector<std::string>{"avx512f", "avx512bw"}));
  Host["avx512f"] = Host["avx512bw"] = true;
  EXPECT_TRUE(A.getMissingCPUFeatures(Host).empty());
}

TEST(CPUFeatures, OrcRefusesCodeForAnotherCPU) {
  std::string Lacked;
  for (const auto &[Name, On] : llvm::sys::getHostCPUFeatures())
    if (!On) {
      Lacked = Name.str();
      break;
    }
  if (Lacked.empty())
    GTEST_SKIP() << "this host reports no feature it lacks";
  llvm::Expected<std::unique_ptr<Executor>> E = Executor::create(ExecBackendKind::Orc);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  KernelArtifact A;
  A.Target = "cpu -mcpu=elsewhere";
  A.DeviceArch = "elsewhere";
  A.DeviceFmt = DeviceFormat::Object;
  // Not objects: the check comes before any link.
  A.HostObject = "not an object";
  A.DeviceCode = "not an object either";
  A.Notes[KernelArtifact::kCPUFeaturesNote] = "64bit\n" + Lacked + "\n";
  auto L = (*E)->load(A);
  ASSERT_FALSE(bool(L));
  std::string Msg = llvm::toString(L.takeError());
  EXPECT_NE(Msg.find("cannot run the kernels of 'cpu -mcpu=elsewhere' here: they were "
                     "compiled for CPU 'elsewhere', whose features " +
                     Lacked + " this host ("),
            std::string::npos)
      << Msg;
}

} // namespace
