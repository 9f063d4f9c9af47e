// Every section -gen-target-backends emits, on a small backend list: two
// backends sharing a kind through exclusive variant predicates, features
// with a chain of implications, aliases and attributes of each type, the
// execution-compatibility contracts and the registration function.
// RUN: tile-tblgen -gen-target-backends -I %tile_include %s | FileCheck %s
// RUN: tile-tblgen -gen-target-backends -I %tile_include -target-register-fn=registerDemoBackends -target-namespace=demo::ns %s | FileCheck %s --check-prefix=OPTS
// Deterministic: two runs give the same bytes.
// RUN: tile-tblgen -gen-target-backends -I %tile_include %s -o %t.1
// RUN: tile-tblgen -gen-target-backends -I %tile_include %s -o %t.2
// RUN: cmp %t.1 %t.2
// The limits as docs/Targets.md lists them.
// RUN: tile-tblgen -gen-target-limits-docs -I %tile_include %s | FileCheck %s --check-prefix=DOCS

include "tile/Exec/ExecutionBackends.td"

def DemoDialect : Dialect<"demo"> {
  let RegisterFn = "registerDemoOps";
}
def DemoMmaOp : Op<DemoDialect, "mma"> {
  let Format = "attr-dict";
}

def FeatC : TargetFeature<"feat_c", "the last of a chain">;
def FeatB : TargetFeature<"feat_b", "implies feat_c", [FeatC]>;
def FeatA : TargetFeature<"feat_a", "implies feat_b, so feat_c too", [FeatB]>;

def GpuKind : TargetKind<"gpu"> {
  let Summary = "a demo GPU";
  let Aliases = ["gfx", "accel"];
  let Attrs = [TargetEnumAttr<"gen", ["g1", "g2", "g3"], "g1", "generation">,
               TargetAttr<"units", TargetInt, "4", [], "compute units">,
               TargetAttr<"fast", TargetBool, "false", [], "fast math">];
}
def HostKind : TargetKind<"hostcpu"> {
  let DefaultHost = 1;
}

def OldGpu : TargetBackend<"OldGpu"> {
  let Summary = "generations before g3";
  let Kinds = [GpuKind];
  let Variant = AttrBelow<"gen", "g3">;
  let Features = [FeatureWhen<FeatC>, FeatureWhen<FeatB, AttrIn<"gen", ["g2"]>>];
  let Dialects = [DemoDialect];
  let Pipeline = "runOldPipeline";
  let DeviceCodeGen = "genGpuDevice";
  let HostCodeGen = "genGpuHost";
  let Outputs = [DeviceOutput<FormatPTX, SourceOnly>, DeviceOutput<FormatCubin, Compiled>];
  let ExecutionBackends = [CudaExec];
}

def NewGpu : TargetBackend<"NewGpu"> {
  let Summary = "g3 and later";
  let Kinds = [GpuKind];
  let Variant = AttrNot<AttrBelow<"gen", "g3">>;
  let Features = [FeatureWhen<FeatA, AttrAllOf<[AttrAtLeast<"gen", "g3">, AttrIn<"fast", ["true"]>]>>];
  let Dialects = [DemoDialect];
  // Only the pass list: the table defines runNewGpuPipeline over it.
  let PassPipeline = "buildNewPipeline";
  let DeviceCodeGen = "genGpuDevice";
  let HostCodeGen = "genGpuHost";
  let Outputs = [DeviceOutput<FormatCubin, Compiled>, DeviceOutput<FormatLLVMIR, SourceOnly>];
  let ExecutionBackends = [CudaExec, OrcExec];
  let Emulator = "emulateNewGpu";
  let Limits = [ResourceLimit<ThreadsPerBlock, 1024>,
                ResourceLimit<SharedMemoryPerBlock, 65536, AttrIn<"fast", ["true"]>, "use -fast=false">,
                ResourceLimitFromAttr<SharedMemoryPerBlock, "units", 32768>];
}

def Host : TargetBackend<"Host"> {
  let Kinds = [HostKind];
  let Pipeline = "runHostPipeline";
  let RegisterPasses = "registerHostPasses";
  let DeviceCodeGen = "genHostDevice";
  let HostCodeGen = "genHostHost";
  let Outputs = [DeviceOutput<FormatC, SourceOnly>];
  let ExecutionBackends = [OrcExec];
  let HostCapable = 1;
}

def : OpNeedsFeatures<DemoMmaOp, [FeatB]>;

// CHECK:      #ifdef GET_TILE_TARGET_ENUMS
// CHECK-NEXT: #undef GET_TILE_TARGET_ENUMS
// CHECK-NEXT: namespace tile::targets {
// CHECK:      enum class Backend : unsigned {
// CHECK-NEXT:   Host,
// CHECK-NEXT:   NewGpu,
// CHECK-NEXT:   OldGpu,
// CHECK-NEXT: };
// CHECK:      enum class Kind : unsigned {
// CHECK-NEXT:   Gpu, // gpu
// CHECK-NEXT:   Hostcpu, // hostcpu
// CHECK-NEXT: };
// The shared features of Target.td come with every list.
// CHECK:      enum class Feature : unsigned {
// CHECK-NEXT:   Bf16 = 0, // bf16
// CHECK-NEXT:   FeatA = 1, // feat_a
// CHECK-NEXT:   FeatB = 2, // feat_b
// CHECK-NEXT:   FeatC = 3, // feat_c
// CHECK-NEXT:   Fp8 = 4, // fp8
// CHECK-NEXT: };
// CHECK:      #endif // GET_TILE_TARGET_ENUMS

// CHECK:      #ifdef GET_TILE_TARGET_BACKEND_TABLE
// CHECK:      // Entry points, defined in each backend's library.
// CHECK-NEXT: llvm::Error runHostPipeline(const BackendContext &, Module &);
// CHECK-NEXT: llvm::Error runOldPipeline(const BackendContext &, Module &);
// CHECK-NEXT: void buildNewPipeline(const BackendContext &, PassManager &);
// CHECK-NEXT: void registerHostPasses(PassRegistry &);
// CHECK-NEXT: llvm::Error genGpuDevice(const BackendContext &, const Module &, KernelArtifact &);
// CHECK-NEXT: llvm::Error genGpuHost(const BackendContext &, const Module &, KernelArtifact &);
// CHECK-NEXT: llvm::Error genHostDevice(const BackendContext &, const Module &, KernelArtifact &);
// CHECK-NEXT: llvm::Error genHostHost(const BackendContext &, const Module &, KernelArtifact &);
// CHECK-NEXT: void registerDemoOps(OpRegistry &);
// CHECK-NOT:  emulateNewGpu
// The pipeline of a backend that names only its pass list.
// CHECK:      llvm::Error runBackendPipeline(const BackendContext &, Module &,
// CHECK:      llvm::Error runNewGpuPipeline(const BackendContext &Ctx, Module &M) {
// CHECK-NEXT:   return runBackendPipeline(Ctx, M, buildNewPipeline, "NewGpu");
// CHECK-NEXT: }

// Implications closed: feat_a = bits 1, 2, 3.
// CHECK:      constexpr TargetFeatureInfo kFeatures[] = {
// CHECK-NEXT:   {"bf16", "{{.*}}", 0x0000000000000001},
// CHECK-NEXT:   {"feat_a", "implies feat_b, so feat_c too", 0x000000000000000e},
// CHECK-NEXT:   {"feat_b", "implies feat_c", 0x000000000000000c},
// CHECK-NEXT:   {"feat_c", "the last of a chain", 0x0000000000000008},
// CHECK-NEXT:   {"fp8", "{{.*}}", 0x0000000000000010},
// CHECK-NEXT: };

// Aliases sorted; bool attributes list no values.
// CHECK:      constexpr const char *kGpuAliases[] = {"accel", "gfx"};
// CHECK-NEXT: constexpr const char *kGpu_GenValues[] = {"g1", "g2", "g3"};
// CHECK-NEXT: constexpr TargetAttrInfo kGpuAttrs[] = {
// CHECK-NEXT:   {"gen", TargetAttrType::String, "g1", kGpu_GenValues, 3, "generation"},
// CHECK-NEXT:   {"units", TargetAttrType::Int, "4", nullptr, 0, "compute units"},
// CHECK-NEXT:   {"fast", TargetAttrType::Bool, "false", nullptr, 0, "fast math"},
// CHECK-NEXT: };
// CHECK:      constexpr TargetKindInfo kKinds[] = {
// CHECK-NEXT:   {"gpu", "a demo GPU", kGpuAliases, 2, kGpuAttrs, 3, false},
// CHECK-NEXT:   {"hostcpu", "", nullptr, 0, nullptr, 0, true},
// CHECK-NEXT: };

// Predicates compare positions: gen is V[0], fast is V[2] (true is 1).
// CHECK:      /// gpu: not (gen < g3)
// CHECK-NEXT: constexpr bool isNewGpu_GpuVariant(const int *V) {
// CHECK-NEXT:   return !(V[0] >= 0 && V[0] < 2);
// CHECK-NEXT: }
// CHECK-NEXT: /// feat_a on gpu: gen >= g3 and fast == true
// CHECK-NEXT: constexpr bool hasNewGpu_GpuFeature0(const int *V) {
// CHECK-NEXT:   return ((V[0] >= 2) && (V[2] == 1));
// CHECK-NEXT: }
// CHECK-NEXT: /// gpu: gen < g3
// CHECK-NEXT: constexpr bool isOldGpu_GpuVariant(const int *V) {
// CHECK-NEXT:   return (V[0] >= 0 && V[0] < 2);
// CHECK-NEXT: }
// CHECK-NEXT: /// feat_b on gpu: gen == g2
// CHECK-NEXT: constexpr bool hasOldGpu_GpuFeature1(const int *V) {
// CHECK-NEXT:   return (V[0] == 1);
// CHECK-NEXT: }

// Contracts: the formats each execution backend takes from the backend, in
// the backend's order; orc takes llvm-ir but not cubin.
// CHECK:      //===--- Execution compatibility and contracts ---===//
// CHECK:      constexpr DeviceFormat kHost_OrcFormats[] = {DeviceFormat::C};
// CHECK-NEXT: constexpr ExecCompatInfo kHostExec[] = {
// CHECK-NEXT:   {ExecBackendKind::Orc, kHost_OrcFormats, 1, true, DeviceCompile::Deferred},
// CHECK-NEXT: };
// CHECK-NEXT: constexpr DeviceFormat kNewGpu_CudaFormats[] = {DeviceFormat::Cubin};
// CHECK-NEXT: constexpr DeviceFormat kNewGpu_OrcFormats[] = {DeviceFormat::LLVMIR};
// CHECK-NEXT: constexpr ExecCompatInfo kNewGpuExec[] = {
// CHECK-NEXT:   {ExecBackendKind::Cuda, kNewGpu_CudaFormats, 1, true, DeviceCompile::Eager},
// CHECK-NEXT:   {ExecBackendKind::Orc, kNewGpu_OrcFormats, 1, true, DeviceCompile::Deferred},
// CHECK-NEXT: };
// CHECK-NEXT: constexpr DeviceFormat kOldGpu_CudaFormats[] = {DeviceFormat::PTX, DeviceFormat::Cubin};

// CHECK:      //===--- Target backends ---===//
// CHECK:      constexpr BackendKindInfo kHostKinds[] = {
// CHECK-NEXT:   {&kKinds[1], nullptr, nullptr, nullptr, 0, nullptr, 0},
// CHECK-NEXT: };
// CHECK:      constexpr FeatureCondition kNewGpu_GpuFeatures[] = {
// CHECK-NEXT:   {0x000000000000000e, hasNewGpu_GpuFeature0, "gen >= g3 and fast == true"}, // feat_a
// CHECK-NEXT: };
// CHECK-NEXT: constexpr bool appliesNewGpu_GpuLimit1(const int *V) {
// CHECK-NEXT:   return (V[2] == 1);
// CHECK-NEXT: }
// CHECK-NEXT: constexpr ResourceLimitInfo kNewGpu_GpuLimits[] = {
// CHECK-NEXT:   {ResourceKind::ThreadsPerBlock, 1024, nullptr, "always", nullptr, ""},
// CHECK-NEXT:   {ResourceKind::SharedMemoryPerBlock, 65536, appliesNewGpu_GpuLimit1, "fast == true", nullptr, "use -fast=false"},
// CHECK-NEXT:   {ResourceKind::SharedMemoryPerBlock, 32768, nullptr, "always", "units", ""},
// CHECK-NEXT: };
// CHECK-NEXT: constexpr BackendKindInfo kNewGpuKinds[] = {
// CHECK-NEXT:   {&kKinds[0], isNewGpu_GpuVariant, "not (gen < g3)", kNewGpu_GpuFeatures, 1, kNewGpu_GpuLimits, 3},
// CHECK-NEXT: };
// CHECK-NEXT: constexpr DialectInfo kNewGpuDialects[] = {{.}}{"demo", registerDemoOps}};
// CHECK-NEXT: constexpr DeviceOutputInfo kNewGpuOutputs[] = {{.}}{DeviceFormat::Cubin, OutputMode::Compiled}, {DeviceFormat::LLVMIR, OutputMode::SourceOnly}};
// CHECK-NEXT: constexpr OpFeatureRequirement kNewGpuOpRequirements[] = {
// CHECK-NEXT:   {"demo.mma", 0x000000000000000c},
// CHECK-NEXT: };
// CHECK:      constexpr FeatureCondition kOldGpu_GpuFeatures[] = {
// CHECK-NEXT:   {0x0000000000000008, nullptr, "always"}, // feat_c
// CHECK-NEXT:   {0x000000000000000c, hasOldGpu_GpuFeature1, "gen == g2"}, // feat_b
// CHECK-NEXT: };

// CHECK:      constexpr TargetBackendInfo kBackends[] = {
// CHECK-NEXT:   {"Host", "",
// CHECK-NEXT:    kHostKinds, 1,
// CHECK-NEXT:    kFeatures, 5,
// CHECK-NEXT:    nullptr, 0,
// CHECK-NEXT:    nullptr, 0,
// CHECK-NEXT:    runHostPipeline, "runHostPipeline",
// CHECK-NEXT:    nullptr, registerHostPasses,
// CHECK-NEXT:    genHostDevice, "genHostDevice",
// CHECK-NEXT:    genHostHost, "genHostHost",
// CHECK-NEXT:    kHostOutputs, 1,
// CHECK-NEXT:    kHostExec, 1,
// CHECK-NEXT:    true,
// CHECK-NEXT:    nullptr,
// CHECK-NEXT:    nullptr,
// CHECK-NEXT:    false},
// CHECK-NEXT:   {"NewGpu", "g3 and later",
// CHECK:         runNewGpuPipeline, "runNewGpuPipeline",
// CHECK-NEXT:    buildNewPipeline, nullptr,
// CHECK:         kNewGpuExec, 2,
// CHECK-NEXT:    false,
// CHECK-NEXT:    "emulateNewGpu",
// CHECK-NEXT:    nullptr,
// CHECK-NEXT:    false},
// CHECK-NEXT:   {"OldGpu", "generations before g3",

// CHECK:      llvm::Error registerAllTargetBackends(TargetRegistry &R) {
// CHECK-NEXT:   for (const TargetBackendInfo &B : kBackends)
// CHECK-NEXT:     if (llvm::Error E = R.addBackend(B))
// CHECK-NEXT:       return E;
// CHECK-NEXT:   return llvm::Error::success();
// CHECK-NEXT: }
// CHECK:      #endif // GET_TILE_TARGET_BACKEND_TABLE

// The emulators, apart: only the programs that emulate link them.
// CHECK:      #ifdef GET_TILE_TARGET_EMULATOR_TABLE
// CHECK:      // Emulators, defined in the backends' emulator libraries.
// CHECK-NEXT: llvm::Error emulateNewGpu(const BackendContext &, const Function &, llvm::ArrayRef<ArgValue>, const EmulatorOptions &);
// CHECK:      llvm::Error registerAllTargetEmulators(TargetRegistry &R) {
// CHECK-NEXT:   if (llvm::Error E = R.addEmulator("NewGpu", emulateNewGpu))
// CHECK-NEXT:     return E;
// CHECK-NEXT:   return llvm::Error::success();
// CHECK-NEXT: }
// CHECK:      #endif // GET_TILE_TARGET_EMULATOR_TABLE

// OPTS: namespace demo::ns {
// OPTS: } // namespace demo::ns
// OPTS: llvm::Error registerDemoBackends(TargetRegistry &R) {

// DOCS:      ### Host
// DOCS-EMPTY:
// DOCS-NEXT: No declared limits.
// DOCS:      ### NewGpu
// DOCS-EMPTY:
// DOCS-NEXT: | resource | limit | when | checked |
// DOCS-NEXT: | --- | --- | --- | --- |
// DOCS-NEXT: | threads per block | 1024 threads |  | yes |
// DOCS-NEXT: | shared memory per block | 65536 bytes | fast == true | yes |
// DOCS-NEXT: | shared memory per block | 32768 bytes (or `-units`) | otherwise | yes |
// DOCS:      ### OldGpu
