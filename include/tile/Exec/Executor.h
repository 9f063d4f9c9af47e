//===- Executor.h - Build, load and launch artifacts ------------*- C++ -*-===//
//
// An Executor is one execution backend made concrete: it builds and loads a
// KernelArtifact (Build -> Load) and runs its entry points (Launch), and
// owns the device memory tile-jit and C++ users pass as tensors. Generated
// host code reaches the executor only through the C ABI of RuntimeABI.h.
//
// libTileExec depends on LLVM Support (and OrcJIT for the orc backend)
// only: a program that links no compiler library can read an exported
// artifact and launch it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_EXECUTOR_H
#define TILE_EXEC_EXECUTOR_H

#include "tile/Exec/ExecutionBackend.h"
#include "tile/Exec/KernelArtifact.h"
#include "tile/Exec/RuntimeABI.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>

namespace tile {

struct ExecutorOptions {
  /// Worker threads for backends that run blocks on the host (0: one per
  /// hardware thread).
  unsigned NumThreads = 0;
};

/// One entry point of a loaded artifact with what a call would look up by
/// name resolved once (its host function, its kernels), for callers that
/// launch it many times: a call runs only the entry point's own argument
/// checks and its launches. The LoadedArtifact must outlive it.
class PreparedEntry {
public:
  virtual ~PreparedEntry();
  /// Calls the entry point, as LoadedArtifact::call does.
  virtual llvm::Error call(llvm::ArrayRef<TileArg> Args) = 0;
};

/// An artifact ready to run.
class LoadedArtifact {
public:
  virtual ~LoadedArtifact();
  /// Calls entry point \p Entry. On failure the error carries the message
  /// the host code or the runtime recorded (a bad argument, a driver
  /// error), and nothing further ran.
  virtual llvm::Error call(llvm::StringRef Entry,
                           llvm::ArrayRef<TileArg> Args) = 0;
  /// Entry point \p Entry resolved for repeated calls; an error naming
  /// the entry points there are when the artifact has none of that name.
  /// The default forwards each call to call(Entry, Args).
  virtual llvm::Expected<std::unique_ptr<PreparedEntry>>
  prepare(llvm::StringRef Entry);
  const KernelArtifact &getArtifact() const { return Artifact; }

  /// How the load ran the artifact's host code.
  enum class HostCodeKind {
    None,    ///< the backend runs no host code of the artifact
    Library, ///< its host library, loaded with dlopen
    Objects, ///< its host objects, linked in this process through ORC
  };
  HostCodeKind getHostCodeKind() const { return HostKind; }
  /// What the load could not do as the artifact asked, and what it did
  /// instead (a host library the dynamic loader refused, whose objects
  /// were linked through ORC), one message each; the caller reports them
  /// as warnings.
  llvm::ArrayRef<std::string> getWarnings() const { return Warnings; }

protected:
  explicit LoadedArtifact(const KernelArtifact &A) : Artifact(A) {}
  explicit LoadedArtifact(KernelArtifact &&A) : Artifact(std::move(A)) {}
  /// Records how the host code was loaded and, when the artifact's host
  /// library was refused (\p LibraryFailure, the loader's error), a
  /// warning that its objects were linked instead.
  void setHostCode(HostCodeKind K, llvm::StringRef LibraryFailure);
  KernelArtifact Artifact;
  HostCodeKind HostKind = HostCodeKind::None;
  std::vector<std::string> Warnings;
};

/// "library (dlopen)", "objects (ORC)" or "none".
llvm::StringRef getHostCodeKindName(LoadedArtifact::HostCodeKind K);

/// Times a region of device work with the device's own clock (CUDA events,
/// say), so that host overheads between launches stay out of the figure.
class DeviceTimer {
public:
  virtual ~DeviceTimer();
  /// Marks the start of the region in the device's work queue.
  virtual llvm::Error start() = 0;
  /// Marks its end, waits for it and returns the seconds between the marks.
  virtual llvm::Expected<double> stop() = 0;
};

class Executor {
public:
  /// Creates the executor of \p K; fails (with the probe's reason) when the
  /// backend is not available here or has no executor in this build.
  static llvm::Expected<std::unique_ptr<Executor>>
  create(ExecBackendKind K, const ExecutorOptions &Opts = {});

  virtual ~Executor();
  virtual ExecBackendKind getKind() const = 0;
  /// The DLPack device type of this executor's memory.
  virtual int32_t getDLDeviceType() const = 0;
  /// The device kernels run on, as its driver names it ("NVIDIA H200",
  /// the host CPU's name); empty where unknown.
  virtual std::string getDeviceName() const { return ""; }

  /// Build -> Load.
  virtual llvm::Expected<std::unique_ptr<LoadedArtifact>>
  load(const KernelArtifact &A) = 0;
  /// load(A) for a caller that needs \p A no more: an executor whose
  /// LoadedArtifact keeps the artifact takes it instead of a copy (the
  /// code it holds is tens of KB of fresh pages to fault in, which on a
  /// kernel cache hit cost more than the rest of the load). The default
  /// copies.
  virtual llvm::Expected<std::unique_ptr<LoadedArtifact>>
  loadOwned(KernelArtifact &&A) {
    return load(A);
  }

  virtual llvm::Expected<void *> allocate(size_t Bytes) = 0;
  virtual void deallocate(void *P) = 0;
  /// Copies \p Bytes; a copy of zero bytes does nothing, and its pointers
  /// may be null (the data of an empty tensor).
  virtual llvm::Error copyToDevice(void *Dst, const void *Src, size_t Bytes) = 0;
  virtual llvm::Error copyFromDevice(void *Dst, const void *Src,
                                     size_t Bytes) = 0;
  /// Waits for all launched work.
  virtual llvm::Error synchronize() = 0;
  /// A timer on the device's clock, or null where the work runs on the host
  /// (then a host clock around call() and synchronize() is the measure).
  virtual llvm::Expected<std::unique_ptr<DeviceTimer>> createTimer();
};

/// A device allocation that its executor frees when it goes out of scope.
/// The executor must outlive it.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// Allocates \p Bytes on \p Ex.
  static llvm::Expected<DeviceBuffer> allocate(Executor &Ex, size_t Bytes) {
    llvm::Expected<void *> P = Ex.allocate(Bytes);
    if (!P)
      return P.takeError();
    return DeviceBuffer(Ex, *P);
  }
  DeviceBuffer(DeviceBuffer &&O) : Ex(O.Ex), Ptr(O.Ptr) { O.Ptr = nullptr; }
  DeviceBuffer &operator=(DeviceBuffer &&O) {
    if (this != &O) {
      reset();
      Ex = O.Ex;
      Ptr = O.Ptr;
      O.Ptr = nullptr;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { reset(); }

  void *get() const { return Ptr; }
  /// Frees the allocation now.
  void reset() {
    if (Ptr)
      Ex->deallocate(Ptr);
    Ptr = nullptr;
  }

private:
  DeviceBuffer(Executor &E, void *P) : Ex(&E), Ptr(P) {}
  Executor *Ex = nullptr;
  void *Ptr = nullptr;
};

/// What the C ABI functions see through their `ctx` argument.
struct RuntimeCall {
  explicit RuntimeCall(ExecBackendKind Backend) : Backend(Backend) {}
  virtual ~RuntimeCall();
  /// Launches kernel \p Index of the entry being called.
  virtual int32_t launch(int32_t Index, void **Args, int32_t GX, int32_t GY,
                         int32_t GZ, int32_t Threads, int64_t SharedBytes) = 0;
  virtual void *allocWorkspace(int64_t Bytes) = 0;
  virtual void freeWorkspace(void *P) = 0;
  /// The bytes of tensor map \p Map of kernel \p Kernel for the tensor at
  /// \p Data (tile_rt_tensor_map), owned by this call; null after
  /// recording an error. The default records that this execution backend
  /// builds no tensor maps.
  virtual const void *tensorMap(int32_t Kernel, int32_t Map, const void *Data,
                                llvm::ArrayRef<int64_t> Dims,
                                llvm::ArrayRef<int64_t> Strides);
  /// How many blocks of kernel \p Kernel with \p Threads threads and
  /// \p SharedBytes of dynamic shared memory the device runs at once
  /// (tile_rt_resident_blocks); 0 after recording an error. The default
  /// records that this execution backend cannot say.
  virtual int32_t residentBlocks(int32_t Kernel, int32_t Threads,
                                 int64_t SharedBytes);
  /// Records a failure; returns the code host code returns.
  int32_t fail(std::string Message);
  std::string Error;
  /// Whether the failure was the entry point's own argument checks
  /// (tile_rt_fail from generated host code) rather than the runtime.
  bool ArgumentRefused = false;
  /// The execution backend making the call, for messages.
  ExecBackendKind Backend;
};

/// A call the entry point refused before anything ran: an argument does not
/// match its parameter (count, kind, device, rank, dtype, shape, strides,
/// alignment). The message names the argument.
class ArgumentError : public llvm::ErrorInfo<ArgumentError> {
public:
  static char ID;
  explicit ArgumentError(std::string Message) : Message(std::move(Message)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  std::string Message;
};

/// Expands the placeholders of a tile_rt_fail message: {expected},
/// {actual}, and {dtype:expected}/{dtype:actual} (a packed DLPack dtype
/// shown by name).
std::string formatRuntimeMessage(llvm::StringRef Msg, int64_t Expected,
                                 int64_t Actual);

/// The name of a packed DLPack dtype (code | bits << 8 | lanes << 16), e.g.
/// "f32", "bf16", "i8x4", or "code 9 bits 8" for unknown codes.
std::string getDLPackDTypeName(uint32_t Packed);

/// A function that generated code calls by the name LLVM gives it
/// (compiler-rt's half and bfloat conversions, which a process need not
/// have) and that libTileExec exports, with the same signature, under a
/// name of its own.
struct RuntimeLibcallAlias {
  const char *Callee;
  const char *Definition;
};
/// Every such function: what a linker of host code maps the callees to.
std::vector<RuntimeLibcallAlias> getRuntimeLibcallAliases();

} // namespace tile

#endif // TILE_EXEC_EXECUTOR_H
