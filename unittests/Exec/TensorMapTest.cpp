//===- TensorMapTest.cpp - Tensor map arguments in libTileExec ------------===//
//
// The artifact's tensor map descriptions survive export; the rule that
// turns a description and a tensor into cuTensorMapEncodeTiled's operands
// (or zeros, or an error naming the tensor); and tile_rt_tensor_map (and
// tile_rt_resident_blocks) on an execution backend that builds no tensor
// maps (and cannot say how many blocks run at once), which records why.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/Executor.h"
#include "tile/Exec/TensorMap.h"
#include "gtest/gtest.h"

using namespace tile;

namespace {

/// The description hopper-warp-specialize-gemm gives the A operand of a
/// 128x64 f16 tile: one 128-byte-swizzled box of 128 rows of 64 elements.
ArtifactTensorMap f16Box(bool Optional = false) {
  ArtifactTensorMap M;
  M.Arg = 5;
  M.Tensor = 0;
  M.Name = "A";
  M.TypeCode = 2;
  M.Bits = 16;
  M.Box = {128, 64};
  M.Swizzle = 128;
  M.L2Promotion = 128;
  M.Optional = Optional;
  return M;
}

alignas(256) char Memory[4096];

TEST(TensorMaps, SurviveExport) {
  KernelArtifact A;
  A.DeviceFmt = DeviceFormat::Cubin;
  A.Entries.push_back({});
  A.Entries[0].Name = "gemm";
  A.Entries[0].Symbol = "tile_gemm";
  ArtifactKernel K;
  K.Symbol = "tile_gemm_kernel0";
  K.NumArgs = 7;
  K.ArgBytes = {8, 8, 8, 4, 4, 128, 128};
  K.TensorMaps.push_back(f16Box());
  ArtifactTensorMap B = f16Box(/*Optional=*/true);
  B.Arg = 6;
  B.Tensor = 1;
  B.Name = "B";
  B.TypeCode = 4;
  B.Box = {64, 64};
  B.NaNFill = true;
  K.TensorMaps.push_back(B);
  A.Entries[0].Kernels.push_back(K);
  std::string Bytes = A.serialize();
  llvm::Expected<KernelArtifact> R = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const std::vector<ArtifactTensorMap> &Maps = R->Entries[0].Kernels[0].TensorMaps;
  ASSERT_EQ(Maps.size(), 2u);
  EXPECT_EQ(Maps[0].Arg, 5u);
  EXPECT_EQ(Maps[0].Name, "A");
  EXPECT_EQ(Maps[0].Box, (std::vector<uint32_t>{128, 64}));
  EXPECT_EQ(Maps[0].Swizzle, 128u);
  EXPECT_EQ(Maps[0].L2Promotion, 128u);
  EXPECT_FALSE(Maps[0].Optional);
  EXPECT_EQ(Maps[1].Arg, 6u);
  EXPECT_EQ(Maps[1].Tensor, 1u);
  EXPECT_EQ(Maps[1].TypeCode, 4);
  EXPECT_EQ(Maps[1].Bits, 16);
  EXPECT_TRUE(Maps[1].Optional);
  EXPECT_TRUE(Maps[1].NaNFill);
  EXPECT_EQ(R->Entries[0].Kernels[0].ArgBytes, K.ArgBytes);
  // A cut in the section is an error, not a shorter list.
  llvm::Expected<KernelArtifact> Cut =
      KernelArtifact::deserialize(llvm::StringRef(Bytes).drop_back(8));
  ASSERT_FALSE(bool(Cut));
  EXPECT_EQ(llvm::toString(Cut.takeError()), "corrupt Tile artifact: truncated");
  // An artifact without tensor maps keeps its bytes (no empty section).
  A.Entries[0].Kernels[0].TensorMaps.clear();
  EXPECT_EQ(A.serialize().find("TMAPS1"), std::string::npos);
}

TEST(TensorMaps, RequestIsInnermostFirst) {
  // A [1000, 520] f16 tensor, row-major.
  auto R = describeTiledTensorMap(f16Box(), Memory, {1000, 520}, {520, 1});
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_TRUE(R->has_value());
  const TiledTensorMapRequest &Q = **R;
  EXPECT_EQ(Q.DataType, 6u); // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  EXPECT_EQ(Q.Rank, 2u);
  EXPECT_EQ(Q.Address, static_cast<void *>(Memory));
  EXPECT_EQ(Q.Dims[0], 520u);
  EXPECT_EQ(Q.Dims[1], 1000u);
  EXPECT_EQ(Q.Strides[0], 1040u);
  EXPECT_EQ(Q.Box[0], 64u);
  EXPECT_EQ(Q.Box[1], 128u);
  EXPECT_EQ(Q.ElementStrides[0], 1u);
  EXPECT_EQ(Q.ElementStrides[1], 1u);
  EXPECT_EQ(Q.Swizzle, 3u);     // CU_TENSOR_MAP_SWIZZLE_128B
  EXPECT_EQ(Q.L2Promotion, 2u); // CU_TENSOR_MAP_L2_PROMOTION_L2_128B
  EXPECT_EQ(Q.OOBFill, 0u);     // zeros
}

TEST(TensorMaps, UndescribableTensors) {
  // Rows of 260 f16 elements are 520 bytes, not a multiple of 16.
  auto R = describeTiledTensorMap(f16Box(), Memory, {515, 260}, {260, 1});
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "the tensor map of 'A' cannot describe the tensor passed: the "
            "stride of dimension 0 is 520 bytes, not a multiple of 16");
  // An optional map is then zeros: the kernel tested the same and uses
  // its other path.
  auto O = describeTiledTensorMap(f16Box(true), Memory, {515, 260}, {260, 1});
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
  EXPECT_FALSE(O->has_value());
  // Data not 16-byte aligned.
  auto U = describeTiledTensorMap(f16Box(), Memory + 2, {64, 64}, {64, 1});
  ASSERT_FALSE(bool(U));
  EXPECT_EQ(llvm::toString(U.takeError()),
            "the tensor map of 'A' cannot describe the tensor passed: its data "
            "is not 16-byte aligned (address % 16 = 2)");
  auto UO = describeTiledTensorMap(f16Box(true), Memory + 2, {64, 64}, {64, 1});
  ASSERT_TRUE(bool(UO));
  EXPECT_FALSE(UO->has_value());
  // A column-strided view.
  auto S = describeTiledTensorMap(f16Box(), Memory, {64, 64}, {1, 64});
  ASSERT_FALSE(bool(S));
  EXPECT_EQ(llvm::toString(S.takeError()),
            "the tensor map of 'A' cannot describe the tensor passed: its "
            "innermost stride is 64, not 1");
  // An empty tensor is never read: zeros, even for a map that is not
  // optional.
  auto E = describeTiledTensorMap(f16Box(), Memory, {0, 64}, {64, 1});
  ASSERT_TRUE(bool(E));
  EXPECT_FALSE(E->has_value());
}

TEST(TensorMaps, BadDescriptions) {
  auto Message = [](ArtifactTensorMap M) {
    auto R = describeTiledTensorMap(M, Memory, {64, 64}, {64, 1});
    return R ? std::string("no error") : llvm::toString(R.takeError());
  };
  ArtifactTensorMap M = f16Box();
  M.Box = {300, 64};
  EXPECT_EQ(Message(M), "the tensor map of 'A' has a box extent of 300 in "
                        "dimension 0; extents are 1 to 256");
  M = f16Box();
  M.Box = {64, 4};
  EXPECT_EQ(Message(M), "the tensor map of 'A' has box rows of 8 bytes, not a "
                        "multiple of 16");
  M = f16Box();
  M.Box = {64, 128};
  EXPECT_EQ(Message(M), "the tensor map of 'A' has box rows of 256 bytes, more "
                        "than its 128-byte swizzle span");
  M = f16Box();
  M.Swizzle = 16;
  EXPECT_EQ(Message(M), "the tensor map of 'A' has a swizzle of 16 bytes; "
                        "tensor maps swizzle 0, 32, 64 or 128 bytes");
  M = f16Box();
  M.TypeCode = 10; // f8e4m3
  M.Bits = 8;
  EXPECT_EQ(Message(M), "the tensor map of 'A' has an element type (DLPack "
                        "code 10, 8 bits) that tensor maps do not take");
  M = f16Box();
  M.Box = {};
  EXPECT_EQ(Message(M), "the tensor map of 'A' has rank 0; tensor maps have 1 "
                        "to 5 dimensions");
  auto R = describeTiledTensorMap(f16Box(), Memory, {64, 64, 2}, {128, 2, 1});
  ASSERT_FALSE(bool(R));
  EXPECT_EQ(llvm::toString(R.takeError()),
            "the tensor map of 'A' describes a tensor of rank 2, but host code "
            "passed rank 3");
}

/// A runtime call of an execution backend that builds no tensor maps.
struct NoMapsCall : RuntimeCall {
  NoMapsCall() : RuntimeCall(ExecBackendKind::Orc) {}
  int32_t launch(int32_t, void **, int32_t, int32_t, int32_t, int32_t,
                 int64_t) override {
    return 0;
  }
  void *allocWorkspace(int64_t) override { return nullptr; }
  void freeWorkspace(void *) override {}
};

TEST(TensorMaps, BackendsWithoutThemReportIt) {
  NoMapsCall Call;
  int64_t Dims[] = {64, 64}, Strides[] = {64, 1};
  EXPECT_EQ(tile_rt_tensor_map(&Call, 0, 1, Memory, 2, Dims, Strides), nullptr);
  EXPECT_EQ(Call.Error,
            "kernel #0 takes tensor map #1 (a TMA descriptor of one of its "
            "tensors), which execution backend 'orc' cannot build; run the "
            "artifact on an execution backend that builds tensor maps (cuda)");
  NoMapsCall Bad;
  EXPECT_EQ(tile_rt_tensor_map(&Bad, 0, 0, Memory, 2, nullptr, Strides), nullptr);
  EXPECT_EQ(Bad.Error, "tile_rt_tensor_map: bad rank 2 or null extents");
}

// Host code of a persistent kernel asks how many blocks run at once; an
// execution backend that cannot say records why and answers 0, on which
// host code launches nothing.
TEST(ResidentBlocks, BackendsWithoutThemReportIt) {
  NoMapsCall Call;
  EXPECT_EQ(tile_rt_resident_blocks(&Call, 2, 384, 163920), 0);
  EXPECT_EQ(Call.Error,
            "kernel #2 is persistent (its blocks loop over its tiles), and "
            "execution backend 'orc' cannot say how many blocks it runs at "
            "once; run the artifact on an execution backend that can (cuda)");
}

} // namespace
