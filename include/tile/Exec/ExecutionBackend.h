//===- ExecutionBackend.h - Shared execution backends -----------*- C++ -*-===//
//
// The execution backends of libTileExec (orc, cuda, hsa, level-zero, metal,
// webgpu) as constant descriptors generated from
// include/tile/Exec/ExecutionBackends.td, and their availability.
//
// Availability is probed lazily: the first question about a backend loads
// its driver library with dlopen and initializes it; the answer (with the
// library and the reason when it fails) is cached for the process. No
// driver is ever a link-time dependency, so every program starts on a
// machine without them.
//
// This header, like the rest of libTileExec, depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_EXECUTIONBACKEND_H
#define TILE_EXEC_EXECUTIONBACKEND_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>

// enum class tile::DeviceFormat and enum class tile::ExecBackendKind.
#define GET_TILE_DEVICE_FORMAT_ENUM
#define GET_TILE_EXEC_BACKEND_ENUM
#include "tile/Exec/ExecBackends.inc"

namespace tile {

/// When device code becomes machine code.
enum class DeviceCompile : uint8_t {
  /// The toolkit compiles to a device binary at build time.
  Eager,
  /// The execution backend compiles the device code when loading it.
  Deferred,
};

llvm::StringRef getDeviceCompileName(DeviceCompile C);

struct DeviceFormatInfo {
  DeviceFormat Format;
  /// Name as written in descriptors and on the command line ("ptx").
  const char *Name;
  const char *Summary;
  bool IsText;
};

/// The answer of an availability probe.
struct ExecAvailability {
  bool Available = false;
  /// Why it is unavailable: the library that failed and how; or, when
  /// available, what was found.
  std::string Reason;

  static ExecAvailability available(std::string What) {
    return {true, std::move(What)};
  }
  static ExecAvailability unavailable(std::string Why) {
    return {false, std::move(Why)};
  }
};

using ExecProbeFn = ExecAvailability (*)();

struct ExecBackendInfo {
  ExecBackendKind Kind;
  /// Name as written in descriptors and requests ("level-zero").
  const char *Name;
  const char *Summary;
  const DeviceFormat *Consumes;
  unsigned NumConsumes;
  bool NeedsHostCodeGen;
  DeviceCompile Compile;
  ExecProbeFn Probe;

  llvm::ArrayRef<DeviceFormat> consumes() const {
    return {Consumes, NumConsumes};
  }
  bool consumes(DeviceFormat F) const;
};

/// Every execution backend, sorted by name.
llvm::ArrayRef<ExecBackendInfo> getExecBackends();
const ExecBackendInfo &getExecBackendInfo(ExecBackendKind K);
/// Null when \p Name names no execution backend.
const ExecBackendInfo *lookupExecBackend(llvm::StringRef Name);

/// Every device format, sorted by name.
llvm::ArrayRef<DeviceFormatInfo> getDeviceFormats();
const DeviceFormatInfo &getDeviceFormatInfo(DeviceFormat F);
const DeviceFormatInfo *lookupDeviceFormat(llvm::StringRef Name);

/// Probes \p K on first use (thread-safe) and returns the cached answer.
const ExecAvailability &getExecAvailability(ExecBackendKind K);

/// Success when \p K is available; otherwise an error naming the backend,
/// the library that failed and why.
llvm::Error checkExecAvailable(ExecBackendKind K);

} // namespace tile

#endif // TILE_EXEC_EXECUTIONBACKEND_H
