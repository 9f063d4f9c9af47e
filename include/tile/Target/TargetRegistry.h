//===- TargetRegistry.h - The registered target backends --------*- C++ -*-===//
//
// A TargetRegistry holds the target backends a program registered
// explicitly: registerAllTargetBackends() (generated from the .td list in
// lib/Target) adds the built-in ones, a generated function of the same shape
// adds any other list (a test backend, an out-of-tree backend). There is no
// global registry and no registration by static constructor.
//
// Registration re-checks what tile-tblgen proved for one list across lists:
// unique backend names, kinds and aliases, and that backends sharing a kind
// share its declaration and have mutually exclusive variant predicates.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_TARGETREGISTRY_H
#define TILE_TARGET_TARGETREGISTRY_H

#include "tile/Target/BackendContext.h"
#include "tile/Target/TargetBackend.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <vector>

namespace tile {

class OpRegistry;

class TargetRegistry {
public:
  using AvailabilityFn = std::function<ExecAvailability(ExecBackendKind)>;

  TargetRegistry();

  /// Adds \p B. Fails, leaving the registry unchanged, on a duplicate
  /// backend name, a kind or alias clash, a shared kind without exclusive
  /// variant predicates, or a backend without an execution backend.
  llvm::Error addBackend(const TargetBackendInfo &B);

  /// Backends in registration order.
  llvm::ArrayRef<const TargetBackendInfo *> getBackends() const {
    return Backends;
  }
  const TargetBackendInfo *lookupBackend(llvm::StringRef Name) const;

  /// Kinds in registration order.
  llvm::ArrayRef<const TargetKindInfo *> getKinds() const { return Kinds; }
  /// The kind named or aliased \p Word, or null.
  const TargetKindInfo *lookupKind(llvm::StringRef Word) const;
  /// Backends owning \p K, in registration order.
  llvm::SmallVector<const TargetBackendInfo *, 2>
  getBackendsForKind(const TargetKindInfo &K) const;
  /// Backends whose pipeline lowers dialect \p Dialect.
  llvm::SmallVector<const TargetBackendInfo *, 2>
  getBackendsForDialect(llvm::StringRef Dialect) const;
  /// The kind used as host target when none is given, or null.
  const TargetKindInfo *getDefaultHostKind() const;

  /// Parses and validates a target string: kind or alias, then `-name=value`
  /// or `-name` (a bool set to true) attributes; applies defaults.
  llvm::Expected<TargetSpec> parseTarget(llvm::StringRef Target) const;
  /// The one backend that accepts \p T.
  llvm::Expected<const TargetBackendInfo *>
  selectBackend(const TargetSpec &T) const;

  /// Registers \p Fn as the emulator of backend \p Backend, which must be
  /// registered and declare an emulator. Fails, leaving the registry
  /// unchanged, otherwise or when it already has one.
  llvm::Error addEmulator(llvm::StringRef Backend, EmulatorFn Fn);
  /// The emulator registered for \p B, or null.
  EmulatorFn getEmulator(const TargetBackendInfo &B) const {
    return Emulators.lookup(&B);
  }

  /// Registers the ops of every registered backend's dialects.
  void registerDialects(OpRegistry &Ops) const;

  /// Where availability answers come from; by default the cached probes of
  /// libTileExec. Tests substitute a fixed answer.
  void setAvailabilityFn(AvailabilityFn F) { Availability = std::move(F); }
  ExecAvailability getAvailability(ExecBackendKind K) const;

  /// "c, cpu, cuda, ..." and "host (cpu), nvidia (cuda), ...", sorted.
  std::string listKinds() const;
  std::string listAliases() const;

private:
  llvm::Error checkSharedKind(const TargetKindInfo &K,
                              const TargetBackendInfo &New) const;

  std::vector<const TargetBackendInfo *> Backends;
  std::vector<const TargetKindInfo *> Kinds;
  /// Kind names and aliases.
  llvm::StringMap<const TargetKindInfo *> Words;
  AvailabilityFn Availability;
  llvm::DenseMap<const TargetBackendInfo *, EmulatorFn> Emulators;
};

} // namespace tile

#endif // TILE_TARGET_TARGETREGISTRY_H
