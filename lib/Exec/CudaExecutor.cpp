//===- CudaExecutor.cpp - The `cuda` execution backend --------------------===//
//
// NVIDIA GPUs through the CUDA driver API, loaded with dlopen (never
// linked). Build -> Load: the artifact's cubin (or PTX, which the driver
// compiles) becomes a CUmodule and its kernels CUfunctions (deferred
// kernels, in the artifact's DeferredDeviceSource, are JIT-compiled by the
// driver as a second module at the first launch of one of them); the host
// object runs in this process through ORC, as for the CPU, and reaches the
// GPU only through the runtime ABI: tile_rt_launch becomes cuLaunchKernel
// (raising the dynamic shared memory limit past 48 KB first when a kernel
// needs it), workspaces come from cuMemAlloc, and tile_rt_tensor_map
// encodes TMA descriptors with cuTensorMapEncodeTiled into storage the
// call owns. Driver errors carry cuGetErrorName/cuGetErrorString text.
//
//===----------------------------------------------------------------------===//

#include "ExecutorFactories.h"
#include "HostCode.h"
#include "DeviceArtifact.h"
#include "tile/Exec/Executor.h"
#include "tile/Exec/TensorMap.h"
#include "llvm/ADT/StringExtras.h"
#include <cstdlib>
#include <dlfcn.h>
#include <optional>
#include <mutex>
#include <string>

using namespace tile;

namespace {

// The few driver API types used here (cuda.h is not needed to build).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st *;
using CUmodule = CUmod_st *;
using CUfunction = CUfunc_st *;
using CUstream = CUstream_st *;
using CUevent = CUevent_st *;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;

struct Driver {
  void *Handle = nullptr;
  std::string LoadError;
#define TILE_CU_FN(Name, Sym, Ret, ...) Ret (*Name)(__VA_ARGS__) = nullptr;
#include "CudaDriverFns.def"

  bool load() {
    Handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char *E = dlerror();
      LoadError = E ? E : "unknown dlopen error";
      return false;
    }
#define TILE_CU_FN(Name, Sym, Ret, ...)                                        \
  Name = reinterpret_cast<decltype(Name)>(dlsym(Handle, Sym));                \
  if (!Name) {                                                                 \
    LoadError = "libcuda.so.1 has no symbol " Sym;                             \
    return false;                                                              \
  }
#define TILE_CU_OPTIONAL_FN(Name, Sym, Ret, ...)                               \
  Name = reinterpret_cast<decltype(Name)>(dlsym(Handle, Sym));
#include "CudaDriverFns.def"
    return true;
  }
};

Driver &getDriver() {
  static Driver D;
  static std::once_flag Once;
  std::call_once(Once, [] { D.load(); });
  return D;
}

class CudaExecutor;
class CudaCall;

/// The module of an artifact's deferred kernels (its
/// DeferredDeviceSource, PTX), which the driver's JIT compiles at the first
/// launch of one of them: the general versions of specialized kernels,
/// which run only where their specialization's conditions fail.
struct CudaDeferredModule {
  std::string PTX;
  CUmodule Mod = nullptr;
  std::mutex Lock;
  ~CudaDeferredModule() {
    if (Mod)
      getDriver().cuModuleUnload(Mod);
  }
  llvm::Expected<CUfunction> get(const std::string &Symbol);
};

struct CudaKernel {
  CUfunction Fn;
  int64_t SharedBytes;
  /// The artifact's description of the kernel's tensor map arguments.
  const std::vector<ArtifactTensorMap> *TensorMaps;
  /// A deferred kernel's symbol and module, Fn being null until its first
  /// launch.
  const std::string *Symbol = nullptr;
  CudaDeferredModule *Deferred = nullptr;
};

/// The bytes of one CUtensorMap (64-byte aligned, as the driver needs).
struct alignas(64) TensorMapBytes {
  unsigned char Bytes[ArtifactTensorMap::Bytes] = {};
};

class CudaLoaded
    : public DeviceLoadedArtifact<CudaExecutor, CudaKernel, CudaCall> {
public:
  CudaLoaded(const KernelArtifact &A, CudaExecutor &E)
      : DeviceLoadedArtifact(A, E) {}
  ~CudaLoaded() override;
  llvm::Error init();

private:
  CUmodule Mod = nullptr;
  CudaDeferredModule Deferred;
};

class CudaExecutor : public Executor {
public:
  llvm::Error init() {
    Driver &D = getDriver();
    if (!D.Handle)
      return llvm::createStringError("cannot load libcuda.so.1: " + D.LoadError);
    if (llvm::Error E = check(D.cuInit(0), "cuInit"))
      return E;
    if (llvm::Error E = check(D.cuDeviceGet(&Dev, 0), "cuDeviceGet"))
      return E;
    if (llvm::Error E = check(D.cuDevicePrimaryCtxRetain(&Ctx, Dev),
                              "cuDevicePrimaryCtxRetain"))
      return E;
    if (llvm::Error E = check(D.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
      return E;
    D.cuDeviceGetAttribute(&MaxSharedOptin,
                           CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, Dev);
    D.cuDeviceGetAttribute(&CCMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                           Dev);
    D.cuDeviceGetAttribute(&Multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                           Dev);
    return llvm::Error::success();
  }
  ~CudaExecutor() override {
    if (Ctx)
      getDriver().cuDevicePrimaryCtxRelease(Dev);
  }

  /// Success, or the driver's name and text for \p R during \p What.
  static llvm::Error check(CUresult R, llvm::StringRef What) {
    if (R == 0)
      return llvm::Error::success();
    return llvm::createStringError(describe(R, What));
  }
  static std::string describe(CUresult R, llvm::StringRef What) {
    Driver &D = getDriver();
    const char *Name = nullptr, *Text = nullptr;
    D.cuGetErrorName(R, &Name);
    D.cuGetErrorString(R, &Text);
    return (What + " failed: " + (Name ? Name : "CUDA_ERROR_" + std::to_string(R)) +
            " (" + (Text ? Text : "no description") + ")")
        .str();
  }

  ExecBackendKind getKind() const override { return ExecBackendKind::Cuda; }
  std::string getDeviceName() const override {
    char Name[256] = {0};
    if (getDriver().cuDeviceGetName(Name, sizeof(Name) - 1, Dev) != 0)
      return "";
    return Name;
  }
  int32_t getDLDeviceType() const override { return 2; /* kDLCUDA */ }

  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) override {
    // The executor may have been created on another thread (tile-jit starts
    // the driver while it compiles): the context becomes current on the
    // thread that loads, which then launches and copies.
    if (llvm::Error E = check(getDriver().cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"))
      return std::move(E);
    return loadInitialized<CudaLoaded>(A, *this);
  }

  llvm::Expected<void *> allocate(size_t Bytes) override {
    CUdeviceptr P = 0;
    if (llvm::Error E = check(getDriver().cuMemAlloc(&P, std::max<size_t>(Bytes, 1)),
                              "cuMemAlloc of " + std::to_string(Bytes) + " bytes"))
      return std::move(E);
    return reinterpret_cast<void *>(P);
  }
  void deallocate(void *P) override {
    getDriver().cuMemFree(reinterpret_cast<CUdeviceptr>(P));
  }
  llvm::Error copyToDevice(void *Dst, const void *Src, size_t Bytes) override {
    return check(getDriver().cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(Dst), Src, Bytes),
                 "cuMemcpyHtoD");
  }
  llvm::Error copyFromDevice(void *Dst, const void *Src, size_t Bytes) override {
    return check(getDriver().cuMemcpyDtoH(Dst, reinterpret_cast<CUdeviceptr>(Src), Bytes),
                 "cuMemcpyDtoH");
  }
  llvm::Error synchronize() override {
    return check(getDriver().cuCtxSynchronize(), "cuCtxSynchronize");
  }

  llvm::Expected<std::unique_ptr<DeviceTimer>> createTimer() override;

  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  int MaxSharedOptin = 48 * 1024;
  /// The device's compute capability major version (9 on Hopper).
  int CCMajor = 0;
  /// The device's streaming multiprocessors (132 on an H100 SXM).
  int Multiprocessors = 0;
};

/// Two events on the default stream, which the launches also use.
class CudaTimer : public DeviceTimer {
public:
  ~CudaTimer() override {
    for (CUevent E : {Start, End})
      if (E)
        getDriver().cuEventDestroy(E);
  }
  llvm::Error init() {
    Driver &D = getDriver();
    if (llvm::Error E = CudaExecutor::check(D.cuEventCreate(&Start, 0), "cuEventCreate"))
      return E;
    return CudaExecutor::check(D.cuEventCreate(&End, 0), "cuEventCreate");
  }
  llvm::Error start() override {
    return CudaExecutor::check(getDriver().cuEventRecord(Start, nullptr),
                               "cuEventRecord");
  }
  llvm::Expected<double> stop() override {
    Driver &D = getDriver();
    if (llvm::Error E = CudaExecutor::check(D.cuEventRecord(End, nullptr), "cuEventRecord"))
      return std::move(E);
    if (llvm::Error E =
            CudaExecutor::check(D.cuEventSynchronize(End), "cuEventSynchronize"))
      return std::move(E);
    float Ms = 0;
    if (llvm::Error E = CudaExecutor::check(D.cuEventElapsedTime(&Ms, Start, End),
                                            "cuEventElapsedTime"))
      return std::move(E);
    return double(Ms) / 1e3;
  }

private:
  CUevent Start = nullptr, End = nullptr;
};

llvm::Expected<std::unique_ptr<DeviceTimer>> CudaExecutor::createTimer() {
  auto T = std::make_unique<CudaTimer>();
  if (llvm::Error E = T->init())
    return std::move(E);
  return std::unique_ptr<DeviceTimer>(std::move(T));
}

class CudaCall : public RuntimeCall {
public:
  CudaCall(CudaExecutor &E, const std::vector<CudaKernel> &K)
      : RuntimeCall(ExecBackendKind::Cuda), Exec(E), Kernels(K) {}

  /// Kernel \p Index loaded (a deferred one compiled) and allowed
  /// \p SharedBytes of dynamic shared memory; null after recording why not.
  CUfunction prepareKernel(int32_t Index, int64_t SharedBytes) {
    if (std::string Bad = checkKernelIndex(Index, Kernels.size()); !Bad.empty()) {
      fail(Bad);
      return nullptr;
    }
    CUfunction Fn = Kernels[Index].Fn;
    if (!Fn) {
      const CudaKernel &K = Kernels[Index];
      llvm::Expected<CUfunction> F = K.Deferred->get(*K.Symbol);
      if (!F) {
        fail(llvm::toString(F.takeError()));
        return nullptr;
      }
      Fn = *F;
    }
    if (SharedBytes > Exec.MaxSharedOptin) {
      fail("kernel #" + std::to_string(Index) + " needs " +
           std::to_string(SharedBytes) +
           " bytes of shared memory; the device allows " +
           std::to_string(Exec.MaxSharedOptin) + " per block");
      return nullptr;
    }
    if (SharedBytes > 48 * 1024)
      if (CUresult R = getDriver().cuFuncSetAttribute(
              Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(SharedBytes))) {
        fail(CudaExecutor::describe(R, "cuFuncSetAttribute"));
        return nullptr;
      }
    return Fn;
  }

  int32_t residentBlocks(int32_t Index, int32_t Threads, int64_t SharedBytes) override {
    CUfunction Fn = prepareKernel(Index, SharedBytes);
    if (!Fn)
      return 0;
    int PerSM = 0;
    if (CUresult R = getDriver().cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &PerSM, Fn, Threads, size_t(SharedBytes))) {
      fail(CudaExecutor::describe(R, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
      return 0;
    }
    if (PerSM < 1 || Exec.Multiprocessors < 1) {
      fail("kernel #" + std::to_string(Index) + " of " + std::to_string(Threads) +
                  " threads and " + std::to_string(SharedBytes) +
                  " bytes of shared memory fits no multiprocessor (" +
                  std::to_string(PerSM) + " blocks per multiprocessor, " +
                  std::to_string(Exec.Multiprocessors) + " multiprocessors)");
      return 0;
    }
    int64_t N = std::min<int64_t>(int64_t(PerSM) * Exec.Multiprocessors, INT32_MAX);
    // For tests on the device: fewer blocks, so that each of a persistent
    // kernel's takes several tiles at small sizes.
    if (const char *Cap = std::getenv("TILE_CUDA_RESIDENT_BLOCKS")) {
      unsigned long long V = 0;
      if (!llvm::StringRef(Cap).getAsInteger(10, V) && V > 0)
        N = std::min<int64_t>(N, int64_t(std::min<unsigned long long>(V, INT32_MAX)));
    }
    return int32_t(N);
  }

  int32_t launch(int32_t Index, void **Args, int32_t GX, int32_t GY, int32_t GZ,
                 int32_t Threads, int64_t SharedBytes) override {
    if (std::string Bad = checkKernelIndex(Index, Kernels.size()); !Bad.empty())
      return fail(Bad);
    if (int64_t(GX) * GY * GZ == 0)
      return 0;
    Driver &D = getDriver();
    CUfunction Fn = prepareKernel(Index, SharedBytes);
    if (!Fn)
      return 1;
    if (CUresult R = D.cuLaunchKernel(Fn, GX, GY, GZ, Threads, 1, 1,
                                      unsigned(SharedBytes), nullptr, Args, nullptr))
      return fail(CudaExecutor::describe(R, "cuLaunchKernel"));
    return 0;
  }

  void *allocWorkspace(int64_t Bytes) override {
    Driver &D = getDriver();
    CUdeviceptr P = 0;
    if (CUresult R = D.cuMemAlloc(&P, std::max<int64_t>(Bytes, 1))) {
      fail(CudaExecutor::describe(R, "cuMemAlloc of a workspace"));
      return nullptr;
    }
    if (CUresult R = D.cuMemsetD8(P, 0, std::max<int64_t>(Bytes, 1))) {
      fail(CudaExecutor::describe(R, "cuMemsetD8 of a workspace"));
      D.cuMemFree(P);
      return nullptr;
    }
    return reinterpret_cast<void *>(P);
  }
  void freeWorkspace(void *P) override {
    // Kernels using it may still run: wait before giving it back.
    getDriver().cuCtxSynchronize();
    getDriver().cuMemFree(reinterpret_cast<CUdeviceptr>(P));
  }

  const void *tensorMap(int32_t Kernel, int32_t Map, const void *Data,
                        llvm::ArrayRef<int64_t> Dims,
                        llvm::ArrayRef<int64_t> Strides) override {
    if (std::string Bad = checkKernelIndex(Kernel, Kernels.size()); !Bad.empty()) {
      fail(Bad);
      return nullptr;
    }
    const std::vector<ArtifactTensorMap> &Maps = *Kernels[Kernel].TensorMaps;
    if (Map < 0 || size_t(Map) >= Maps.size()) {
      fail("host code asked for tensor map #" + std::to_string(Map) +
           " of kernel #" + std::to_string(Kernel) + ", which takes " +
           std::to_string(Maps.size()));
      return nullptr;
    }
    auto Req = describeTiledTensorMap(Maps[Map], Data, Dims, Strides);
    if (!Req) {
      fail(llvm::toString(Req.takeError()));
      return nullptr;
    }
    // cuLaunchKernel copies the argument: the bytes need to outlive only
    // the launches of this call.
    Storage.push_back(std::make_unique<TensorMapBytes>());
    void *Out = Storage.back()->Bytes;
    if (!*Req)
      return Out; // zeros: the kernel does not read this tensor through it
    Driver &D = getDriver();
    if (!D.cuTensorMapEncodeTiled) {
      fail("the tensor map of '" + Maps[Map].Name +
           "' needs cuTensorMapEncodeTiled, which this CUDA driver does not "
           "have (a CUDA 12 or newer driver is needed)");
      return nullptr;
    }
    const TiledTensorMapRequest &R = **Req;
    static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "cuuint64_t");
    if (CUresult Err = D.cuTensorMapEncodeTiled(
            Out, int(R.DataType), R.Rank, R.Address,
            reinterpret_cast<const unsigned long long *>(R.Dims),
            reinterpret_cast<const unsigned long long *>(R.Strides), R.Box,
            R.ElementStrides, /*interleave=*/0, int(R.Swizzle),
            int(R.L2Promotion), int(R.OOBFill))) {
      fail(CudaExecutor::describe(Err, "cuTensorMapEncodeTiled for the tensor "
                                       "map of '" + Maps[Map].Name + "'"));
      return nullptr;
    }
    return Out;
  }

private:
  CudaExecutor &Exec;
  const std::vector<CudaKernel> &Kernels;
  std::vector<std::unique_ptr<TensorMapBytes>> Storage;
};

/// The major compute capability of a cubin whose artifact's DeviceArch
/// (written by the CUDA code generator) says `sm_XY[a]`.
std::optional<int> getCubinMajor(const KernelArtifact &A) {
  llvm::StringRef Arch(A.DeviceArch);
  if (!Arch.consume_front("sm_"))
    return std::nullopt;
  llvm::StringRef Digits = Arch.take_while(llvm::isDigit);
  int Version = 0;
  if (Digits.size() < 2 || Digits.getAsInteger(10, Version))
    return std::nullopt;
  return Version / 10;
}

llvm::Expected<CUfunction> CudaDeferredModule::get(const std::string &Symbol) {
  std::lock_guard<std::mutex> G(Lock);
  Driver &D = getDriver();
  if (!Mod)
    if (llvm::Error E = CudaExecutor::check(
            D.cuModuleLoadData(&Mod, PTX.c_str()),
            "cuModuleLoadData (PTX JIT of the deferred kernels, at the first "
            "launch of '" + Symbol + "')"))
      return std::move(E);
  CUfunction F = nullptr;
  if (llvm::Error E = CudaExecutor::check(D.cuModuleGetFunction(&F, Mod, Symbol.c_str()),
                                          "cuModuleGetFunction(" + Symbol + ")"))
    return std::move(E);
  return F;
}

CudaLoaded::~CudaLoaded() {
  if (Mod)
    getDriver().cuModuleUnload(Mod);
}

llvm::Error CudaLoaded::init() {
  Driver &D = getDriver();
  if (Artifact.DeviceFmt != DeviceFormat::Cubin &&
      Artifact.DeviceFmt != DeviceFormat::PTX)
    return llvm::createStringError(
        "execution backend 'cuda' loads cubin or ptx; this artifact holds '" +
        llvm::Twine(getDeviceFormatInfo(Artifact.DeviceFmt).Name) + "'");
  // PTX must be NUL-terminated for the driver's JIT.
  std::string Image = Artifact.DeviceCode;
  if (Artifact.DeviceFmt == DeviceFormat::PTX)
    Image.push_back('\0');
  // A cubin runs only on its own major architecture (sm_80 code does not
  // load on an sm_90 device); for another one the PTX it was assembled
  // from, kept in the artifact, is compiled by the driver for this device.
  bool FromPTX = Artifact.DeviceFmt == DeviceFormat::PTX;
  bool CanUsePTX = !FromPTX && !Artifact.DeviceSource.empty();
  auto UsePTX = [&] {
    Image = Artifact.DeviceSource;
    Image.push_back('\0');
    FromPTX = true;
  };
  std::optional<int> Major = getCubinMajor(Artifact);
  if (CanUsePTX && Major && Exec.CCMajor && *Major != Exec.CCMajor)
    UsePTX();
  CUresult R = D.cuModuleLoadData(&Mod, Image.data());
  if (R == CUDA_ERROR_NO_BINARY_FOR_GPU && CanUsePTX && !FromPTX) {
    UsePTX();
    R = D.cuModuleLoadData(&Mod, Image.data());
  }
  if (llvm::Error E = CudaExecutor::check(
          R, FromPTX ? "cuModuleLoadData (PTX JIT)" : "cuModuleLoadData (cubin)"))
    return E;
  Deferred.PTX = Artifact.DeferredDeviceSource;
  for (const ArtifactEntry &En : Artifact.Entries) {
    std::vector<CudaKernel> &Fns = Kernels[En.Name];
    for (const ArtifactKernel &K : En.Kernels) {
      if (K.Deferred) {
        if (Artifact.DeferredDeviceSource.empty())
          return llvm::createStringError("kernel '" + K.Symbol +
                                         "' is deferred, but the artifact has "
                                         "no deferred device code");
        Fns.push_back({nullptr, K.SharedBytes, &K.TensorMaps, &K.Symbol, &Deferred});
        continue;
      }
      CUfunction F = nullptr;
      if (llvm::Error E = CudaExecutor::check(
              D.cuModuleGetFunction(&F, Mod, K.Symbol.c_str()),
              "cuModuleGetFunction(" + K.Symbol + ")"))
        return E;
      Fns.push_back({F, K.SharedBytes, &K.TensorMaps});
    }
  }
  return loadHost();
}

} // namespace

llvm::Expected<std::unique_ptr<Executor>>
tile::createCudaExecutor(const ExecutorOptions &) {
  return createInitializedExecutor<CudaExecutor>();
}
