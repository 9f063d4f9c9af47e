//===- NVPTXTMAOps.cpp - LLVM IR for TMA, mbarriers, named barriers ------===//
//
// NVVM intrinsics for the per-thread ops of the warp-specialized Hopper
// GEMM: cp.async.bulk.tensor.2d (TMA) through a tensor map argument,
// mbarrier init / arrive[.expect_tx] / try_wait.parity, the cp.async
// arrive-on, fence.mbarrier_init, setmaxnreg, named barriers (bar.sync /
// bar.arrive with a thread count). A tensor map is a 128-byte
// kernel parameter passed by value (`.param .align 64 .b8 [128]`, a grid
// constant whose generic address the TMA instruction takes), one per
// tensor, box and swizzle; the runtime builds it at launch from the
// artifact's description (ArtifactTensorMap).
//
//===----------------------------------------------------------------------===//

#include "NVPTXTMAOps.h"
#include "WGMMALayout.h"
#include "tile/IR/Walk.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/KnownBits.h"

using namespace tile;

namespace {

/// The shared::cluster window TMA destinations are given in.
constexpr unsigned SharedClusterAS = 7;
/// L2 fetch granularity of the tensor maps (bytes).
constexpr uint32_t TensorMapL2Promotion = 128;

/// The index in K.Captures of \p Buf, or -1.
int findCapture(const KernelEmission &K, const BufferValue *Buf) {
  for (unsigned I = 0; I != K.Captures.size(); ++I)
    if (K.Captures[I].V == Buf)
      return int(I);
  return -1;
}

/// The map \p Op (a cuda.tma_load) reads through, described from the op.
std::optional<ArtifactTensorMap> describeMap(const KernelEmission &K,
                                             const OpStmt &Op) {
  const BufferValue *Buf = Op.getOperand("tensor").R.Buf;
  int Cap = findCapture(K, Buf);
  if (Cap < 0)
    return std::nullopt;
  ArtifactTensorMap M;
  M.Tensor = unsigned(Cap);
  M.Name = Buf->getName().str();
  std::tie(M.TypeCode, M.Bits) = getDLPackType(Buf->getDType());
  // One element deep in the leading dimensions of a rank 3 to 5 tensor.
  M.Box.assign(Buf->getRank() - 2, 1);
  M.Box.push_back(uint32_t(Op.getAttrOrDefault("box_rows").getInt()));
  M.Box.push_back(uint32_t(Op.getAttrOrDefault("box_cols").getInt()));
  M.Swizzle = uint32_t(Op.getAttrOrDefault("swizzle").getInt());
  M.L2Promotion = TensorMapL2Promotion;
  M.Optional = Op.getAttrOrDefault("optional").getBool();
  return M;
}

bool sameMap(const ArtifactTensorMap &A, const ArtifactTensorMap &B) {
  return A.Tensor == B.Tensor && A.Box == B.Box && A.Swizzle == B.Swizzle &&
         A.Optional == B.Optional && A.L2Promotion == B.L2Promotion &&
         A.NaNFill == B.NaNFill;
}

/// The tensor map argument \p Op reads through.
llvm::Expected<llvm::Value *> getTensorMapArg(const KernelEmission &K,
                                              const OpStmt &Op) {
  std::optional<ArtifactTensorMap> Want = describeMap(K, Op);
  if (Want)
    for (const ArtifactTensorMap &M : K.TensorMaps)
      if (sameMap(M, *Want))
        return K.Fn->getArg(M.Arg);
  return llvm::createStringError(
      "'cuda.tma_load': no tensor map argument of the kernel describes %" +
      Op.getOperand("tensor").R.Buf->getName() +
      " (it must be a tensor the kernel takes as an argument)");
}

/// Fails unless the shared address \p Addr of \p Op's operand \p What is
/// provably a multiple of \p Align bytes (the dynamic shared memory
/// itself is aligned to 1024 bytes, as the wgmma operands also need).
llvm::Error checkSharedAlign(llvm::IRBuilder<> &B, llvm::Value *Addr,
                             const OpStmt &Op, llvm::StringRef What,
                             uint64_t Align, llvm::StringRef Why) {
  llvm::Module &M = *B.GetInsertBlock()->getModule();
  if (llvm::GlobalVariable *G = M.getGlobalVariable("__tile_smem"))
    if (G->getAlign().valueOrOne().value() < uint64_t(hopper::StageAlign))
      G->setAlignment(llvm::Align(hopper::StageAlign));
  llvm::KnownBits Known = llvm::computeKnownBits(Addr, M.getDataLayout());
  uint64_t Proven = Known.countMinTrailingZeros() >= 63
                        ? uint64_t(1) << 63
                        : uint64_t(1) << Known.countMinTrailingZeros();
  if (Proven >= Align)
    return llvm::Error::success();
  return llvm::createStringError(
      "'" + Op.getName() + "': the shared " + What + " is not provably " +
      std::to_string(Align) + "-byte aligned (" + Why.str() +
      "); its proven alignment is " + std::to_string(Proven) + " bytes");
}

llvm::Error emitTmaLoad(llvm::IRBuilder<> &B, KernelEmission &K, const OpStmt &Op,
                        llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::Expected<llvm::Value *> Map = getTensorMapArg(K, Op);
  if (!Map)
    return Map.takeError();
  bool Swizzled = Op.getAttrOrDefault("swizzle").getInt() != 0;
  if (llvm::Error E = checkSharedAlign(
          B, Operands[3], Op, "destination", Swizzled ? 1024 : 128,
          Swizzled ? "the swizzle pattern follows the address bits"
                   : "bulk tensor copies write 128-byte aligned boxes"))
    return E;
  if (llvm::Error E = checkSharedAlign(B, Operands[4], Op, "mbarrier", 8,
                                       "an mbarrier is 64 bits"))
    return E;
  llvm::Value *Dst = B.CreateAddrSpaceCast(
      Operands[3], llvm::PointerType::get(B.getContext(), SharedClusterAS));
  llvm::Value *Row = B.CreateSExtOrTrunc(Operands[1], B.getInt32Ty());
  llvm::Value *Col = B.CreateSExtOrTrunc(Operands[2], B.getInt32Ty());
  // Coordinates innermost first: column, row, then the leading indices of
  // a rank 3 to 5 tensor from the innermost out.
  std::vector<llvm::Value *> Args = {Dst, Operands[4], *Map, Col, Row};
  const Region &T = Op.getOperand("tensor").R;
  unsigned Rank = T.Buf->getRank();
  for (unsigned D = Rank - 2; D-- > 0;)
    Args.push_back(B.CreateSExtOrTrunc(K.EmitExpr(*T.Indices[D].Offset), B.getInt32Ty()));
  // No multicast, no cache hint, no CTA group (sm_100's cta_group::1/2).
  for (llvm::Value *V : {static_cast<llvm::Value *>(B.getInt16(0)),
                         static_cast<llvm::Value *>(B.getInt64(0)),
                         static_cast<llvm::Value *>(B.getFalse()),
                         static_cast<llvm::Value *>(B.getFalse()),
                         static_cast<llvm::Value *>(B.getInt32(0))})
    Args.push_back(V);
  static const llvm::Intrinsic::ID ByRank[] = {
      llvm::Intrinsic::nvvm_cp_async_bulk_tensor_g2s_tile_2d,
      llvm::Intrinsic::nvvm_cp_async_bulk_tensor_g2s_tile_3d,
      llvm::Intrinsic::nvvm_cp_async_bulk_tensor_g2s_tile_4d,
      llvm::Intrinsic::nvvm_cp_async_bulk_tensor_g2s_tile_5d};
  B.CreateIntrinsic(ByRank[Rank - 2], {}, Args);
  return llvm::Error::success();
}

/// `while (!mbarrier.try_wait.parity(bar, phase)) {}`
void emitMbarrierWait(llvm::IRBuilder<> &B, llvm::Value *Bar, llvm::Value *Phase) {
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext &C = B.getContext();
  llvm::Value *Parity =
      B.CreateAnd(B.CreateZExtOrTrunc(Phase, B.getInt32Ty()), B.getInt32(1));
  auto *Loop = llvm::BasicBlock::Create(C, "mbar.wait", F);
  auto *Done = llvm::BasicBlock::Create(C, "mbar.done", F);
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  llvm::Value *Ok = B.CreateIntrinsic(
      llvm::Intrinsic::nvvm_mbarrier_try_wait_parity_scope_cta_space_cta, {},
      {Bar, Parity});
  B.CreateCondBr(Ok, Done, Loop);
  B.SetInsertPoint(Done);
}

/// Lane 0 of the warp arrives on \p Bar, as one predicated instruction.
void emitArrivePerWarp(llvm::IRBuilder<> &B, llvm::Value *Bar) {
  auto *FT = llvm::FunctionType::get(B.getVoidTy(), {B.getInt64Ty()}, false);
  llvm::InlineAsm *IA = llvm::InlineAsm::get(
      FT,
      "{\n.reg .pred p;\n.reg .b32 l;\n.reg .b64 s;\nmov.u32 l, %laneid;\n"
      "setp.eq.u32 p, l, 0;\n@p mbarrier.arrive.shared.b64 s, [$0];\n}",
      "l,~{memory}", /*hasSideEffects=*/true);
  B.CreateCall(FT, IA, {B.CreatePtrToInt(Bar, B.getInt64Ty())});
}

} // namespace

void tile::collectTensorMaps(KernelEmission &K) {
  K.TensorMaps.clear();
  walkStmts(K.Kernel->getBody(), [&](const Stmt &S) {
    const auto *Op = llvm::dyn_cast<OpStmt>(&S);
    if (!Op || Op->getName() != "cuda.tma_load")
      return;
    std::optional<ArtifactTensorMap> M = describeMap(K, *Op);
    if (!M)
      return; // reported when the op is emitted
    for (const ArtifactTensorMap &Have : K.TensorMaps)
      if (sameMap(Have, *M))
        return;
    M->Arg = unsigned(K.Captures.size() + K.TensorMaps.size());
    K.TensorMaps.push_back(std::move(*M));
  });
}

llvm::Type *tile::getTensorMapArgType(llvm::LLVMContext &C) {
  return llvm::PointerType::get(C, 0);
}

void tile::addTensorMapParamAttrs(llvm::Function &F, unsigned ArgNo) {
  llvm::LLVMContext &C = F.getContext();
  F.addParamAttr(ArgNo, llvm::Attribute::getWithByValType(
                            C, llvm::ArrayType::get(llvm::Type::getInt8Ty(C),
                                                    ArtifactTensorMap::Bytes)));
  F.addParamAttr(ArgNo, llvm::Attribute::getWithAlignment(C, llvm::Align(64)));
  F.addParamAttr(ArgNo, llvm::Attribute::get(C, "nvvm.grid_constant"));
}

bool tile::kernelUsesSetmaxnreg(const KernelStmt &K) {
  bool Found = false;
  walkStmts(K.getBody(), [&](const Stmt &S) {
    if (const auto *Op = llvm::dyn_cast<OpStmt>(&S))
      Found |= Op->getName() == "cuda.setmaxnreg";
  });
  return Found;
}

llvm::Expected<bool> tile::emitNVPTXTMAOp(llvm::IRBuilder<> &B,
                                          KernelEmission &K, const OpStmt &Op,
                                          llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::StringRef Name = Op.getName();
  if (Name == "cuda.tma_load") {
    if (llvm::Error E = emitTmaLoad(B, K, Op, Operands))
      return std::move(E);
  } else if (Name == "cuda.mbarrier_init") {
    if (llvm::Error E = checkSharedAlign(B, Operands[0], Op, "mbarrier", 8,
                                         "an mbarrier is 64 bits"))
      return std::move(E);
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_mbarrier_init_shared, {},
                      {Operands[0], B.CreateZExtOrTrunc(Operands[1], B.getInt32Ty())});
  } else if (Name == "cuda.mbarrier_arrive") {
    int64_t Tx = Op.getAttrOrDefault("tx_bytes").getInt();
    if (Op.getAttrOrDefault("per_warp").getBool())
      emitArrivePerWarp(B, Operands[0]);
    else if (Tx)
      B.CreateIntrinsic(
          llvm::Intrinsic::nvvm_mbarrier_arrive_expect_tx_scope_cta_space_cta, {},
          {Operands[0], B.getInt32(int32_t(Tx))});
    else
      B.CreateIntrinsic(llvm::Intrinsic::nvvm_mbarrier_arrive_shared, {},
                        {Operands[0]});
  } else if (Name == "cuda.mbarrier_wait") {
    emitMbarrierWait(B, Operands[0], Operands[1]);
  } else if (Name == "cuda.ldgsts_arrive") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_mbarrier_arrive_noinc_shared,
                      {}, {Operands[0]});
  } else if (Name == "cuda.fence_mbarrier_init") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_fence_mbarrier_init_release_cluster, {});
  } else if (Name == "cuda.bar_sync" || Name == "cuda.bar_arrive") {
    B.CreateIntrinsic(Name == "cuda.bar_sync"
                          ? llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_count
                          : llvm::Intrinsic::nvvm_barrier_cta_arrive_aligned_count,
                      {},
                      {B.CreateZExtOrTrunc(Operands[0], B.getInt32Ty()),
                       B.getInt32(int32_t(Op.getAttrOrDefault("threads").getInt()))});
  } else if (Name == "cuda.setmaxnreg") {
    int64_t Threads = K.Kernel->getThreads()->getConstInt().value_or(0);
    if (Threads <= 0 || Threads % hopper::WarpgroupSize != 0)
      return llvm::createStringError(
          "'cuda.setmaxnreg' is executed by whole warpgroups of 128 threads, "
          "but the kernel has " +
          (Threads > 0 ? std::to_string(Threads) : std::string("a variable number of")) +
          " threads");
    bool Inc = Op.getAttrOrDefault("action").getStr() == "inc";
    B.CreateIntrinsic(Inc ? llvm::Intrinsic::nvvm_setmaxnreg_inc_sync_aligned_u32
                          : llvm::Intrinsic::nvvm_setmaxnreg_dec_sync_aligned_u32,
                      {}, {B.getInt32(int32_t(Op.getAttrOrDefault("count").getInt()))});
  } else {
    return false;
  }
  return true;
}
