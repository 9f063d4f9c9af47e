//===- DriverProbes.cpp - Availability probes of execution backends -------===//
//
// Each probe loads its driver with dlopen, initializes it and counts
// devices. Only the few entry points a probe calls are declared here, with
// the types of the vendors' headers (cuda.h, hsa/hsa.h, ze_api.h); no
// driver is linked, so Tile builds and starts on machines without any.
//
// A failing probe names the library and the step that failed, with the
// loader's message or the driver's status code.
//
//===----------------------------------------------------------------------===//

#include "ExecutorFactories.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include <cstdint>
#include <dlfcn.h>

using namespace tile;

namespace {

/// A dlopen'ed library, closed unless kept for the execution backend.
class LoadedLibrary {
public:
  explicit LoadedLibrary(const char *Name) : Name(Name) {
    dlerror();
    Handle = dlopen(Name, RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char *Err = dlerror();
      LoadError = Err ? Err : "unknown dlopen error";
    }
  }
  ~LoadedLibrary() {
    if (Handle && !Keep)
      dlclose(Handle);
  }
  bool loaded() const { return Handle != nullptr; }
  /// Keeps the library loaded for the rest of the process (the execution
  /// backend will use it).
  void keep() { Keep = true; }

  template <typename Fn> Fn lookup(const char *Symbol) const {
    return reinterpret_cast<Fn>(dlsym(Handle, Symbol));
  }

  ExecAvailability loadFailure() const {
    return ExecAvailability::unavailable(
        (llvm::Twine(Name) + " could not be loaded (" + LoadError + ")").str());
  }
  ExecAvailability missingSymbol(const char *Symbol) const {
    return ExecAvailability::unavailable(
        (llvm::Twine(Name) + " was loaded but has no symbol '" + Symbol + "'")
            .str());
  }
  ExecAvailability callFailed(const char *Call, uint64_t Status,
                              llvm::StringRef What) const {
    std::string S;
    llvm::raw_string_ostream OS(S);
    OS << Name << " was loaded, but " << Call << " returned "
       << llvm::format_hex(Status, 1);
    if (!What.empty())
      OS << " (" << What << ")";
    return ExecAvailability::unavailable(S);
  }

private:
  const char *Name;
  void *Handle = nullptr;
  std::string LoadError;
  bool Keep = false;
};

} // namespace

ExecAvailability tile::probeOrcExecution() {
  return ExecAvailability::available("LLVM ORC JIT in this process (" +
                                     llvm::sys::getProcessTriple() + ", " +
                                     llvm::sys::getHostCPUName().str() + ")");
}

//===----------------------------------------------------------------------===//
// CUDA driver (cuda.h)
//===----------------------------------------------------------------------===//

ExecAvailability tile::probeCudaDriver() {
  using CuInitFn = int (*)(unsigned);
  using CuDeviceGetCountFn = int (*)(int *);
  using CuGetErrorNameFn = int (*)(int, const char **);
  LoadedLibrary Lib("libcuda.so.1");
  if (!Lib.loaded())
    return Lib.loadFailure();
  auto Init = Lib.lookup<CuInitFn>("cuInit");
  auto Count = Lib.lookup<CuDeviceGetCountFn>("cuDeviceGetCount");
  auto ErrName = Lib.lookup<CuGetErrorNameFn>("cuGetErrorName");
  if (!Init)
    return Lib.missingSymbol("cuInit");
  if (!Count)
    return Lib.missingSymbol("cuDeviceGetCount");
  auto Describe = [&](int R) -> std::string {
    const char *Name = nullptr;
    if (ErrName && ErrName(R, &Name) == 0 && Name)
      return Name;
    return "";
  };
  if (int R = Init(0))
    return Lib.callFailed("cuInit", R, Describe(R));
  int N = 0;
  if (int R = Count(&N))
    return Lib.callFailed("cuDeviceGetCount", R, Describe(R));
  if (N == 0)
    return ExecAvailability::unavailable(
        "libcuda.so.1 was loaded and initialized, but reports no CUDA device");
  Lib.keep();
  return ExecAvailability::available("libcuda.so.1: " + std::to_string(N) +
                                     " CUDA device(s)");
}

//===----------------------------------------------------------------------===//
// HSA runtime (hsa/hsa.h)
//===----------------------------------------------------------------------===//

namespace {
struct HsaAgent {
  uint64_t Handle;
};
// From hsa.h: HSA_AGENT_INFO_DEVICE and HSA_DEVICE_TYPE_GPU.
constexpr int HsaAgentInfoDevice = 17;
constexpr int HsaDeviceTypeGpu = 1;
using HsaAgentGetInfoFn = int (*)(HsaAgent, int, void *);
struct GpuCounter {
  HsaAgentGetInfoFn GetInfo;
  unsigned Count = 0;
};
} // namespace

ExecAvailability tile::probeHsaRuntime() {
  using HsaInitFn = int (*)();
  using HsaShutDownFn = int (*)();
  using HsaStatusStringFn = int (*)(int, const char **);
  using HsaIterateAgentsFn = int (*)(int (*)(HsaAgent, void *), void *);
  LoadedLibrary Lib("libhsa-runtime64.so.1");
  if (!Lib.loaded())
    return Lib.loadFailure();
  auto Init = Lib.lookup<HsaInitFn>("hsa_init");
  auto ShutDown = Lib.lookup<HsaShutDownFn>("hsa_shut_down");
  auto StatusString = Lib.lookup<HsaStatusStringFn>("hsa_status_string");
  auto Iterate = Lib.lookup<HsaIterateAgentsFn>("hsa_iterate_agents");
  auto GetInfo = Lib.lookup<HsaAgentGetInfoFn>("hsa_agent_get_info");
  if (!Init)
    return Lib.missingSymbol("hsa_init");
  if (!Iterate || !GetInfo)
    return Lib.missingSymbol(!Iterate ? "hsa_iterate_agents"
                                      : "hsa_agent_get_info");
  auto Describe = [&](int S) -> std::string {
    const char *Text = nullptr;
    if (StatusString && StatusString(S, &Text) == 0 && Text)
      return Text;
    return "";
  };
  if (int S = Init())
    return Lib.callFailed("hsa_init", S, Describe(S));
  GpuCounter Counter{GetInfo};
  int S = Iterate(
      [](HsaAgent A, void *Data) {
        auto *C = static_cast<GpuCounter *>(Data);
        int Type = -1;
        if (C->GetInfo(A, HsaAgentInfoDevice, &Type) == 0 &&
            Type == HsaDeviceTypeGpu)
          ++C->Count;
        return 0;
      },
      &Counter);
  if (S || Counter.Count == 0) {
    if (ShutDown)
      ShutDown();
    if (S)
      return Lib.callFailed("hsa_iterate_agents", S, Describe(S));
    return ExecAvailability::unavailable(
        "libhsa-runtime64.so.1 was initialized, but reports no GPU agent");
  }
  Lib.keep();
  return ExecAvailability::available("libhsa-runtime64.so.1: " +
                                     std::to_string(Counter.Count) +
                                     " GPU agent(s)");
}

//===----------------------------------------------------------------------===//
// oneAPI Level Zero (level_zero/ze_api.h)
//===----------------------------------------------------------------------===//

static llvm::StringRef describeZeResult(uint32_t R) {
  switch (R) {
  case 0x70000001:
    return "ZE_RESULT_ERROR_DEVICE_LOST";
  case 0x70000002:
    return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
  case 0x78000001:
    return "ZE_RESULT_ERROR_UNINITIALIZED: no Level Zero driver found";
  case 0x78000003:
    return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
  default:
    return "";
  }
}

ExecAvailability tile::probeLevelZero() {
  using ZeInitFn = uint32_t (*)(uint32_t);
  using ZeDriverGetFn = uint32_t (*)(uint32_t *, void **);
  LoadedLibrary Lib("libze_loader.so.1");
  if (!Lib.loaded())
    return Lib.loadFailure();
  auto Init = Lib.lookup<ZeInitFn>("zeInit");
  auto DriverGet = Lib.lookup<ZeDriverGetFn>("zeDriverGet");
  if (!Init)
    return Lib.missingSymbol("zeInit");
  if (!DriverGet)
    return Lib.missingSymbol("zeDriverGet");
  if (uint32_t R = Init(/*ZE_INIT_FLAG_GPU_ONLY=*/1))
    return Lib.callFailed("zeInit", R, describeZeResult(R));
  uint32_t N = 0;
  if (uint32_t R = DriverGet(&N, nullptr))
    return Lib.callFailed("zeDriverGet", R, describeZeResult(R));
  if (N == 0)
    return ExecAvailability::unavailable(
        "libze_loader.so.1 was initialized, but reports no GPU driver");
  Lib.keep();
  return ExecAvailability::available("libze_loader.so.1: " + std::to_string(N) +
                                     " driver(s)");
}

//===----------------------------------------------------------------------===//
// Metal and WebGPU
//===----------------------------------------------------------------------===//

ExecAvailability tile::probeMetal() {
  static const char *Framework =
      "/System/Library/Frameworks/Metal.framework/Metal";
  using CreateDeviceFn = void *(*)();
  LoadedLibrary Lib(Framework);
  if (!Lib.loaded()) {
    ExecAvailability A = Lib.loadFailure();
    A.Reason += "; Metal exists only on macOS";
    return A;
  }
  auto Create = Lib.lookup<CreateDeviceFn>("MTLCreateSystemDefaultDevice");
  if (!Create)
    return Lib.missingSymbol("MTLCreateSystemDefaultDevice");
  if (!Create())
    return ExecAvailability::unavailable(
        "the Metal framework was loaded, but MTLCreateSystemDefaultDevice "
        "found no GPU");
  Lib.keep();
  return ExecAvailability::available("Metal framework: a default device");
}
