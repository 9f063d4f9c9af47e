//===- ResourceLimitsTest.cpp - Declared limits and the query API ---------===//
//
// The limits each backend's .td declares, as the resolved target sees them
// (per architecture, from target attributes), and getExceededLimits, the
// query a tuner prunes configurations with before compiling them.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/DiagnosticError.h"
#include "tile/IR/IR.h"
#include "tile/IR/Parser.h"
#include "tile/IR/Walk.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/ResourceLimits.h"
#include "tile/Target/TargetRegistry.h"
#include "gtest/gtest.h"

using namespace tile;

namespace {

struct Fixture {
  TargetRegistry R;
  Fixture() { llvm::cantFail(registerAllTargetBackends(R)); }
  BackendContext resolve(llvm::StringRef Target) {
    ResolveOptions O;
    O.RequireAvailable = false;
    return llvm::cantFail(resolveBackendContext(R, Target, "", "auto", O));
  }
  std::optional<int64_t> limit(llvm::StringRef Target, ResourceKind K) {
    std::optional<AppliedLimit> L = getResourceLimit(resolve(Target), K);
    return L ? std::optional<int64_t>(L->Value) : std::nullopt;
  }
};

TEST(ResourceLimits, PerArchitecture) {
  Fixture F;
  EXPECT_EQ(F.limit("cuda -arch=sm_80", ResourceKind::SharedMemoryPerBlock), 166912);
  EXPECT_EQ(F.limit("cuda -arch=sm_86", ResourceKind::SharedMemoryPerBlock), 101376);
  EXPECT_EQ(F.limit("cuda -arch=sm_89", ResourceKind::SharedMemoryPerBlock), 101376);
  EXPECT_EQ(F.limit("cuda -arch=sm_90", ResourceKind::SharedMemoryPerBlock), 232448);
  EXPECT_EQ(F.limit("cuda -arch=sm_90a", ResourceKind::SharedMemoryPerBlock), 232448);
  EXPECT_EQ(F.limit("cuda -arch=sm_90a", ResourceKind::SharedMemoryWithoutOptIn), 49152);
  EXPECT_EQ(F.limit("cuda", ResourceKind::ThreadsPerBlock), 1024);
  EXPECT_EQ(F.limit("cuda", ResourceKind::RegistersPerThread), 255);
  EXPECT_EQ(F.limit("cuda", ResourceKind::GridDimY), 65535);
  EXPECT_EQ(F.limit("hip -mcpu=gfx942", ResourceKind::SharedMemoryPerBlock), 65536);
  EXPECT_EQ(F.limit("hip -mcpu=gfx950", ResourceKind::SharedMemoryPerBlock), 163840);
  EXPECT_EQ(F.limit("metal", ResourceKind::SharedMemoryPerBlock), 32768);
  EXPECT_EQ(F.limit("webgpu", ResourceKind::SharedMemoryPerBlock), 16384);
  EXPECT_EQ(F.limit("webgpu -max_workgroup_storage=32768",
                    ResourceKind::SharedMemoryPerBlock), 32768);
  EXPECT_EQ(F.limit("webgpu -max_workgroup_size=1024", ResourceKind::ThreadsPerBlock), 1024);
  EXPECT_EQ(F.limit("level_zero", ResourceKind::ThreadsPerBlock), 1024);
  EXPECT_EQ(F.limit("cpu", ResourceKind::StackArraysPerBlock), 4194304);
  EXPECT_EQ(F.limit("cpu", ResourceKind::GridDimX), std::nullopt);
}

TEST(ResourceLimits, ExceededForTuning) {
  Fixture F;
  KernelResourceUsage U;
  U.Threads = 256;
  U.SharedBytes = 200000;
  std::vector<ExceededLimit> On80 = getExceededLimits(F.resolve("cuda -arch=sm_80"), U);
  ASSERT_EQ(On80.size(), 1u);
  EXPECT_EQ(On80[0].Limit.Kind, ResourceKind::SharedMemoryPerBlock);
  EXPECT_EQ(On80[0].Use, 200000);
  EXPECT_EQ(On80[0].Limit.Value, 166912);
  EXPECT_TRUE(getExceededLimits(F.resolve("cuda -arch=sm_90a"), U).empty());
  U.Threads = 2048;
  EXPECT_EQ(getExceededLimits(F.resolve("cuda -arch=sm_90a"), U).size(), 1u);
}

TEST(ResourceLimits, RegistersFromTheToolchain) {
  // Registers are checked once device codegen reports them; hip's limit
  // is 512 VGPRs, or -max_vgprs.
  Fixture F;
  KernelResourceUsage U;
  U.Threads = 128;
  EXPECT_TRUE(getExceededLimits(F.resolve("hip -max_vgprs=128"), U).empty());
  U.Registers = 196;
  EXPECT_TRUE(getExceededLimits(F.resolve("hip"), U).empty());
  std::vector<ExceededLimit> Over = getExceededLimits(F.resolve("hip -max_vgprs=128"), U);
  ASSERT_EQ(Over.size(), 1u);
  EXPECT_EQ(Over[0].Limit.Kind, ResourceKind::RegistersPerThread);
  EXPECT_EQ(Over[0].Use, 196);
  EXPECT_EQ(Over[0].Limit.Value, 128);
  U.Registers = 300;
  EXPECT_EQ(getExceededLimits(F.resolve("cuda -arch=sm_80"), U).size(), 1u);

  // The artifact's figures go to the kernel of the same function and index.
  KernelArtifact A;
  A.Entries.resize(1);
  A.Entries[0].Name = "f";
  A.Entries[0].Kernels.resize(2);
  A.Entries[0].Kernels[1].Registers = 40;
  A.Entries[0].Kernels[1].RegisterReport = "ptxas -v: Used 40 registers";
  std::vector<KernelResourceUsage> Kernels(3);
  Kernels[0].Function = "f";
  Kernels[1].Function = "f";
  Kernels[1].Index = 1;
  Kernels[2].Function = "g";
  addToolchainResources(Kernels, A);
  EXPECT_EQ(Kernels[0].Registers, std::nullopt);
  EXPECT_EQ(Kernels[1].Registers, 40);
  EXPECT_EQ(Kernels[1].RegisterReport, "ptxas -v: Used 40 registers");
  EXPECT_EQ(Kernels[2].Registers, std::nullopt);
}

TEST(ResourceLimits, MeasuredAfterParsing) {
  Fixture F;
  TileContext Ctx;
  llvm::SourceMgr SM;
  DiagnosticEngine Diag(&SM);
  std::unique_ptr<Module> M = parseModuleString(
      "func @f(%A: f32[N]) {\n"
      "  kernel grid(70000, 2) threads(128) (%bx, %by) {\n"
      "    %s = alloc shared f32[64] {offset = 1024}\n"
      "    %t = alloc shared f16[32] {offset = 0}\n"
      "    %l = alloc local f32[8]\n"
      "    %v = alloc var i32\n"
      "  }\n"
      "}\n",
      "limits.tile", SM, Ctx, Diag);
  ASSERT_TRUE(M);
  std::vector<KernelResourceUsage> Us = measureModuleResources(*M);
  ASSERT_EQ(Us.size(), 1u);
  const KernelResourceUsage &U = Us[0];
  EXPECT_EQ(U.Name, "@f, kernel 0");
  EXPECT_EQ(U.Threads, 128);
  EXPECT_EQ(U.Grid[0], 70000);
  EXPECT_EQ(U.Grid[1], 2);
  EXPECT_EQ(U.Grid[2], std::nullopt);
  EXPECT_EQ(U.SharedBytes, 1024 + 256); // placed at offsets
  EXPECT_EQ(U.SharedBuffers, "'%s' 256, '%t' 64");
  EXPECT_EQ(U.LocalBytesPerThread, 32 + 4);
  EXPECT_EQ(U.BlockArrayBytes, 256 + 64 + 32 + 4);
  // 70000 blocks along y would not fit WebGPU; along x they do not either.
  std::vector<ExceededLimit> E = getExceededLimits(F.resolve("webgpu"), U);
  ASSERT_EQ(E.size(), 1u);
  EXPECT_EQ(E[0].Limit.Kind, ResourceKind::GridDimX);
  EXPECT_FALSE(checkResourceLimits(F.resolve("webgpu"), *M, Diag));
}

TEST(DiagnosticError, CarriesCategoryAndDiagnostics) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer("abc\n", "in.tile"),
                        llvm::SMLoc());
  llvm::SMLoc Loc = llvm::SMLoc::getFromPointer(
      SM.getMemoryBuffer(1)->getBufferStart() + 1);
  llvm::Error E = makeLocatedError(ErrorCategory::InvalidLaunch, &SM, Loc, "bad");
  bool Seen = false;
  llvm::handleAllErrors(std::move(E), [&](const DiagnosticError &D) {
    Seen = true;
    EXPECT_EQ(D.getCategory(), ErrorCategory::InvalidLaunch);
    ASSERT_EQ(D.getDiagnostics().size(), 1u);
    EXPECT_EQ(D.getDiagnostics()[0].Message, "bad");
    EXPECT_TRUE(D.getRendered().starts_with("in.tile:1:2: error: bad\nabc\n"));
    EXPECT_FALSE(D.wasReported());
  });
  EXPECT_TRUE(Seen);
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  EXPECT_EQ(reportToolError(makeReportedError(ErrorCategory::ResourceLimit, "x"),
                            "tool", OS),
            1);
  EXPECT_EQ(Out, ""); // already reported: nothing more to print
  EXPECT_EQ(reportToolError(llvm::createStringError("plain"), "tool", OS), 1);
  EXPECT_EQ(Out, "tool: error: plain\n");
}

} // namespace
