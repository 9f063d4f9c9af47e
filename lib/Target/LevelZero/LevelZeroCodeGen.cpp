//===- LevelZeroCodeGen.cpp - SPIR-V kernels for Level Zero ---------------===//
//
// Device code: one spir_kernel per kernel, taking its captures as kernel
// arguments in order (buffers as CrossWorkgroup pointers, address space 1;
// f16/bf16 scalars as their 16 bits), with the work-group and local ids
// from LLVM's SPIR-V builtins (llvm.spv.group.id, thread.id.in.group),
// workgroup-local memory as one static address-space-3 array per kernel
// that shared buffers are 16-byte aligned slices of, and OpenCL's
// barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE). Math functions map
// to OpenCL.std extended instructions.
//
// The module is legalized for OpenCL 1.2 (LegalizeForOpenCL.h), optimized,
// and emitted by LLVM's SPIR-V backend as SPIR-V 1.0 for the OpenCL
// environment (the compiled output the level-zero execution backend hands
// to zeModuleCreate) and as its textual form (-emit=device). Host code is
// the shared packed-API entry for tensors in oneAPI device memory.
//
//===----------------------------------------------------------------------===//

#include "LegalizeForOpenCL.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "llvm/IR/IntrinsicsSPIRV.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <mutex>

extern "C" {
void LLVMInitializeSPIRVTargetInfo();
void LLVMInitializeSPIRVTarget();
void LLVMInitializeSPIRVTargetMC();
void LLVMInitializeSPIRVAsmPrinter();
}

namespace tile {
namespace {

/// DLPack's kDLOneAPI (Intel GPUs through oneAPI); the installed dlpack.h
/// (0.6) predates it.
constexpr int32_t kDLOneAPI = 14;

/// OpenCL's CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE.
constexpr uint32_t kLocalAndGlobalFence = 3;

class SPIRVDeviceTarget : public LLVMDeviceTarget {
public:
  /// Each kernel's workgroup-local memory: one static array.
  StaticSharedArrays LocalMemory{3, "local"};

  llvm::Function *createKernel(llvm::Module &M, llvm::StringRef Name,
                               KernelEmission &K) override {
    std::vector<llvm::Type *> Params;
    for (const KernelCapture &Cap : K.Captures)
      Params.push_back(paramType(M.getContext(), Cap));
    llvm::Function *F =
        createKernelFunction(M, Name, K, Params, llvm::CallingConv::SPIR_KERNEL);
    LocalMemory.addKernel(K.Kernel, F);
    return F;
  }

  static llvm::Type *paramType(llvm::LLVMContext &C, const KernelCapture &Cap) {
    if (Cap.isBuffer())
      return llvm::PointerType::get(C, 1);
    llvm::Type *T = getLLVMType(C, Cap.V->getDType());
    // OpenCL 1.2 has no 16-bit float type: pass the bits.
    if (T->isHalfTy() || T->isBFloatTy())
      return llvm::Type::getInt16Ty(C);
    return T;
  }

  llvm::Value *getCapture(llvm::IRBuilder<> &B, KernelEmission &K, unsigned I,
                          llvm::Type *Ty) override {
    llvm::Value *A = K.Fn->getArg(I);
    return A->getType() == Ty ? A : B.CreateBitCast(A, Ty);
  }

  llvm::Value *getBlockIndex(llvm::IRBuilder<> &B, KernelEmission &K,
                             unsigned Dim) override {
    return B.CreateTrunc(B.CreateIntrinsic(B.getInt64Ty(), llvm::Intrinsic::spv_group_id,
                                           {B.getInt32(Dim)}),
                         B.getInt32Ty());
  }

  llvm::Value *getThreadIndex(llvm::IRBuilder<> &B, KernelEmission &K) override {
    return B.CreateTrunc(B.CreateIntrinsic(B.getInt64Ty(),
                                           llvm::Intrinsic::spv_thread_id_in_group,
                                           {B.getInt32(0)}),
                         B.getInt32Ty());
  }

  llvm::Error emitBarrier(llvm::IRBuilder<> &B, KernelEmission &K) override {
    llvm::Module &M = *K.Fn->getParent();
    llvm::FunctionCallee Barrier = M.getOrInsertFunction(
        "_Z7barrierj", llvm::FunctionType::get(B.getVoidTy(), {B.getInt32Ty()}, false));
    auto *F = llvm::cast<llvm::Function>(Barrier.getCallee());
    F->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    F->addFnAttr(llvm::Attribute::Convergent);
    F->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::CallInst *CI = B.CreateCall(Barrier, {B.getInt32(kLocalAndGlobalFence)});
    CI->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    CI->addFnAttr(llvm::Attribute::Convergent);
    return llvm::Error::success();
  }

  unsigned getGlobalAddressSpace() const override { return 1; }

  llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                              const BufferValue &Buf, llvm::Type *ElemTy,
                              uint64_t NumElems) override {
    return LocalMemory.allocateOnChip(B, K, Buf, ElemTy, NumElems);
  }

  /// Parallel loops are distributed over work-items by the pipeline.
  bool annotateParallelLoops() const override { return false; }
};

std::once_flag InitOnce;

} // namespace

llvm::Error generateLevelZeroDeviceCode(const BackendContext &Ctx,
                                        const Module &M,
                                        KernelArtifact &Artifact) {
  std::call_once(InitOnce, [] {
    LLVMInitializeSPIRVTargetInfo();
    LLVMInitializeSPIRVTarget();
    LLVMInitializeSPIRVTargetMC();
    LLVMInitializeSPIRVAsmPrinter();
  });
  auto TM = createTargetMachine("spirv64v1.0-unknown-unknown", "");
  if (!TM)
    return TM.takeError();
  llvm::LLVMContext C;
  LLVMDiagnosticCollector Diags(C);
  llvm::Module LM("tile-device", C);
  LM.setTargetTriple((*TM)->getTargetTriple());
  LM.setDataLayout((*TM)->createDataLayout());
  SPIRVDeviceTarget T;
  if (llvm::Error E = emitDeviceKernels(M, T, LM, Artifact))
    return E;
  T.LocalMemory.finish(Artifact);
  if (llvm::Error E = legalizeForOpenCL12(LM))
    return E;
  optimizeModule(LM, **TM);
  Artifact.Notes["device-llvm"] = printLLVMModule(LM);
  std::unique_ptr<llvm::Module> Copy = llvm::CloneModule(LM);
  auto Text = emitMachineCode(*Copy, **TM, EmitKind::Assembly);
  if (!Text)
    return Text.takeError();
  // A fresh target machine for the second emission: the SPIR-V subtarget's
  // global registry keeps entries (keyed by the context's types) that point
  // into the first emission's machine functions, freed by then; reusing it
  // crashed intermittently in the pre-legalizer and the IRTranslator.
  auto ObjTM = createTargetMachine("spirv64v1.0-unknown-unknown", "");
  if (!ObjTM)
    return ObjTM.takeError();
  auto Binary = emitMachineCode(LM, **ObjTM, EmitKind::Object);
  if (!Binary)
    return Binary.takeError();
  if (llvm::Error E = Diags.takeError("SPIR-V code generation failed:"))
    return E;
  Artifact.DeviceSource = std::move(*Text);
  Artifact.DeviceCode = std::move(*Binary);
  Artifact.DeviceFmt = DeviceFormat::SPIRV;
  return llvm::Error::success();
}

llvm::Error generateLevelZeroHostCode(const BackendContext &Ctx,
                                      const Module &M,
                                      KernelArtifact &Artifact) {
  return generateGPUHostObject(
      M, kDLOneAPI, Ctx.getHostTarget().getAttr("mcpu").value_or("native"),
      Artifact);
}

} // namespace tile
