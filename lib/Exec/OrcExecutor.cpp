//===- OrcExecutor.cpp - The `orc` execution backend ----------------------===//
//
// Runs host and CPU device code in this process. Build -> Load: the
// artifact's host library is loaded with dlopen, or its host and device
// objects are linked in process by ORC's JITLink, with the runtime's C ABI
// functions defined as absolute symbols (HostCode.h). Launch:
// the grid's blocks are handed out to LLVM's thread pool, each worker
// taking the next block index until none is left.
//
//===----------------------------------------------------------------------===//

#include "ExecutorFactories.h"
#include "HostCode.h"
#include "DeviceArtifact.h"
#include "HostMemoryExecutor.h"
#include "tile/Exec/Executor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace tile;

namespace {

using KernelFn = void (*)(void **, int32_t, int32_t, int32_t);

class OrcExecutor;

class OrcLoaded : public LoadedArtifact {
public:
  OrcLoaded(KernelArtifact &&A, OrcExecutor &E)
      : LoadedArtifact(std::move(A)), Exec(E) {}

  llvm::Error init();
  llvm::Error call(llvm::StringRef Entry,
                   llvm::ArrayRef<TileArg> Args) override;
  llvm::Expected<std::unique_ptr<PreparedEntry>>
  prepare(llvm::StringRef Entry) override;

  struct EntryTable {
    std::string Symbol;
    std::vector<KernelFn> Kernels;
  };

private:
  OrcExecutor &Exec;
  std::unique_ptr<HostCode> Code;
  llvm::StringMap<EntryTable> Entries;
};

class OrcExecutor : public HostMemoryExecutor {
public:
  explicit OrcExecutor(const ExecutorOptions &Opts)
      : Pool(llvm::hardware_concurrency(Opts.NumThreads)),
        NumWorkers(Opts.NumThreads ? Opts.NumThreads
                                   : llvm::hardware_concurrency().compute_thread_count()),
        HostFeatures(llvm::sys::getHostCPUFeatures()) {}

  ExecBackendKind getKind() const override { return ExecBackendKind::Orc; }
  std::string getDeviceName() const override {
    return llvm::sys::getHostCPUName().str();
  }
  int32_t getDLDeviceType() const override { return 1; /* kDLCPU */ }

  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) override {
    return loadOwned(KernelArtifact(A));
  }
  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  loadOwned(KernelArtifact &&A) override;

  llvm::Expected<void *> allocate(size_t Bytes) override {
    // Tensors of a huge page or more start on one and ask the kernel for
    // huge pages (fewer TLB misses on the large operands kernels stream,
    // as NumPy's allocator does); smaller ones on a cache line.
    constexpr size_t HugePage = size_t(2) << 20;
    size_t Align = Bytes >= HugePage ? HugePage : 64;
    llvm::Expected<void *> P = allocateAligned(Bytes, Align);
#ifdef MADV_HUGEPAGE
    if (P && Align == HugePage) // a hint; failure changes nothing
      madvise(*P, (Bytes + Align - 1) / Align * Align, MADV_HUGEPAGE);
#endif
    return P;
  }

  /// Runs \p Fn for every block of the grid on the pool.
  void runGrid(KernelFn Fn, void **Args, int32_t GX, int32_t GY, int32_t GZ) {
    int64_t Total = int64_t(GX) * GY * GZ;
    if (Total <= 0)
      return;
    std::lock_guard<std::mutex> Lock(LaunchMutex);
    std::atomic<int64_t> Next{0};
    auto Work = [&] {
      for (int64_t B; (B = Next.fetch_add(1)) < Total;)
        Fn(Args, int32_t(B % GX), int32_t((B / GX) % GY),
           int32_t(B / (int64_t(GX) * GY)));
    };
    int64_t Tasks = std::min<int64_t>(NumWorkers, Total);
    if (Tasks <= 1) {
      Work();
      return;
    }
    for (int64_t T = 0; T != Tasks; ++T)
      Pool.async(Work);
    Pool.wait();
  }

private:
  llvm::DefaultThreadPool Pool;
  unsigned NumWorkers;
  /// What this host's CPU has, for loadOwned's check of a CPU object.
  llvm::StringMap<bool> HostFeatures;
  std::mutex LaunchMutex;
};

class OrcCall : public RuntimeCall {
public:
  OrcCall(OrcExecutor &E, const std::vector<KernelFn> &K) : RuntimeCall(ExecBackendKind::Orc), Exec(E), Kernels(K) {}

  int32_t launch(int32_t Index, void **Args, int32_t GX, int32_t GY, int32_t GZ,
                 int32_t Threads, int64_t SharedBytes) override {
    if (std::string Bad = checkKernelIndex(Index, Kernels.size()); !Bad.empty())
      return fail(Bad);
    if (GX < 0 || GY < 0 || GZ < 0)
      return fail("negative grid dimension (" + std::to_string(GX) + ", " +
                  std::to_string(GY) + ", " + std::to_string(GZ) + ")");
    Exec.runGrid(Kernels[Index], Args, GX, GY, GZ);
    return 0;
  }

  void *allocWorkspace(int64_t Bytes) override {
    void *P = std::calloc(1, std::max<int64_t>(Bytes, 1));
    if (!P)
      fail("cannot allocate a workspace of " + std::to_string(Bytes) + " bytes");
    return P;
  }
  void freeWorkspace(void *P) override { std::free(P); }

private:
  OrcExecutor &Exec;
  const std::vector<KernelFn> &Kernels;
};

llvm::Error OrcLoaded::init() {
  if (Artifact.DeviceFmt != DeviceFormat::Object)
    return llvm::createStringError(
        "execution backend 'orc' loads device code in format 'object'; this "
        "artifact holds '" +
        llvm::Twine(getDeviceFormatInfo(Artifact.DeviceFmt).Name) + "'");
  if (Artifact.HostObject.empty())
    return llvm::createStringError("the artifact has no host object");
  auto C = HostCode::load(Artifact);
  if (!C)
    return C.takeError();
  Code = std::move(*C);
  setHostCode(Code->isLibrary() ? HostCodeKind::Library : HostCodeKind::Objects,
              Code->getLibraryFailure());
  for (const ArtifactEntry &E : Artifact.Entries) {
    EntryTable T;
    T.Symbol = E.Symbol;
    for (const ArtifactKernel &K : E.Kernels) {
      auto KS = Code->lookup(K.Symbol);
      if (!KS)
        return KS.takeError();
      T.Kernels.push_back(reinterpret_cast<KernelFn>(*KS));
    }
    Entries[E.Name] = std::move(T);
  }
  return llvm::Error::success();
}

llvm::Error OrcLoaded::call(llvm::StringRef Entry, llvm::ArrayRef<TileArg> Args) {
  auto It = Entries.find(Entry);
  if (It == Entries.end())
    return Artifact.missingEntry(Entry);
  OrcCall Call(Exec, It->second.Kernels);
  return Code->call(It->second.Symbol, Args, Call);
}

llvm::Expected<std::unique_ptr<PreparedEntry>>
OrcLoaded::prepare(llvm::StringRef Entry) {
  auto It = Entries.find(Entry);
  if (It == Entries.end())
    return Artifact.missingEntry(Entry);
  llvm::Expected<void *> Fn = Code->lookup(It->second.Symbol);
  if (!Fn)
    return Fn.takeError();
  return std::make_unique<PreparedHostEntry<OrcCall, OrcExecutor, KernelFn>>(
      Exec, It->second.Kernels, *Fn, It->second.Symbol);
}

llvm::Expected<std::unique_ptr<LoadedArtifact>>
OrcExecutor::loadOwned(KernelArtifact &&A) {
  // Code for a CPU this host is not would die of an illegal instruction
  // at its first launch.
  std::vector<std::string> Missing = A.getMissingCPUFeatures(HostFeatures);
  if (!Missing.empty())
    return llvm::createStringError(
        "cannot run the kernels of '" + A.Target + "' here: they were compiled for CPU '" +
        A.DeviceArch + "', whose features " + llvm::join(Missing, ", ") + " this host (" +
        getDeviceName() +
        ") lacks; compile them for -mcpu=native (the default) or a CPU this host implements");
  auto L = std::make_unique<OrcLoaded>(std::move(A), *this);
  if (llvm::Error E = L->init())
    return std::move(E);
  return std::unique_ptr<LoadedArtifact>(std::move(L));
}

} // namespace

llvm::Expected<std::unique_ptr<Executor>>
tile::createOrcExecutor(const ExecutorOptions &Opts) {
  // Linking objects through ORC (HostCode::create) needs no LLVM target
  // registered: JITLink works from the objects alone.
  return std::make_unique<OrcExecutor>(Opts);
}
