//===- DeviceArtifact.h - What the GPU executors share ----------*- C++ -*-===//
//
// Private to libTileExec. The cuda, hsa and level-zero executors load an
// artifact the same way: the device module through their driver, a list of
// kernels per entry point, and the host code linked by ORC, whose entries
// launch those kernels through the backend's RuntimeCall.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EXEC_DEVICEARTIFACT_H
#define TILE_LIB_EXEC_DEVICEARTIFACT_H

#include "HostCode.h"
#include "tile/Exec/KernelArtifact.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <string>
#include <vector>

namespace tile {

/// A loaded artifact of a device execution backend. \p CallT is the
/// backend's RuntimeCall, constructed from the executor and the entry's
/// kernels, in the order the host code numbers them.
template <typename ExecT, typename KernelT, typename CallT>
class DeviceLoadedArtifact : public LoadedArtifact {
public:
  llvm::Error call(llvm::StringRef Entry, llvm::ArrayRef<TileArg> Args) override {
    auto It = Kernels.find(Entry);
    const ArtifactEntry *E = getArtifact().findEntry(Entry);
    if (It == Kernels.end() || !E)
      return getArtifact().missingEntry(Entry);
    CallT Call(Exec, It->second);
    return Host->call(E->Symbol, Args, Call);
  }

  llvm::Expected<std::unique_ptr<PreparedEntry>>
  prepare(llvm::StringRef Entry) override {
    auto It = Kernels.find(Entry);
    const ArtifactEntry *E = getArtifact().findEntry(Entry);
    if (It == Kernels.end() || !E)
      return getArtifact().missingEntry(Entry);
    llvm::Expected<void *> Fn = Host->lookup(E->Symbol);
    if (!Fn)
      return Fn.takeError();
    return std::make_unique<PreparedHostEntry<CallT, ExecT, KernelT>>(
        Exec, It->second, *Fn, E->Symbol);
  }

protected:
  DeviceLoadedArtifact(const KernelArtifact &A, ExecT &E)
      : LoadedArtifact(A), Exec(E) {}

  /// Links the artifact's host code: the last step of a backend's load,
  /// once every entry's kernels are in Kernels.
  llvm::Error loadHost() {
    auto H = HostCode::load(getArtifact());
    if (!H)
      return H.takeError();
    Host = std::move(*H);
    setHostCode(Host->isLibrary() ? HostCodeKind::Library
                                  : HostCodeKind::Objects,
                Host->getLibraryFailure());
    return llvm::Error::success();
  }

  ExecT &Exec;
  llvm::StringMap<std::vector<KernelT>> Kernels;

private:
  std::unique_ptr<HostCode> Host;
};

/// The failure text of a launch of kernel \p Index by host code whose entry
/// has \p Count kernels, or an empty string when the index is valid (every
/// executor's RuntimeCall checks this, orc's too).
inline std::string checkKernelIndex(int32_t Index, size_t Count) {
  if (Index >= 0 && size_t(Index) < Count)
    return {};
  return "host code launched kernel #" + std::to_string(Index) +
         ", but the entry has " + std::to_string(Count);
}

/// \p A loaded by a new \p LoadedT of executor \p E, whose init()
/// succeeded.
template <typename LoadedT, typename ExecT>
llvm::Expected<std::unique_ptr<LoadedArtifact>>
loadInitialized(const KernelArtifact &A, ExecT &E) {
  auto L = std::make_unique<LoadedT>(A, E);
  if (llvm::Error Err = L->init())
    return std::move(Err);
  return std::unique_ptr<LoadedArtifact>(std::move(L));
}

/// A workspace of \p Bytes in \p E's memory, zeroed by \p Clear; null after
/// recording the error in \p Call.
inline void *allocClearedWorkspace(
    RuntimeCall &Call, Executor &E, int64_t Bytes,
    llvm::function_ref<llvm::Error(void *)> Clear) {
  auto P = E.allocate(size_t(Bytes));
  if (!P) {
    Call.fail(llvm::toString(P.takeError()));
    return nullptr;
  }
  if (llvm::Error Err = Clear(*P)) {
    Call.fail(llvm::toString(std::move(Err)));
    E.deallocate(*P);
    return nullptr;
  }
  return *P;
}

/// A new \p ExecT whose init() succeeded.
template <typename ExecT>
llvm::Expected<std::unique_ptr<Executor>> createInitializedExecutor() {
  auto E = std::make_unique<ExecT>();
  if (llvm::Error Err = E->init())
    return std::move(Err);
  return std::unique_ptr<Executor>(std::move(E));
}

} // namespace tile

#endif // TILE_LIB_EXEC_DEVICEARTIFACT_H
