//===- KernelArtifact.h - What codegen hands to execution -------*- C++ -*-===//
//
// A KernelArtifact is the contract between code generation and the
// execution backends: the device code (binary or source) with its format,
// the host code, the entry points with their parameter descriptions, and
// per kernel the symbol, launch dimensions and shared memory. It is also
// the unit of export: a runtime-only program reads one from disk and
// launches it without linking the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_EXEC_KERNELARTIFACT_H
#define TILE_EXEC_KERNELARTIFACT_H

#include "tile/Exec/ExecutionBackend.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tile {

/// One parameter of an entry point, as the caller must pass it.
struct ArtifactParam {
  enum class Kind : uint8_t { Tensor, Int, Float };
  std::string Name;
  Kind K = Kind::Tensor;
  /// DLPack type code (0 int, 1 uint, 2 float, 4 bfloat, 6 bool...), bits.
  uint8_t TypeCode = 0;
  uint8_t Bits = 0;
  /// Spelling of the Tile dtype ("f16").
  std::string DType;
  /// Per dimension: a decimal literal or the name of a symbolic dimension.
  std::vector<std::string> Shape;
  /// Declared strides in the same notation; empty for row-major.
  std::vector<std::string> Strides;
};

/// How to launch a kernel without host code (source targets such as WGSL
/// and MSL, whose execution backends launch from the artifact): what it
/// binds, its uniform block and its grid, all computed from the entry's
/// arguments. Empty (no grid) for kernels that generated host code
/// launches.
struct KernelLaunch {
  /// A resource bound to the kernel, in binding order.
  struct Binding {
    enum class Kind : uint8_t { Buffer, Uniform };
    Kind K = Kind::Buffer;
    /// For a buffer: the entry's tensor parameter bound there.
    std::string Param;
    /// Where the shader expects it: WGSL @group/@binding; MSL uses Slot as
    /// [[buffer(Slot)]].
    uint32_t Group = 0;
    uint32_t Slot = 0;
    /// Whether the kernel writes the buffer.
    bool Writable = false;
  };
  /// A 4-byte field of the uniform block: a symbolic dimension or a scalar
  /// parameter of the entry, by name.
  struct UniformField {
    std::string Name;
    /// "i32", "u32" or "f32".
    std::string DType;
    uint32_t Offset = 0;
  };
  std::vector<Binding> Bindings;
  std::vector<UniformField> Uniforms;
  /// Size of the uniform block in bytes (a multiple of 16; 0 for none).
  uint32_t UniformBytes = 0;
  /// Blocks per grid dimension, as launch expressions over the entry's
  /// symbolic dimensions and integer scalars (see tile/Exec/LaunchExpr.h).
  std::vector<std::string> Grid;

  bool empty() const { return Grid.empty(); }
};

/// A tensor map argument of a kernel: a descriptor through which the
/// kernel's bulk tensor copies read boxes of one of its tensors (on NVIDIA
/// GPUs a CUtensorMap, 128 bytes passed by value, which the TMA reads).
/// Device code generation describes it; for each call, host code asks the
/// runtime to build it for the tensor passed (tile_rt_tensor_map) and
/// passes the bytes as kernel argument `Arg`.
struct ArtifactTensorMap {
  /// Bytes of the argument.
  static constexpr uint32_t Bytes = 128;
  /// The kernel argument it is passed as, and the kernel argument (a
  /// tensor's data pointer) whose tensor it describes.
  unsigned Arg = 0;
  unsigned Tensor = 0;
  /// The tensor's name in the Tile function, for messages.
  std::string Name;
  /// DLPack element type: code (0 int, 1 uint, 2 float, 4 bfloat) and bits.
  uint8_t TypeCode = 0;
  uint8_t Bits = 0;
  /// Box extents in elements, one per tensor dimension, outermost first.
  std::vector<uint32_t> Box;
  /// Shared-memory swizzle span in bytes: 0 (none), 32, 64 or 128.
  uint32_t Swizzle = 0;
  /// L2 fetch granularity in bytes: 0 (none), 64, 128 or 256.
  uint32_t L2Promotion = 0;
  /// Elements outside the tensor read as NaN rather than zero.
  bool NaNFill = false;
  /// The kernel itself tests whether the hardware can describe the tensor
  /// (data 16-byte aligned, every stride but the innermost a multiple of
  /// 16 bytes, the innermost 1) and does not use the map otherwise; for
  /// such a tensor the runtime then passes zeros instead of failing.
  bool Optional = false;
};

/// One kernel an entry point launches.
struct ArtifactKernel {
  std::string Symbol;
  unsigned GridRank = 1;
  int64_t Threads = 1;
  int64_t SharedBytes = 0;
  unsigned NumArgs = 0;
  /// Filled by source-based device codegen (WGSL, MSL); see KernelLaunch.
  KernelLaunch Launch;
  /// Bytes of each argument's value, in order (pointers and scalars as the
  /// device kernel takes them): what an execution backend that packs a
  /// kernel-argument buffer (HSA) or sets arguments one by one (Level
  /// Zero) copies from the pointers host code passes to tile_rt_launch.
  /// Serialized as an optional tagged section after the launch descriptions.
  std::vector<uint32_t> ArgBytes;
  /// The kernel's tensor map arguments, which follow its other arguments
  /// (an optional tagged section after the argument sizes).
  std::vector<ArtifactTensorMap> TensorMaps;
  /// For a kernel's specialization: the index, among its entry's kernels,
  /// of the general kernel it stands in for. Host code launches the
  /// specialization where the conditions it was specialized for hold (its
  /// arguments' alignment, say), and the general kernel elsewhere.
  std::optional<unsigned> SpecializationOf;
  /// Whether the kernel's code is in KernelArtifact::DeferredDeviceSource,
  /// which an execution backend compiles at the kernel's first launch,
  /// rather than in DeviceCode. (These two are an optional tagged section
  /// after the tensor maps.)
  bool Deferred = false;
  /// Registers per thread the device toolchain allocated, where it reports
  /// them (ptxas -v; the AMDGPU code object's .vgpr_count), and where the
  /// count comes from, with what else the report says ("code object
  /// metadata: .vgpr_count 196, .sgpr_count 69, ..."). Filled by device
  /// codegen; like Timings they describe one compilation and are not
  /// written to files.
  std::optional<int64_t> Registers;
  std::string RegisterReport;
};

/// A host entry point: `int32_t <Symbol>(const TileArg *, int32_t, void *)`.
struct ArtifactEntry {
  /// The Tile function's name.
  std::string Name;
  std::string Symbol;
  std::vector<ArtifactParam> Params;
  std::vector<ArtifactKernel> Kernels;

  /// The index in Kernels of the function's \p N-th kernel statement (its
  /// general version, which its specialization, if any, follows); nullopt
  /// when there are fewer.
  std::optional<unsigned> getKernelIndex(unsigned N) const;
  /// The index of the specialization of kernel \p Index, if it has one.
  std::optional<unsigned> getSpecialization(unsigned Index) const;
};

class KernelArtifact {
public:
  /// Canonical target string and the execution backend chosen for it.
  std::string Target;
  std::string ExecBackend;
  std::vector<ArtifactEntry> Entries;

  /// Device code in DeviceFmt: binary (cubin, object) or text (PTX, WGSL).
  DeviceFormat DeviceFmt = DeviceFormat::Object;
  std::string DeviceCode;
  /// Readable device code for -emit and debugging (LLVM IR, PTX, asm).
  std::string DeviceSource;
  /// Device code of the kernels marked Deferred, in a form the execution
  /// backend compiles itself (PTX, which the CUDA driver JIT-compiles at
  /// the first launch of one of them): kernels that run only where a
  /// specialization's conditions fail, whose compile is not paid up front.
  std::string DeferredDeviceSource;

  /// Host code: a relocatable object for the host CPU, and its LLVM IR.
  std::string HostObject;
  std::string HostIR;
  /// The host code linked into a shared object for this host (ELF), with
  /// the device code too where getHostLinkedObjects() says so; empty when
  /// not linked. Executors load it with the system's dynamic loader, in
  /// place of linking the relocatable objects in this process through ORC
  /// (0.3-0.4 ms for a GEMM on the Xeon of docs/Performance.md, 0.1
  /// through dlopen); the kernel cache links it for the entries it stores.
  std::string HostLibrary;

  /// The device architecture DeviceCode was compiled for, where it is
  /// for one (`sm_90a` for a cubin); empty otherwise. An executor whose
  /// device differs decides what to do (the cuda executor hands the PTX
  /// to the driver on another major version).
  std::string DeviceArch;

  /// One timed phase of device codegen (`llvm-opt`, `ptxas`, ...).
  struct CodeGenTiming {
    std::string Phase;
    double Seconds = 0;
  };
  /// The phases the backend timed, in the order they ran; compileModule
  /// reports them as parts of device codegen (--print-compile-time). They
  /// describe one compilation, so they are not written to files.
  std::vector<CodeGenTiming> Timings;

  /// Toolchain reports (register use, spills, ...), by name.
  /// kSharedLibrariesNote, when present, lists (one a line) the shared
  /// libraries whose functions the device code calls, such as a vector
  /// math library; an executor that links the device code loads them.
  std::map<std::string, std::string> Notes;
  static constexpr const char *kSharedLibrariesNote = "shared-libraries";
  /// kCPUFeaturesNote, on an artifact whose DeviceCode is an object for a
  /// CPU, lists (one a line, LLVM's names) the subtarget features that
  /// code was compiled with, and DeviceArch names the CPU. An executor that
  /// runs the object in this process refuses it where the host lacks one
  /// of them (getMissingCPUFeatures) instead of dying of an illegal
  /// instruction.
  static constexpr const char *kCPUFeaturesNote = "cpu-features";

  /// The rest of device code generation, when a backend's DeviceCodeGen
  /// returns with it still to do (the CPU backend: its LLVM optimization
  /// and code generation, once the kernels' entries are in Entries). It
  /// writes only the device fields (DeviceCode, DeviceSource, Notes,
  /// Timings), so compileModule runs it while another thread generates
  /// the host code. It needs what DeviceCodeGen was given; whoever calls
  /// DeviceCodeGen calls finishDeviceCode before they go. Not written to
  /// files.
  std::function<llvm::Error(KernelArtifact &)> FinishDeviceCode;
  /// Runs and clears FinishDeviceCode, if set.
  llvm::Error finishDeviceCode();

  const ArtifactEntry *findEntry(llvm::StringRef Name) const;
  /// The error for an entry point \p Name the artifact lacks, naming the
  /// ones it has.
  llvm::Error missingEntry(llvm::StringRef Name) const;
  /// The libraries of kSharedLibrariesNote.
  std::vector<std::string> getSharedLibraries() const;
  /// The features of kCPUFeaturesNote that \p Host, a CPU's features as
  /// llvm::sys::getHostCPUFeatures reports them, says it lacks, in the
  /// note's order. Features \p Host does not name (LLVM's tuning flags,
  /// such as `fast-gather`) are not held against it; an artifact without
  /// the note lacks nothing.
  std::vector<std::string>
  getMissingCPUFeatures(const llvm::StringMap<bool> &Host) const;
  /// The relocatable objects that run in this process, in link order: the
  /// host object, then the device code where it is an object for this CPU
  /// (DeviceFormat::Object). Empty without host code.
  std::vector<const std::string *> getHostLinkedObjects() const;

  /// Serialises to a self-contained file / reads one back. Reading checks
  /// the magic, version and every length, and reports a corrupt file.
  /// Launch descriptions follow as an optional tagged section, written
  /// only when some kernel has one, so other artifacts keep their bytes.
  llvm::Error writeToFile(llvm::StringRef Path) const;
  static llvm::Expected<KernelArtifact> readFromFile(llvm::StringRef Path);
  std::string serialize() const;
  static llvm::Expected<KernelArtifact> deserialize(llvm::StringRef Bytes);
};

} // namespace tile

#endif // TILE_EXEC_KERNELARTIFACT_H
