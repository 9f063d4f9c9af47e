//===- GPUExecutorTest.cpp - The hsa and level-zero executors here --------===//
//
// On a machine without the GPU, creating the executor fails with the
// availability probe's reason (which library, which call, which status),
// and loading an artifact is never reached. Where the runtime initializes,
// an artifact in the wrong format is refused by load with a message.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/Executor.h"
#include "gtest/gtest.h"

using namespace tile;

namespace {

void checkExecutor(ExecBackendKind K, const char *Library) {
  const ExecAvailability &A = getExecAvailability(K);
  llvm::Expected<std::unique_ptr<Executor>> E = Executor::create(K);
  if (!A.Available) {
    ASSERT_FALSE(bool(E));
    std::string Msg = llvm::toString(E.takeError());
    EXPECT_NE(Msg.find(A.Reason), std::string::npos) << Msg;
    EXPECT_NE(Msg.find(Library), std::string::npos) << Msg;
    return;
  }
  if (!E)
    GTEST_SKIP() << "runtime available but not initializable here: "
                 << llvm::toString(E.takeError());
  KernelArtifact Art;
  Art.DeviceFmt = DeviceFormat::Object;
  llvm::Expected<std::unique_ptr<LoadedArtifact>> L = (*E)->load(Art);
  ASSERT_FALSE(bool(L));
  EXPECT_NE(llvm::toString(L.takeError()).find("this artifact"), std::string::npos);
}

TEST(GPUExecutors, HsaFailsWithTheProbeReason) {
  checkExecutor(ExecBackendKind::Hsa, "libhsa-runtime64.so.1");
}

TEST(GPUExecutors, LevelZeroFailsWithTheProbeReason) {
  checkExecutor(ExecBackendKind::LevelZero, "libze_loader.so.1");
}

TEST(GPUExecutors, ArgumentSizesSurviveExport) {
  KernelArtifact A;
  A.DeviceFmt = DeviceFormat::HSACO;
  A.Entries.push_back({});
  A.Entries[0].Name = "f";
  A.Entries[0].Symbol = "tile_f";
  ArtifactKernel K;
  K.Symbol = "tile_f_kernel0";
  K.NumArgs = 3;
  K.ArgBytes = {8, 4, 2};
  A.Entries[0].Kernels.push_back(K);
  std::string Bytes = A.serialize();
  llvm::Expected<KernelArtifact> B = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->Entries[0].Kernels[0].ArgBytes, (std::vector<uint32_t>{8, 4, 2}));
  // A cut in the section is an error, not a shorter list.
  llvm::Expected<KernelArtifact> Cut =
      KernelArtifact::deserialize(llvm::StringRef(Bytes).drop_back(4));
  ASSERT_FALSE(bool(Cut));
  EXPECT_EQ(llvm::toString(Cut.takeError()), "corrupt Tile artifact: truncated");
}

TEST(GPUExecutors, SpecializationsSurviveExport) {
  KernelArtifact A;
  A.DeviceFmt = DeviceFormat::Cubin;
  A.DeviceCode = "cubin";
  A.DeferredDeviceSource = ".version 8.0\n.target sm_90a\n";
  A.Entries.push_back({});
  A.Entries[0].Name = "f";
  A.Entries[0].Symbol = "tile_f";
  ArtifactKernel General;
  General.Symbol = "tile_f_kernel0_fallback";
  General.Deferred = true;
  ArtifactKernel Spec;
  Spec.Symbol = "tile_f_kernel0";
  Spec.SpecializationOf = 0;
  ArtifactKernel Plain;
  Plain.Symbol = "tile_f_kernel1";
  A.Entries[0].Kernels = {General, Spec, Plain};
  std::string Bytes = A.serialize();
  llvm::Expected<KernelArtifact> B = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  const ArtifactEntry &E = B->Entries[0];
  EXPECT_TRUE(E.Kernels[0].Deferred);
  EXPECT_FALSE(E.Kernels[0].SpecializationOf);
  EXPECT_FALSE(E.Kernels[1].Deferred);
  EXPECT_EQ(E.Kernels[1].SpecializationOf, std::optional<unsigned>(0));
  EXPECT_FALSE(E.Kernels[2].SpecializationOf);
  EXPECT_EQ(B->DeferredDeviceSource, A.DeferredDeviceSource);
  // The kernel statements map to the general kernels, each followed by
  // its specialization.
  EXPECT_EQ(E.getKernelIndex(0), std::optional<unsigned>(0));
  EXPECT_EQ(E.getKernelIndex(1), std::optional<unsigned>(2));
  EXPECT_FALSE(E.getKernelIndex(2));
  EXPECT_EQ(E.getSpecialization(0), std::optional<unsigned>(1));
  EXPECT_FALSE(E.getSpecialization(2));
  // An artifact without specializations has no such section: its bytes
  // are those of before.
  KernelArtifact Old = A;
  Old.DeferredDeviceSource.clear();
  Old.Entries[0].Kernels = {Plain};
  EXPECT_EQ(Old.serialize().find("SPECLZ1"), std::string::npos);
  EXPECT_NE(Bytes.find("SPECLZ1"), std::string::npos);
  // A specialization of a kernel the entry lacks is corrupt.
  A.Entries[0].Kernels[1].SpecializationOf = 7;
  llvm::Expected<KernelArtifact> Bad = KernelArtifact::deserialize(A.serialize());
  ASSERT_FALSE(bool(Bad));
  EXPECT_NE(llvm::toString(Bad.takeError()).find("specializes kernel #7"),
            std::string::npos);
  // A cut deferred source is an error.
  llvm::Expected<KernelArtifact> Cut =
      KernelArtifact::deserialize(llvm::StringRef(Bytes).drop_back(4));
  ASSERT_FALSE(bool(Cut));
}

} // namespace
