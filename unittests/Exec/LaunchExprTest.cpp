//===- LaunchExprTest.cpp - Launch expressions and launch descriptions ----===//
//
// Grid sizes that execution backends compute without host code, and the
// launch descriptions of the artifact format: written only when present,
// read back exactly, and rejected when cut short.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/KernelArtifact.h"
#include "tile/Exec/LaunchExpr.h"
#include "gtest/gtest.h"
#include <map>

using namespace tile;

namespace {

std::string eval(llvm::StringRef Text,
                 const std::map<std::string, int64_t> &Values = {}) {
  llvm::Expected<int64_t> V = evaluateLaunchExpr(
      Text, [&](llvm::StringRef N) -> std::optional<int64_t> {
        auto It = Values.find(N.str());
        if (It == Values.end())
          return std::nullopt;
        return It->second;
      });
  if (!V)
    return llvm::toString(V.takeError());
  return std::to_string(*V);
}

TEST(LaunchExpr, Arithmetic) {
  EXPECT_EQ(eval("42"), "42");
  EXPECT_EQ(eval("1 + 2 * 3"), "7");
  EXPECT_EQ(eval("(1 + 2) * 3"), "9");
  EXPECT_EQ(eval("10 - 4 - 3"), "3");
  EXPECT_EQ(eval("-7 / 2"), "-3");
  EXPECT_EQ(eval("-7 % 2"), "-1");
  EXPECT_EQ(eval("(0 - 5)"), "-5");
  EXPECT_EQ(eval("ceildiv(N, 128)", {{"N", 1000}}), "8");
  EXPECT_EQ(eval("ceildiv(N, 128)", {{"N", 1024}}), "8");
  EXPECT_EQ(eval("ceildiv(0 - 7, 2)"), "-3");
  EXPECT_EQ(eval("floordiv(0 - 7, 2)"), "-4");
  EXPECT_EQ(eval("floormod(0 - 7, 2)"), "1");
  EXPECT_EQ(eval("floormod(7, 0 - 2)"), "-1");
  EXPECT_EQ(eval("min(M, N) + max(M, N)", {{"M", 3}, {"N", 9}}), "12");
  EXPECT_EQ(eval(" ceildiv( S , 64 ) * H ", {{"S", 100}, {"H", 3}}), "6");
}

TEST(LaunchExpr, Errors) {
  EXPECT_EQ(eval("N + 1"), "launch expression 'N + 1': no value for 'N'");
  EXPECT_EQ(eval("4 / (N - 2)", {{"N", 2}}),
            "launch expression '4 / (N - 2)': division by zero");
  EXPECT_EQ(eval("ceildiv(4, 0)"), "launch expression 'ceildiv(4, 0)': division by zero");
  EXPECT_EQ(eval("9223372036854775807 + 1"),
            "launch expression '9223372036854775807 + 1': overflow");
  EXPECT_EQ(eval("(1 + 2"), "launch expression '(1 + 2': expected ')'");
  EXPECT_EQ(eval("1 + "), "launch expression '1 + ': unexpected end");
  EXPECT_EQ(eval("1 ? 2"), "launch expression '1 ? 2': unexpected '?'");
  EXPECT_EQ(eval("min(1)"), "launch expression 'min(1)': expected ',' in 'min'");
  EXPECT_EQ(eval("99999999999999999999"),
            "launch expression '99999999999999999999': integer "
            "'99999999999999999999' out of range");
}

KernelArtifact makeArtifact(bool WithLaunch) {
  KernelArtifact A;
  A.Target = "webgpu";
  A.ExecBackend = "webgpu";
  A.DeviceFmt = DeviceFormat::WGSL;
  A.DeviceCode = A.DeviceSource = "@compute @workgroup_size(64) fn k() {}";
  ArtifactEntry E;
  E.Name = "f";
  E.Symbol = "tile_f";
  ArtifactKernel K;
  K.Symbol = "tile_f_kernel0";
  K.GridRank = 2;
  K.Threads = 64;
  K.SharedBytes = 1024;
  K.NumArgs = 3;
  if (WithLaunch) {
    KernelLaunch &L = K.Launch;
    L.Bindings.push_back({KernelLaunch::Binding::Kind::Buffer, "A", 0, 0, false});
    L.Bindings.push_back({KernelLaunch::Binding::Kind::Buffer, "C", 0, 2, true});
    L.Bindings.push_back({KernelLaunch::Binding::Kind::Uniform, "", 0, 3, false});
    L.Uniforms.push_back({"alpha", "f32", 0});
    L.Uniforms.push_back({"N", "i32", 4});
    L.UniformBytes = 16;
    L.Grid = {"ceildiv(N, 64)", "1"};
  }
  E.Kernels.push_back(K);
  A.Entries.push_back(E);
  return A;
}

TEST(LaunchDescription, RoundTrip) {
  KernelArtifact A = makeArtifact(true);
  std::string Bytes = A.serialize();
  llvm::Expected<KernelArtifact> B = KernelArtifact::deserialize(Bytes);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->serialize(), Bytes);
  const KernelLaunch &L = B->Entries[0].Kernels[0].Launch;
  ASSERT_EQ(L.Bindings.size(), 3u);
  EXPECT_EQ(L.Bindings[1].Param, "C");
  EXPECT_EQ(L.Bindings[1].Slot, 2u);
  EXPECT_TRUE(L.Bindings[1].Writable);
  EXPECT_FALSE(L.Bindings[0].Writable);
  EXPECT_EQ(L.Bindings[2].K, KernelLaunch::Binding::Kind::Uniform);
  ASSERT_EQ(L.Uniforms.size(), 2u);
  EXPECT_EQ(L.Uniforms[1].Name, "N");
  EXPECT_EQ(L.Uniforms[1].DType, "i32");
  EXPECT_EQ(L.Uniforms[1].Offset, 4u);
  EXPECT_EQ(L.UniformBytes, 16u);
  EXPECT_EQ(L.Grid, (std::vector<std::string>{"ceildiv(N, 64)", "1"}));
}

TEST(LaunchDescription, AbsentLeavesTheBytesAlone) {
  std::string Without = makeArtifact(false).serialize();
  std::string With = makeArtifact(true).serialize();
  EXPECT_EQ(Without.find("LAUNCH1"), std::string::npos);
  EXPECT_NE(With.find("LAUNCH1"), std::string::npos);
  llvm::Expected<KernelArtifact> B = KernelArtifact::deserialize(Without);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_TRUE(B->Entries[0].Kernels[0].Launch.empty());
}

TEST(LaunchDescription, TruncatedIsAnError) {
  std::string Bytes = makeArtifact(true).serialize();
  size_t Tag = Bytes.find("LAUNCH1");
  for (size_t Cut = Tag + 8; Cut < Bytes.size(); Cut += 5) {
    llvm::Expected<KernelArtifact> B =
        KernelArtifact::deserialize(llvm::StringRef(Bytes).take_front(Cut));
    ASSERT_FALSE(bool(B)) << "cut at " << Cut;
    EXPECT_EQ(llvm::toString(B.takeError()), "corrupt Tile artifact: truncated")
        << "cut at " << Cut;
  }
}

} // namespace
