//===- ResolveTest.cpp - Target strings and BackendContext ----------------===//
//
// resolveBackendContext: aliases, attribute validation and defaults,
// features with closed implications, the host target, and the execution
// backend (auto order, explicit requests, availability), with the exact
// error messages.
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"
#include "tile/IR/IR.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/TargetRegistry.h"
#include "gtest/gtest.h"
#include <dlfcn.h>
#include <type_traits>

// The generated enums of the built-in backend list.
#define GET_TILE_TARGET_ENUMS
#include "TargetBackends.inc"

using namespace tile;
using tile::testing::errorText;

namespace {

static_assert(!std::is_copy_constructible_v<BackendContext> &&
                  !std::is_copy_assignable_v<BackendContext> &&
                  !std::is_default_constructible_v<BackendContext>,
              "a BackendContext is made once, by resolution, and passed by "
              "reference");

TargetRegistry makeRegistry() {
  TargetRegistry R;
  llvm::cantFail(registerAllTargetBackends(R));
  return R;
}

/// Resolves for compilation only (no probe).
llvm::Expected<BackendContext> compileFor(const TargetRegistry &R,
                                          llvm::StringRef Target,
                                          llvm::StringRef Host = "",
                                          llvm::StringRef Exec = "auto") {
  ResolveOptions Opts;
  Opts.RequireAvailable = false;
  return resolveBackendContext(R, Target, Host, Exec, Opts);
}

struct Resolution {
  const char *Target;
  const char *Canonical;
  const char *Backend;
  const char *Exec;
};

TEST(Resolve, DocumentedTargetStrings) {
  TargetRegistry R = makeRegistry();
  const Resolution Cases[] = {
      {"cuda -arch=sm_90a", "cuda -arch=sm_90a", "Hopper", "cuda"},
      {"cuda", "cuda -arch=sm_80", "CUDA", "cuda"},
      {"nvidia", "cuda -arch=sm_80", "CUDA", "cuda"},
      {"nvidia -arch=sm_90a", "cuda -arch=sm_90a", "Hopper", "cuda"},
      {"hip -mcpu=gfx942", "hip -mcpu=gfx942", "ROCm", "hsa"},
      {"rocm", "hip -mcpu=gfx942", "ROCm", "hsa"},
      {"cpu", "cpu -mcpu=native", "CPU", "orc"},
      {"host", "cpu -mcpu=native", "CPU", "orc"},
      {"llvm -mcpu=native", "llvm -mcpu=native", "CPU", "orc"},
      {"c", "c", "CPU", "orc"},
      {"metal", "metal", "Metal", "metal"},
      {"webgpu",
       "webgpu -f16=false -subgroups=false -max_workgroup_storage=16384 "
       "-max_workgroup_size=256",
       "WebGPU", "webgpu"},
      {"level_zero", "level_zero -subgroups=false -sub_group_size=16", "LevelZero",
       "level-zero"},
      {"  cuda   -arch=sm_86 ", "cuda -arch=sm_86", "CUDA", "cuda"},
  };
  for (const Resolution &C : Cases) {
    llvm::Expected<BackendContext> Ctx = compileFor(R, C.Target);
    ASSERT_EQ(errorText(Ctx), "success") << C.Target;
    EXPECT_EQ(Ctx->getTarget().str(), C.Canonical) << C.Target;
    EXPECT_STREQ(Ctx->getBackend().Name, C.Backend) << C.Target;
    EXPECT_STREQ(Ctx->getExecBackend().Name, C.Exec) << C.Target;
    EXPECT_EQ(Ctx->getExecRequest(), "auto");
    EXPECT_FALSE(Ctx->isExecAvailabilityChecked());
  }
}

TEST(Resolve, AttributesAreDefaultedAndRemembered) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Ctx = compileFor(R, "nvidia");
  ASSERT_EQ(errorText(Ctx), "success");
  EXPECT_EQ(Ctx->getTarget().getRequested(), "nvidia");
  EXPECT_EQ(Ctx->getTarget().getAttr("arch"), llvm::StringRef("sm_80"));
  EXPECT_FALSE(Ctx->getTarget().isExplicit("arch"));
  EXPECT_EQ(Ctx->getTarget().getAttr("mcpu"), std::nullopt);
  llvm::Expected<BackendContext> Hopper = compileFor(R, "cuda -arch=sm_90a");
  ASSERT_EQ(errorText(Hopper), "success");
  EXPECT_TRUE(Hopper->getTarget().isExplicit("arch"));
  // arch is the fifth enumerated value; llvm_opt is unset (-1).
  EXPECT_EQ(Hopper->getTarget().getValueIndices(),
            (llvm::ArrayRef<int>{4, -1}));
}

TEST(Resolve, FeaturesFollowAttributesAndImplications) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> H = compileFor(R, "cuda -arch=sm_90a");
  ASSERT_EQ(errorText(H), "success");
  EXPECT_EQ(H->getFeatureNames(),
            (std::vector<llvm::StringRef>{"bf16", "cp_async", "fp8",
                                          "ldmatrix", "mbarrier", "mma_sync",
                                          "setmaxnreg", "tma",
                                          "warp_specialization", "wgmma"}));
  using targets::Feature;
  EXPECT_TRUE(H->hasFeature(unsigned(Feature::Wgmma)));
  EXPECT_TRUE(H->hasFeature(unsigned(Feature::Tma)));
  EXPECT_FALSE(H->hasFeature(unsigned(Feature::Mfma)));

  // sm_90 (no `a`): neither wgmma nor TMA.
  llvm::Expected<BackendContext> S90 = compileFor(R, "cuda -arch=sm_90");
  ASSERT_EQ(errorText(S90), "success");
  EXPECT_FALSE(S90->hasFeature("wgmma"));
  EXPECT_FALSE(S90->hasFeature("tma"));
  EXPECT_TRUE(S90->hasFeature("fp8"));
  llvm::Expected<BackendContext> S86 = compileFor(R, "cuda -arch=sm_86");
  ASSERT_EQ(errorText(S86), "success");
  EXPECT_FALSE(S86->hasFeature("fp8"));
  EXPECT_TRUE(S86->hasFeature("mma_sync"));

  // xf32 (gfx942 only) implies mfma.
  llvm::Expected<BackendContext> G942 = compileFor(R, "hip -mcpu=gfx942");
  ASSERT_EQ(errorText(G942), "success");
  EXPECT_EQ(G942->getFeatureNames(),
            (std::vector<llvm::StringRef>{"bf16", "fp8", "mfma", "xf32"}));
  llvm::Expected<BackendContext> G950 = compileFor(R, "hip -mcpu=gfx950");
  ASSERT_EQ(errorText(G950), "success");
  EXPECT_EQ(G950->getFeatureNames(),
            (std::vector<llvm::StringRef>{"bf16", "fp8", "mfma"}));
}

TEST(Resolve, TargetStringErrors) {
  TargetRegistry R = makeRegistry();
  struct Case {
    const char *Target;
    const char *Message;
  } Cases[] = {
      {"cuda -arch=sm_70",
       "invalid value 'sm_70' for attribute 'arch' of target kind 'cuda'; "
       "allowed values: sm_80, sm_86, sm_89, sm_90, sm_90a"},
      {"rocm -mcpu=gfx1100",
       "invalid value 'gfx1100' for attribute 'mcpu' of target kind 'hip'; "
       "allowed values: gfx90a, gfx942, gfx950"},
      {"cuda -mcpu=gfx942",
       "target kind 'cuda' has no attribute 'mcpu' (in target 'cuda "
       "-mcpu=gfx942'); its attributes: arch, llvm_opt"},
      {"c -mcpu=native", "target kind 'c' has no attribute 'mcpu' (in target "
                         "'c -mcpu=native'); it has no attributes"},
      {"cuda arch=sm_80", "malformed attribute 'arch=sm_80' in target 'cuda "
                          "arch=sm_80'; write -name=value (its attributes: "
                          "arch, llvm_opt)"},
      {"cuda -=sm_80", "malformed attribute '-=sm_80' in target 'cuda "
                       "-=sm_80'; write -name=value (its attributes: "
                       "arch, llvm_opt)"},
      {"cuda -arch", "attribute 'arch' of target kind 'cuda' needs a value: "
                     "-arch=<string>; allowed values: sm_80, sm_86, sm_89, "
                     "sm_90, sm_90a"},
      {"llvm -mcpu", "attribute 'mcpu' of target kind 'llvm' needs a value: "
                     "-mcpu=<string>"},
      {"cuda -arch=sm_80 -arch=sm_90a",
       "attribute 'arch' is given twice in target 'cuda -arch=sm_80 "
       "-arch=sm_90a'"},
  };
  for (const Case &C : Cases) {
    llvm::Expected<BackendContext> Ctx = compileFor(R, C.Target);
    EXPECT_EQ(errorText(Ctx), C.Message) << C.Target;
  }
}

TEST(Resolve, UnknownKindsListTheKnownOnes) {
  using tile::testing::listBetween;
  using tile::testing::sortedWithMembers;
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Unknown = compileFor(R, "cudaa -arch=sm_80");
  std::string Msg = errorText(Unknown);
  EXPECT_EQ(Msg.rfind("unknown target kind 'cudaa' in target 'cudaa "
                      "-arch=sm_80'; known kinds: ",
                      0),
            0u)
      << Msg;
  EXPECT_TRUE(llvm::StringRef(Msg).ends_with(
      " (tile-llc -print-targets lists their attributes)"))
      << Msg;
  EXPECT_TRUE(sortedWithMembers(listBetween(Msg, "known kinds: ", "; aliases"),
                                {"c", "cpu", "cuda", "hip", "llvm"}));
  EXPECT_TRUE(sortedWithMembers(listBetween(Msg, "; aliases: ", " (tile-llc"),
                                {"host (cpu)", "nvidia (cuda)", "rocm (hip)"}));

  llvm::Expected<BackendContext> Empty = compileFor(R, "  ");
  Msg = errorText(Empty);
  EXPECT_EQ(Msg.rfind("empty target string; expected a target kind (", 0), 0u)
      << Msg;
  EXPECT_TRUE(sortedWithMembers(
      listBetween(Msg, "expected a target kind (", ") or an alias"),
      {"c", "cpu", "cuda", "webgpu"}));
  EXPECT_TRUE(sortedWithMembers(listBetween(Msg, "or an alias (", "))"),
                                {"host (cpu)", "nvidia (cuda)"}));
}

TEST(Resolve, HostTarget) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Cuda = compileFor(R, "cuda");
  ASSERT_EQ(errorText(Cuda), "success");
  EXPECT_EQ(Cuda->getHostTarget().str(), "cpu -mcpu=native");
  EXPECT_STREQ(Cuda->getHostBackend().Name, "CPU");
  llvm::Expected<BackendContext> C = compileFor(R, "c");
  ASSERT_EQ(errorText(C), "success");
  EXPECT_EQ(C->getHostTarget().str(), "c");
  llvm::Expected<BackendContext> Explicit =
      compileFor(R, "rocm", "llvm -mcpu=znver3");
  ASSERT_EQ(errorText(Explicit), "success");
  EXPECT_EQ(Explicit->getHostTarget().str(), "llvm -mcpu=znver3");
  llvm::Expected<BackendContext> Bad = compileFor(R, "cpu", "nvidia");
  EXPECT_EQ(errorText(Bad), "host target 'cuda -arch=sm_80' (backend CUDA) "
                            "cannot generate host code; host target kinds: "
                            "c, cpu, llvm");
  llvm::Expected<BackendContext> Unknown = compileFor(R, "cpu", "arm");
  EXPECT_EQ(errorText(Unknown).rfind("in host target: unknown target kind "
                                     "'arm' in target 'arm'; known kinds:",
                                     0),
            0u);
}

//===----------------------------------------------------------------------===//
// Execution backends
//===----------------------------------------------------------------------===//

/// Availability as a test decides it.
void setAvailable(TargetRegistry &R,
                  std::initializer_list<ExecBackendKind> Available) {
  std::vector<ExecBackendKind> Yes(Available);
  R.setAvailabilityFn([Yes](ExecBackendKind K) {
    if (llvm::is_contained(Yes, K))
      return ExecAvailability::available("test");
    return ExecAvailability::unavailable(
        std::string("the test says ") + getExecBackendInfo(K).Name +
        " is missing");
  });
}

TEST(Resolve, ExplicitExecutionBackendRequests) {
  TargetRegistry R = makeRegistry();
  setAvailable(R, {ExecBackendKind::Orc});
  EXPECT_EQ(errorText(compileFor(R, "cuda", "", "hsa").takeError()),
            "execution backend 'hsa' cannot run target 'cuda -arch=sm_80' "
            "(backend CUDA); compatible execution backends, in auto order: "
            "cuda");
  std::string Msg = errorText(compileFor(R, "cuda", "", "ptx").takeError());
  EXPECT_EQ(Msg.rfind("unknown execution backend 'ptx'; execution backends: "
                      "auto, ",
                      0),
            0u)
      << Msg;
  std::vector<std::string> Execs =
      tile::testing::listBetween(Msg, "execution backends: auto, ");
  for (const char *E : {"cuda", "hsa", "level-zero", "orc", "webgpu"})
    EXPECT_TRUE(llvm::is_contained(Execs, E)) << E << " in " << Msg;
  llvm::Expected<BackendContext> Unavailable =
      resolveBackendContext(R, "cuda -arch=sm_90a", "", "cuda");
  EXPECT_EQ(errorText(Unavailable),
            "execution backend 'cuda' is not available: the test says cuda "
            "is missing; compatible execution backends for target 'cuda "
            "-arch=sm_90a' (backend Hopper): cuda");
  llvm::Expected<BackendContext> Orc =
      resolveBackendContext(R, "cpu", "", "orc");
  ASSERT_EQ(errorText(Orc), "success");
  EXPECT_STREQ(Orc->getExecBackend().Name, "orc");
  EXPECT_EQ(Orc->getExecRequest(), "orc");
  EXPECT_TRUE(Orc->isExecAvailabilityChecked());
  // For compilation only, an unavailable request is accepted.
  llvm::Expected<BackendContext> Compile = compileFor(R, "cuda", "", "cuda");
  ASSERT_EQ(errorText(Compile), "success");
  EXPECT_STREQ(Compile->getExecBackend().Name, "cuda");
}

TEST(Resolve, AutoWithNothingAvailableSaysWhy) {
  TargetRegistry R = makeRegistry();
  setAvailable(R, {});
  EXPECT_EQ(errorText(resolveBackendContext(R, "rocm").takeError()),
            "no execution backend is available for target 'hip -mcpu=gfx942' "
            "(backend ROCm): 'hsa' is not available: the test says hsa is "
            "missing; run where one of them is available, or resolve for "
            "compilation only");
}

TEST(Resolve, ContractOfTheSelectedExecutionBackend) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Ctx = compileFor(R, "cuda -arch=sm_90a");
  ASSERT_EQ(errorText(Ctx), "success");
  const ExecCompatInfo &C = Ctx->getExecContract();
  EXPECT_EQ(C.Exec, ExecBackendKind::Cuda);
  EXPECT_EQ(C.formats(),
            (llvm::ArrayRef<DeviceFormat>{DeviceFormat::PTX,
                                          DeviceFormat::Cubin}));
  EXPECT_TRUE(C.NeedsHostCodeGen);
  EXPECT_EQ(C.Compile, DeviceCompile::Eager);
  llvm::Expected<BackendContext> Metal = compileFor(R, "metal");
  ASSERT_EQ(errorText(Metal), "success");
  EXPECT_FALSE(Metal->getExecContract().NeedsHostCodeGen);
  EXPECT_EQ(Metal->getBackend().HostCodeGen, nullptr);
}

TEST(Resolve, RealProbesNameTheLibrary) {
  // No fake availability: the probes of libTileExec, on whatever machine
  // this runs.
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Cpu = resolveBackendContext(R, "cpu");
  ASSERT_EQ(errorText(Cpu), "success");
  EXPECT_STREQ(Cpu->getExecBackend().Name, "orc");

  void *Cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (Cuda) {
    dlclose(Cuda);
    GTEST_SKIP() << "libcuda.so.1 loads here";
  }
  std::string Msg = errorText(resolveBackendContext(R, "cuda").takeError());
  EXPECT_EQ(Msg.rfind("no execution backend is available for target 'cuda "
                      "-arch=sm_80' (backend CUDA): 'cuda' is not available: "
                      "libcuda.so.1 could not be loaded (",
                      0),
            0u)
      << Msg;
}

TEST(Resolve, GPUPipelinesRunOnAnEmptyModule) {
  // The pipeline entry points take the resolved context; a module without
  // functions gives the ROCm and Level Zero pipelines nothing to do.
  TargetRegistry R = makeRegistry();
  for (const char *T : {"hip -mcpu=gfx90a", "level_zero"}) {
    llvm::Expected<BackendContext> Ctx = compileFor(R, T);
    ASSERT_EQ(errorText(Ctx), "success") << T;
    TileContext TC;
    Module M(TC);
    EXPECT_EQ(errorText(Ctx->getBackend().Pipeline(*Ctx, M)), "success") << T;
  }
}

TEST(Resolve, NotImplementedErrorsNameTheTargetAndBackend) {
  TargetRegistry R = makeRegistry();
  llvm::Expected<BackendContext> Ctx = compileFor(R, "hip -mcpu=gfx90a");
  ASSERT_EQ(errorText(Ctx), "success");
  EXPECT_EQ(errorText(makeNotImplementedError(*Ctx, "the frobnicator")),
            "the frobnicator is not implemented yet for target 'hip "
            "-mcpu=gfx90a' (backend ROCm)");
}

} // namespace
