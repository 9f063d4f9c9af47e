//===- TargetBackend.h - Target backend descriptors -------------*- C++ -*-===//
//
// The constant descriptors tile-tblgen -gen-target-backends emits from each
// lib/Target/<B>/<B>.td: target kinds with their aliases and attributes,
// features with closed implications, attribute predicates (constexpr
// functions), dialects, entry points, device outputs and the execution
// backends each backend is compatible with, in `auto` order, with the
// contract of each pairing.
//
// The descriptors are plain aggregates with static storage, built at
// compile time; a TargetRegistry holds pointers to them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGETBACKEND_H
#define TILE_TARGET_TARGETBACKEND_H

#include "tile/Exec/ExecutionBackend.h"
#include "tile/IR/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>

namespace tile {

class ArgValue;
class BackendContext;
class Function;
class KernelArtifact;
class Module;
class OpRegistry;
class PassManager;
class PassRegistry;
struct EmulatorOptions;

enum class TargetAttrType : uint8_t { String, Int, Bool };
llvm::StringRef getTargetAttrTypeName(TargetAttrType T);

/// An attribute of a target kind: `-arch=sm_90a`.
struct TargetAttrInfo {
  const char *Name;
  TargetAttrType Type;
  /// Value when the target string does not set it; null for none.
  const char *Default;
  /// Allowed values in ascending order; empty for any value of the type.
  /// Bool attributes list none but take false and true.
  const char *const *Values;
  unsigned NumValues;
  const char *Summary;

  llvm::ArrayRef<const char *> values() const { return {Values, NumValues}; }
  /// Whether the attribute takes only listed values (bool included).
  bool isEnumerated() const {
    return NumValues != 0 || Type == TargetAttrType::Bool;
  }
  /// Position of \p V among the allowed values ({false, true} for bool), or
  /// -1.
  int findValue(llvm::StringRef V) const;
  /// Number of allowed values (2 for bool, 0 when open).
  unsigned getNumAllowedValues() const;
  /// The I-th allowed value.
  llvm::StringRef getAllowedValue(unsigned I) const;
};

/// The first word of a target string.
struct TargetKindInfo {
  const char *Name;
  const char *Summary;
  const char *const *Aliases;
  unsigned NumAliases;
  const TargetAttrInfo *Attrs;
  unsigned NumAttrs;
  /// The host target when none is given.
  bool DefaultHost;

  llvm::ArrayRef<const char *> aliases() const { return {Aliases, NumAliases}; }
  llvm::ArrayRef<TargetAttrInfo> attrs() const { return {Attrs, NumAttrs}; }
  /// Index of the attribute named \p N, or -1.
  int findAttr(llvm::StringRef N) const;
};

/// A condition on a target's attributes, generated as a constexpr function.
/// \p ValueIdx[i] is the position of attribute i's value among its allowed
/// values, or -1 when it is unset or not enumerated.
using AttrPredicateFn = bool (*)(const int *ValueIdx);

/// One feature of a backend list. Bits refer to positions in the feature
/// table the descriptor came with.
struct TargetFeatureInfo {
  const char *Name;
  const char *Summary;
  /// This feature and everything it implies, transitively.
  uint64_t Closure;
};

/// A backend enables the features in \p Features when \p When holds (always
/// when null).
struct FeatureCondition {
  uint64_t Features;
  AttrPredicateFn When;
  /// The condition as text, for listings ("arch >= sm_90a").
  const char *WhenText;
};

/// A resource of a kernel launch that devices bound (ResourceKind records
/// in Target.td).
enum class ResourceKind : uint8_t {
  ThreadsPerBlock,
  SharedMemoryPerBlock,
  SharedMemoryWithoutOptIn,
  RegistersPerThread,
  LocalMemoryPerThread,
  StackArraysPerBlock,
  GridDimX,
  GridDimY,
  GridDimZ,
};

/// One declared limit: \p Value for targets where \p When holds (always
/// when null); the int attribute \p FromAttr overrides it when set.
struct ResourceLimitInfo {
  ResourceKind Kind;
  int64_t Value;
  AttrPredicateFn When;
  /// The condition as text ("arch >= sm_90").
  const char *WhenText;
  /// Null when the value is fixed.
  const char *FromAttr;
  /// What to do about a kernel above the limit; may be empty.
  const char *Hint;
};

/// A backend's ownership of one kind.
struct BackendKindInfo {
  const TargetKindInfo *Kind;
  /// Null when the backend is the kind's only owner.
  AttrPredicateFn Variant;
  const char *VariantText;
  const FeatureCondition *Features;
  unsigned NumFeatures;

  llvm::ArrayRef<FeatureCondition> features() const {
    return {Features, NumFeatures};
  }
  /// Resource limits in declared order; the first of a kind that holds
  /// applies.
  const ResourceLimitInfo *Limits;
  unsigned NumLimits;
  llvm::ArrayRef<ResourceLimitInfo> limits() const { return {Limits, NumLimits}; }
};

/// A dialect a backend's pipeline lowers.
struct DialectInfo {
  const char *Name;
  void (*Register)(OpRegistry &);
};

enum class OutputMode : uint8_t { SourceOnly, Compiled };
llvm::StringRef getOutputModeName(OutputMode M);

struct DeviceOutputInfo {
  DeviceFormat Format;
  OutputMode Mode;
};

/// The contract between a target backend and one compatible execution
/// backend: the backend's output formats it consumes (in the backend's order
/// of preference), and how it runs them.
struct ExecCompatInfo {
  ExecBackendKind Exec;
  const DeviceFormat *Formats;
  unsigned NumFormats;
  bool NeedsHostCodeGen;
  DeviceCompile Compile;

  llvm::ArrayRef<DeviceFormat> formats() const { return {Formats, NumFormats}; }
};

/// A dialect op that needs target features (`cuda.wgmma` needs `wgmma`).
struct OpFeatureRequirement {
  const char *Op;
  uint64_t Features;
};

/// Runs the backend's pass pipeline over \p M.
using PipelineFn = llvm::Error (*)(const BackendContext &, Module &);
/// Appends the backend's ordered passes to a pass manager.
using PassPipelineFn = void (*)(const BackendContext &, PassManager &);
/// Registers the backend's own passes (for tile-opt).
using PassRegistrationFn = void (*)(PassRegistry &);
/// Device or host code generation into \p Artifact.
using CodeGenFn = llvm::Error (*)(const BackendContext &, const Module &,
                                  KernelArtifact &);
/// Runs \p F, as the backend's pipeline left it, on host arguments given in
/// parameter order (tile/Target/Emulator.h).
using EmulatorFn = llvm::Error (*)(const BackendContext &, const Function &F,
                                   llvm::ArrayRef<ArgValue>,
                                   const EmulatorOptions &);

/// Bytes one element of \p T takes in the backend's on-chip memory (shared
/// and per-thread arrays), where its storage differs from the dtype's size.
using StorageBytesFn = unsigned (*)(const BackendContext &, DType T);

/// A target backend, as declared in its .td.
struct TargetBackendInfo {
  const char *Name;
  const char *Summary;
  const BackendKindInfo *Kinds;
  unsigned NumKinds;
  /// The feature table of the descriptor list this backend came from.
  const TargetFeatureInfo *FeatureTable;
  unsigned NumFeatureTable;
  const DialectInfo *Dialects;
  unsigned NumDialects;
  const OpFeatureRequirement *OpRequirements;
  unsigned NumOpRequirements;
  PipelineFn Pipeline;
  const char *PipelineName;
  /// Null while the backend has no pass pipeline to show.
  PassPipelineFn PassPipeline;
  /// Null when the backend declares no passes of its own.
  PassRegistrationFn RegisterPasses;
  CodeGenFn DeviceCodeGen;
  const char *DeviceCodeGenName;
  /// Null when the backend generates no host code.
  CodeGenFn HostCodeGen;
  const char *HostCodeGenName;
  const DeviceOutputInfo *Outputs;
  unsigned NumOutputs;
  /// Compatible execution backends in `auto` order.
  const ExecCompatInfo *Exec;
  unsigned NumExec;
  /// Its kinds may serve as the host target of other backends.
  bool HostCapable;
  /// The emulator the backend declares (tile-jit --emulate), null when
  /// none. Its function lives in the backend's emulator library and is
  /// registered apart (TargetRegistry::addEmulator), so that only the
  /// programs that emulate link it.
  const char *EmulatorName;
  /// On-chip storage of an element where it differs from the dtype's size
  /// (resource limits measure with it); null: the dtype's size.
  StorageBytesFn StorageBytes;
  /// Nothing runs the backend's output yet (its .td sets CompileOnly): it
  /// has no execution backend, and resolution for running it fails.
  bool CompileOnly;

  llvm::ArrayRef<BackendKindInfo> kinds() const { return {Kinds, NumKinds}; }
  llvm::ArrayRef<TargetFeatureInfo> featureTable() const {
    return {FeatureTable, NumFeatureTable};
  }
  llvm::ArrayRef<DialectInfo> dialects() const {
    return {Dialects, NumDialects};
  }
  llvm::ArrayRef<OpFeatureRequirement> opRequirements() const {
    return {OpRequirements, NumOpRequirements};
  }
  llvm::ArrayRef<DeviceOutputInfo> outputs() const {
    return {Outputs, NumOutputs};
  }
  llvm::ArrayRef<ExecCompatInfo> execBackends() const { return {Exec, NumExec}; }

  const BackendKindInfo *findKind(const TargetKindInfo &K) const;
  const ExecCompatInfo *findExec(ExecBackendKind E) const;
  bool hasDialect(llvm::StringRef Name) const;
  /// Every feature some target of this backend can have.
  uint64_t getDeclaredFeatures() const;
};

} // namespace tile

#endif // TILE_TARGET_TARGETBACKEND_H
