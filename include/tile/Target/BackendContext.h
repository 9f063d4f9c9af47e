//===- BackendContext.h - The resolved target and execution -----*- C++ -*-===//
//
// resolveBackendContext turns a target string, a host target and an
// execution backend request into a BackendContext: exactly one target
// backend (kind + variant predicate), its validated and defaulted
// attributes, its features, the host target, and one compatible execution
// backend with the contract between them.
//
// Resolution happens once. The context is immutable and is passed by const
// reference to the pipeline, codegen and execution; nothing downstream
// parses the target or picks an execution backend again.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_BACKENDCONTEXT_H
#define TILE_TARGET_BACKENDCONTEXT_H

#include "tile/Target/TargetBackend.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace tile {

class TargetRegistry;

/// A parsed and validated target string: a kind and a value for each of its
/// attributes that is set (written, or defaulted).
class TargetSpec {
public:
  const TargetKindInfo &getKind() const { return *Kind; }
  /// The string as written ("nvidia -arch=sm_90a").
  llvm::StringRef getRequested() const { return Requested; }
  /// The value of attribute \p Name, written or defaulted; nullopt when
  /// unset or when the kind has no such attribute.
  std::optional<llvm::StringRef> getAttr(llvm::StringRef Name) const;
  /// Whether \p Name was written in the target string.
  bool isExplicit(llvm::StringRef Name) const;
  /// Per attribute of the kind: the position of its value among the allowed
  /// values, or -1 when unset or not enumerated. What predicates read.
  llvm::ArrayRef<int> getValueIndices() const { return ValueIdx; }
  /// Canonical form: the kind's name, then every set attribute in declared
  /// order ("cuda -arch=sm_90a").
  std::string str() const;

private:
  friend class TargetRegistry;
  const TargetKindInfo *Kind = nullptr;
  std::string Requested;
  std::vector<std::optional<std::string>> Values;
  std::vector<bool> Explicit;
  std::vector<int> ValueIdx;
};

struct ResolveOptions {
  /// Require the execution backend to be available on this machine (probe
  /// it). Off for compilation only: `auto` then takes the first compatible
  /// execution backend without probing, and an explicit request is only
  /// checked for compatibility.
  bool RequireAvailable = true;
  /// Device codegen also keeps the target's assembly, in the artifact's
  /// "device-asm" note (tile-llc -emit=asm). Backends that produce it as an
  /// extra output (the CPU) skip it otherwise, which saves a second run of
  /// the code generator.
  bool KeepAssembly = false;
  /// Code generation also keeps the LLVM IR it compiled, as readable text
  /// (the artifact's HostIR, the "device-llvm" note, the CPU's device
  /// source; tile-llc -emit=host-llvm, device-llvm, device). tile-jit
  /// turns it off: printing the IR costs compile time, and kernel cache
  /// entries would carry it.
  bool KeepLLVMIR = true;
  /// Device codegen may run the target's external toolchain programs
  /// (ptxas, ld.lld) for compiled outputs. Off: it stops at the source-only
  /// output, in process (the whole-pipeline fuzz target uses this).
  bool RunToolchain = true;
};

/// The outcome of context resolution. Immutable: built only by
/// resolveBackendContext.
class BackendContext {
public:
  BackendContext(BackendContext &&) = default;
  BackendContext &operator=(BackendContext &&) = default;
  BackendContext(const BackendContext &) = delete;
  BackendContext &operator=(const BackendContext &) = delete;

  const TargetSpec &getTarget() const { return Target; }
  const TargetBackendInfo &getBackend() const { return *Backend; }
  /// The target host code is generated for.
  const TargetSpec &getHostTarget() const { return Host; }
  const TargetBackendInfo &getHostBackend() const { return *HostBackend; }

  /// False only for a compile-only backend (TargetBackendInfo::
  /// CompileOnly) resolved for compilation: nothing runs its output, and
  /// getExecBackend() and getExecContract() must not be called.
  bool hasExecBackend() const { return Exec != nullptr; }
  const ExecBackendInfo &getExecBackend() const { return *Exec; }
  /// What the execution backend consumes from this target backend.
  const ExecCompatInfo &getExecContract() const { return *Contract; }
  /// What was asked for: "auto" or a name.
  llvm::StringRef getExecRequest() const { return ExecRequest; }
  /// Whether the execution backend's availability probe was consulted (it
  /// is not when resolving for compilation only).
  bool isExecAvailabilityChecked() const { return ExecChecked; }
  /// Whether device codegen should keep the target's assembly.
  bool keepsAssembly() const { return KeepAssembly; }
  /// Whether code generation should keep the LLVM IR as text.
  bool keepsLLVMIR() const { return KeepLLVMIR; }
  /// Whether device codegen may run external toolchain programs.
  bool runsToolchain() const { return RunToolchain; }

  /// Features as bits of getBackend().featureTable().
  uint64_t getFeatureMask() const { return Features; }
  bool hasFeature(llvm::StringRef Name) const;
  /// \p Bit is a generated Feature enumerator of the backend's list.
  bool hasFeature(unsigned Bit) const {
    return Bit < 64 && (Features >> Bit) & 1;
  }
  /// Enabled feature names, sorted.
  std::vector<llvm::StringRef> getFeatureNames() const;

  void print(llvm::raw_ostream &OS) const;

private:
  friend llvm::Expected<BackendContext>
  resolveBackendContext(const TargetRegistry &, llvm::StringRef,
                        llvm::StringRef, llvm::StringRef,
                        const ResolveOptions &);
  BackendContext() = default;

  TargetSpec Target;
  const TargetBackendInfo *Backend = nullptr;
  TargetSpec Host;
  const TargetBackendInfo *HostBackend = nullptr;
  const ExecBackendInfo *Exec = nullptr;
  const ExecCompatInfo *Contract = nullptr;
  std::string ExecRequest;
  bool ExecChecked = false;
  bool KeepAssembly = false;
  bool KeepLLVMIR = true;
  bool RunToolchain = true;
  uint64_t Features = 0;
};

/// Resolves \p Target ("cuda -arch=sm_90a"), \p HostTarget (empty: the
/// target itself when its backend is host-capable, else the default host
/// kind) and \p ExecBackend ("auto", empty or a name) against \p Registry.
/// Errors name what was asked, what exists and what to do.
llvm::Expected<BackendContext>
resolveBackendContext(const TargetRegistry &Registry, llvm::StringRef Target,
                      llvm::StringRef HostTarget = "",
                      llvm::StringRef ExecBackend = "auto",
                      const ResolveOptions &Opts = ResolveOptions());

/// The error an entry point returns for work its backend does not do yet:
/// "<What> is not implemented yet for target '<target>' (backend <B>)".
llvm::Error makeNotImplementedError(const BackendContext &Ctx,
                                    llvm::StringRef What);

} // namespace tile

#endif // TILE_TARGET_BACKENDCONTEXT_H
