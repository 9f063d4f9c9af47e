//===- ExecutionBackends.cpp - Execution backend tables and availability --===//
//
// The descriptors of the execution backends and device formats (the shared
// ones generated from ExecutionBackends.td, then those target backends
// register), the process-wide cache of their availability probes, and
// Executor::create, which calls the factory a descriptor names.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/ExecutionBackend.h"
#include "tile/Exec/Executor.h"
#include "llvm/ADT/STLExtras.h"
#include <atomic>
#include <cstring>
#include <mutex>

using namespace tile;

#define GET_TILE_EXEC_BACKEND_TABLE
#include "tile/Exec/ExecBackends.inc"

static_assert(std::size(kExecBackendTable) == NumExecBackends,
              "one descriptor per execution backend");
static_assert(std::size(kDeviceFormatTable) == NumDeviceFormats,
              "one descriptor per device format");

namespace {

/// Room for the formats and execution backends target backends declare;
/// fixed, so that descriptors never move (BackendContext keeps pointers)
/// and readers need no lock.
constexpr unsigned MaxRegistered = 32;

/// A table of descriptors: the shared ones, then registered ones appended
/// under the lock. Count is published after the entry is written.
template <typename Info, unsigned NumShared> struct Table {
  Info Entries[NumShared + MaxRegistered];
  std::atomic<unsigned> Count{0};

  explicit Table(llvm::ArrayRef<Info> Shared) {
    llvm::copy(Shared, Entries);
    Count.store(NumShared, std::memory_order_release);
  }
  llvm::ArrayRef<Info> get() const {
    return {Entries, Count.load(std::memory_order_acquire)};
  }
  const Info *lookup(llvm::StringRef Name) const {
    for (const Info &I : get())
      if (Name == I.Name)
        return &I;
    return nullptr;
  }
  /// Appends \p I under the caller's lock; its index, or an error when the
  /// room for registered entries is used up.
  llvm::Expected<unsigned> append(const Info &I, llvm::StringRef What) {
    unsigned N = Count.load(std::memory_order_relaxed);
    if (N == std::size(Entries))
      return llvm::createStringError(
          "cannot register " + What + " '" + llvm::Twine(I.Name) + "': " +
          llvm::Twine(MaxRegistered) + " are registered already");
    Entries[N] = I;
    return N;
  }
  void publish(unsigned N) { Count.store(N + 1, std::memory_order_release); }
};

struct Tables {
  std::mutex Lock;
  Table<DeviceFormatInfo, NumDeviceFormats> Formats{kDeviceFormatTable};
  Table<ExecBackendInfo, NumExecBackends> Execs{kExecBackendTable};
  // One probe per execution backend, at most once per process.
  std::once_flag ProbeOnce[NumExecBackends + MaxRegistered];
  ExecAvailability ProbeResult[NumExecBackends + MaxRegistered];
};

/// Built on first use (a function-local static, not a static constructor).
Tables &getTables() {
  static Tables T;
  return T;
}

bool sameText(const char *A, const char *B) {
  return llvm::StringRef(A ? A : "") == llvm::StringRef(B ? B : "");
}

} // namespace

llvm::StringRef tile::getDeviceCompileName(DeviceCompile C) {
  return C == DeviceCompile::Eager ? "eager" : "deferred";
}

bool ExecBackendInfo::consumes(DeviceFormat F) const {
  return llvm::is_contained(consumes(), F);
}

llvm::ArrayRef<ExecBackendInfo> tile::getExecBackends() {
  return getTables().Execs.get();
}

const ExecBackendInfo &tile::getExecBackendInfo(ExecBackendKind K) {
  llvm::ArrayRef<ExecBackendInfo> All = getExecBackends();
  assert(unsigned(K) < All.size() && "not an execution backend");
  return All[unsigned(K)];
}

const ExecBackendInfo *tile::lookupExecBackend(llvm::StringRef Name) {
  return getTables().Execs.lookup(Name);
}

llvm::ArrayRef<DeviceFormatInfo> tile::getDeviceFormats() {
  return getTables().Formats.get();
}

const DeviceFormatInfo &tile::getDeviceFormatInfo(DeviceFormat F) {
  llvm::ArrayRef<DeviceFormatInfo> All = getDeviceFormats();
  assert(unsigned(F) < All.size() && "not a device format");
  return All[unsigned(F)];
}

const DeviceFormatInfo *tile::lookupDeviceFormat(llvm::StringRef Name) {
  return getTables().Formats.lookup(Name);
}

llvm::Expected<DeviceFormat>
tile::registerDeviceFormat(const DeviceFormatInfo &Info) {
  Tables &T = getTables();
  std::lock_guard<std::mutex> G(T.Lock);
  if (const DeviceFormatInfo *Old = T.Formats.lookup(Info.Name)) {
    if (unsigned(Old->Format) >= NumDeviceFormats &&
        sameText(Old->Summary, Info.Summary) && Old->IsText == Info.IsText)
      return Old->Format;
    return llvm::createStringError(
        "device format '" + llvm::Twine(Info.Name) + "' is already " +
        (unsigned(Old->Format) < NumDeviceFormats
             ? "a shared format of libTileExec"
             : "registered with another description"));
  }
  llvm::Expected<unsigned> N = T.Formats.append(Info, "device format");
  if (!N)
    return N.takeError();
  T.Formats.Entries[*N].Format = DeviceFormat(*N);
  T.Formats.publish(*N);
  return DeviceFormat(*N);
}

llvm::Expected<ExecBackendKind>
tile::registerExecBackend(const ExecBackendInfo &Info) {
  Tables &T = getTables();
  std::lock_guard<std::mutex> G(T.Lock);
  unsigned NumFormats = T.Formats.Count.load(std::memory_order_relaxed);
  for (DeviceFormat F : Info.consumes())
    if (unsigned(F) >= NumFormats)
      return llvm::createStringError(
          "execution backend '" + llvm::Twine(Info.Name) +
          "' consumes a device format that is not registered");
  if (const ExecBackendInfo *Old = T.Execs.lookup(Info.Name)) {
    if (unsigned(Old->Kind) >= NumExecBackends &&
        sameText(Old->Summary, Info.Summary) && Old->Probe == Info.Probe &&
        Old->Create == Info.Create &&
        llvm::equal(Old->consumes(), Info.consumes()))
      return Old->Kind;
    return llvm::createStringError(
        "execution backend '" + llvm::Twine(Info.Name) + "' is already " +
        (unsigned(Old->Kind) < NumExecBackends
             ? "a shared execution backend of libTileExec"
             : "registered with another description"));
  }
  if (!Info.Probe || Info.NumConsumes == 0)
    return llvm::createStringError("execution backend '" +
                                   llvm::Twine(Info.Name) +
                                   "' needs a probe and a device format");
  llvm::Expected<unsigned> N = T.Execs.append(Info, "execution backend");
  if (!N)
    return N.takeError();
  T.Execs.Entries[*N].Kind = ExecBackendKind(*N);
  T.Execs.publish(*N);
  return ExecBackendKind(*N);
}

const ExecAvailability &tile::getExecAvailability(ExecBackendKind K) {
  Tables &T = getTables();
  unsigned I = unsigned(K);
  std::call_once(T.ProbeOnce[I],
                 [&] { T.ProbeResult[I] = getExecBackendInfo(K).Probe(); });
  return T.ProbeResult[I];
}

llvm::Error tile::checkExecAvailable(ExecBackendKind K) {
  const ExecAvailability &A = getExecAvailability(K);
  if (A.Available)
    return llvm::Error::success();
  return llvm::createStringError("execution backend '" +
                                 llvm::Twine(getExecBackendInfo(K).Name) +
                                 "' is not available: " + A.Reason);
}

llvm::Expected<std::unique_ptr<Executor>>
Executor::create(ExecBackendKind K, const ExecutorOptions &Opts) {
  if (llvm::Error E = checkExecAvailable(K))
    return std::move(E);
  const ExecBackendInfo &Info = getExecBackendInfo(K);
  if (!Info.Create)
    return llvm::createStringError("execution backend '" +
                                   llvm::Twine(Info.Name) +
                                   "' has no executor in this build yet");
  return Info.Create(Opts);
}
