//===- Target.td - Base classes for backend descriptors ------*- tablegen -*-===//
//
// A target backend (lib/Target/<B>/<B>.td) and a shared execution backend
// (include/tile/Exec/ExecutionBackends.td) are described with the classes
// below. A device format or execution backend that only one target backend
// uses may instead be declared in that backend's .td, next to it: its
// generated registration function then adds them to libTileExec's tables. The records are data only: tile-tblgen -gen-target-backends and
// -gen-exec-backends check them (located errors) and emit constant tables,
// and C++ in lib/Target and lib/Exec gives them behaviour.
//
// Vocabulary:
//   target kind       the first word of a target string (`cuda`, `hip`, ...)
//   target attribute  `-name=value` after the kind (`-arch=sm_90a`)
//   variant predicate a condition on attributes that picks one of several
//                     backends sharing a kind (Hopper among `cuda` targets)
//   feature           a capability of the resolved target (`wgmma`), enabled
//                     by an attribute predicate and closed under `Implies`
//   device format     what device codegen produces and an execution backend
//                     consumes (`ptx`, `hsaco`, `spirv`, ...)
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGET_TD
#define TILE_TARGET_TARGET_TD

include "tile/Target/DialectBase.td"

//===----------------------------------------------------------------------===//
// Device formats and execution backends
//===----------------------------------------------------------------------===//

/// An artifact format flowing from device codegen to an execution backend.
class DeviceFormat<string name, bit isText, string summary> {
  string Name = name;
  bit IsText = isText;
  string Summary = summary;
  /// C++ enumerator in tile::DeviceFormat; derived from Name when empty.
  string CppName = "";
}

/// When device code becomes machine code.
class DeviceCompile<string name> {
  string Name = name;
}
/// The toolkit compiles device code to a binary at build time.
def EagerCompile : DeviceCompile<"eager">;
/// The execution backend compiles device code when it loads it (driver JIT,
/// ORC, zeModuleCreate, a shading-language compiler).
def DeferredCompile : DeviceCompile<"deferred">;

/// An execution backend (Build -> Load -> Launch): shared, in libTileExec
/// (ExecutionBackends.td), or a target backend's own, in its .td with its
/// probe and executor in its folder.
class ExecutionBackend<string name> {
  string Name = name;
  string Summary = "";
  /// Formats it can load.
  list<DeviceFormat> Consumes = [];
  /// Whether it launches through host code generated for the kernel (and
  /// therefore needs a target backend with a HostCodeGen entry point).
  bit NeedsHostCodeGen = 0;
  DeviceCompile Compile = EagerCompile;
  /// C++ function in namespace tile, `ExecAvailability F()`: the lazy
  /// availability probe (dlopen + driver init; never a link dependency).
  string Probe = "";
  /// C++ function in namespace tile, `llvm::Expected<std::unique_ptr<
  /// Executor>> F(const ExecutorOptions &)`: creates the executor once the
  /// probe has found the backend available; empty while the backend has no
  /// executor in this build (Executor::create says so).
  string Executor = "";
  /// C++ enumerator in tile::ExecBackendKind; derived from Name when empty.
  /// Only shared execution backends have one.
  string CppName = "";
}

//===----------------------------------------------------------------------===//
// Target kinds and attributes
//===----------------------------------------------------------------------===//

class TargetAttrType<string name> {
  string Name = name;
}
def TargetString : TargetAttrType<"string">;
def TargetInt : TargetAttrType<"int">;
/// Written `-name` (true) or `-name=true|false`.
def TargetBool : TargetAttrType<"bool">;

/// An attribute of a target kind. An empty Default leaves the attribute
/// unset unless written. A non-empty Values list restricts the attribute to
/// those values, listed in ascending order (AttrAtLeast/AttrBelow compare
/// positions in this list).
class TargetAttr<string name, TargetAttrType type, string default = "",
                 list<string> values = [], string summary = ""> {
  string Name = name;
  TargetAttrType Type = type;
  string Default = default;
  list<string> Values = values;
  string Summary = summary;
}

/// One enumerated string attribute, the common case (`-arch=sm_90a`).
class TargetEnumAttr<string name, list<string> values, string default,
                     string summary = "">
    : TargetAttr<name, TargetString, default, values, summary>;

/// The first word of a target string. Several backends may own one kind
/// when each has a variant predicate and the predicates are mutually
/// exclusive and together cover every value of the attributes they read.
class TargetKind<string name> {
  string Name = name;
  string Summary = "";
  /// Other names accepted for this kind (`nvidia` for `cuda`).
  list<string> Aliases = [];
  list<TargetAttr> Attrs = [];
  /// The host target used when none is given. At most one kind in a
  /// backend list sets it; its backend must be HostCapable.
  bit DefaultHost = 0;
}

//===----------------------------------------------------------------------===//
// Attribute predicates
//===----------------------------------------------------------------------===//

/// A condition on the attributes of a target. Predicates may only read
/// attributes with a Values list, so tile-tblgen can evaluate them over
/// every possible target and prove variants exclusive.
class AttrPred;
/// Always true.
def AttrAlways : AttrPred;
/// The attribute's value is one of `values`.
class AttrIn<string attr, list<string> values> : AttrPred {
  string Attr = attr;
  list<string> Values = values;
}
/// The attribute's value is `value` or later in its Values list.
class AttrAtLeast<string attr, string value> : AttrPred {
  string Attr = attr;
  string Value = value;
}
/// The attribute's value is earlier than `value` in its Values list.
class AttrBelow<string attr, string value> : AttrPred {
  string Attr = attr;
  string Value = value;
}
class AttrNot<AttrPred pred> : AttrPred {
  AttrPred Pred = pred;
}
class AttrAllOf<list<AttrPred> preds> : AttrPred {
  list<AttrPred> Preds = preds;
}
class AttrAnyOf<list<AttrPred> preds> : AttrPred {
  list<AttrPred> Preds = preds;
}

//===----------------------------------------------------------------------===//
// Features
//===----------------------------------------------------------------------===//

/// A capability of a resolved target. Implications are closed by
/// tile-tblgen: enabling a feature enables everything it implies.
class TargetFeature<string name, string summary,
                    list<TargetFeature> implies = []> {
  string Name = name;
  string Summary = summary;
  list<TargetFeature> Implies = implies;
}

/// Features more than one backend enables; a backend's own features live in
/// its .td.
def FeatureBF16 : TargetFeature<"bf16", "bfloat16 tensor core / matrix core inputs">;
def FeatureFP8 : TargetFeature<"fp8", "fp8 (e4m3, e5m2) tensor core / matrix core inputs">;

/// A backend enables `feature` for targets satisfying `when`.
class FeatureWhen<TargetFeature feature, AttrPred when = AttrAlways> {
  TargetFeature Feature = feature;
  AttrPred When = when;
}

/// Dialect op `op` needs every feature in `features` on the resolved target;
/// checked with the dialect-use check, at the op's location.
class OpNeedsFeatures<Op op, list<TargetFeature> features> {
  Op TheOp = op;
  list<TargetFeature> Features = features;
}

//===----------------------------------------------------------------------===//
// Resource limits
//===----------------------------------------------------------------------===//

/// A resource of a kernel launch that devices bound. CppName is the
/// enumerator of tile::ResourceKind; the C++ side (lib/Target/
/// ResourceLimits.cpp) measures a kernel's use of each kind.
class ResourceKind<string name, string cppName, string unit, bit checked,
                   string summary> {
  string Name = name;
  string CppName = cppName;
  string Unit = unit;
  /// Whether the compiler rejects a kernel above the limit. Unchecked
  /// limits are listed and printed (-print-resource-usage) for reference:
  /// the toolchain enforces them itself (ptxas spills past the register
  /// limit) or they are the point where the runtime has to opt in.
  bit Checked = checked;
  string Summary = summary;
}
def ThreadsPerBlock : ResourceKind<"threads per block", "ThreadsPerBlock",
    "threads", 1, "threads a kernel may launch per block (workgroup, threadgroup)">;
def SharedMemoryPerBlock : ResourceKind<"shared memory per block",
    "SharedMemoryPerBlock", "bytes", 1,
    "shared memory (LDS, threadgroup, workgroup storage) a block may use, " #
    "with the runtime's opt-in where the device needs one">;
def SharedMemoryWithoutOptIn : ResourceKind<"shared memory per block without opt-in",
    "SharedMemoryWithoutOptIn", "bytes", 0,
    "shared memory a block may use before the launch must opt in to more">;
def RegistersPerThread : ResourceKind<"registers per thread",
    "RegistersPerThread", "registers", 1,
    "registers per thread as the device toolchain allocated them (ptxas -v, " #
    "the AMDGPU code object's metadata), checked after device code " #
    "generation; unknown where no toolchain reports them">;
def LocalMemoryPerThread : ResourceKind<"local memory per thread",
    "LocalMemoryPerThread", "bytes", 1,
    "per-thread arrays (fragments lowered to registers or local memory)">;
def StackArraysPerBlock : ResourceKind<"stack arrays per block",
    "StackArraysPerBlock", "bytes", 1,
    "a block's shared buffers, fragments and locals where they are arrays " #
    "on the stack of the thread that runs the block (the CPU)">;
def GridDimX : ResourceKind<"grid dimension x", "GridDimX", "blocks", 1,
    "blocks along the first grid dimension">;
def GridDimY : ResourceKind<"grid dimension y", "GridDimY", "blocks", 1,
    "blocks along the second grid dimension">;
def GridDimZ : ResourceKind<"grid dimension z", "GridDimZ", "blocks", 1,
    "blocks along the third grid dimension">;

/// A limit of kind `kind` for the targets satisfying `when`. When several
/// limits of one kind hold for a target, the first listed applies. With
/// `FromAttr` set, the target's integer attribute of that name gives the
/// value when it is set (WebGPU's adapter limits), `value` otherwise.
class ResourceLimit<ResourceKind kind, int value, AttrPred when = AttrAlways,
                    string hint = ""> {
  ResourceKind Kind = kind;
  int Value = value;
  AttrPred When = when;
  string FromAttr = "";
  /// What to do about a kernel above the limit, appended to the error.
  string Hint = hint;
}
/// A limit a target attribute sets, `value` while it is unset.
class ResourceLimitFromAttr<ResourceKind kind, string attr, int value,
                            string hint = "">
    : ResourceLimit<kind, value, AttrAlways, hint> {
  let FromAttr = attr;
}

//===----------------------------------------------------------------------===//
// Target backends
//===----------------------------------------------------------------------===//

class OutputMode<string name> {
  string Name = name;
}
/// Device codegen stops at source or IR text (PTX, MSL, WGSL, LLVM IR, C).
def SourceOnly : OutputMode<"source">;
/// Device codegen runs the target toolchain to a binary (cubin, HSACO, ...).
def Compiled : OutputMode<"compiled">;

class DeviceOutput<DeviceFormat format, OutputMode mode> {
  DeviceFormat Format = format;
  OutputMode Mode = mode;
}

/// A target backend: everything tile-tblgen needs to register, resolve and
/// list it. Entry points are C++ functions in namespace tile, declared by
/// the generated table and resolved when the backend's library is linked:
///   Pipeline       llvm::Error F(const BackendContext &, Module &)
///   PassPipeline   void F(const BackendContext &, PassManager &): appends the
///                  ordered passes Pipeline runs (for -print-pipeline);
///                  empty while the backend has no pass pipeline
///   RegisterPasses void F(PassRegistry &): registers the passes the backend
///                  declares in its own folder, so that tile-opt can run
///                  them alone; empty when it declares none
///   DeviceCodeGen  llvm::Error F(const BackendContext &, const Module &,
///                                KernelArtifact &)
///   HostCodeGen    same signature as DeviceCodeGen; empty when the backend
///                  generates no host code (its runtime launches from the
///                  artifact's metadata)
///   Emulator       llvm::Error F(const BackendContext &, const Function &,
///                                llvm::ArrayRef<ArgValue>,
///                                const EmulatorOptions &): runs a function
///                  after the backend's pipeline on host tensors, modelling
///                  the device (tile-jit --emulate); empty when the backend
///                  has none. Defined in the backend's emulator library
///                  (tile_add_target_emulator), registered apart by the
///                  generated registerAllTargetEmulators
///   StorageBytes   unsigned F(const BackendContext &, DType): bytes an
///                  element takes in on-chip memory where the backend
///                  stores it wider than its dtype (f16 held as f32);
///                  empty when every dtype is stored at its size
class TargetBackend<string name> {
  string Name = name;
  string Summary = "";
  /// Target kinds this backend accepts.
  list<TargetKind> Kinds = [];
  /// Required when a kind is shared with another backend; unset otherwise.
  AttrPred Variant = ?;
  list<FeatureWhen> Features = [];
  /// Dialects whose ops this backend's pipeline lowers; registering the
  /// backend registers them.
  list<Dialect> Dialects = [];
  string Pipeline = "";
  string PassPipeline = "";
  string RegisterPasses = "";
  string DeviceCodeGen = "";
  string HostCodeGen = "";
  list<DeviceOutput> Outputs = [];
  /// Compatible execution backends, in the order `auto` tries them.
  list<ExecutionBackend> ExecutionBackends = [];
  /// Set while nothing runs the backend's output yet: ExecutionBackends
  /// stays empty, tile-llc compiles for it, and resolving it to run
  /// (tile-jit) says that it has no runtime.
  bit CompileOnly = 0;
  /// Its kinds may be named as the host target of another backend.
  bit HostCapable = 0;
  /// Emulator entry point (see above); empty for none.
  string Emulator = "";
  /// StorageBytes entry point (see above); empty for dtype sizes.
  string StorageBytes = "";
  /// The device's resource limits (see ResourceLimit).
  list<ResourceLimit> Limits = [];
}

#endif // TILE_TARGET_TARGET_TD
