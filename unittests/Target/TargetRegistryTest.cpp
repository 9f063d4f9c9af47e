//===- TargetRegistryTest.cpp - The registered backends -------------------===//
//
// What TileLang's registry tests check, here for the descriptors generated
// from lib/Target/*/<B>.td: the built-in backends with their kinds and
// execution backends (members, so that a new backend folder changes no
// test), variant resolution to exactly one backend, the Hopper
// variant reusing the CUDA dialect but not its pipeline, and rejection of
// duplicate names and of shared kinds without exclusive predicates.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/IR.h"
#include "tile/Target/AllEmulators.h"
#include "tile/Target/BackendContext.h"
#include "tile/Target/AllTargets.h"
#include "tile/Target/TargetRegistry.h"
#include "TestHelpers.h"
#include "gtest/gtest.h"
#include <algorithm>
#include <map>
#include "llvm/Support/raw_ostream.h"

using namespace tile;

using tile::testing::errorText;
using tile::testing::listBetween;
using tile::testing::sortedWithMembers;

namespace {

TargetRegistry makeRegistry() {
  TargetRegistry R;
  llvm::cantFail(registerAllTargetBackends(R));
  return R;
}

std::vector<std::string> kindNames(const TargetBackendInfo &B) {
  std::vector<std::string> Out;
  for (const BackendKindInfo &K : B.kinds())
    Out.push_back(K.Kind->Name);
  return Out;
}

std::vector<std::string> execNames(const TargetBackendInfo &B) {
  std::vector<std::string> Out;
  for (const ExecCompatInfo &C : B.execBackends())
    Out.push_back(getExecBackendInfo(C.Exec).Name);
  return Out;
}

using Strings = std::vector<std::string>;

TEST(TargetRegistry, BuiltInBackendsWithKindsAndExecutionBackends) {
  TargetRegistry R = makeRegistry();
  std::map<std::string, std::pair<Strings, Strings>> Got;
  for (const TargetBackendInfo *B : R.getBackends())
    Got[B->Name] = {kindNames(*B), execNames(*B)};
  std::map<std::string, std::pair<Strings, Strings>> Expected = {
      {"CPU", {{"cpu", "llvm", "c"}, {"orc"}}},
      {"CUDA", {{"cuda"}, {"cuda"}}},
      {"Hopper", {{"cuda"}, {"cuda"}}},
      {"LevelZero", {{"level_zero"}, {"level-zero"}}},
      {"Metal", {{"metal"}, {"metal"}}},
      {"ROCm", {{"hip"}, {"hsa"}}},
      {"WebGPU", {{"webgpu"}, {"webgpu"}}},
  };
  for (const auto &[Name, KindsAndExecs] : Expected) {
    ASSERT_TRUE(Got.count(Name)) << Name;
    EXPECT_EQ(Got[Name], KindsAndExecs) << Name;
  }
  // Registration order is name order.
  Strings Order;
  for (const TargetBackendInfo *B : R.getBackends())
    Order.push_back(B->Name);
  EXPECT_TRUE(std::is_sorted(Order.begin(), Order.end()));
}

TEST(TargetRegistry, KindsAndAliases) {
  TargetRegistry R = makeRegistry();
  EXPECT_TRUE(sortedWithMembers(listBetween(R.listKinds(), ""),
                                {"c", "cpu", "cuda", "hip", "level_zero",
                                 "llvm", "metal", "webgpu"}));
  EXPECT_TRUE(sortedWithMembers(listBetween(R.listAliases(), ""),
                                {"host (cpu)", "nvidia (cuda)", "rocm (hip)"}));
  EXPECT_EQ(R.lookupKind("nvidia"), R.lookupKind("cuda"));
  EXPECT_EQ(R.lookupKind("rocm"), R.lookupKind("hip"));
  EXPECT_EQ(R.lookupKind("host"), R.lookupKind("cpu"));
  EXPECT_EQ(R.lookupKind("gpu"), nullptr);
  ASSERT_NE(R.getDefaultHostKind(), nullptr);
  EXPECT_STREQ(R.getDefaultHostKind()->Name, "cpu");
}

TEST(TargetRegistry, EveryCudaArchSelectsExactlyOneBackend) {
  TargetRegistry R = makeRegistry();
  const TargetKindInfo *Cuda = R.lookupKind("cuda");
  ASSERT_NE(Cuda, nullptr);
  const TargetAttrInfo &Arch = Cuda->Attrs[Cuda->findAttr("arch")];
  std::map<std::string, std::string> Selected;
  for (const char *Value : Arch.values()) {
    llvm::Expected<TargetSpec> T =
        R.parseTarget(std::string("cuda -arch=") + Value);
    ASSERT_EQ(errorText(T), "success");
    unsigned Accepting = 0;
    for (const TargetBackendInfo *B : R.getBackendsForKind(*Cuda)) {
      const BackendKindInfo *BK = B->findKind(*Cuda);
      ASSERT_NE(BK->Variant, nullptr) << B->Name << " shares cuda";
      Accepting += BK->Variant(T->getValueIndices().data());
    }
    EXPECT_EQ(Accepting, 1u) << Value;
    llvm::Expected<const TargetBackendInfo *> B = R.selectBackend(*T);
    ASSERT_EQ(errorText(B), "success");
    Selected[Value] = (*B)->Name;
  }
  EXPECT_EQ(Selected, (std::map<std::string, std::string>{{"sm_80", "CUDA"},
                                                          {"sm_86", "CUDA"},
                                                          {"sm_89", "CUDA"},
                                                          {"sm_90", "CUDA"},
                                                          {"sm_90a", "Hopper"}}));
}

TEST(TargetRegistry, HopperReusesTheCudaDialectButNotItsPipeline) {
  TargetRegistry R = makeRegistry();
  const TargetBackendInfo *Cuda = R.lookupBackend("CUDA");
  const TargetBackendInfo *Hopper = R.lookupBackend("Hopper");
  ASSERT_TRUE(Cuda && Hopper);
  ASSERT_EQ(Cuda->NumDialects, 1u);
  ASSERT_EQ(Hopper->NumDialects, 1u);
  EXPECT_STREQ(Hopper->Dialects[0].Name, "cuda");
  EXPECT_STREQ(Cuda->Dialects[0].Name, "cuda");
  EXPECT_EQ(Hopper->Dialects[0].Register, Cuda->Dialects[0].Register);
  EXPECT_NE(Hopper->Pipeline, Cuda->Pipeline);
  EXPECT_STREQ(Hopper->PipelineName, "runHopperPipeline");
  EXPECT_STREQ(Cuda->PipelineName, "runCUDAPipeline");
  // Codegen is shared.
  EXPECT_EQ(Hopper->DeviceCodeGen, Cuda->DeviceCodeGen);
  EXPECT_EQ(Hopper->HostCodeGen, Cuda->HostCodeGen);
}

TEST(TargetRegistry, RegisteringTwiceIsRejected) {
  TargetRegistry R = makeRegistry();
  size_t Before = R.getBackends().size();
  EXPECT_EQ(errorText(registerAllTargetBackends(R)),
            "target backend 'CPU' is already registered");
  EXPECT_EQ(R.getBackends().size(), Before);
}

TEST(TargetRegistry, EmulatorsAreRegisteredApart) {
  TargetRegistry R = makeRegistry();
  const TargetBackendInfo *Cuda = R.lookupBackend("CUDA");
  const TargetBackendInfo *Cpu = R.lookupBackend("CPU");
  ASSERT_TRUE(Cuda && Cpu);
  // Declared in the .td, but not linked until a program registers it.
  EXPECT_STREQ(Cuda->EmulatorName, "emulateCUDA");
  EXPECT_EQ(R.getEmulator(*Cuda), nullptr);
  llvm::cantFail(registerAllTargetEmulators(R));
  EXPECT_NE(R.getEmulator(*Cuda), nullptr);
  EXPECT_EQ(R.getEmulator(*Cpu), nullptr);
  EXPECT_EQ(errorText(registerAllTargetEmulators(R)),
            "target backend 'CUDA' already has an emulator");
  EXPECT_EQ(errorText(R.addEmulator("NoSuch", R.getEmulator(*Cuda))),
            "cannot register an emulator for target backend 'NoSuch': no "
            "such backend is registered");
  EXPECT_EQ(errorText(R.addEmulator("CPU", R.getEmulator(*Cuda))),
            "cannot register an emulator for target backend 'CPU': its .td "
            "declares none");
  EXPECT_EQ(R.getEmulator(*Cpu), nullptr);
}

TEST(TargetRegistry, DialectsAreRegisteredWithTheirBackends) {
  TargetRegistry R = makeRegistry();
  TileContext Ctx;
  EXPECT_EQ(Ctx.getOpRegistry().lookup("cuda.wgmma"), nullptr);
  R.registerDialects(Ctx.getOpRegistry());
  for (const char *Op : {"cuda.wgmma", "cuda.tma_copy", "cuda.mbarrier_init",
                         "cuda.mbarrier_arrive", "cuda.mbarrier_wait",
                         "cuda.ldmatrix", "cuda.setmaxnreg", "rocm.mfma",
                         "metal.simdgroup_mma"})
    EXPECT_NE(Ctx.getOpRegistry().lookup(Op), nullptr) << Op;
  const OpInfo *Wgmma = Ctx.getOpRegistry().lookup("cuda.wgmma");
  EXPECT_STREQ(Wgmma->Dialect, "cuda");
  EXPECT_NE(Wgmma->Verify, nullptr);
  // CUDA and Hopper both name the cuda dialect: registered once.
  EXPECT_TRUE(Ctx.getOpRegistry().hasDialect("cuda"));
  R.registerDialects(Ctx.getOpRegistry());
  EXPECT_EQ(Ctx.getOpRegistry().lookup("cuda.wgmma"), Wgmma);
}

//===----------------------------------------------------------------------===//
// Registration checks across descriptor lists, on hand-written descriptors.
//===----------------------------------------------------------------------===//

llvm::Error failPipeline(const BackendContext &, Module &) {
  return llvm::createStringError("unused");
}
llvm::Error failCodeGen(const BackendContext &, const Module &,
                        KernelArtifact &) {
  return llvm::createStringError("unused");
}
constexpr bool acceptsSm90AndLater(const int *V) { return V[0] >= 3; }

constexpr DeviceFormat kPtx[] = {DeviceFormat::PTX};
constexpr ExecCompatInfo kCudaCompat[] = {
    {ExecBackendKind::Cuda, kPtx, 1, true, DeviceCompile::Eager}};
constexpr DeviceOutputInfo kPtxOut[] = {{DeviceFormat::PTX, OutputMode::SourceOnly}};

/// A backend for kind \p K (owned by others or not) with \p Variant.
struct RogueBackend {
  BackendKindInfo Kind;
  TargetBackendInfo Info;
  RogueBackend(const TargetKindInfo *K, AttrPredicateFn Variant,
               const char *VariantText)
      : Kind{K, Variant, VariantText, nullptr, 0, nullptr, 0},
        Info{"Rogue",       "a test backend", &Kind,       1,       nullptr,
             0,             nullptr,          0,           nullptr, 0,
             failPipeline,  "failPipeline",   nullptr,     nullptr,
             failCodeGen,   "failCodeGen",
             failCodeGen,   "failCodeGen",    kPtxOut,     1,       kCudaCompat,
             1,             false} {}
};

TEST(TargetRegistry, SharedKindWithoutVariantPredicateIsRejected) {
  TargetRegistry R = makeRegistry();
  RogueBackend Rogue(R.lookupKind("cuda"), nullptr, nullptr);
  EXPECT_EQ(errorText(R.addBackend(Rogue.Info)),
            "target kind 'cuda' would be owned by target backends 'CUDA', "
            "'Hopper', 'Rogue', but 'Rogue' has no variant predicate; "
            "backends sharing a kind need mutually exclusive variant "
            "predicates");
  EXPECT_EQ(R.lookupBackend("Rogue"), nullptr);
}

TEST(TargetRegistry, OverlappingVariantPredicatesAreRejected) {
  TargetRegistry R = makeRegistry();
  RogueBackend Rogue(R.lookupKind("cuda"), acceptsSm90AndLater,
                     "arch >= sm_90");
  EXPECT_EQ(errorText(R.addBackend(Rogue.Info)),
            "the variant predicates of target backends 'CUDA' (arch < sm_90a) "
            "and 'Rogue' (arch >= sm_90) both accept target 'cuda "
            "-arch=sm_90'; cannot register 'Rogue'");
}

TEST(TargetRegistry, AnotherDeclarationOfAKindIsRejected) {
  TargetRegistry R = makeRegistry();
  TargetKindInfo OtherCuda{"cuda", "", nullptr, 0, nullptr, 0, false};
  RogueBackend Rogue(&OtherCuda, nullptr, nullptr);
  EXPECT_EQ(errorText(R.addBackend(Rogue.Info)),
            "target kind 'cuda' of backend 'Rogue' uses the name 'cuda', "
            "already taken by kind 'cuda' of backend 'CUDA', 'Hopper'; a "
            "variant of an existing kind must reuse that kind's declaration");
  const char *Aliases[] = {"rocm"};
  TargetKindInfo Gpu{"gpu", "", Aliases, 1, nullptr, 0, false};
  RogueBackend AliasRogue(&Gpu, nullptr, nullptr);
  EXPECT_EQ(errorText(R.addBackend(AliasRogue.Info)),
            "target kind 'gpu' of backend 'Rogue' uses the name 'rocm', "
            "already taken by kind 'hip' of backend 'ROCm'; a variant of an "
            "existing kind must reuse that kind's declaration");
}

TEST(TargetRegistry, BackendsNeedAnExecutionBackendAndItsContract) {
  TargetRegistry R = makeRegistry();
  TargetKindInfo Gpu{"gpu", "", nullptr, 0, nullptr, 0, false};
  RogueBackend NoExec(&Gpu, nullptr, nullptr);
  NoExec.Info.NumExec = 0;
  EXPECT_EQ(errorText(R.addBackend(NoExec.Info)),
            "target backend 'Rogue' declares no execution backend and is not "
            "compile-only");
  RogueBackend Contradiction(&Gpu, nullptr, nullptr);
  Contradiction.Info.CompileOnly = true;
  EXPECT_EQ(errorText(R.addBackend(Contradiction.Info)),
            "target backend 'Rogue' is compile-only but declares execution "
            "backends");
  RogueBackend NoHost(&Gpu, nullptr, nullptr);
  NoHost.Info.HostCodeGen = nullptr;
  EXPECT_EQ(errorText(R.addBackend(NoHost.Info)),
            "execution backend 'cuda' needs host code, but target backend "
            "'Rogue' has no host codegen");
  RogueBackend Fine(&Gpu, nullptr, nullptr);
  EXPECT_EQ(errorText(R.addBackend(Fine.Info)), "success");
  EXPECT_EQ(R.lookupKind("gpu"), &Gpu);
}

TEST(TargetRegistry, CompileOnlyBackendsCompileButDoNotRun) {
  TargetRegistry R = makeRegistry();
  TargetKindInfo Paper{"paper", "", nullptr, 0, nullptr, 0, false};
  RogueBackend B(&Paper, nullptr, nullptr);
  B.Info.Exec = nullptr;
  B.Info.NumExec = 0;
  B.Info.CompileOnly = true;
  ASSERT_EQ(errorText(R.addBackend(B.Info)), "success");

  ResolveOptions Compile;
  Compile.RequireAvailable = false;
  llvm::Expected<BackendContext> C =
      resolveBackendContext(R, "paper", "", "auto", Compile);
  ASSERT_EQ(errorText(C), "success");
  EXPECT_FALSE(C->hasExecBackend());
  std::string Printed;
  llvm::raw_string_ostream OS(Printed);
  C->print(OS);
  EXPECT_NE(Printed.find("execution backend:  none (compile-only backend)"),
            std::string::npos)
      << Printed;

  const char *NoRuntime =
      "target 'paper' (backend Rogue) has no execution backend yet (its .td "
      "declares it CompileOnly): it compiles, but nothing here runs its "
      "output";
  EXPECT_EQ(errorText(resolveBackendContext(R, "paper", "", "auto").takeError()),
            NoRuntime);
  EXPECT_EQ(errorText(
                resolveBackendContext(R, "paper", "", "orc", Compile).takeError()),
            NoRuntime);
}

} // namespace
