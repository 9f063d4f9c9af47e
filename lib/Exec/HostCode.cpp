//===- HostCode.cpp - Host code linked in this process by ORC -------------===//
//
// Every execution backend runs the generated host entry points on this
// CPU. The objects are linked by ORC's JITLink in a session in which the runtime's
// C ABI functions and the half/bfloat conversion helpers are absolute
// symbols, and the rest resolves against the process (libm) and the shared
// libraries the artifact names (a vector math library). An artifact with a
// host library (the same objects linked into a shared object by ld.lld,
// which the kernel cache does) is loaded with dlopen instead: it needs none
// of ORC's set-up, linking or LLVM's target registration, which take most
// of a cache hit's time. When the dynamic loader refuses the library, the
// objects, which the artifact keeps, are linked through ORC as before and
// the load reports why (LoadedArtifact::getWarnings()).
//
//===----------------------------------------------------------------------===//

#include "HostCode.h"
#include "SoftFloat.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/EHFrameRegistrationPlugin.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/SelfExecutorProcessControl.h"
#include "llvm/ExecutionEngine/Orc/TaskDispatch.h"
#include "llvm/Support/MemoryBuffer.h"
#include <dlfcn.h>
#include <mutex>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace tile;

/// The ORC session of objects linked in this process: JITLink in process,
/// with the frames registered for unwinding, and one JITDylib. Set up by
/// hand, not through LLJIT, which would also build a target machine and
/// IR layers (and need LLVM's targets registered) that linking objects
/// does not use: 0.8 ms of a cache hit's 1.1 ms load on the Xeon of
/// docs/Performance.md, where the link itself takes the rest.
struct HostCode::Session {
  std::unique_ptr<llvm::orc::ExecutionSession> ES;
  std::unique_ptr<llvm::orc::ObjectLinkingLayer> Layer;
  llvm::orc::JITDylib *JD = nullptr;
  char GlobalPrefix = 0;

  /// \p Name as the linker sees it (with the platform's global prefix).
  llvm::orc::SymbolStringPtr mangle(llvm::StringRef Name) const {
    return ES->intern(GlobalPrefix ? (llvm::Twine(GlobalPrefix) + Name).str()
                                   : Name.str());
  }

  ~Session() {
    if (ES)
      if (llvm::Error E = ES->endSession())
        llvm::consumeError(std::move(E)); // nothing is left to report to
  }
};

HostCode::~HostCode() {
  if (Library)
    dlclose(Library);
}

/// dlopen's last error, or \p Otherwise.
static std::string getDlError(llvm::StringRef Otherwise) {
  const char *E = dlerror();
  return E ? E : Otherwise.str();
}

/// Loads \p Libraries so that their symbols are global, as ORC's
/// DynamicLibrarySearchGenerator::Load makes them.
static llvm::Error loadSharedLibraries(llvm::ArrayRef<std::string> Libraries) {
  for (const std::string &Lib : Libraries)
    if (!dlopen(Lib.c_str(), RTLD_NOW | RTLD_GLOBAL))
      return llvm::createStringError("cannot load the shared library '" + Lib +
                                     "' that the device code calls: " +
                                     getDlError("dlopen failed"));
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<HostCode>>
HostCode::loadLibrary(llvm::StringRef Image,
                      llvm::ArrayRef<std::string> Libraries) {
#if defined(__linux__)
  if (llvm::Error E = loadSharedLibraries(Libraries))
    return std::move(E);
  // dlopen takes a path: an anonymous file in memory, closed once loaded.
  int FD = memfd_create("tile-host-library", MFD_CLOEXEC);
  if (FD < 0)
    return llvm::createStringError(
        std::error_code(errno, std::generic_category()),
        "cannot load the artifact's host library: memfd_create failed");
  for (llvm::StringRef Rest = Image; !Rest.empty();) {
    ssize_t N = write(FD, Rest.data(), Rest.size());
    if (N <= 0) {
      std::error_code EC(errno, std::generic_category());
      close(FD);
      return llvm::createStringError(
          EC, "cannot load the artifact's host library: writing it failed");
    }
    Rest = Rest.drop_front(size_t(N));
  }
  std::string Path = "/proc/self/fd/" + std::to_string(FD);
  void *H = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
  close(FD);
  if (!H)
    return llvm::createStringError(
        "cannot load the artifact's host library: " +
        getDlError("dlopen failed"));
  std::unique_ptr<HostCode> C(new HostCode());
  C->Library = H;
  return C;
#else
  return llvm::createStringError(
      "host libraries are loaded on Linux only; this artifact's objects "
      "are not linked on this system");
#endif
}

llvm::Expected<std::unique_ptr<HostCode>>
HostCode::load(const KernelArtifact &A) {
  std::vector<const std::string *> Objects = A.getHostLinkedObjects();
  std::string LibraryFailure;
  if (!A.HostLibrary.empty()) {
    llvm::Expected<std::unique_ptr<HostCode>> L =
        loadLibrary(A.HostLibrary, A.getSharedLibraries());
    if (L || Objects.empty())
      return L;
    // The same code is in the objects: a library this process cannot load
    // (a loader that refuses in-memory files, a damaged image) costs the
    // link through ORC, not the run.
    LibraryFailure = llvm::toString(L.takeError());
  }
  if (Objects.empty())
    return llvm::createStringError("the artifact has no host object");
  llvm::Expected<std::unique_ptr<HostCode>> C =
      create(Objects, A.getSharedLibraries());
  if (C)
    (*C)->LibraryFailure = std::move(LibraryFailure);
  return C;
}

llvm::Expected<std::unique_ptr<HostCode>>
HostCode::create(llvm::ArrayRef<const std::string *> Objects,
                 llvm::ArrayRef<std::string> Libraries) {
  auto EPC = llvm::orc::SelfExecutorProcessControl::Create(
      nullptr, std::make_unique<llvm::orc::InPlaceTaskDispatcher>());
  if (!EPC)
    return EPC.takeError();
  auto S = std::make_unique<Session>();
  S->GlobalPrefix =
      (*EPC)->getTargetTriple().isOSBinFormatMachO() ? '_' : '\0';
  S->ES = std::make_unique<llvm::orc::ExecutionSession>(std::move(*EPC));
  S->Layer = std::make_unique<llvm::orc::ObjectLinkingLayer>(*S->ES);
  auto EH = llvm::orc::EHFrameRegistrationPlugin::Create(*S->ES);
  if (!EH)
    return EH.takeError();
  S->Layer->addPlugin(std::move(*EH));
  S->JD = &S->ES->createBareJITDylib("main");
  llvm::orc::SymbolMap Runtime;
  auto Define = [&](const char *Name, void *Addr) {
    Runtime[S->mangle(Name)] = {llvm::orc::ExecutorAddr::fromPtr(Addr),
                             llvm::JITSymbolFlags::Exported |
                                 llvm::JITSymbolFlags::Callable};
  };
  Define("tile_rt_fail", reinterpret_cast<void *>(&tile_rt_fail));
  Define("tile_rt_launch", reinterpret_cast<void *>(&tile_rt_launch));
  Define("tile_rt_tensor_map", reinterpret_cast<void *>(&tile_rt_tensor_map));
  Define("tile_rt_resident_blocks", reinterpret_cast<void *>(&tile_rt_resident_blocks));
  Define("tile_rt_alloc_workspace", reinterpret_cast<void *>(&tile_rt_alloc_workspace));
  Define("tile_rt_free_workspace", reinterpret_cast<void *>(&tile_rt_free_workspace));
  for (auto [Name, Addr] : getSoftFloatHelpers())
    Define(Name, Addr);
  if (llvm::Error E =
          S->JD->define(llvm::orc::absoluteSymbols(std::move(Runtime))))
    return std::move(E);
  auto Gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      S->GlobalPrefix);
  if (!Gen)
    return Gen.takeError();
  S->JD->addGenerator(std::move(*Gen));
  for (const std::string &Lib : Libraries) {
    auto LibGen = llvm::orc::DynamicLibrarySearchGenerator::Load(
        Lib.c_str(), S->GlobalPrefix);
    if (!LibGen)
      return llvm::createStringError("cannot load the shared library '" + Lib +
                                     "' that the device code calls: " +
                                     llvm::toString(LibGen.takeError()));
    S->JD->addGenerator(std::move(*LibGen));
  }
  for (const std::string *Obj : Objects)
    if (llvm::Error E = S->Layer->add(
            *S->JD, llvm::MemoryBuffer::getMemBufferCopy(*Obj, "tile-object")))
      return std::move(E);
  std::unique_ptr<HostCode> H(new HostCode());
  H->Orc = std::move(S);
  return H;
}

llvm::Expected<void *> HostCode::lookup(llvm::StringRef Symbol) {
  auto It = Cache.find(Symbol);
  if (It != Cache.end())
    return It->second;
  void *P;
  if (Library) {
    dlerror();
    P = dlsym(Library, Symbol.str().c_str());
    if (!P)
      return llvm::createStringError("symbol '" + Symbol +
                                     "' is not in the host library: " +
                                     getDlError("not found"));
  } else {
    auto S = Orc->ES->lookup({Orc->JD}, Orc->mangle(Symbol));
    if (!S)
      return S.takeError();
    P = S->getAddress().toPtr<void *>();
  }
  Cache[Symbol] = P;
  return P;
}

llvm::Error HostCode::call(llvm::StringRef Symbol, llvm::ArrayRef<TileArg> Args,
                           RuntimeCall &Call) {
  auto Fn = lookup(Symbol);
  if (!Fn)
    return Fn.takeError();
  return invoke(*Fn, Symbol, Args, Call);
}

llvm::Error HostCode::invoke(void *Fn, llvm::StringRef Symbol,
                             llvm::ArrayRef<TileArg> Args, RuntimeCall &Call) {
  using EntryFn = int32_t (*)(const TileArg *, int32_t, void *);
  int32_t RC = reinterpret_cast<EntryFn>(Fn)(Args.data(), Args.size(), &Call);
  if (RC == 0)
    return llvm::Error::success();
  if (Call.ArgumentRefused)
    return llvm::make_error<ArgumentError>(Call.Error);
  return llvm::createStringError(Call.Error.empty()
                                     ? "'" + Symbol.str() + "' failed with code " +
                                           std::to_string(RC)
                                     : Call.Error);
}

