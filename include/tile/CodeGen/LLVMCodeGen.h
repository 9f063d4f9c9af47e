//===- LLVMCodeGen.h - LLVM-based host and device codegen -------*- C++ -*-===//
//
// The shared LLVM-based code generation of libTileCodeGen. Device codegen
// turns each kernel of a lowered Tile function (loops, ifs, loads and
// stores, element atomics) into an LLVM function; what differs between
// targets (how a kernel receives its arguments and block indices, where
// on-chip buffers live, barriers, math functions) is asked of an
// LLVMDeviceTarget that each backend implements in its own folder. Host
// codegen emits the entry point with the C ABI of tile/Exec/RuntimeABI.h:
// argument checks, binding of symbolic dimensions, workspaces and launches.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CODEGEN_LLVMCODEGEN_H
#define TILE_CODEGEN_LLVMCODEGEN_H

#include "tile/Exec/KernelArtifact.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/OptimizationLevel.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class TargetLibraryInfoImpl;
class TargetMachine;
}

namespace tile {

/// A value a kernel uses but does not define: its arguments, in order.
struct KernelCapture {
  const Value *V;
  bool isBuffer() const { return V->isBuffer(); }
};

/// The captures of \p K in \p F: buffer parameters and workspaces (as data
/// pointers), symbolic dimensions (i32), scalar parameters and host lets,
/// in a deterministic order.
std::vector<KernelCapture> getKernelCaptures(const Function &F,
                                             const KernelStmt &K);

/// The values \p K defines itself (allocations, lets, loop variables, block
/// and thread indices): whatever else its body uses is a capture.
llvm::DenseSet<const Value *> getKernelDefinedValues(const KernelStmt &K);

/// The LLVM type holding a value of \p T in registers, and in memory.
llvm::Type *getLLVMType(llvm::LLVMContext &C, DType T);
llvm::Type *getLLVMMemType(llvm::LLVMContext &C, DType T);

/// Converts \p V (a register value of \p From) to \p To with the
/// language's rules (saturating float to integer, bool as != 0), for target
/// hooks that move elements between types.
llvm::Value *emitConvert(llvm::IRBuilder<> &B, llvm::Value *V, DType From,
                         DType To);

/// Per-kernel state the target hooks see.
struct KernelEmission {
  const KernelStmt *Kernel;
  std::vector<KernelCapture> Captures;
  llvm::Function *Fn = nullptr;
  /// Bytes of on-chip (shared) memory the kernel allocated through
  /// allocateOnChip, for the launch.
  int64_t SharedBytes = 0;
  /// While allocateOnChip runs for a shared buffer: the byte offset
  /// tile-plan-shared-memory gave it (its allocation's `offset`), if any.
  std::optional<int64_t> PlannedSharedOffset;
  /// Target-private state (e.g. the kernel's dynamic shared memory base).
  llvm::Value *SharedBase = nullptr;
  /// Tensor map arguments the target's createKernel added after the
  /// captures (descriptors its bulk tensor copies read), for the artifact:
  /// host code builds them through the runtime for each launch.
  std::vector<ArtifactTensorMap> TensorMaps;
  /// While emitTargetOp runs: emits an expression of the op at the current
  /// insertion point (for ops whose region indices are coordinates rather
  /// than an address).
  std::function<llvm::Value *(const Expr &)> EmitExpr;
  /// Whether this is the kernel's specialization (see
  /// LLVMDeviceTarget::hasSpecialization) rather than its general version.
  bool Specialized = false;
};

/// What a device target decides for the shared emitter.
class LLVMDeviceTarget {
public:
  virtual ~LLVMDeviceTarget();
  /// Creates the kernel function \p Name taking the captures, followed by
  /// the tensor maps it lists in K.TensorMaps, if any.
  virtual llvm::Function *createKernel(llvm::Module &M, llvm::StringRef Name,
                                       KernelEmission &K) = 0;
  /// The value of capture \p I inside the kernel (at the entry block); the
  /// default is the kernel's parameter \p I.
  virtual llvm::Value *getCapture(llvm::IRBuilder<> &B, KernelEmission &K,
                                  unsigned I, llvm::Type *Ty);
  /// The block index along grid dimension \p Dim (i32).
  virtual llvm::Value *getBlockIndex(llvm::IRBuilder<> &B, KernelEmission &K,
                                     unsigned Dim) = 0;
  /// The thread index within the block (i32), for kernels that bind one;
  /// null when the target runs a block's threads as one task.
  virtual llvm::Value *getThreadIndex(llvm::IRBuilder<> &B, KernelEmission &K) {
    return nullptr;
  }
  /// A block-wide barrier; an error when the target has none.
  virtual llvm::Error emitBarrier(llvm::IRBuilder<> &B, KernelEmission &K);
  /// Storage for an on-chip buffer (shared, fragment, local, var) of
  /// \p Bytes bytes; returns its address.
  virtual llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                                      const BufferValue &Buf,
                                      llvm::Type *ElemTy, uint64_t NumElems) = 0;
  /// The address space of global memory pointers.
  virtual unsigned getGlobalAddressSpace() const { return 0; }
  /// A call to the math function \p Name ("exp", "tanh", ...) on \p X.
  virtual llvm::Value *emitMath(llvm::IRBuilder<> &B, llvm::StringRef Name,
                                llvm::Value *X);
  /// Emits \p Op, an op of the target's own dialect that its pipeline left
  /// for code generation (one MFMA instruction, say). \p Operands has one
  /// value per operand of the op: the address of a region's first element,
  /// or an expression's value. The default reports that the op reached
  /// code generation unlowered.
  virtual llvm::Error emitTargetOp(llvm::IRBuilder<> &B, KernelEmission &K,
                                   const OpStmt &Op,
                                   llvm::ArrayRef<llvm::Value *> Operands);
  /// Whether kernel \p K is also emitted specialized (KernelEmission::
  /// Specialized): a second function, which host code launches in place
  /// of the kernel as written (then `<name>_fallback`) where the target's
  /// HostCodeGenOptions::SpecializationCondition holds (the kernel's
  /// tests of its arguments the target can make on the host).
  virtual bool hasSpecialization(const KernelStmt &K) { return false; }
  /// Whether parallel loops become vectorizable serial loops (CPU) rather
  /// than being distributed over threads by earlier passes.
  virtual bool annotateParallelLoops() const { return true; }
  /// An extra property for the `!llvm.loop` of a loop that the statement
  /// at \p Loc made (the innermost statement around the loop that has a
  /// location), or null (the default): a target can map LLVM's
  /// diagnostics about the loop back to that statement through it.
  virtual llvm::Metadata *getLoopProperty(llvm::LLVMContext &C, llvm::SMLoc Loc) {
    return nullptr;
  }

protected:
  /// Parameter types for kernels that take \p K's captures directly:
  /// buffers as pointers in the global address space, scalars as their
  /// register types.
  std::vector<llvm::Type *> getCaptureParamTypes(llvm::LLVMContext &C,
                                                 const KernelEmission &K) const;
  /// A nounwind void kernel \p Name of \p Params with calling convention
  /// \p CC in \p M, its first parameters named after the captures of \p K.
  static llvm::Function *createKernelFunction(llvm::Module &M,
                                              llvm::StringRef Name,
                                              const KernelEmission &K,
                                              llvm::ArrayRef<llvm::Type *> Params,
                                              llvm::CallingConv::ID CC);
};

/// The byte offset of a new shared buffer of \p Bytes in the kernel's
/// shared memory, which grows to hold it: its planned offset, or else the
/// next 16-byte aligned slice after everything allocated so far.
int64_t placeSharedBuffer(KernelEmission &K, uint64_t Bytes);

/// A per-thread array of \p NumElems \p ElemTy for \p Buf (an alloca at the
/// kernel's entry, 16-byte aligned), which LLVM promotes to registers where
/// every index is a constant.
llvm::Value *createPerThreadArray(llvm::IRBuilder<> &B, KernelEmission &K,
                                  const BufferValue &Buf, llvm::Type *ElemTy,
                                  uint64_t NumElems);

/// Shared memory for targets that declare it statically (AMDGPU LDS,
/// OpenCL local memory): each kernel's shared buffers are slices of one
/// array (placed by placeSharedBuffer) in \p AddrSpace, whose size is known only once the
/// kernel is emitted. allocate() during emission; finish() afterwards gives
/// every kernel's array its size.
class StaticSharedArrays {
public:
  struct KernelArray {
    const KernelStmt *Kernel;
    llvm::Function *Fn;
    llvm::GlobalVariable *Placeholder = nullptr;
  };

  StaticSharedArrays(unsigned AddrSpace, llvm::StringRef Suffix)
      : AddrSpace(AddrSpace), Suffix(Suffix.str()) {}
  /// Call from createKernel.
  void addKernel(const KernelStmt *Kernel, llvm::Function *Fn) {
    Kernels.push_back({Kernel, Fn});
  }
  /// The address of a new slice of \p Bytes for \p Buf in the kernel being
  /// emitted.
  llvm::Value *allocate(llvm::IRBuilder<> &B, KernelEmission &K,
                        const BufferValue &Buf, uint64_t Bytes);
  /// LLVMDeviceTarget::allocateOnChip for such targets: a slice of the
  /// array for a shared buffer, a per-thread array (createPerThreadArray)
  /// for any other.
  llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                              const BufferValue &Buf, llvm::Type *ElemTy,
                              uint64_t NumElems);
  /// Replaces each placeholder by an array of the kernel's final size
  /// (`<kernel>.<suffix>`).
  void finish(const KernelArtifact &A);
  llvm::ArrayRef<KernelArray> getKernels() const { return Kernels; }

private:
  unsigned AddrSpace;
  std::string Suffix;
  std::vector<KernelArray> Kernels;
};

/// The shared-memory bytes the artifact records for kernel \p Symbol (0
/// when it has none).
int64_t getKernelSharedBytes(const KernelArtifact &A, llvm::StringRef Symbol);

/// Emits every kernel of \p M into \p LM through \p T. Kernels are named
/// `tile_<function>_kernel<N>`; their descriptions are appended to the
/// entries of \p Artifact (which emitHostEntries fills in). A kernel with
/// a specialization (T.hasSpecialization) is emitted twice: as written,
/// named `<name>_fallback`, then specialized, keeping the name (it is the
/// version that usually runs) and described right after it
/// (ArtifactKernel::SpecializationOf). With \p DeferredLM (a module of
/// its own LLVM context, or of LM's), the general version of such a
/// kernel goes there instead of into \p LM (ArtifactKernel::Deferred).
llvm::Error emitDeviceKernels(const Module &M, LLVMDeviceTarget &T,
                              llvm::Module &LM, KernelArtifact &Artifact,
                              llvm::Module *DeferredLM = nullptr);

struct HostCodeGenOptions {
  /// DLPack device type the tensors must be on (1 = CPU, 2 = CUDA, ...).
  int32_t DeviceType = 1;
  /// Byte alignment required of tensor data (at least the element size).
  int64_t DataAlignment = 0;
  /// Keep the host code's LLVM IR as text in Artifact.HostIR.
  bool KeepIR = true;
  /// For a kernel the artifact has a specialization of: emits at \p B the
  /// condition (i1) under which host code launches the specialization
  /// rather than the kernel, evaluating the kernel's expressions through
  /// \p EmitExpr and a tensor's data pointer through \p Data. Set by the
  /// target whose device codegen specializes kernels.
  std::function<llvm::Value *(
      llvm::IRBuilder<> &B, const KernelStmt &K,
      llvm::function_ref<llvm::Value *(const Expr &)> EmitExpr,
      llvm::function_ref<llvm::Value *(const BufferValue &)> Data)>
      SpecializationCondition;
  /// Whether kernel \p K is persistent: its grid (of one dimension) counts
  /// its work tiles, over which its blocks loop themselves, reading how
  /// many were launched. Host code launches min(grid, the blocks the device
  /// runs at once: tile_rt_resident_blocks) blocks. Set by the target whose
  /// lowerings make kernels persistent.
  std::function<bool(const KernelStmt &K)> IsPersistent;
};

/// Emits `int32_t tile_<f>(const TileArg *, int32_t, void *)` for each
/// function of \p M into \p LM and describes its parameters in \p Artifact.
llvm::Error emitHostEntries(const Module &M, llvm::Module &LM,
                            const HostCodeGenOptions &Opts,
                            KernelArtifact &Artifact);

/// Host code for a whole module: emitHostEntries into a fresh LLVM module,
/// compiled for compile time (O0, fast instruction selection: it runs once
/// per call) for the host CPU \p HostCPU ("native": this machine) into
/// Artifact.HostObject with its IR in Artifact.HostIR. Every backend's
/// host codegen entry point calls this with its own options.
llvm::Error generateHostObject(const Module &M, const HostCodeGenOptions &Opts,
                               llvm::StringRef HostCPU, KernelArtifact &Artifact);

/// generateHostObject for a GPU backend's host code, tensors on DLPack
/// device type \p DeviceType, after initializing LLVM's native target
/// (which a GPU backend does not otherwise need).
llvm::Error generateGPUHostObject(const Module &M, int32_t DeviceType,
                                  llvm::StringRef HostCPU,
                                  KernelArtifact &Artifact, bool KeepIR = true);

/// A TargetMachine for \p Triple and \p CPU ("native" for this machine),
/// generating code at \p Level (default O3).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(llvm::StringRef Triple, llvm::StringRef CPU,
                    llvm::StringRef Features = "",
                    llvm::CodeGenOptLevel Level = llvm::CodeGenOptLevel::Aggressive);

/// Runs LLVM's pipeline of \p Level (default O3) on \p M for \p TM.
/// \p Libraries, when given, describes the library functions available to
/// the optimizer (a backend's vector math library: the vectorizers call its
/// vector variants of the scalar functions); by default, those LLVM knows
/// for the triple.
void optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                    const llvm::TargetLibraryInfoImpl *Libraries = nullptr,
                    llvm::OptimizationLevel Level = llvm::OptimizationLevel::O3);

/// The middle-end pipelines a backend can run on its kernels: LLVM's O3,
/// or `kernel`, O3's function passes run once over each kernel (no CGSCC
/// inliner walk) without dead store elimination and the passes and
/// repetitions that changed none of Tile's kernels' code
/// (kKernelPipeline in lib/CodeGen/Compile.cpp), for modules of kernels
/// that call no function of their own.
enum class LLVMPipeline { O3, Kernel };

/// Runs \p Pipeline on \p M for \p TM; \p Libraries as above.
void optimizeModule(llvm::Module &M, llvm::TargetMachine &TM,
                    const llvm::TargetLibraryInfoImpl *Libraries,
                    LLVMPipeline Pipeline);

/// Times the phases of a backend's device codegen into its artifact's
/// Timings (\p Timings), which compileModule prints as parts of the stage
/// (--print-compile-time).
class CodeGenPhaseTimer {
public:
  explicit CodeGenPhaseTimer(std::vector<KernelArtifact::CodeGenTiming> &Timings)
      : Timings(Timings), Start(std::chrono::steady_clock::now()) {}
  /// Records the time since the last call (or construction) as \p Phase.
  void done(llvm::StringRef Phase);

private:
  std::vector<KernelArtifact::CodeGenTiming> &Timings;
  std::chrono::steady_clock::time_point Start;
};

enum class EmitKind { Assembly, Object };
/// Compiles \p M to assembly or an object file.
llvm::Expected<std::string> emitMachineCode(llvm::Module &M,
                                            llvm::TargetMachine &TM,
                                            EmitKind Kind);

/// Prints \p M as LLVM IR text.
std::string printLLVMModule(const llvm::Module &M);

/// An external program of device codegen (an assembler, a linker): the
/// path in $\p EnvVar, else \p Name on the PATH, else \p Fallback when it
/// is executable. `$EnvVar=none` asks for no program: nothing is found.
std::optional<std::string> findExternalTool(const char *EnvVar,
                                            llvm::StringRef Name,
                                            llvm::StringRef Fallback);

/// What an external tool run by runExternalTool left.
struct ExternalToolRun {
  /// The tool's exit status, and why it could not be started (if so).
  int ExitCode = 0;
  std::string ErrMsg;
  /// What it printed on stdout and stderr.
  std::string Log;
  /// Its output file, when it exited with 0 and the file can be read.
  std::optional<std::string> Output;

  /// "<Tool> failed (<exit N or why>):\n<log>" ("... and printed
  /// nothing" without a log), for a run that exited non-zero.
  std::string getFailureMessage(const llvm::Twine &Tool) const;
};

/// Runs `Program Flags... <in> -o <out>` on \p Input written to the
/// temporary file <in> (extension \p InExt), with <out> a temporary file
/// with extension \p OutExt, and removes both afterwards; with an empty
/// \p OutExt (a checker, such as a validator) `Program Flags... <in>`.
/// An error only when the temporary input file cannot be created.
llvm::Expected<ExternalToolRun>
runExternalTool(llvm::StringRef Program, llvm::ArrayRef<llvm::StringRef> Flags,
                llvm::StringRef Input, llvm::StringRef InExt,
                llvm::StringRef OutExt);

/// One input file of an external tool: its contents and extension.
struct ExternalToolInput {
  llvm::StringRef Data;
  llvm::StringRef Ext;
};
/// runExternalTool with several inputs, passed in order after \p Flags.
llvm::Expected<ExternalToolRun>
runExternalTool(llvm::StringRef Program, llvm::ArrayRef<llvm::StringRef> Flags,
                llvm::ArrayRef<ExternalToolInput> Inputs,
                llvm::StringRef OutExt);

/// ld.lld of LLVM 22 (HSA code objects need it; /usr/bin/ld.lld may be an
/// older lld): $TILE_LD_LLD, ld.lld-22 on the PATH, LLVM 22's own; nothing
/// when none is there or TILE_LD_LLD=none.
std::optional<std::string> findLinker();

/// Links \p A's getHostLinkedObjects() into a shared object for this host
/// with \p Linker (findLinker()) and keeps it in A.HostLibrary, recording
/// the linker among A's external programs. The compiler-rt helpers the
/// objects call are bound to libTileExec's definitions
/// (getRuntimeLibcallAliases) inside the library; the runtime ABI
/// functions resolve when it is loaded. An error says why it could not be
/// linked; \p A is then unchanged.
llvm::Error linkHostLibrary(KernelArtifact &A, llvm::StringRef Linker);

} // namespace tile

#endif // TILE_CODEGEN_LLVMCODEGEN_H
