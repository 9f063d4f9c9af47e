//===- ExecutionBackend.h - Shared execution backends -----------*- C++ -*-===//
//
// The execution backends and device formats: the shared ones of libTileExec
// (orc, cuda, hsa, level-zero, metal, webgpu), constant descriptors generated
// from include/tile/Exec/ExecutionBackends.td, and those a target backend
// declares in its own .td, which its generated registration function adds
// to the same tables at run time (registerDeviceFormat, registerExecBackend).
// Shared ones have the enumerators of DeviceFormat and ExecBackendKind; a
// registered one gets the next free value, so code names it by looking it
// up (lookupDeviceFormat, lookupExecBackend).
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
#include <memory>
#include <optional>
#include <string>

// enum class tile::DeviceFormat and enum class tile::ExecBackendKind.
#define GET_TILE_DEVICE_FORMAT_ENUM
#define GET_TILE_EXEC_BACKEND_ENUM
#include "tile/Exec/ExecBackends.inc"

namespace tile {

class Executor;
struct ExecutorOptions;

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
/// Creates the executor of an available execution backend.
using ExecutorFactoryFn =
    llvm::Expected<std::unique_ptr<Executor>> (*)(const ExecutorOptions &);

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
  /// Null while the backend has no executor in this build (Executor::create
  /// then says so).
  ExecutorFactoryFn Create;

  llvm::ArrayRef<DeviceFormat> consumes() const {
    return {Consumes, NumConsumes};
  }
  bool consumes(DeviceFormat F) const;
};

/// Every execution backend: the shared ones sorted by name, then the
/// registered ones in registration order.
llvm::ArrayRef<ExecBackendInfo> getExecBackends();
const ExecBackendInfo &getExecBackendInfo(ExecBackendKind K);
/// Null when \p Name names no execution backend.
const ExecBackendInfo *lookupExecBackend(llvm::StringRef Name);

/// Every device format: the shared ones sorted by name, then the registered
/// ones in registration order.
llvm::ArrayRef<DeviceFormatInfo> getDeviceFormats();
const DeviceFormatInfo &getDeviceFormatInfo(DeviceFormat F);
const DeviceFormatInfo *lookupDeviceFormat(llvm::StringRef Name);

/// Adds a device format that a target backend declares in its own .td
/// (Info.Format is ignored) and returns its value. Registering a name again
/// with the same description returns the value it got the first time; a
/// name taken by another format is an error. The strings must outlive the
/// process (the generated tables pass literals).
llvm::Expected<DeviceFormat> registerDeviceFormat(const DeviceFormatInfo &Info);

/// Adds an execution backend that a target backend declares in its own .td
/// (Info.Kind is ignored; every format it consumes must be registered or
/// shared) and returns its value, as registerDeviceFormat does. Info.Consumes
/// must outlive the process.
llvm::Expected<ExecBackendKind> registerExecBackend(const ExecBackendInfo &Info);

/// Probes \p K on first use (thread-safe) and returns the cached answer.
const ExecAvailability &getExecAvailability(ExecBackendKind K);

/// Success when \p K is available; otherwise an error naming the backend,
/// the library that failed and why.
llvm::Error checkExecAvailable(ExecBackendKind K);

} // namespace tile

#endif // TILE_EXEC_EXECUTIONBACKEND_H
