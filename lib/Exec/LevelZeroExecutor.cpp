//===- LevelZeroExecutor.cpp - The `level-zero` execution backend ---------===//
//
// Intel GPUs through oneAPI Level Zero, loaded with dlopen (never linked;
// the types come from level_zero/ze_api.h). Start: zeInit, the first
// driver's first GPU device, a context, a command queue and a command
// list. Build -> Load: zeModuleCreate compiles the artifact's SPIR-V (its
// build log is the error when it fails) and zeKernelCreate makes each
// kernel; a kernel needing more workgroup-local memory than the device has
// is refused here. The host object runs in this process through ORC.
// Launch: group size, one zeKernelSetArgumentValue per argument
// (ArtifactKernel::ArgBytes), the group count, then the command list is
// closed, executed on the queue, waited for and reset. Tensors and
// workspaces are device allocations (zeMemAllocDevice), copied and zeroed
// through the same command list.
//
//===----------------------------------------------------------------------===//

#include "ExecutorFactories.h"
#include "HostCode.h"
#include "DeviceArtifact.h"
#include "tile/Exec/Executor.h"
#include "llvm/ADT/StringMap.h"
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <mutex>

using namespace tile;

namespace {

struct ZeLoader {
#define TILE_ZE_FNS(X)                                                         \
  X(zeInit) X(zeDriverGet) X(zeDeviceGet) X(zeDeviceGetProperties)             \
  X(zeDeviceGetComputeProperties) X(zeContextCreate) X(zeContextDestroy)       \
  X(zeCommandQueueCreate) X(zeCommandQueueDestroy)                             \
  X(zeCommandQueueExecuteCommandLists) X(zeCommandQueueSynchronize)            \
  X(zeCommandListCreate) X(zeCommandListDestroy) X(zeCommandListClose)         \
  X(zeCommandListReset) X(zeCommandListAppendLaunchKernel)                     \
  X(zeCommandListAppendMemoryCopy) X(zeCommandListAppendMemoryFill)            \
  X(zeModuleCreate) X(zeModuleDestroy) X(zeModuleBuildLogGetString)            \
  X(zeModuleBuildLogDestroy) X(zeKernelCreate) X(zeKernelDestroy)              \
  X(zeKernelSetGroupSize) X(zeKernelSetArgumentValue) X(zeMemAllocDevice)      \
  X(zeMemFree)
#define TILE_ZE_DECLARE(Name) decltype(&::Name) Name = nullptr;
  TILE_ZE_FNS(TILE_ZE_DECLARE)

  llvm::Error load() {
    void *H = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!H)
      return llvm::createStringError("libze_loader.so.1 could not be loaded");
#define TILE_ZE_LOOKUP(Name)                                                   \
  Name = reinterpret_cast<decltype(Name)>(dlsym(H, #Name));                    \
  if (!Name)                                                                   \
    return llvm::createStringError("libze_loader.so.1 has no symbol " #Name);
    TILE_ZE_FNS(TILE_ZE_LOOKUP)
    return llvm::Error::success();
  }

  static llvm::Error fail(ze_result_t R, const llvm::Twine &What) {
    char Code[16];
    snprintf(Code, sizeof(Code), "0x%x", unsigned(R));
    return llvm::createStringError(What + " failed with " + Code);
  }
};

class ZeExecutor;

struct ZeKernel {
  ze_kernel_handle_t Handle;
  const ArtifactKernel *Info;
};

class ZeCall;

class ZeLoaded : public DeviceLoadedArtifact<ZeExecutor, ZeKernel, ZeCall> {
public:
  ZeLoaded(const KernelArtifact &A, ZeExecutor &E) : DeviceLoadedArtifact(A, E) {}
  ~ZeLoaded() override;
  llvm::Error init();

private:
  ze_module_handle_t Module = nullptr;
};

class ZeExecutor : public Executor {
public:
  ~ZeExecutor() override {
    if (List)
      Ze.zeCommandListDestroy(List);
    if (Queue)
      Ze.zeCommandQueueDestroy(Queue);
    if (Context)
      Ze.zeContextDestroy(Context);
  }

  llvm::Error init() {
    if (llvm::Error E = Ze.load())
      return E;
    if (ze_result_t R = Ze.zeInit(ZE_INIT_FLAG_GPU_ONLY))
      return Ze.fail(R, "zeInit");
    uint32_t N = 1;
    ze_driver_handle_t Driver;
    if (ze_result_t R = Ze.zeDriverGet(&N, &Driver); R || N == 0)
      return R ? Ze.fail(R, "zeDriverGet")
               : llvm::createStringError("Level Zero reports no driver");
    uint32_t ND = 0;
    if (ze_result_t R = Ze.zeDeviceGet(Driver, &ND, nullptr))
      return Ze.fail(R, "zeDeviceGet");
    std::vector<ze_device_handle_t> Devices(ND);
    if (ze_result_t R = Ze.zeDeviceGet(Driver, &ND, Devices.data()))
      return Ze.fail(R, "zeDeviceGet");
    for (ze_device_handle_t D : Devices) {
      ze_device_properties_t P{};
      P.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      if (Ze.zeDeviceGetProperties(D, &P) == ZE_RESULT_SUCCESS &&
          P.type == ZE_DEVICE_TYPE_GPU) {
        Device = D;
        break;
      }
    }
    if (!Device)
      return llvm::createStringError("the Level Zero driver has no GPU device");
    ze_device_compute_properties_t CP{};
    CP.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    if (ze_result_t R = Ze.zeDeviceGetComputeProperties(Device, &CP))
      return Ze.fail(R, "zeDeviceGetComputeProperties");
    MaxLocalMemory = CP.maxSharedLocalMemory;
    MaxGroupSize = CP.maxTotalGroupSize;
    ze_context_desc_t CD{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    if (ze_result_t R = Ze.zeContextCreate(Driver, &CD, &Context))
      return Ze.fail(R, "zeContextCreate");
    ze_command_queue_desc_t QD{};
    QD.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    QD.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    QD.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    if (ze_result_t R = Ze.zeCommandQueueCreate(Context, Device, &QD, &Queue))
      return Ze.fail(R, "zeCommandQueueCreate");
    ze_command_list_desc_t LD{};
    LD.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC;
    if (ze_result_t R = Ze.zeCommandListCreate(Context, Device, &LD, &List))
      return Ze.fail(R, "zeCommandListCreate");
    return llvm::Error::success();
  }

  ExecBackendKind getKind() const override { return ExecBackendKind::LevelZero; }
  int32_t getDLDeviceType() const override { return 14; /* kDLOneAPI */ }

  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) override {
    return loadInitialized<ZeLoaded>(A, *this);
  }

  llvm::Expected<void *> allocate(size_t Bytes) override {
    ze_device_mem_alloc_desc_t D{};
    D.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    void *P = nullptr;
    if (ze_result_t R = Ze.zeMemAllocDevice(Context, &D, std::max<size_t>(Bytes, 1),
                                            64, Device, &P))
      return Ze.fail(R, "zeMemAllocDevice of " + llvm::Twine(Bytes) + " bytes");
    return P;
  }
  void deallocate(void *P) override { Ze.zeMemFree(Context, P); }
  llvm::Error copyToDevice(void *Dst, const void *Src, size_t Bytes) override {
    return submit([&] {
      return Ze.zeCommandListAppendMemoryCopy(List, Dst, Src, Bytes, nullptr, 0,
                                              nullptr);
    }, "zeCommandListAppendMemoryCopy");
  }
  llvm::Error copyFromDevice(void *Dst, const void *Src, size_t Bytes) override {
    return copyToDevice(Dst, Src, Bytes);
  }
  llvm::Error synchronize() override {
    if (ze_result_t R = Ze.zeCommandQueueSynchronize(Queue, UINT64_MAX))
      return Ze.fail(R, "zeCommandQueueSynchronize");
    return llvm::Error::success();
  }

  /// Appends with \p Append, then runs the command list to completion.
  llvm::Error submit(llvm::function_ref<ze_result_t()> Append, const char *What) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (ze_result_t R = Append()) {
      Ze.zeCommandListReset(List);
      return Ze.fail(R, What);
    }
    ze_result_t R = Ze.zeCommandListClose(List);
    if (!R)
      R = Ze.zeCommandQueueExecuteCommandLists(Queue, 1, &List, nullptr);
    if (!R)
      R = Ze.zeCommandQueueSynchronize(Queue, UINT64_MAX);
    Ze.zeCommandListReset(List);
    if (R)
      return Ze.fail(R, llvm::Twine("running ") + What);
    return llvm::Error::success();
  }

  ZeLoader Ze;
  ze_device_handle_t Device = nullptr;
  ze_context_handle_t Context = nullptr;
  ze_command_queue_handle_t Queue = nullptr;
  ze_command_list_handle_t List = nullptr;
  uint32_t MaxLocalMemory = 0, MaxGroupSize = 0;
  std::mutex Mutex;
};

class ZeCall : public RuntimeCall {
public:
  ZeCall(ZeExecutor &E, const std::vector<ZeKernel> &K) : RuntimeCall(ExecBackendKind::LevelZero), Exec(E), Kernels(K) {}

  int32_t launch(int32_t Index, void **Args, int32_t GX, int32_t GY, int32_t GZ,
                 int32_t Threads, int64_t SharedBytes) override {
    if (std::string Bad = checkKernelIndex(Index, Kernels.size()); !Bad.empty())
      return fail(Bad);
    if (GX <= 0 || GY <= 0 || GZ <= 0)
      return 0;
    const ZeKernel &K = Kernels[Index];
    ZeLoader &Ze = Exec.Ze;
    if (ze_result_t R = Ze.zeKernelSetGroupSize(K.Handle, uint32_t(Threads), 1, 1))
      return fail(llvm::toString(Ze.fail(R, "zeKernelSetGroupSize")));
    for (unsigned I = 0; I != K.Info->ArgBytes.size(); ++I)
      if (ze_result_t R = Ze.zeKernelSetArgumentValue(K.Handle, I,
                                                      K.Info->ArgBytes[I], Args[I]))
        return fail(llvm::toString(
            Ze.fail(R, "zeKernelSetArgumentValue of argument " + llvm::Twine(I))));
    ze_group_count_t Groups{uint32_t(GX), uint32_t(GY), uint32_t(GZ)};
    if (llvm::Error E = Exec.submit(
            [&] {
              return Ze.zeCommandListAppendLaunchKernel(Exec.List, K.Handle, &Groups,
                                                        nullptr, 0, nullptr);
            },
            "zeCommandListAppendLaunchKernel"))
      return fail(llvm::toString(std::move(E)));
    return 0;
  }

  void *allocWorkspace(int64_t Bytes) override {
    return allocClearedWorkspace(*this, Exec, Bytes, [&](void *P) {
      uint8_t Zero = 0;
      return Exec.submit(
          [&] {
            return Exec.Ze.zeCommandListAppendMemoryFill(
                Exec.List, P, &Zero, 1, size_t(std::max<int64_t>(Bytes, 1)),
                nullptr, 0, nullptr);
          },
          "zeCommandListAppendMemoryFill");
    });
  }
  void freeWorkspace(void *P) override { Exec.deallocate(P); }

private:
  ZeExecutor &Exec;
  const std::vector<ZeKernel> &Kernels;
};

ZeLoaded::~ZeLoaded() {
  for (auto &[Name, Ks] : Kernels)
    for (ZeKernel &K : Ks)
      Exec.Ze.zeKernelDestroy(K.Handle);
  if (Module)
    Exec.Ze.zeModuleDestroy(Module);
}

llvm::Error ZeLoaded::init() {
  const KernelArtifact &A = getArtifact();
  ZeLoader &Ze = Exec.Ze;
  if (A.DeviceFmt != DeviceFormat::SPIRV || A.DeviceCode.empty())
    return llvm::createStringError(
        "execution backend 'level-zero' loads SPIR-V; this artifact holds '" +
        llvm::Twine(getDeviceFormatInfo(A.DeviceFmt).Name) + "'");
  ze_module_desc_t MD{};
  MD.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  MD.format = ZE_MODULE_FORMAT_IL_SPIRV;
  MD.inputSize = A.DeviceCode.size();
  MD.pInputModule = reinterpret_cast<const uint8_t *>(A.DeviceCode.data());
  MD.pBuildFlags = "";
  ze_module_build_log_handle_t Log = nullptr;
  ze_result_t R = Ze.zeModuleCreate(Exec.Context, Exec.Device, &MD, &Module, &Log);
  std::string LogText;
  if (Log) {
    size_t N = 0;
    Ze.zeModuleBuildLogGetString(Log, &N, nullptr);
    LogText.resize(N);
    if (N)
      Ze.zeModuleBuildLogGetString(Log, &N, LogText.data());
    Ze.zeModuleBuildLogDestroy(Log);
  }
  if (R)
    return llvm::createStringError(
        llvm::toString(ZeLoader::fail(R, "zeModuleCreate")) +
        (LogText.empty() ? "" : ":\n" + LogText));
  for (const ArtifactEntry &E : A.Entries) {
    std::vector<ZeKernel> Ks;
    for (const ArtifactKernel &K : E.Kernels) {
      if (K.SharedBytes > int64_t(Exec.MaxLocalMemory))
        return llvm::createStringError(
            "kernel " + K.Symbol + " needs " + llvm::Twine(K.SharedBytes) +
            " bytes of workgroup-local memory; the device has " +
            llvm::Twine(Exec.MaxLocalMemory));
      if (Exec.MaxGroupSize && K.Threads > int64_t(Exec.MaxGroupSize))
        return llvm::createStringError(
            "kernel " + K.Symbol + " runs " + llvm::Twine(K.Threads) +
            " work-items per group; the device allows " +
            llvm::Twine(Exec.MaxGroupSize));
      if (K.ArgBytes.size() != K.NumArgs)
        return llvm::createStringError("kernel " + K.Symbol +
                                       " has no argument sizes in the artifact");
      ze_kernel_desc_t KD{};
      KD.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
      KD.pKernelName = K.Symbol.c_str();
      ze_kernel_handle_t H;
      if (ze_result_t R = Ze.zeKernelCreate(Module, &KD, &H))
        return ZeLoader::fail(R, "zeKernelCreate of " + K.Symbol);
      Ks.push_back({H, &K});
    }
    Kernels[E.Name] = std::move(Ks);
  }
  return loadHost();
}

} // namespace

llvm::Expected<std::unique_ptr<Executor>>
tile::createLevelZeroExecutor(const ExecutorOptions &) {
  return createInitializedExecutor<ZeExecutor>();
}
