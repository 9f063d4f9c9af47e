//===- ROCmCodeGen.cpp - Device and host codegen for AMD GPUs -------------===//
//
// Device code: one amdgpu_kernel per kernel, taking its captures as kernel
// arguments in order (buffers as global, address space 1, pointers), with
// workgroup and work-item ids from their intrinsics, a flat work-group
// size equal to the kernel's thread count (waves of 64), LDS as one static
// address-space-3 array per kernel that shared buffers are 16-byte aligned
// slices of, and s_barrier between workgroup-scope release and acquire
// fences. rocm.mfma_lane becomes llvm.amdgcn.mfma.*, rocm.lane_xor
// llvm.amdgcn.ds.swizzle or ds.bpermute; exp, log and tanh are
// computed through the hardware's exp2 and log2 in f32.
//
// LLVM's AMDGPU backend emits assembly (the source-only output, what
// -emit=device and -emit=asm print) and a relocatable object, which
// ld.lld-22 links into an HSA code object (code object version 5) for the
// hsa execution backend. Where no ld.lld-22 is found the assembly is still
// produced and the artifact holds no code object. Host code is the shared
// packed-API entry for tensors in ROCm device memory.
//
//===----------------------------------------------------------------------===//

#include "MFMALayout.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/CodeGen/LLVMDiagnostics.h"
#include "tile/Support/FileIdentity.h"
#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/Walk.h"
#include "tile/Target/BackendContext.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include <mutex>

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUAsmPrinter();
}

namespace tile {
namespace {

class AMDGPUDeviceTarget : public LLVMDeviceTarget {
public:
  /// Each kernel's LDS: one static array that shared buffers are slices of.
  StaticSharedArrays LDS{3, "lds"};

  llvm::Function *createKernel(llvm::Module &M, llvm::StringRef Name,
                               KernelEmission &K) override {
    llvm::Function *F =
        createKernelFunction(M, Name, K, getCaptureParamTypes(M.getContext(), K),
                             llvm::CallingConv::AMDGPU_KERNEL);
    int64_t Threads = K.Kernel->getThreads()->getConstInt().value_or(1);
    F->addFnAttr("amdgpu-flat-work-group-size",
                 std::to_string(Threads) + "," + std::to_string(Threads));
    // Every workgroup is full: the grid is a whole number of them.
    F->addFnAttr("uniform-work-group-size", "true");
    LDS.addKernel(K.Kernel, F);
    return F;
  }

  llvm::Value *getBlockIndex(llvm::IRBuilder<> &B, KernelEmission &K,
                             unsigned Dim) override {
    static const llvm::Intrinsic::ID Ids[] = {
        llvm::Intrinsic::amdgcn_workgroup_id_x,
        llvm::Intrinsic::amdgcn_workgroup_id_y,
        llvm::Intrinsic::amdgcn_workgroup_id_z};
    return B.CreateIntrinsic(Ids[Dim], {});
  }

  llvm::Value *getThreadIndex(llvm::IRBuilder<> &B, KernelEmission &K) override {
    return B.CreateIntrinsic(llvm::Intrinsic::amdgcn_workitem_id_x, {});
  }

  llvm::Error emitBarrier(llvm::IRBuilder<> &B, KernelEmission &K) override {
    // As HIP's __syncthreads: LDS and global writes before are visible to
    // the workgroup after.
    llvm::LLVMContext &C = B.getContext();
    B.CreateFence(llvm::AtomicOrdering::Release, C.getOrInsertSyncScopeID("workgroup"));
    B.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {});
    B.CreateFence(llvm::AtomicOrdering::Acquire, C.getOrInsertSyncScopeID("workgroup"));
    return llvm::Error::success();
  }

  unsigned getGlobalAddressSpace() const override { return 1; }

  llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                              const BufferValue &Buf, llvm::Type *ElemTy,
                              uint64_t NumElems) override {
    // Per-thread storage is private memory (address space 5), promoted to
    // registers where LLVM can index it statically.
    return LDS.allocateOnChip(B, K, Buf, ElemTy, NumElems);
  }

  llvm::Error emitTargetOp(llvm::IRBuilder<> &B, KernelEmission &K,
                           const OpStmt &Op,
                           llvm::ArrayRef<llvm::Value *> Operands) override {
    if (Op.getName() == "rocm.lane_xor")
      return emitLaneXor(B, Op, Operands);
    if (Op.getName() != "rocm.mfma_lane")
      return LLVMDeviceTarget::emitTargetOp(B, K, Op, Operands);
    std::optional<rocm::MFMAShape> S =
        rocm::lookupMFMAShape(Op.getAttrOrDefault("shape").getStr());
    assert(S && "the verifier accepts only known shapes");
    bool BF16 = Op.getOperand("a").R.Buf->getDType() == DType::BF16;
    // The bf16 instructions (the `1k` forms) take their operands as i16.
    llvm::Type *OpTy = llvm::FixedVectorType::get(
        BF16 ? B.getInt16Ty() : B.getHalfTy(), rocm::OperandsPerLane);
    llvm::Type *AccTy = llvm::FixedVectorType::get(B.getFloatTy(), S->AccPerLane);
    llvm::Intrinsic::ID ID;
    if (S->M == 16)
      ID = BF16 ? llvm::Intrinsic::amdgcn_mfma_f32_16x16x16bf16_1k
                : llvm::Intrinsic::amdgcn_mfma_f32_16x16x16f16;
    else
      ID = BF16 ? llvm::Intrinsic::amdgcn_mfma_f32_32x32x8bf16_1k
                : llvm::Intrinsic::amdgcn_mfma_f32_32x32x8f16;
    llvm::Value *A = B.CreateAlignedLoad(OpTy, Operands[0], llvm::Align(8));
    llvm::Value *Bv = B.CreateAlignedLoad(OpTy, Operands[1], llvm::Align(8));
    llvm::Value *C = B.CreateAlignedLoad(AccTy, Operands[2], llvm::Align(16));
    // cbsz, abid, blgp: no broadcast between blocks or lane groups.
    llvm::Value *D = B.CreateIntrinsic(
        ID, {}, {A, Bv, C, B.getInt32(0), B.getInt32(0), B.getInt32(0)});
    B.CreateAlignedStore(D, Operands[2], llvm::Align(16));
    return llvm::Error::success();
  }

  /// rocm.lane_xor: within each half of the wave by ds_swizzle in bit-mask
  /// mode (and_mask 0x1f, or_mask 0, xor_mask = mask), across the halves by
  /// ds_bpermute from lane ^ mask.
  llvm::Error emitLaneXor(llvm::IRBuilder<> &B, const OpStmt &Op,
                          llvm::ArrayRef<llvm::Value *> Operands) {
    DType VT = Op.getOperand("value").E->getDType();
    DType DT = Op.getOperand("dst").R.Buf->getDType();
    llvm::Value *V = emitConvert(B, Operands[0], VT, DT);
    llvm::Type *Ty = V->getType();
    unsigned Bits = Ty->getPrimitiveSizeInBits();
    assert(Bits && Bits <= 32 && "the verifier allows 32 bits at most");
    llvm::Type *IntTy = B.getIntNTy(Bits);
    llvm::Value *I = Ty->isIntegerTy() ? V : B.CreateBitCast(V, IntTy);
    I = B.CreateZExtOrTrunc(I, B.getInt32Ty());
    uint32_t Mask = uint32_t(Op.getAttrOrDefault("mask").getInt());
    llvm::Value *R;
    if (Mask < 32) {
      R = B.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_swizzle, {},
                            {I, B.getInt32((Mask << 10) | 0x1f)});
    } else {
      llvm::Value *Lo = B.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {},
                                          {B.getInt32(-1), B.getInt32(0)});
      llvm::Value *Lane = B.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_hi, {},
                                            {B.getInt32(-1), Lo});
      llvm::Value *Addr = B.CreateShl(B.CreateXor(Lane, B.getInt32(Mask)), 2);
      R = B.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {}, {Addr, I});
    }
    R = B.CreateTrunc(R, IntTy);
    if (!Ty->isIntegerTy())
      R = B.CreateBitCast(R, Ty);
    B.CreateStore(R, Operands[1]);
    return llvm::Error::success();
  }

  llvm::Value *emitMath(llvm::IRBuilder<> &B, llvm::StringRef Name,
                        llvm::Value *X) override {
    // In f32, on the hardware's exp2/log2 (which LLVM's AMDGPU backend
    // selects for llvm.exp2/log2 and expands llvm.exp/log into); other float
    // types convert around them. tanh has no instruction and no libcall.
    llvm::Type *Ty = X->getType();
    llvm::Type *F32 = B.getFloatTy();
    llvm::Value *V = Ty == F32 ? X : B.CreateFPCast(X, F32);
    llvm::Value *R;
    if (Name == "tanh") {
      // tanh(x) = sign(x) * (1 - t) / (1 + t), t = exp(-2|x|): no overflow.
      const float Log2E = 1.4426950408889634f;
      llvm::Value *A = B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, V);
      llvm::Value *T = B.CreateUnaryIntrinsic(
          llvm::Intrinsic::exp2, B.CreateFMul(A, llvm::ConstantFP::get(F32, -2 * Log2E)));
      llvm::Value *One = llvm::ConstantFP::get(F32, 1.0);
      llvm::Value *Mag = B.CreateFDiv(B.CreateFSub(One, T), B.CreateFAdd(One, T));
      R = B.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, Mag, V);
    } else {
      R = LLVMDeviceTarget::emitMath(B, Name, V);
    }
    return Ty == F32 ? R : B.CreateFPCast(R, Ty);
  }
};

std::once_flag InitOnce;

/// Each kernel's registers from the HSA metadata the assembly carries
/// (between .amdgpu_metadata and .end_amdgpu_metadata, the YAML form of
/// the code object's msgpack note): .vgpr_count per lane (arch and
/// accumulation VGPRs together), and the rest for the report.
llvm::Error recordRegisterUse(KernelArtifact &A) {
  llvm::StringRef Asm = A.DeviceSource;
  size_t Begin = Asm.find(".amdgpu_metadata\n");
  size_t End = Asm.find(".end_amdgpu_metadata");
  if (Begin == llvm::StringRef::npos || End == llvm::StringRef::npos || End < Begin)
    return llvm::createStringError("the AMDGPU assembly has no .amdgpu_metadata "
                                   "section to read register counts from");
  Begin += llvm::StringRef(".amdgpu_metadata\n").size();
  llvm::msgpack::Document Doc;
  if (!Doc.fromYAML(Asm.slice(Begin, End)))
    return llvm::createStringError("the AMDGPU assembly's .amdgpu_metadata is not "
                                   "valid YAML");
  llvm::msgpack::DocNode &Kernels = Doc.getRoot().getMap(true)["amdhsa.kernels"];
  if (!Kernels.isArray())
    return llvm::createStringError("the AMDGPU metadata lists no amdhsa.kernels");
  auto intField = [](llvm::msgpack::MapDocNode &K, llvm::StringRef Name)
      -> std::optional<int64_t> {
    auto It = K.find(Name);
    if (It == K.end())
      return std::nullopt;
    llvm::msgpack::DocNode &N = It->second;
    if (N.getKind() == llvm::msgpack::Type::Int)
      return N.getInt();
    if (N.getKind() == llvm::msgpack::Type::UInt)
      return int64_t(N.getUInt());
    return std::nullopt;
  };
  for (llvm::msgpack::DocNode &N : Kernels.getArray()) {
    if (!N.isMap())
      continue;
    llvm::msgpack::MapDocNode &K = N.getMap();
    auto NameIt = K.find(".name");
    if (NameIt == K.end() || !NameIt->second.isString())
      continue;
    llvm::StringRef Name = NameIt->second.getString();
    std::optional<int64_t> VGPRs = intField(K, ".vgpr_count");
    if (!VGPRs)
      continue;
    std::string Report = "code object metadata: .vgpr_count " + std::to_string(*VGPRs);
    for (llvm::StringRef F : {".agpr_count", ".sgpr_count", ".vgpr_spill_count",
                              ".sgpr_spill_count", ".private_segment_fixed_size"})
      if (std::optional<int64_t> V = intField(K, F))
        Report += ", " + F.str() + " " + std::to_string(*V);
    for (ArtifactEntry &E : A.Entries)
      for (ArtifactKernel &AK : E.Kernels)
        if (AK.Symbol == Name) {
          AK.Registers = *VGPRs;
          AK.RegisterReport = Report;
        }
  }
  return llvm::Error::success();
}

/// ld.lld -shared: relocatable AMDGPU object -> HSA code object.
llvm::Expected<std::string> link(llvm::StringRef Linker, llvm::StringRef Object) {
  llvm::Expected<ExternalToolRun> Run =
      runExternalTool(Linker, {"-shared"}, Object, "o", "hsaco");
  if (!Run)
    return Run.takeError();
  if (Run->ExitCode != 0)
    return llvm::createStringError(Run->getFailureMessage(Linker));
  if (!Run->Output)
    return llvm::createStringError(Linker + " wrote no code object");
  return std::move(*Run->Output);
}

} // namespace

llvm::Error generateROCmDeviceCode(const BackendContext &Ctx, const Module &M,
                                   KernelArtifact &Artifact) {
  std::call_once(InitOnce, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
  std::string MCPU = Ctx.getTarget().getAttr("mcpu").value_or("gfx942").str();
  auto TM = createTargetMachine("amdgcn-amd-amdhsa", MCPU);
  if (!TM)
    return TM.takeError();
  llvm::LLVMContext C;
  LLVMDiagnosticHandler Diags(C, M.getContext(), "rocm-codegen");
  llvm::Module LM("tile-device", C);
  LM.setTargetTriple((*TM)->getTargetTriple());
  LM.setDataLayout((*TM)->createDataLayout());
  LM.addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", 500);
  AMDGPUDeviceTarget T;
  if (llvm::Error E = emitDeviceKernels(M, T, LM, Artifact))
    return E;
  T.LDS.finish(Artifact);
  optimizeModule(LM, **TM);
  Artifact.Notes["device-llvm"] = printLLVMModule(LM);
  std::unique_ptr<llvm::Module> Copy = llvm::CloneModule(LM);
  auto Asm = emitMachineCode(*Copy, **TM, EmitKind::Assembly);
  if (!Asm)
    return Asm.takeError();
  if (llvm::Error E = Diags.takeError("AMDGPU code generation for " + MCPU + " failed:"))
    return E;
  Artifact.DeviceSource = std::move(*Asm);
  Artifact.Notes["device-asm"] = Artifact.DeviceSource;
  if (llvm::Error E = recordRegisterUse(Artifact))
    return E;
  Artifact.DeviceFmt = DeviceFormat::HSACO;
  std::optional<std::string> Linker =
      Ctx.runsToolchain() ? findLinker() : std::nullopt;
  if (!Linker) {
    // Source-only: the assembly, and no code object to load.
    Artifact.Notes["hsaco"] =
        Ctx.runsToolchain()
            ? "not linked: no ld.lld-22 (not found, or TILE_LD_LLD=none; "
              "set TILE_LD_LLD to one)"
            : "not linked: the external toolchain was turned off";
    return llvm::Error::success();
  }
  auto Obj = emitMachineCode(LM, **TM, EmitKind::Object);
  if (!Obj)
    return Obj.takeError();
  if (llvm::Error E = Diags.takeError("AMDGPU code generation for " + MCPU + " failed:"))
    return E;
  auto Code = link(*Linker, *Obj);
  if (!Code)
    return Code.takeError();
  Artifact.DeviceCode = std::move(*Code);
  recordExternalTool(Artifact.Notes, *Linker);
  return llvm::Error::success();
}

llvm::Error generateROCmHostCode(const BackendContext &Ctx, const Module &M,
                                 KernelArtifact &Artifact) {
  // kDLROCM: tensors in ROCm device memory.
  return generateGPUHostObject(
      M, 10, Ctx.getHostTarget().getAttr("mcpu").value_or("native"), Artifact);
}

} // namespace tile
