//===- HsaExecutor.cpp - The `hsa` execution backend ----------------------===//
//
// AMD GPUs through the HSA runtime, loaded with dlopen (never linked; the
// types come from hsa/hsa.h). Start: hsa_init, the first GPU agent, its
// kernarg region and a coarse-grained global region for device buffers, a
// queue and a completion signal. Build -> Load: the artifact's HSA code
// object goes through a code object reader into a frozen executable, and
// each kernel's `<symbol>.kd` gives its kernel object and its kernarg,
// group (LDS) and private segment sizes; the host object runs in this
// process through ORC. Launch: the argument values are packed into a
// kernarg buffer at their natural alignment (ArtifactKernel::ArgBytes, the
// layout LLVM's AMDGPU backend gives explicit arguments; the hidden
// arguments of code object v5 that follow, when the kernel has them, get
// the block counts and group sizes), an AQL kernel dispatch packet is
// written to the queue, its header published with release semantics, the
// doorbell rung, and the completion signal waited on. Runtime errors carry
// hsa_status_string text.
//
//===----------------------------------------------------------------------===//

#include "ExecutorFactories.h"
#include "HostCode.h"
#include "DeviceArtifact.h"
#include "tile/Exec/Executor.h"
#include "llvm/ADT/StringMap.h"
#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <mutex>

using namespace tile;

namespace {

/// The runtime's entry points, looked up in libhsa-runtime64.so.1.
struct HsaRuntime {
#define TILE_HSA_FNS(X)                                                        \
  X(hsa_init) X(hsa_status_string) X(hsa_iterate_agents) X(hsa_agent_get_info) \
  X(hsa_agent_iterate_regions) X(hsa_region_get_info) X(hsa_memory_allocate)   \
  X(hsa_memory_free) X(hsa_memory_copy) X(hsa_queue_create)                    \
  X(hsa_queue_destroy) X(hsa_queue_add_write_index_relaxed)                    \
  X(hsa_queue_load_read_index_scacquire) X(hsa_signal_create)                  \
  X(hsa_signal_destroy) X(hsa_signal_store_relaxed)                            \
  X(hsa_signal_store_screlease) X(hsa_signal_wait_scacquire)                   \
  X(hsa_code_object_reader_create_from_memory)                                 \
  X(hsa_code_object_reader_destroy) X(hsa_executable_create_alt)               \
  X(hsa_executable_load_agent_code_object) X(hsa_executable_freeze)            \
  X(hsa_executable_get_symbol_by_name) X(hsa_executable_symbol_get_info)       \
  X(hsa_executable_destroy)
#define TILE_HSA_DECLARE(Name) decltype(&::Name) Name = nullptr;
  TILE_HSA_FNS(TILE_HSA_DECLARE)

  llvm::Error load() {
    void *H = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!H)
      return llvm::createStringError("libhsa-runtime64.so.1 could not be loaded");
#define TILE_HSA_LOOKUP(Name)                                                  \
  Name = reinterpret_cast<decltype(Name)>(dlsym(H, #Name));                    \
  if (!Name)                                                                   \
    return llvm::createStringError("libhsa-runtime64.so.1 has no symbol " #Name);
    TILE_HSA_FNS(TILE_HSA_LOOKUP)
    return llvm::Error::success();
  }

  /// "what failed: HSA_STATUS_...: text (0x....)".
  llvm::Error fail(hsa_status_t S, const llvm::Twine &What) const {
    const char *Text = nullptr;
    if (hsa_status_string)
      hsa_status_string(S, &Text);
    char Code[16];
    snprintf(Code, sizeof(Code), "0x%x", unsigned(S));
    return llvm::createStringError(What + " failed with " + Code +
                                   (Text ? " (" + llvm::Twine(Text) + ")" : ""));
  }
};

/// What a dispatch needs of one kernel.
struct HsaKernel {
  uint64_t Object = 0;
  uint32_t KernargBytes = 0, GroupBytes = 0, PrivateBytes = 0;
  const ArtifactKernel *Info = nullptr;
};

class HsaExecutor;

class HsaCall;

class HsaLoaded : public DeviceLoadedArtifact<HsaExecutor, HsaKernel, HsaCall> {
public:
  HsaLoaded(const KernelArtifact &A, HsaExecutor &E) : DeviceLoadedArtifact(A, E) {}
  ~HsaLoaded() override;
  llvm::Error init();

private:
  hsa_executable_t Executable{0};
  hsa_code_object_reader_t Reader{0};
};

class HsaExecutor : public Executor {
public:
  ~HsaExecutor() override {
    if (Queue)
      Rt.hsa_queue_destroy(Queue);
    if (Signal.handle)
      Rt.hsa_signal_destroy(Signal);
  }

  llvm::Error init() {
    if (llvm::Error E = Rt.load())
      return E;
    if (hsa_status_t S = Rt.hsa_init())
      return Rt.fail(S, "hsa_init");
    // The first GPU agent.
    hsa_status_t S = Rt.hsa_iterate_agents(
        [](hsa_agent_t A, void *Data) {
          auto *Self = static_cast<HsaExecutor *>(Data);
          hsa_device_type_t Type;
          if (Self->Rt.hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &Type) ==
                  HSA_STATUS_SUCCESS &&
              Type == HSA_DEVICE_TYPE_GPU) {
            Self->Gpu = A;
            return HSA_STATUS_INFO_BREAK;
          }
          return HSA_STATUS_SUCCESS;
        },
        this);
    if (S != HSA_STATUS_SUCCESS && S != HSA_STATUS_INFO_BREAK)
      return Rt.fail(S, "hsa_iterate_agents");
    if (!Gpu.handle)
      return llvm::createStringError("the HSA runtime reports no GPU agent");
    // Its kernarg region and a device-memory (coarse-grained) region.
    S = Rt.hsa_agent_iterate_regions(
        Gpu,
        [](hsa_region_t R, void *Data) {
          auto *Self = static_cast<HsaExecutor *>(Data);
          hsa_region_segment_t Segment;
          Self->Rt.hsa_region_get_info(R, HSA_REGION_INFO_SEGMENT, &Segment);
          if (Segment != HSA_REGION_SEGMENT_GLOBAL)
            return HSA_STATUS_SUCCESS;
          uint32_t Flags = 0;
          Self->Rt.hsa_region_get_info(R, HSA_REGION_INFO_GLOBAL_FLAGS, &Flags);
          if ((Flags & HSA_REGION_GLOBAL_FLAG_KERNARG) && !Self->Kernarg.handle)
            Self->Kernarg = R;
          if ((Flags & HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED) && !Self->Device.handle)
            Self->Device = R;
          return HSA_STATUS_SUCCESS;
        },
        this);
    if (S != HSA_STATUS_SUCCESS)
      return Rt.fail(S, "hsa_agent_iterate_regions");
    if (!Kernarg.handle || !Device.handle)
      return llvm::createStringError(
          "the GPU agent has no kernarg or no coarse-grained global region");
    uint32_t QueueSize = 0;
    Rt.hsa_agent_get_info(Gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &QueueSize);
    if (hsa_status_t S = Rt.hsa_queue_create(
            Gpu, std::min<uint32_t>(QueueSize ? QueueSize : 64, 1024),
            HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
            &Queue))
      return Rt.fail(S, "hsa_queue_create");
    if (hsa_status_t S = Rt.hsa_signal_create(0, 0, nullptr, &Signal))
      return Rt.fail(S, "hsa_signal_create");
    return llvm::Error::success();
  }

  ExecBackendKind getKind() const override { return ExecBackendKind::Hsa; }
  int32_t getDLDeviceType() const override { return 10; /* kDLROCM */ }

  llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) override {
    return loadInitialized<HsaLoaded>(A, *this);
  }

  llvm::Expected<void *> allocate(size_t Bytes) override {
    void *P = nullptr;
    if (hsa_status_t S = Rt.hsa_memory_allocate(Device, std::max<size_t>(Bytes, 1), &P))
      return Rt.fail(S, "hsa_memory_allocate of " + llvm::Twine(Bytes) + " bytes");
    return P;
  }
  void deallocate(void *P) override { Rt.hsa_memory_free(P); }
  llvm::Error copyToDevice(void *Dst, const void *Src, size_t Bytes) override {
    if (hsa_status_t S = Rt.hsa_memory_copy(Dst, Src, Bytes))
      return Rt.fail(S, "hsa_memory_copy to the device");
    return llvm::Error::success();
  }
  llvm::Error copyFromDevice(void *Dst, const void *Src, size_t Bytes) override {
    if (hsa_status_t S = Rt.hsa_memory_copy(Dst, Src, Bytes))
      return Rt.fail(S, "hsa_memory_copy from the device");
    return llvm::Error::success();
  }
  /// Every dispatch is waited for.
  llvm::Error synchronize() override { return llvm::Error::success(); }

  llvm::Error dispatch(const HsaKernel &K, void **Args, int32_t GX, int32_t GY,
                       int32_t GZ, int32_t Threads);

  HsaRuntime Rt;
  hsa_agent_t Gpu{0};
  hsa_region_t Kernarg{0}, Device{0};
  hsa_queue_t *Queue = nullptr;
  hsa_signal_t Signal{0};
  std::mutex LaunchMutex;
};

llvm::Error HsaExecutor::dispatch(const HsaKernel &K, void **Args, int32_t GX,
                                  int32_t GY, int32_t GZ, int32_t Threads) {
  std::lock_guard<std::mutex> Lock(LaunchMutex);
  // Explicit arguments at their natural alignment, then (code object v5)
  // the hidden block counts and group sizes.
  const std::vector<uint32_t> &Sizes = K.Info->ArgBytes;
  std::vector<uint8_t> Bytes;
  for (unsigned I = 0; I != Sizes.size(); ++I) {
    size_t Align = std::min<uint32_t>(std::max<uint32_t>(Sizes[I], 1), 8);
    size_t Off = (Bytes.size() + Align - 1) / Align * Align;
    Bytes.resize(Off + Sizes[I]);
    std::memcpy(Bytes.data() + Off, Args[I], Sizes[I]);
  }
  size_t Hidden = (Bytes.size() + 7) / 8 * 8;
  size_t Total = std::max<size_t>(K.KernargBytes, Bytes.size());
  Bytes.resize(Total, 0);
  if (Total >= Hidden + 18) {
    uint32_t Blocks[3] = {uint32_t(GX), uint32_t(GY), uint32_t(GZ)};
    uint16_t Group[3] = {uint16_t(Threads), 1, 1};
    std::memcpy(Bytes.data() + Hidden, Blocks, sizeof(Blocks));
    std::memcpy(Bytes.data() + Hidden + 12, Group, sizeof(Group));
  }
  void *KernargBuf = nullptr;
  if (hsa_status_t S = Rt.hsa_memory_allocate(Kernarg, std::max<size_t>(Total, 8),
                                              &KernargBuf))
    return Rt.fail(S, "hsa_memory_allocate of the kernel arguments");
  std::memcpy(KernargBuf, Bytes.data(), Total);

  Rt.hsa_signal_store_relaxed(Signal, 1);
  uint64_t Index = Rt.hsa_queue_add_write_index_relaxed(Queue, 1);
  while (Index - Rt.hsa_queue_load_read_index_scacquire(Queue) >= Queue->size)
    ;
  auto *Packet = static_cast<hsa_kernel_dispatch_packet_t *>(Queue->base_address) +
                 (Index & (Queue->size - 1));
  std::memset(reinterpret_cast<uint8_t *>(Packet) + 4, 0, sizeof(*Packet) - 4);
  Packet->workgroup_size_x = uint16_t(Threads);
  Packet->workgroup_size_y = 1;
  Packet->workgroup_size_z = 1;
  // The grid counts work-items, not workgroups.
  Packet->grid_size_x = uint32_t(GX) * uint32_t(Threads);
  Packet->grid_size_y = uint32_t(GY);
  Packet->grid_size_z = uint32_t(GZ);
  Packet->private_segment_size = K.PrivateBytes;
  Packet->group_segment_size = K.GroupBytes;
  Packet->kernel_object = K.Object;
  Packet->kernarg_address = KernargBuf;
  Packet->completion_signal = Signal;
  uint16_t Header =
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (1 << HSA_PACKET_HEADER_BARRIER) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  uint16_t Setup = 3 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  // Header and setup last, in one release store: the packet becomes valid.
  __atomic_store_n(reinterpret_cast<uint32_t *>(Packet),
                   uint32_t(Header) | uint32_t(Setup) << 16, __ATOMIC_RELEASE);
  Rt.hsa_signal_store_screlease(Queue->doorbell_signal, hsa_signal_value_t(Index));
  while (Rt.hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                      HSA_WAIT_STATE_BLOCKED) != 0)
    ;
  Rt.hsa_memory_free(KernargBuf);
  return llvm::Error::success();
}

class HsaCall : public RuntimeCall {
public:
  HsaCall(HsaExecutor &E, const std::vector<HsaKernel> &K) : RuntimeCall(ExecBackendKind::Hsa), Exec(E), Kernels(K) {}

  int32_t launch(int32_t Index, void **Args, int32_t GX, int32_t GY, int32_t GZ,
                 int32_t Threads, int64_t SharedBytes) override {
    if (std::string Bad = checkKernelIndex(Index, Kernels.size()); !Bad.empty())
      return fail(Bad);
    if (GX <= 0 || GY <= 0 || GZ <= 0)
      return 0; // an empty grid launches nothing
    if (llvm::Error E = Exec.dispatch(Kernels[Index], Args, GX, GY, GZ, Threads))
      return fail(llvm::toString(std::move(E)));
    return 0;
  }

  void *allocWorkspace(int64_t Bytes) override {
    return allocClearedWorkspace(*this, Exec, Bytes, [&](void *P) {
      std::vector<uint8_t> Zero(size_t(std::max<int64_t>(Bytes, 1)), 0);
      return Exec.copyToDevice(P, Zero.data(), Zero.size());
    });
  }
  void freeWorkspace(void *P) override { Exec.deallocate(P); }

private:
  HsaExecutor &Exec;
  const std::vector<HsaKernel> &Kernels;
};

HsaLoaded::~HsaLoaded() {
  if (Executable.handle)
    Exec.Rt.hsa_executable_destroy(Executable);
  if (Reader.handle)
    Exec.Rt.hsa_code_object_reader_destroy(Reader);
}

llvm::Error HsaLoaded::init() {
  const KernelArtifact &A = getArtifact();
  HsaRuntime &Rt = Exec.Rt;
  if (A.DeviceFmt != DeviceFormat::HSACO || A.DeviceCode.empty()) {
    auto Why = A.Notes.find("hsaco");
    return llvm::createStringError(
        "execution backend 'hsa' loads HSA code objects; this artifact has none" +
        (Why != A.Notes.end() ? " (" + Why->second + ")" : std::string()));
  }
  if (hsa_status_t S = Rt.hsa_code_object_reader_create_from_memory(
          A.DeviceCode.data(), A.DeviceCode.size(), &Reader))
    return Rt.fail(S, "hsa_code_object_reader_create_from_memory");
  if (hsa_status_t S = Rt.hsa_executable_create_alt(
          HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
          &Executable))
    return Rt.fail(S, "hsa_executable_create_alt");
  if (hsa_status_t S = Rt.hsa_executable_load_agent_code_object(
          Executable, Exec.Gpu, Reader, nullptr, nullptr))
    return Rt.fail(S, "hsa_executable_load_agent_code_object (is the code "
                      "object built for this GPU's processor?)");
  if (hsa_status_t S = Rt.hsa_executable_freeze(Executable, nullptr))
    return Rt.fail(S, "hsa_executable_freeze");
  for (const ArtifactEntry &E : A.Entries) {
    std::vector<HsaKernel> Ks;
    for (const ArtifactKernel &K : E.Kernels) {
      hsa_executable_symbol_t Sym;
      std::string Name = K.Symbol + ".kd";
      if (hsa_status_t S = Rt.hsa_executable_get_symbol_by_name(
              Executable, Name.c_str(), &Exec.Gpu, &Sym))
        return Rt.fail(S, "looking up kernel " + Name);
      HsaKernel HK;
      HK.Info = &K;
      Rt.hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &HK.Object);
      Rt.hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &HK.KernargBytes);
      Rt.hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &HK.GroupBytes);
      Rt.hsa_executable_symbol_get_info(
          Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &HK.PrivateBytes);
      if (K.ArgBytes.size() != K.NumArgs)
        return llvm::createStringError("kernel " + K.Symbol +
                                       " has no argument sizes in the artifact");
      Ks.push_back(HK);
    }
    Kernels[E.Name] = std::move(Ks);
  }
  return loadHost();
}

} // namespace

llvm::Expected<std::unique_ptr<Executor>>
tile::createHsaExecutor(const ExecutorOptions &) {
  return createInitializedExecutor<HsaExecutor>();
}
