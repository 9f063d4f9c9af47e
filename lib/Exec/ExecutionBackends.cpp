//===- ExecutionBackends.cpp - Execution backend tables and availability --===//
//
// The generated descriptors of the shared execution backends and the
// process-wide cache of their availability probes.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/ExecutionBackend.h"
#include "llvm/ADT/STLExtras.h"
#include <mutex>

using namespace tile;

#define GET_TILE_EXEC_BACKEND_TABLE
#include "tile/Exec/ExecBackends.inc"

static_assert(std::size(kExecBackendTable) == NumExecBackends,
              "one descriptor per execution backend");
static_assert(std::size(kDeviceFormatTable) == NumDeviceFormats,
              "one descriptor per device format");

llvm::StringRef tile::getDeviceCompileName(DeviceCompile C) {
  return C == DeviceCompile::Eager ? "eager" : "deferred";
}

bool ExecBackendInfo::consumes(DeviceFormat F) const {
  return llvm::is_contained(consumes(), F);
}

llvm::ArrayRef<ExecBackendInfo> tile::getExecBackends() {
  return kExecBackendTable;
}

const ExecBackendInfo &tile::getExecBackendInfo(ExecBackendKind K) {
  assert(unsigned(K) < NumExecBackends && "not an execution backend");
  return kExecBackendTable[unsigned(K)];
}

const ExecBackendInfo *tile::lookupExecBackend(llvm::StringRef Name) {
  for (const ExecBackendInfo &E : kExecBackendTable)
    if (Name == E.Name)
      return &E;
  return nullptr;
}

llvm::ArrayRef<DeviceFormatInfo> tile::getDeviceFormats() {
  return kDeviceFormatTable;
}

const DeviceFormatInfo &tile::getDeviceFormatInfo(DeviceFormat F) {
  assert(unsigned(F) < NumDeviceFormats && "not a device format");
  return kDeviceFormatTable[unsigned(F)];
}

const DeviceFormatInfo *tile::lookupDeviceFormat(llvm::StringRef Name) {
  for (const DeviceFormatInfo &F : kDeviceFormatTable)
    if (Name == F.Name)
      return &F;
  return nullptr;
}

const ExecAvailability &tile::getExecAvailability(ExecBackendKind K) {
  // Built on first use (a function-local static, not a static constructor);
  // each probe runs at most once per process.
  struct ProbeCache {
    std::once_flag Once[NumExecBackends];
    ExecAvailability Result[NumExecBackends];
  };
  static ProbeCache Cache;
  unsigned I = unsigned(K);
  std::call_once(Cache.Once[I],
                 [&] { Cache.Result[I] = getExecBackendInfo(K).Probe(); });
  return Cache.Result[I];
}

llvm::Error tile::checkExecAvailable(ExecBackendKind K) {
  const ExecAvailability &A = getExecAvailability(K);
  if (A.Available)
    return llvm::Error::success();
  return llvm::createStringError("execution backend '" +
                                 llvm::Twine(getExecBackendInfo(K).Name) +
                                 "' is not available: " + A.Reason);
}
