//===- ResourceLimits.h - Kernel resource use against target limits -*- C++ -*-===//
//
// Each backend's .td declares its device's limits (ResourceLimit records:
// threads per block, shared memory per block, grid dimensions, ...), per
// architecture where they differ. This is the one check of a kernel's use
// against them, run by lowerModule after every backend's pipeline, when
// the IR says exactly what a kernel uses: its thread count, its grid
// dimensions when they are constants, the shared allocations (placed at
// their planned offsets, or side by side) and the per-thread arrays.
//
// The queries are also an API: a tuner prunes configurations with
// getExceededLimits before compiling them.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_RESOURCELIMITS_H
#define TILE_TARGET_RESOURCELIMITS_H

#include "tile/Target/TargetBackend.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace tile {

class BackendContext;
class DiagnosticEngine;
class KernelArtifact;
class KernelStmt;
class Module;

/// "shared memory per block", as the .td names it.
llvm::StringRef getResourceKindName(ResourceKind K);
/// "bytes", "threads", "blocks" or "registers".
llvm::StringRef getResourceKindUnit(ResourceKind K);
/// Whether the compiler rejects a kernel above a limit of this kind.
bool isCheckedResourceKind(ResourceKind K);

/// A limit that applies to one resolved target.
struct AppliedLimit {
  ResourceKind Kind;
  int64_t Value;
  const ResourceLimitInfo *Info;
};

/// The limits of \p Ctx's target, at most one per kind, in declaration
/// order.
std::vector<AppliedLimit> getResourceLimits(const BackendContext &Ctx);
/// The limit of kind \p K on \p Ctx's target, if it declares one.
std::optional<AppliedLimit> getResourceLimit(const BackendContext &Ctx,
                                             ResourceKind K);

/// What one kernel uses; unknown (symbolic) amounts are left unset.
struct KernelResourceUsage {
  /// The kernel statement, for diagnostics.
  llvm::SMLoc Loc;
  /// "@f, kernel 0".
  std::string Name;
  /// The function and the kernel's index in it (its ArtifactKernel).
  std::string Function;
  unsigned Index = 0;
  std::optional<int64_t> Threads;
  std::optional<int64_t> SharedBytes;
  /// Each shared buffer and its bytes: "'%As' 8192, '%Bs' 8192".
  std::string SharedBuffers;
  std::optional<int64_t> LocalBytesPerThread;
  /// Every on-chip buffer of the block (shared, fragment, local, var).
  std::optional<int64_t> BlockArrayBytes;
  /// Blocks per grid dimension, when constant.
  std::optional<int64_t> Grid[3];
  /// Registers per thread, when a toolchain reported them, and its report
  /// ("ptxas -v: Used 32 registers, ...") or why there is none.
  std::optional<int64_t> Registers;
  std::string RegisterReport;

  std::optional<int64_t> get(ResourceKind K) const;
};

/// Measures \p K as it stands (exact after the backend's pipeline; an
/// estimate before it, where fragments are not placed yet). With \p Ctx,
/// on-chip elements take the bytes its backend stores them in
/// (TargetBackendInfo::StorageBytes); without, their dtype's size.
KernelResourceUsage measureKernelResources(const KernelStmt &K,
                                           llvm::StringRef FunctionName,
                                           unsigned Index,
                                           const BackendContext *Ctx = nullptr);
/// Every kernel of \p M, in order.
std::vector<KernelResourceUsage>
measureModuleResources(const Module &M, const BackendContext *Ctx = nullptr);

/// Adds what device code generation measured (registers, from the
/// toolchain's report: ArtifactKernel::Registers) to \p Kernels, matching
/// each kernel by function and index.
void addToolchainResources(std::vector<KernelResourceUsage> &Kernels,
                           const KernelArtifact &A);

/// A checked limit a kernel exceeds.
struct ExceededLimit {
  AppliedLimit Limit;
  int64_t Use;
};

/// The checked limits of \p Ctx's target that \p U exceeds.
std::vector<ExceededLimit> getExceededLimits(const BackendContext &Ctx,
                                             const KernelResourceUsage &U);

/// Reports a located error for every checked limit a kernel of \p M
/// exceeds, naming the use, the limit and the target. Returns false when
/// it reported any.
bool checkResourceLimits(const BackendContext &Ctx, const Module &M,
                         DiagnosticEngine &Diag);

/// The check of what only device code generation measures (registers per
/// thread), after it: a located error for every such limit a kernel of
/// \p Kernels exceeds. Returns false when it reported any.
bool checkToolchainResourceLimits(const BackendContext &Ctx,
                                  llvm::ArrayRef<KernelResourceUsage> Kernels,
                                  DiagnosticEngine &Diag);

/// tile-llc -print-resource-usage: every kernel's use next to each limit
/// of the target, with where a toolchain's figure comes from.
void printResourceUsage(const BackendContext &Ctx,
                        llvm::ArrayRef<KernelResourceUsage> Kernels,
                        llvm::raw_ostream &OS);

} // namespace tile

#endif // TILE_TARGET_RESOURCELIMITS_H
