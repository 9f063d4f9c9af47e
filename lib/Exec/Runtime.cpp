//===- Runtime.cpp - The C ABI host code calls ----------------------------===//
//
// Each tile_rt_* function forwards to the RuntimeCall behind `ctx`, so the
// generated host code is the same for every execution backend.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/Executor.h"
#include "llvm/ADT/StringExtras.h"

using namespace tile;

LoadedArtifact::~LoadedArtifact() = default;

void LoadedArtifact::setHostCode(HostCodeKind K,
                                 llvm::StringRef LibraryFailure) {
  HostKind = K;
  if (!LibraryFailure.empty())
    Warnings.push_back(("the artifact's host library was not used (" +
                        LibraryFailure +
                        "); its host objects were linked through ORC "
                        "instead, which is slower to load")
                           .str());
}

llvm::StringRef tile::getHostCodeKindName(LoadedArtifact::HostCodeKind K) {
  switch (K) {
  case LoadedArtifact::HostCodeKind::None: return "none";
  case LoadedArtifact::HostCodeKind::Library: return "library (dlopen)";
  case LoadedArtifact::HostCodeKind::Objects: return "objects (ORC)";
  }
  llvm_unreachable("unknown host code kind");
}
PreparedEntry::~PreparedEntry() = default;

namespace {
/// The prepared entry of a backend that resolves nothing ahead: each call
/// goes through LoadedArtifact::call by name.
class CallByName : public PreparedEntry {
public:
  CallByName(LoadedArtifact &L, const ArtifactEntry &E) : L(L), E(E) {}
  llvm::Error call(llvm::ArrayRef<TileArg> Args) override {
    return L.call(E.Name, Args);
  }

private:
  LoadedArtifact &L;
  const ArtifactEntry &E;
};
} // namespace

llvm::Expected<std::unique_ptr<PreparedEntry>>
LoadedArtifact::prepare(llvm::StringRef Entry) {
  const ArtifactEntry *E = Artifact.findEntry(Entry);
  if (!E)
    return Artifact.missingEntry(Entry);
  return std::make_unique<CallByName>(*this, *E);
}
Executor::~Executor() = default;
DeviceTimer::~DeviceTimer() = default;

llvm::Expected<std::unique_ptr<DeviceTimer>> Executor::createTimer() {
  return nullptr;
}
RuntimeCall::~RuntimeCall() = default;

char ArgumentError::ID = 0;

const void *RuntimeCall::tensorMap(int32_t Kernel, int32_t Map, const void *,
                                   llvm::ArrayRef<int64_t>,
                                   llvm::ArrayRef<int64_t>) {
  fail("kernel #" + std::to_string(Kernel) + " takes tensor map #" +
       std::to_string(Map) + " (a TMA descriptor of one of its tensors), "
       "which execution backend '" + getExecBackendInfo(Backend).Name +
       "' cannot build; run the artifact on an execution backend that builds "
       "tensor maps (cuda)");
  return nullptr;
}

int32_t RuntimeCall::residentBlocks(int32_t Kernel, int32_t, int64_t) {
  fail("kernel #" + std::to_string(Kernel) +
              " is persistent (its blocks loop over its tiles), and execution "
              "backend '" + getExecBackendInfo(Backend).Name +
              "' cannot say how many blocks it runs at once; run the artifact "
              "on an execution backend that can (cuda)");
  return 0;
}

int32_t RuntimeCall::fail(std::string Message) {
  if (Error.empty())
    Error = std::move(Message);
  return 1;
}

std::string tile::getDLPackDTypeName(uint32_t Packed) {
  unsigned Code = Packed & 0xff, Bits = (Packed >> 8) & 0xff,
           Lanes = Packed >> 16;
  std::string Base;
  switch (Code) {
  case 0: Base = "i" + std::to_string(Bits); break;
  case 1: Base = "u" + std::to_string(Bits); break;
  case 2: Base = "f" + std::to_string(Bits); break;
  case 4: Base = "bf" + std::to_string(Bits); break;
  case 6: Base = Bits == 8 ? "bool" : "bool" + std::to_string(Bits); break;
  case 10: Base = Bits == 8 ? "f8e4m3" : "?"; break;
  case 12: Base = Bits == 8 ? "f8e5m2" : "?"; break;
  default:
    Base = "code " + std::to_string(Code) + " bits " + std::to_string(Bits);
  }
  if (Lanes != 1)
    Base += "x" + std::to_string(Lanes);
  return Base;
}

std::string tile::formatRuntimeMessage(llvm::StringRef Msg, int64_t Expected,
                                       int64_t Actual) {
  std::string Out;
  while (!Msg.empty()) {
    size_t Open = Msg.find('{');
    if (Open == llvm::StringRef::npos) {
      Out += Msg;
      break;
    }
    Out += Msg.substr(0, Open);
    Msg = Msg.substr(Open);
    size_t Close = Msg.find('}');
    llvm::StringRef Key = Msg.substr(1, Close == llvm::StringRef::npos ? 0 : Close - 1);
    if (Key == "expected")
      Out += std::to_string(Expected);
    else if (Key == "actual")
      Out += std::to_string(Actual);
    else if (Key == "dtype:expected")
      Out += getDLPackDTypeName(uint32_t(Expected));
    else if (Key == "dtype:actual")
      Out += getDLPackDTypeName(uint32_t(Actual));
    else {
      Out += '{';
      Msg = Msg.drop_front();
      continue;
    }
    Msg = Msg.substr(Close + 1);
  }
  return Out;
}

extern "C" {

int32_t tile_rt_fail(void *Ctx, const char *Message, int64_t Expected,
                     int64_t Actual) {
  auto *Call = static_cast<RuntimeCall *>(Ctx);
  // Generated host code calls this only from its argument checks.
  if (Call->Error.empty())
    Call->ArgumentRefused = true;
  return Call->fail(formatRuntimeMessage(Message, Expected, Actual));
}

int32_t tile_rt_launch(void *Ctx, int32_t Kernel, void **Args, int32_t GX,
                       int32_t GY, int32_t GZ, int32_t Threads,
                       int64_t SharedBytes) {
  auto *Call = static_cast<RuntimeCall *>(Ctx);
  return Call->launch(Kernel, Args, GX, GY, GZ, Threads, SharedBytes);
}

int32_t tile_rt_resident_blocks(void *Ctx, int32_t Kernel, int32_t Threads,
                                int64_t SharedBytes) {
  auto *Call = static_cast<RuntimeCall *>(Ctx);
  return Call->residentBlocks(Kernel, Threads, SharedBytes);
}

const void *tile_rt_tensor_map(void *Ctx, int32_t Kernel, int32_t Map,
                               const void *Data, int32_t Rank,
                               const int64_t *Dims, const int64_t *Strides) {
  auto *Call = static_cast<RuntimeCall *>(Ctx);
  if (Rank < 0 || (Rank > 0 && (!Dims || !Strides))) {
    Call->fail("tile_rt_tensor_map: bad rank " + std::to_string(Rank) +
               " or null extents");
    return nullptr;
  }
  return Call->tensorMap(Kernel, Map, Data, llvm::ArrayRef(Dims, size_t(Rank)),
                         llvm::ArrayRef(Strides, size_t(Rank)));
}

void *tile_rt_alloc_workspace(void *Ctx, int64_t Bytes) {
  return static_cast<RuntimeCall *>(Ctx)->allocWorkspace(Bytes);
}

void tile_rt_free_workspace(void *Ctx, void *Ptr) {
  static_cast<RuntimeCall *>(Ctx)->freeWorkspace(Ptr);
}

} // extern "C"
