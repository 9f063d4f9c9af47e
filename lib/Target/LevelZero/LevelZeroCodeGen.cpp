//===- LevelZeroCodeGen.cpp - SPIR-V kernels for Level Zero ---------------===//
//
// Device code: one spir_kernel per kernel, taking its captures as kernel
// arguments in order (buffers as CrossWorkgroup pointers, address space 1;
// f16/bf16 scalars as their 16 bits), with the work-group and local ids
// from LLVM's SPIR-V builtins (llvm.spv.group.id, thread.id.in.group),
// workgroup-local memory as one static address-space-3 array per kernel
// that shared buffers are 16-byte aligned slices of, and OpenCL's
// barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE). Math functions map
// to OpenCL.std extended instructions. level_zero.sub_group_reduce becomes
// OpenCL's sub_group_non_uniform_reduce_add / _max / _min (SPIR-V
// OpGroupNonUniform* arithmetic), and the kernel that uses it requires
// the target's sub-group size (intel_reqd_sub_group_size, OpExecutionMode
// SubgroupSize).
//
// The module is legalized for OpenCL 1.2 (LegalizeForOpenCL.h), optimized,
// and emitted by LLVM's SPIR-V backend as SPIR-V 1.0 for the OpenCL
// environment (1.3, the first version with the non-uniform group
// instructions, for targets with the `subgroups` feature) (the compiled output the level-zero execution backend hands
// to zeModuleCreate) and as its textual form (-emit=device). Host code is
// the shared packed-API entry for tensors in oneAPI device memory.
//
// Where the toolchain runs, both emissions happen in a child process, LLVM
// 22's own llc, on the optimized module as bitcode. LLVM 22's SPIR-V
// backend keeps its module analysis in a static (SPIRVModuleAnalysis::MAI;
// made a member upstream by llvm-project PR 160956, after the 22 branch)
// whose basic-block numbering, keyed by MachineFunction address, is never
// cleared: once a process has emitted one SPIR-V module, a later module
// whose machine function lands at a freed one's address reuses the old
// module's ids, and the output is invalid ("Id 2 is defined more than
// once" from spirv-val). Emitting in process went wrong for about one
// generated kernel in ten after a hundred compiles in one process, and
// intermittently even for tile-llc's second emission. With the toolchain
// turned off (the pipeline fuzzer) the emissions stay in process, and the
// artifact's `spirv-emission` note says so.
//
//===----------------------------------------------------------------------===//

#include "LegalizeForOpenCL.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/CodeGen/LLVMDiagnostics.h"
#include "tile/Support/FileIdentity.h"
#include "tile/IR/IR.h"
#include "tile/Target/BackendContext.h"
#include "llvm/Bitcode/BitcodeWriter.h"
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
  /// Work-items per sub-group that a kernel using sub-group operations
  /// requires (the target's sub_group_size).
  int64_t SubGroupSize = 16;

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

  llvm::Error emitTargetOp(llvm::IRBuilder<> &B, KernelEmission &K, const OpStmt &Op,
                           llvm::ArrayRef<llvm::Value *> Operands) override {
    if (Op.getName() != "level_zero.sub_group_reduce")
      return LLVMDeviceTarget::emitTargetOp(B, K, Op, Operands);
    DType VT = Op.getOperand("value").E->getDType();
    DType DT = Op.getOperand("dst").R.Buf->getDType();
    llvm::Value *V = emitConvert(B, Operands[0], VT, DT);
    llvm::StringRef Kind = Op.getAttrOrDefault("kind").getStr();
    // OpenCL C's overloads, Itanium-mangled: float, int, uint.
    std::string Name = "sub_group_non_uniform_reduce_" +
                       std::string(Kind == "sum" ? "add" : Kind == "max" ? "max" : "min");
    char TypeCode = DT == DType::F32 ? 'f' : DT == DType::I32 ? 'i' : 'j';
    assert((DT == DType::F32 || DT == DType::I32 || DT == DType::U32) &&
           "the verifier allows f32, i32 and u32");
    std::string Mangled = "_Z" + std::to_string(Name.size()) + Name + TypeCode;
    llvm::Module &M = *K.Fn->getParent();
    llvm::FunctionCallee Reduce = M.getOrInsertFunction(
        Mangled, llvm::FunctionType::get(V->getType(), {V->getType()}, false));
    auto *F = llvm::cast<llvm::Function>(Reduce.getCallee());
    F->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    F->addFnAttr(llvm::Attribute::Convergent);
    F->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::CallInst *CI = B.CreateCall(Reduce, {V});
    CI->setCallingConv(llvm::CallingConv::SPIR_FUNC);
    CI->addFnAttr(llvm::Attribute::Convergent);
    B.CreateStore(CI, Operands[1]);
    // The lowering's sub-group s is work-items s * size ... s * size +
    // size - 1: the kernel requires that size.
    llvm::LLVMContext &C = M.getContext();
    K.Fn->setMetadata("intel_reqd_sub_group_size",
                      llvm::MDNode::get(C, llvm::ConstantAsMetadata::get(
                                               B.getInt32(uint32_t(SubGroupSize)))));
    return llvm::Error::success();
  }

  llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                              const BufferValue &Buf, llvm::Type *ElemTy,
                              uint64_t NumElems) override {
    return LocalMemory.allocateOnChip(B, K, Buf, ElemTy, NumElems);
  }

  /// Parallel loops are distributed over work-items by the pipeline.
  bool annotateParallelLoops() const override { return false; }
};

std::once_flag InitOnce;

/// SPIR-V 1.0 for OpenCL, or 1.3 (the non-uniform group instructions)
/// where the target uses sub-group operations.
const char *getSPIRVTriple(const BackendContext &Ctx) {
  return Ctx.hasFeature("group_non_uniform_arithmetic") ? "spirv64v1.3-unknown-unknown"
                                     : "spirv64v1.0-unknown-unknown";
}

/// LLVM 22's llc: $TILE_LLC, llc-22 on the PATH, LLVM 22's own.
std::optional<std::string> findLLC() {
  return findExternalTool("TILE_LLC", "llc-22", "/usr/lib/llvm-22/bin/llc");
}

/// The SPIR-V of \p Bitcode (the optimized module) as \p Kind, emitted by
/// \p LLC in a process of its own.
llvm::Expected<std::string> emitWithLLC(llvm::StringRef LLC, llvm::StringRef Triple,
                                        llvm::StringRef Bitcode, EmitKind Kind) {
  const bool Obj = Kind == EmitKind::Object;
  // -O3: the level of the in-process emission (createTargetMachine's
  // default), which gives byte-identical output.
  const std::string TripleArg = ("-mtriple=" + Triple).str();
  llvm::Expected<ExternalToolRun> Run = runExternalTool(
      LLC, {"-O3", TripleArg, Obj ? "-filetype=obj" : "-filetype=asm"}, Bitcode,
      "bc", Obj ? "spv" : "spvasm");
  if (!Run)
    return Run.takeError();
  if (Run->ExitCode != 0)
    return llvm::createStringError("SPIR-V code generation failed: " +
                                   Run->getFailureMessage(LLC));
  if (!Run->Output)
    return llvm::createStringError(LLC + " wrote no SPIR-V");
  return std::move(*Run->Output);
}

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
  const char *SPIRVTriple = getSPIRVTriple(Ctx);
  auto TM = createTargetMachine(SPIRVTriple, "");
  if (!TM)
    return TM.takeError();
  llvm::LLVMContext C;
  LLVMDiagnosticHandler Diags(C, M.getContext(), "level-zero-codegen");
  llvm::Module LM("tile-device", C);
  LM.setTargetTriple((*TM)->getTargetTriple());
  LM.setDataLayout((*TM)->createDataLayout());
  SPIRVDeviceTarget T;
  llvm::StringRef Size = Ctx.getTarget().getAttr("sub_group_size").value_or("16");
  if (Size.getAsInteger(10, T.SubGroupSize))
    llvm_unreachable("sub_group_size is one of the .td's values");
  if (llvm::Error E = emitDeviceKernels(M, T, LM, Artifact))
    return E;
  T.LocalMemory.finish(Artifact);
  if (llvm::Error E = legalizeForOpenCL12(LM))
    return E;
  optimizeModule(LM, **TM);
  Artifact.Notes["device-llvm"] = printLLVMModule(LM);
  std::optional<std::string> LLC =
      Ctx.runsToolchain() ? findLLC() : std::nullopt;
  std::string Text, Binary;
  if (LLC) {
    std::string Bitcode;
    llvm::raw_string_ostream BC(Bitcode);
    llvm::WriteBitcodeToFile(LM, BC);
    auto Asm = emitWithLLC(*LLC, SPIRVTriple, Bitcode, EmitKind::Assembly);
    if (!Asm)
      return Asm.takeError();
    auto Obj = emitWithLLC(*LLC, SPIRVTriple, Bitcode, EmitKind::Object);
    if (!Obj)
      return Obj.takeError();
    Text = std::move(*Asm);
    Binary = std::move(*Obj);
    Artifact.Notes["spirv-emission"] = "llc (" + *LLC + ")";
    recordExternalTool(Artifact.Notes, *LLC);
  } else {
    std::unique_ptr<llvm::Module> Copy = llvm::CloneModule(LM);
    auto Asm = emitMachineCode(*Copy, **TM, EmitKind::Assembly);
    if (!Asm)
      return Asm.takeError();
    // A fresh target machine for the second emission: the SPIR-V
    // subtarget's global registry keeps entries (keyed by the context's
    // types) that point into the first emission's machine functions,
    // freed by then; reusing it crashed intermittently in the
    // pre-legalizer and the IRTranslator.
    auto ObjTM = createTargetMachine(SPIRVTriple, "");
    if (!ObjTM)
      return ObjTM.takeError();
    auto Obj = emitMachineCode(LM, **ObjTM, EmitKind::Object);
    if (!Obj)
      return Obj.takeError();
    Text = std::move(*Asm);
    Binary = std::move(*Obj);
    Artifact.Notes["spirv-emission"] =
        Ctx.runsToolchain()
            ? "in process: no llc-22 was found (set TILE_LLC); the output "
              "may be invalid when this process emitted SPIR-V before"
            : "in process: the external toolchain was turned off";
  }
  if (llvm::Error E = Diags.takeError("SPIR-V code generation failed:"))
    return E;
  Artifact.DeviceSource = std::move(Text);
  Artifact.DeviceCode = std::move(Binary);
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
