//===- CUDACodeGen.cpp - PTX and cubin for NVIDIA GPUs --------------------===//
//
// Device code: one ptx_kernel function per kernel, taking its captures as
// parameters (global buffers in address space 1), with the block and
// thread indices read from special registers, shared memory carved out of
// the kernel's dynamic shared memory, bar.sync for barriers, and the
// transcendental functions on the SFU's approximate instructions. Kernels
// whose bulk tensor copies read through tensor maps take those as 128-byte
// by-value parameters after the captures (NVPTXTMAOps.cpp). NVPTX
// emits PTX (the source-only output); in compiled mode ptxas -O3 turns it
// into a cubin when ptxas is found, and its resource report is kept in the
// artifact. Host code is the shared packed-API entry, for tensors in CUDA
// device memory.
//
//===----------------------------------------------------------------------===//

#include "LaunchFlags.h"
#include "NVPTXWarpOps.h"
#include "NVPTXTensorCoreOps.h"
#include "NVPTXHopperOps.h"
#include "NVPTXTMAOps.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/CodeGen/LLVMDiagnostics.h"
#include "tile/Support/FileIdentity.h"
#include "tile/IR/IR.h"
#include "tile/IR/Remarks.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include <cstdlib>
#include <mutex>
#include <thread>

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace tile {
namespace {

class NVPTXDeviceTarget : public LLVMDeviceTarget {
public:
  llvm::Function *createKernel(llvm::Module &M, llvm::StringRef Name,
                               KernelEmission &K) override {
    llvm::LLVMContext &C = M.getContext();
    std::vector<llvm::Type *> Params = getCaptureParamTypes(C, K);
    collectTensorMaps(K);
    for (size_t I = 0; I != K.TensorMaps.size(); ++I)
      Params.push_back(getTensorMapArgType(C));
    llvm::Function *F =
        createKernelFunction(M, Name, K, Params, llvm::CallingConv::PTX_Kernel);
    int64_t Threads = K.Kernel->getThreads()->getConstInt().value_or(1);
    F->addFnAttr("nvvm.maxntid", std::to_string(Threads));
    // ptxas honours setmaxnreg only with the register count at entry fixed
    // by the launch bounds (else info C7508: 'setmaxnreg' ignored).
    if (kernelUsesSetmaxnreg(*K.Kernel))
      F->addFnAttr("nvvm.minctasm", "1");
    for (unsigned I = 0; I != K.Captures.size(); ++I)
      if (K.Captures[I].isBuffer())
        F->addParamAttr(I, llvm::Attribute::NoAlias);
    for (const ArtifactTensorMap &Map : K.TensorMaps) {
      F->getArg(Map.Arg)->setName("tmap_" + Map.Name);
      addTensorMapParamAttrs(*F, Map.Arg);
    }
    return F;
  }

  /// Kernels whose tests of their arguments the host can make (their
  /// launch flags, LaunchFlags.h) are specialized for those tests passing.
  bool hasSpecialization(const KernelStmt &K) override {
    return !cuda::getLaunchFlags(K).empty();
  }

  /// cuda.tma_ready and cuda.aligned: the flag, or, in a kernel's
  /// specialization, 1 with the test assumed (so that LLVM folds the
  /// other side of every test that hangs on it, and on what it implies:
  /// a row pitch that is a multiple of 8 elements is even).
  void emitFlag(llvm::IRBuilder<> &B, KernelEmission &K, const OpStmt &Op,
                llvm::ArrayRef<llvm::Value *> Operands) {
    llvm::SmallVector<llvm::Value *, 4> Conds =
        cuda::emitLaunchFlagConditions(B, Op, Operands[0], K.EmitExpr);
    llvm::Type *Ty =
        getLLVMMemType(B.getContext(), Op.getOperand("dst").R.Buf->getDType());
    llvm::Value *Flag;
    if (K.Specialized && cuda::isLaunchFlag(*K.Kernel, Op)) {
      for (llvm::Value *C : Conds)
        B.CreateAssumption(C);
      Flag = llvm::ConstantInt::get(Ty, 1);
    } else {
      Flag = B.CreateZExt(B.CreateAnd(Conds), Ty);
    }
    B.CreateStore(Flag, Operands.back());
  }

  llvm::Value *getBlockIndex(llvm::IRBuilder<> &B, KernelEmission &K,
                             unsigned Dim) override {
    static const llvm::Intrinsic::ID Ids[] = {
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
        llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    return B.CreateIntrinsic(Ids[Dim], {});
  }

  llvm::Value *getThreadIndex(llvm::IRBuilder<> &B, KernelEmission &K) override {
    return B.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {});
  }

  llvm::Error emitBarrier(llvm::IRBuilder<> &B, KernelEmission &K) override {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all,
                      {B.getInt32(0)});
    return llvm::Error::success();
  }

  unsigned getGlobalAddressSpace() const override { return 1; }

  llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                              const BufferValue &Buf, llvm::Type *ElemTy,
                              uint64_t NumElems) override {
    llvm::Module &M = *K.Fn->getParent();
    const llvm::DataLayout &DL = M.getDataLayout();
    uint64_t Bytes = DL.getTypeAllocSize(ElemTy) * NumElems;
    if (Buf.getScope() == MemScope::Shared) {
      // Dynamic shared memory: one extern array, slices at their planned
      // offsets (16-byte aligned).
      llvm::GlobalVariable *Smem = M.getGlobalVariable("__tile_smem");
      if (!Smem) {
        Smem = new llvm::GlobalVariable(
            M, llvm::ArrayType::get(B.getInt8Ty(), 0), false,
            llvm::GlobalValue::ExternalLinkage, nullptr, "__tile_smem", nullptr,
            llvm::GlobalValue::NotThreadLocal, 3);
        Smem->setAlignment(llvm::Align(16));
      }
      int64_t Offset = placeSharedBuffer(K, Bytes);
      return B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Smem, Offset,
                                          Buf.getName());
    }
    // Per-thread storage: a local array, promoted to registers when LLVM
    // can index it statically.
    return createPerThreadArray(B, K, Buf, ElemTy, NumElems);
  }

  llvm::Error emitTargetOp(llvm::IRBuilder<> &B, KernelEmission &K,
                           const OpStmt &Op,
                           llvm::ArrayRef<llvm::Value *> Operands) override {
    if (Op.getName() == "cuda.tma_ready" || Op.getName() == "cuda.aligned") {
      emitFlag(B, K, Op, Operands);
      return llvm::Error::success();
    }
    if (Op.getName() == "cuda.launched_blocks") {
      if (K.Kernel->getGrid().size() != 1)
        return llvm::createStringError(
            "'cuda.launched_blocks' is in a kernel whose grid has " +
            std::to_string(K.Kernel->getGrid().size()) +
            " dimensions; a persistent kernel's grid has one");
      B.CreateStore(B.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {}),
                    Operands[0]);
      return llvm::Error::success();
    }
    // The cuda ops of each lowering live with their emission:
    // NVPTXWarpOps.cpp (cuda-register-fragments), NVPTXTensorCoreOps.cpp
    // (cuda-lower-gemm-mma), NVPTXHopperOps.cpp (hopper-lower-gemm-wgmma),
    // NVPTXTMAOps.cpp (hopper-warp-specialize-gemm).
    if (std::optional<llvm::Error> E = cuda::emitNVPTXWarpOp(B, Op, Operands))
      return std::move(*E);
    if (isNVPTXTensorCoreOp(Op.getName()))
      return emitNVPTXTensorCoreOp(B, Op, Operands);
    llvm::Expected<bool> TMA = emitNVPTXTMAOp(B, K, Op, Operands);
    if (!TMA || *TMA)
      return TMA.takeError();
    llvm::Expected<bool> Hopper = emitNVPTXHopperOp(B, Op, Operands);
    if (!Hopper || *Hopper)
      return Hopper.takeError();
    return LLVMDeviceTarget::emitTargetOp(B, K, Op, Operands);
  }

  llvm::Value *emitMath(llvm::IRBuilder<> &B, llvm::StringRef Name,
                        llvm::Value *X) override {
    // The SFU's approximate instructions work on f32; other float types
    // convert around them.
    llvm::Type *Ty = X->getType();
    llvm::Type *F32 = B.getFloatTy();
    if (Name == "sqrt")
      return B.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, X);
    llvm::Value *V = Ty == F32 ? X : B.CreateFPCast(X, F32);
    // ex2.approx.ftz is one MUFU.EX2; without .ftz ptxas wraps it in a
    // compare and two multiplies to produce results below 2^-126 (which
    // .ftz flushes to zero): the exponential of softmax-like code is one
    // instruction per element instead of four.
    auto Ex2 = [&](llvm::Value *A) {
      return B.CreateUnaryIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_ftz, A);
    };
    // lg2.approx.f32 is not overloaded: CreateUnaryIntrinsic would mangle
    // the operand type into a name that is no intrinsic (an external call
    // ptxas rejects).
    auto Lg2 = [&](llvm::Value *A) {
      return B.CreateIntrinsic(F32, llvm::Intrinsic::nvvm_lg2_approx_f, {A});
    };
    const float Log2E = 1.4426950408889634f, Ln2 = 0.6931471805599453f;
    llvm::Value *R;
    if (Name == "exp2")
      R = Ex2(V);
    else if (Name == "exp")
      R = Ex2(B.CreateFMul(V, llvm::ConstantFP::get(F32, Log2E)));
    else if (Name == "log2")
      R = Lg2(V);
    else if (Name == "log")
      R = B.CreateFMul(Lg2(V), llvm::ConstantFP::get(F32, Ln2));
    else {
      assert(Name == "tanh" && "unknown math function");
      // tanh(x) = sign(x) * (1 - t) / (1 + t), t = exp(-2|x|): no overflow.
      llvm::Value *A = B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V);
      llvm::Value *T = Ex2(B.CreateFMul(A, llvm::ConstantFP::get(F32, -2 * Log2E)));
      llvm::Value *One = llvm::ConstantFP::get(F32, 1.0);
      llvm::Value *Mag = B.CreateFDiv(B.CreateFSub(One, T), B.CreateFAdd(One, T));
      R = B.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, Mag, V);
    }
    return Ty == F32 ? R : B.CreateFPCast(R, Ty);
  }
};

std::once_flag InitOnce;

/// Finds ptxas: $TILE_PTXAS, the PATH, then /usr/local/cuda/bin.
/// TILE_PTXAS=none asks for no ptxas: the artifact holds PTX, which the
/// driver's JIT compiles when it is loaded.
std::optional<std::string> findPtxas() {
  return findExternalTool("TILE_PTXAS", "ptxas", "/usr/local/cuda/bin/ptxas");
}

/// Each kernel's registers from ptxas -v's report: "Function properties
/// for <symbol>", then "Used <n> registers, ...".
void recordPtxasRegisters(llvm::StringRef Log, KernelArtifact &A) {
  llvm::SmallVector<llvm::StringRef> Lines;
  Log.split(Lines, '\n');
  static constexpr llvm::StringLiteral Properties = "Function properties for ";
  static constexpr llvm::StringLiteral Used = "Used ";
  llvm::StringRef Function;
  for (llvm::StringRef L : Lines) {
    size_t P = L.find(Properties);
    if (P != llvm::StringRef::npos) {
      Function = L.drop_front(P + Properties.size()).trim();
      continue;
    }
    P = L.find(Used);
    if (P == llvm::StringRef::npos || Function.empty())
      continue;
    llvm::StringRef Rest = L.drop_front(P + Used.size());
    int64_t N;
    if (Rest.consumeInteger(10, N) || !Rest.starts_with(" registers"))
      continue;
    for (ArtifactEntry &E : A.Entries)
      for (ArtifactKernel &K : E.Kernels)
        if (K.Symbol == Function) {
          K.Registers = N;
          K.RegisterReport = ("ptxas -v: " + L.drop_front(P).trim()).str();
        }
    Function = {};
  }
}

/// ptxas -O3 -v: the cubin, and the resource report in the notes. A
/// module of several kernels has them compiled on as many threads
/// (--split-compile: the same code, per kernel; examples/flash_attention.tile's
/// two kernels take 191 ms instead of 326 on two cores).
llvm::Error assemble(llvm::StringRef Ptxas, llvm::StringRef Arch,
                     KernelArtifact &A) {
  std::string ArchFlag = ("-arch=" + Arch).str();
  std::vector<std::string> Args = {ArchFlag, "-O3", "-v"};
  size_t Entries = 0;
  for (size_t P = A.DeviceSource.find(".entry "); P != std::string::npos;
       P = A.DeviceSource.find(".entry ", P + 1))
    ++Entries;
  if (Entries > 1)
    Args.push_back("--split-compile=" + std::to_string(Entries));
  llvm::SmallVector<llvm::StringRef, 4> ArgRefs(Args.begin(), Args.end());
  llvm::Expected<ExternalToolRun> Run = runExternalTool(
      Ptxas, ArgRefs, A.DeviceSource, "ptx", "cubin");
  if (!Run)
    return Run.takeError();
  if (Run->ExitCode != 0)
    return llvm::createStringError(Run->getFailureMessage("ptxas"));
  if (!Run->Output)
    return llvm::createStringError("ptxas wrote no cubin");
  A.DeviceCode = std::move(*Run->Output);
  A.DeviceFmt = DeviceFormat::Cubin;
  A.Notes["ptxas"] = Run->Log;
  recordPtxasRegisters(Run->Log, A);
  recordExternalTool(A.Notes, Ptxas);
  // For the cuda executor: the architecture the cubin runs on (it hands
  // the PTX to the driver on a device of another major version).
  A.DeviceArch = Arch.str();
  return llvm::Error::success();
}

/// The remark that says which kernels are specialized, for what, and
/// what runs elsewhere: the general kernel is the fallback the host
/// launches where a test fails.
void reportSpecializations(const Module &M, const KernelArtifact &A) {
  RemarkEngine &Remarks = M.getContext().getRemarks();
  if (!Remarks.isEnabled(RemarkKind::Analysis, "cuda-specialize"))
    return;
  for (const auto &F : M.getFunctions()) {
    const ArtifactEntry *E = A.findEntry(F->getName());
    unsigned N = 0;
    walkStmts(F->getBody(), [&](const Stmt &S) {
      const auto *K = llvm::dyn_cast<KernelStmt>(&S);
      if (!K)
        return;
      std::optional<unsigned> I = E ? E->getKernelIndex(N++) : std::nullopt;
      std::optional<unsigned> Spec = I ? E->getSpecialization(*I) : std::nullopt;
      if (!Spec)
        return;
      std::string Tests;
      for (const OpStmt *Op : cuda::getLaunchFlags(*K))
        Tests += (Tests.empty() ? "" : "; ") + cuda::describeLaunchFlag(*Op);
      const ArtifactKernel &G = E->Kernels[*I];
      Remarks.emit(RemarkKind::Analysis, "cuda-specialize", K->getLoc(),
                   "kernel '" + E->Kernels[*Spec].Symbol +
                       "' is specialized for: " + Tests +
                       "; where one of these fails, host code launches the "
                       "fallback '" + G.Symbol + "' (the kernel as written" +
                       (G.Deferred ? ", compiled by the driver at its first launch"
                                   : "") +
                       ")");
    });
  }
}

} // namespace

llvm::Error generateCUDADeviceCode(const BackendContext &Ctx, const Module &M,
                                   KernelArtifact &Artifact) {
  std::call_once(InitOnce, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  CodeGenPhaseTimer Phases(Artifact.Timings);
  std::string Arch = Ctx.getTarget().getAttr("arch").value_or("sm_80").str();
  auto MakeTM = [&]() -> llvm::Expected<std::unique_ptr<llvm::TargetMachine>> {
    auto TM = createTargetMachine("nvptx64-nvidia-cuda", Arch, "+ptx80");
    if (!TM)
      return TM.takeError();
    // A multiply feeding an add becomes one fma, as nvcc does by default
    // (-fmad=true): one rounding instead of two, and half the instructions.
    (*TM)->Options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    return TM;
  };
  auto TM = MakeTM();
  if (!TM)
    return TM.takeError();
  // `-llvm_opt=kernel` (unset: kernel for the Hopper backend, whose
  // benchmarked kernels' PTX it leaves identical to O3's; O3 for the CUDA
  // backend, where it changes some) runs the CPU's trimmed middle end.
  llvm::StringRef Unset =
      llvm::StringRef(Ctx.getBackend().Name) == "Hopper" ? "kernel" : "O3";
  LLVMPipeline Pipeline =
      Ctx.getTarget().getAttr("llvm_opt").value_or(Unset) == "kernel"
          ? LLVMPipeline::Kernel
          : LLVMPipeline::O3;
  llvm::LLVMContext C;
  LLVMDiagnosticHandler Diags(C, M.getContext(), "cuda-codegen");
  llvm::Module LM("tile-device", C);
  LM.setTargetTriple((*TM)->getTargetTriple());
  LM.setDataLayout((*TM)->createDataLayout());
  // The general versions of specialized kernels (LaunchFlags.h) run only
  // where a specialization's tests fail: when the artifact is compiled
  // for loading, they are a module of their own, compiled to PTX on a
  // second thread while this one compiles the rest, and left to the
  // driver's JIT at their first launch (no ptxas for them up front).
  llvm::LLVMContext DC;
  std::optional<LLVMDiagnosticHandler> DeferredDiags;
  std::optional<llvm::Module> DeferredLM;
  if (Ctx.runsToolchain()) {
    DeferredDiags.emplace(DC, M.getContext(), "cuda-codegen");
    DeferredLM.emplace("tile-device-deferred", DC);
    DeferredLM->setTargetTriple((*TM)->getTargetTriple());
    DeferredLM->setDataLayout((*TM)->createDataLayout());
  }
  NVPTXDeviceTarget T;
  if (llvm::Error E = emitDeviceKernels(M, T, LM, Artifact,
                                        DeferredLM ? &*DeferredLM : nullptr))
    return E;
  Phases.done("llvm-ir");
  bool AnyDeferred = false;
  for (const ArtifactEntry &E : Artifact.Entries)
    for (const ArtifactKernel &K : E.Kernels)
      AnyDeferred |= K.Deferred;
  reportSpecializations(M, Artifact);
  // Remarks go to the Tile context, which is not thread-safe: with any
  // enabled, the deferred module is compiled after the other, here.
  bool OnThread = AnyDeferred && !M.getContext().getRemarks().getFilter().isAnyEnabled();
  std::string DeferredPtx;
  std::string DeferredFailure;
  auto CompileDeferred = [&, Pipeline] {
    auto DTM = MakeTM();
    if (!DTM) {
      DeferredFailure = llvm::toString(DTM.takeError());
      return;
    }
    optimizeModule(*DeferredLM, **DTM, nullptr, Pipeline);
    auto Ptx = emitMachineCode(*DeferredLM, **DTM, EmitKind::Assembly);
    if (!Ptx) {
      DeferredFailure = llvm::toString(Ptx.takeError());
      return;
    }
    DeferredPtx = std::move(*Ptx);
  };
  std::optional<std::thread> Worker;
  if (OnThread)
    Worker.emplace(CompileDeferred);
  // Joins the worker on every path out.
  llvm::scope_exit Join([&] {
    if (Worker && Worker->joinable())
      Worker->join();
  });
  optimizeModule(LM, **TM, nullptr, Pipeline);
  Phases.done("llvm-opt");
  if (Ctx.keepsLLVMIR())
    Artifact.Notes["device-llvm"] = printLLVMModule(LM);
  auto Ptx = emitMachineCode(LM, **TM, EmitKind::Assembly);
  if (!Ptx)
    return Ptx.takeError();
  if (llvm::Error E = Diags.takeError("NVPTX code generation for " + Arch + " failed:"))
    return E;
  Artifact.DeviceSource = std::move(*Ptx);
  Artifact.DeviceCode = Artifact.DeviceSource;
  Artifact.DeviceFmt = DeviceFormat::PTX;
  Phases.done("llvm-codegen");
  // Compiled mode when ptxas is here; otherwise the driver JITs the PTX.
  std::optional<std::string> Ptxas =
      Ctx.runsToolchain() ? findPtxas() : std::nullopt;
  if (Ptxas) {
    if (llvm::Error E = assemble(*Ptxas, Arch, Artifact))
      return E;
    Phases.done("ptxas");
  } else {
    Artifact.Notes["assembler"] =
        "none: the driver's JIT compiles the PTX at load (no ptxas found, "
        "or TILE_PTXAS=none)";
  }
  if (AnyDeferred) {
    if (Worker)
      Worker->join();
    else
      CompileDeferred();
    if (!DeferredFailure.empty())
      return llvm::createStringError(DeferredFailure);
    if (llvm::Error E = DeferredDiags->takeError("NVPTX code generation for " +
                                                 Arch + " failed:"))
      return E;
    Artifact.DeferredDeviceSource = std::move(DeferredPtx);
    Artifact.Notes["deferred"] =
        "the general versions of specialized kernels are PTX that the "
        "driver's JIT compiles at their first launch";
    Phases.done(OnThread ? "deferred-llvm (wait)" : "deferred-llvm");
  }
  return llvm::Error::success();
}

llvm::Error generateCUDAHostCode(const BackendContext &Ctx, const Module &M,
                                 KernelArtifact &Artifact) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  HostCodeGenOptions Opts;
  Opts.DeviceType = 2; // kDLCUDA: tensors in CUDA device memory
  Opts.KeepIR = Ctx.keepsLLVMIR();
  // A specialization runs where every launch flag of its kernel holds,
  // tested on the host as the kernel tests it.
  Opts.SpecializationCondition =
      [](llvm::IRBuilder<> &B, const KernelStmt &K,
         llvm::function_ref<llvm::Value *(const Expr &)> EmitExpr,
         llvm::function_ref<llvm::Value *(const BufferValue &)> Data) {
        llvm::SmallVector<llvm::Value *, 8> All;
        for (const OpStmt *Op : cuda::getLaunchFlags(K))
          All.append(cuda::emitLaunchFlagConditions(
              B, *Op, Data(*Op->getOperand("tensor").R.Buf), EmitExpr));
        return All.empty() ? B.getTrue() : B.CreateAnd(All);
      };
  // A kernel that reads how many blocks were launched loops over its tiles
  // (hopper-wgmma-fragments' persistent kernels): as many blocks as the
  // device runs at once.
  Opts.IsPersistent = [](const KernelStmt &K) {
    bool Reads = false;
    walkStmts(K.getBody(), [&](const Stmt &S) {
      if (const auto *Op = llvm::dyn_cast<OpStmt>(&S))
        Reads |= Op->getName() == "cuda.launched_blocks";
    });
    return Reads;
  };
  return generateHostObject(
      M, Opts, Ctx.getHostTarget().getAttr("mcpu").value_or("native"), Artifact);
}

} // namespace tile
