//===- NVPTXHopperOps.cpp - LLVM IR for the cuda dialect's Hopper ops -----===//
//
// The per-thread ops hopper-lower-gemm-wgmma produces, as NVVM intrinsics
// where LLVM 22 has them (wgmma fence/commit/wait, cp.async, proxy fence)
// and inline PTX for wgmma.mma_async, which has no intrinsic: its N/2 f32
// accumulators are tied in/out operands, loaded from and stored back to the
// thread's local array at constant offsets so that SROA keeps them in
// registers. Matrix descriptors are built here from the shared addresses
// and the layout attributes (WGMMALayout.h).
//
//===----------------------------------------------------------------------===//

#include "NVPTXHopperOps.h"
#include "WGMMALayout.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

using namespace tile;

namespace {

/// The shared-memory tile base \p Base must sit at a multiple of
/// hopper::StageAlign in the kernel's dynamic shared memory, which is
/// itself aligned that much.
llvm::Error checkSharedBase(llvm::IRBuilder<> &B, llvm::Value *Base,
                            const OpStmt &Op) {
  llvm::Module &M = *B.GetInsertBlock()->getModule();
  llvm::APInt Off(64, 0);
  const llvm::Value *Root =
      Base->stripAndAccumulateConstantOffsets(M.getDataLayout(), Off, true);
  llvm::GlobalVariable *G = M.getGlobalVariable("__tile_smem");
  if (!G || Root != G ||
      Off.getZExtValue() % hopper::StageAlign != 0)
    return llvm::createStringError(
        "'" + Op.getName() + "': shared operand is not at a constant " +
        std::to_string(hopper::StageAlign) + "-byte aligned offset of the "
        "kernel's shared memory");
  if (G->getAlign().valueOrOne().value() < uint64_t(hopper::StageAlign))
    G->setAlignment(llvm::Align(hopper::StageAlign));
  return llvm::Error::success();
}

/// The terms of the sum \p Off that are each a multiple of 16 bytes (the
/// stage's offset, the k-step's), into \p Terms.
void offsetTerms(llvm::Value *Off, const llvm::DataLayout &DL,
                 llvm::SmallVectorImpl<llvm::Value *> &Terms) {
  auto *Add = llvm::dyn_cast<llvm::BinaryOperator>(Off);
  if (Add && Add->getOpcode() == llvm::Instruction::Add &&
      llvm::all_of(Add->operands(), [&](llvm::Value *T) {
        return llvm::computeKnownBits(T, DL).countMinTrailingZeros() >= 4;
      })) {
    offsetTerms(Add->getOperand(0), DL, Terms);
    offsetTerms(Add->getOperand(1), DL, Terms);
    return;
  }
  Terms.push_back(Off);
}

/// A wgmma matrix descriptor for the tile at \p Base + \p Off bytes: the
/// start address field (bits 0-13) is the address / 16, here Base / 16 +
/// Off / 16 (Base is 1024-byte aligned, checkSharedBase) added to the
/// descriptor of Base. The field takes the sum without a carry, a shared
/// address being below 2^18 (228 KiB on sm_90). Base's descriptor is the
/// same for every k-step and stage. Off / 16 is added as the sum of its
/// terms / 16 in 64 bits (exact: each term is a multiple of 16, and index
/// arithmetic does not overflow), so that once the k-step loops are
/// unrolled each k-step's descriptor is the stage's plus an immediate,
/// one add; from the 32-bit Off, LLVM turned stage + constant into an
/// or that it cannot move past the zero extension, an or, a cvt and an
/// add for each wgmma of a K-major B.
llvm::Value *descriptor(llvm::IRBuilder<> &B, llvm::Value *Base, llvm::Value *Off,
                        int64_t LBO, int64_t SBO, int64_t Swizzle) {
  llvm::Value *Start = B.CreateLShr(B.CreatePtrToInt(Base, B.getInt32Ty()), 4);
  llvm::Value *Desc = B.CreateOr(B.CreateZExt(Start, B.getInt64Ty()),
                                 B.getInt64(hopper::descriptorFields(LBO, SBO, Swizzle)));
  llvm::SmallVector<llvm::Value *, 4> Terms;
  offsetTerms(Off, B.GetInsertBlock()->getModule()->getDataLayout(), Terms);
  if (Terms.size() == 1) {
    llvm::Value *Rel = B.CreateLShr(B.CreateZExtOrTrunc(Off, B.getInt32Ty()), 4);
    return B.CreateAdd(Desc, B.CreateZExt(Rel, B.getInt64Ty()));
  }
  for (llvm::Value *T : Terms)
    Desc = B.CreateAdd(Desc, B.CreateSExtOrTrunc(B.CreateAShr(T, 4, "", /*isExact=*/true),
                                                 B.getInt64Ty()));
  return Desc;
}

/// cuda.wgmma_mma (A from a descriptor) and cuda.wgmma_mma_rs (A from four
/// registers of two 16-bit elements each).
llvm::Error emitWgmmaMma(llvm::IRBuilder<> &B, const OpStmt &Op,
                         llvm::ArrayRef<llvm::Value *> Operands) {
  bool ARegs = Op.getName() == "cuda.wgmma_mma_rs";
  for (unsigned I : {0u, 1u})
    if (I == 1 || !ARegs)
      if (llvm::Error E = checkSharedBase(B, Operands[I], Op))
        return E;
  auto Int = [&](llvm::StringRef Name) { return Op.getAttrOrDefault(Name).getInt(); };
  int64_t N = Int("n"), Regs = N / 2;
  bool BF16 = Op.getOperand("a").R.Buf->getDType() == DType::BF16;
  llvm::Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  std::vector<llvm::Type *> InTys;
  std::vector<llvm::Value *> Args;
  std::string AOperand;
  if (ARegs) {
    // Elements 2r and 2r + 1 form register r.
    llvm::Type *ElTy = BF16 ? B.getBFloatTy() : B.getHalfTy();
    auto *Pair = llvm::FixedVectorType::get(ElTy, 2);
    AOperand = "{";
    for (unsigned R = 0; R != 4; ++R) {
      llvm::Value *V = llvm::PoisonValue::get(Pair);
      for (unsigned H = 0; H != 2; ++H)
        V = B.CreateInsertElement(
            V,
            B.CreateAlignedLoad(ElTy, B.CreateConstInBoundsGEP1_64(ElTy, Operands[0], 2 * R + H),
                                llvm::Align(2)),
            uint64_t(H));
      InTys.push_back(I32);
      Args.push_back(B.CreateBitCast(V, I32));
      AOperand += (R ? ", $" : "$") + std::to_string(Regs + R);
    }
    AOperand += "}";
  } else {
    InTys.push_back(I64);
    Args.push_back(descriptor(B, Operands[0], Operands[3], Int("lbo_a"),
                              Int("sbo_a"), Int("swizzle_a")));
    AOperand = "$" + std::to_string(Regs);
  }
  unsigned BIdx = Regs + unsigned(Args.size());
  InTys.push_back(I64);
  Args.push_back(descriptor(B, Operands[1], Operands[ARegs ? 3 : 4], Int("lbo_b"),
                            Int("sbo_b"), Int("swizzle_b")));
  // scale-d is a constant: an immediate operand ("n"), so that no mov.b32
  // materializes it before every wgmma of the loop.
  InTys.push_back(I32);
  Args.push_back(B.getInt32(Op.getAttrOrDefault("zero_c").getBool() ? 0 : 1));
  // { .reg .pred p; setp.ne.b32 p, scale-d, 0;
  //   wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {d...}, a, db, p,
  //       1, 1[, trans-a], trans-b; }
  std::string T = BF16 ? "bf16" : "f16";
  std::string Asm = "{\n.reg .pred p;\nsetp.ne.b32 p, $" +
                    std::to_string(BIdx + 1) + ", 0;\n" +
                    "wgmma.mma_async.sync.aligned.m64n" + std::to_string(N) +
                    "k16.f32." + T + "." + T + " {";
  std::string Cons;
  for (int64_t I = 0; I != Regs; ++I) {
    Asm += (I ? ", $" : "$") + std::to_string(I);
    Cons += "=f,";
  }
  Asm += "}, " + AOperand + ", $" + std::to_string(BIdx) + ", p, 1, 1, ";
  if (!ARegs)
    Asm += std::string(Op.getAttrOrDefault("mn_major_a").getBool() ? "1" : "0") + ", ";
  Asm += std::string(Op.getAttrOrDefault("mn_major_b").getBool() ? "1" : "0") + ";\n}";
  Cons += ARegs ? "r,r,r,r,l,n" : "l,l,n";
  for (int64_t I = 0; I != Regs; ++I)
    Cons += "," + std::to_string(I);
  Cons += ",~{memory}";
  llvm::Type *F32 = B.getFloatTy();
  std::vector<llvm::Type *> OutTys(Regs, F32);
  llvm::StructType *RetTy = llvm::StructType::get(B.getContext(), OutTys);
  llvm::Value *Acc = Operands[2];
  for (int64_t I = 0; I != Regs; ++I) {
    InTys.push_back(F32);
    Args.push_back(B.CreateAlignedLoad(
        F32, B.CreateConstInBoundsGEP1_64(F32, Acc, I), llvm::Align(4)));
  }
  auto *FT = llvm::FunctionType::get(RetTy, InTys, false);
  if (llvm::Error E = llvm::InlineAsm::verify(FT, Cons))
    return E;
  llvm::InlineAsm *IA = llvm::InlineAsm::get(FT, Asm, Cons, /*hasSideEffects=*/true);
  llvm::Value *R = B.CreateCall(FT, IA, Args);
  for (int64_t I = 0; I != Regs; ++I)
    B.CreateAlignedStore(B.CreateExtractValue(R, unsigned(I)),
                         B.CreateConstInBoundsGEP1_64(F32, Acc, I), llvm::Align(4));
  return llvm::Error::success();
}

/// cp.async.cg 16 bytes with src-size when the source is 16-byte aligned;
/// otherwise element by element (loads only below the count, zeros after).
/// A `full` chunk is tested through the tensor's start (the object the
/// address is computed from), which LLVM hoists out of loops, and copied
/// without src-size.
llvm::Error emitLdgsts(llvm::IRBuilder<> &B, const OpStmt &Op,
                       llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::Value *Src = Operands[0], *Dst = Operands[1];
  DType Ty = Op.getOperand("src").R.Buf->getDType();
  int64_t E = getDTypeBits(Ty) / 8, Elems = hopper::ChunkBytes / E;
  bool Full = Op.getAttrOrDefault("full").getBool();
  llvm::Value *Count = Full ? B.getInt32(int32_t(Elems))
                            : B.CreateZExtOrTrunc(Operands[2], B.getInt32Ty());
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext &C = B.getContext();
  llvm::Value *Tested = Full ? llvm::getUnderlyingObject(Src, /*MaxLookup=*/0) : Src;
  llvm::Value *Aligned = B.CreateICmpEQ(
      B.CreateAnd(B.CreatePtrToInt(Tested, B.getInt64Ty()), B.getInt64(15)),
      B.getInt64(0));
  auto *Fast = llvm::BasicBlock::Create(C, "ldgsts.fast", F);
  auto *Slow = llvm::BasicBlock::Create(C, "ldgsts.slow", F);
  auto *Done = llvm::BasicBlock::Create(C, "ldgsts.done", F);
  B.CreateCondBr(Aligned, Fast, Slow);
  B.SetInsertPoint(Fast);
  if (Full)
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16, {},
                      {Dst, Src});
  else
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s, {},
                      {Dst, Src, B.CreateMul(Count, B.getInt32(E))});
  B.CreateBr(Done);
  B.SetInsertPoint(Slow);
  llvm::Type *ElTy = B.getIntNTy(unsigned(E * 8));
  for (int64_t I = 0; I != Elems; ++I) {
    auto *Load = llvm::BasicBlock::Create(C, "ldgsts.elem", F);
    auto *Store = llvm::BasicBlock::Create(C, "ldgsts.store", F);
    llvm::BasicBlock *From = B.GetInsertBlock();
    B.CreateCondBr(B.CreateICmpSLT(B.getInt32(int32_t(I)), Count), Load, Store);
    B.SetInsertPoint(Load);
    llvm::Value *V = B.CreateAlignedLoad(
        ElTy, B.CreateConstInBoundsGEP1_64(ElTy, Src, I), llvm::Align(E));
    B.CreateBr(Store);
    B.SetInsertPoint(Store);
    llvm::PHINode *Phi = B.CreatePHI(ElTy, 2);
    Phi->addIncoming(V, Load);
    Phi->addIncoming(llvm::ConstantInt::get(ElTy, 0), From);
    B.CreateAlignedStore(Phi, B.CreateConstInBoundsGEP1_64(ElTy, Dst, I),
                         llvm::Align(E));
  }
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  return llvm::Error::success();
}

/// Passes every accumulator through an empty volatile asm: after a
/// wgmma.wait_group, later reads use its results, so LLVM cannot hoist them
/// above the wait into the window where a wgmma still writes the registers;
/// before a wgmma.fence, every write of them (the zeros of a clear, copies)
/// is done before the fence rather than between two wgmmas. ptxas answers
/// either by serializing the wgmmas (C7514, C7515).
void fenceAccumulators(llvm::IRBuilder<> &B, const OpStmt &Op, llvm::Value *Acc) {
  const BufferValue &Buf = *Op.getOperand("acc").R.Buf;
  std::optional<std::vector<int64_t>> Shape = Buf.getConstShape();
  int64_t N = 1;
  for (int64_t D : *Shape)
    N *= D;
  if (Buf.getDType() == DType::F32) {
    llvm::Type *F32 = B.getFloatTy();
    auto *FT = llvm::FunctionType::get(F32, {F32}, false);
    llvm::InlineAsm *IA = llvm::InlineAsm::get(FT, "", "=f,0", true);
    for (int64_t I = 0; I != N; ++I) {
      llvm::Value *P = B.CreateConstInBoundsGEP1_64(F32, Acc, I);
      llvm::Value *V = B.CreateAlignedLoad(F32, P, llvm::Align(4));
      B.CreateAlignedStore(B.CreateCall(FT, IA, {V}), P, llvm::Align(4));
    }
    return;
  }
  // 16-bit A elements go through in the pairs wgmma reads as one 32-bit
  // register, so that the packing is done before the fence too.
  llvm::Type *ElTy = Buf.getDType() == DType::F16 ? B.getHalfTy() : B.getBFloatTy();
  auto *Pair = llvm::FixedVectorType::get(ElTy, 2);
  llvm::Type *I32 = B.getInt32Ty();
  auto *FT = llvm::FunctionType::get(I32, {I32}, false);
  llvm::InlineAsm *IA = llvm::InlineAsm::get(FT, "", "=r,0", true);
  for (int64_t I = 0; I + 1 < N; I += 2) {
    llvm::Value *V = llvm::PoisonValue::get(Pair);
    for (unsigned H = 0; H != 2; ++H)
      V = B.CreateInsertElement(
          V,
          B.CreateAlignedLoad(ElTy, B.CreateConstInBoundsGEP1_64(ElTy, Acc, I + H),
                              llvm::Align(2)),
          uint64_t(H));
    llvm::Value *R = B.CreateBitCast(B.CreateCall(FT, IA, {B.CreateBitCast(V, I32)}), Pair);
    for (unsigned H = 0; H != 2; ++H)
      B.CreateAlignedStore(B.CreateExtractElement(R, uint64_t(H)),
                           B.CreateConstInBoundsGEP1_64(ElTy, Acc, I + H),
                           llvm::Align(2));
  }
}

} // namespace

llvm::Expected<bool> tile::emitNVPTXHopperOp(llvm::IRBuilder<> &B,
                                             const OpStmt &Op,
                                             llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::StringRef Name = Op.getName();
  auto Pending = [&](llvm::Type *Ty) {
    return llvm::ConstantInt::get(Ty, Op.getAttrOrDefault("pending").getInt());
  };
  if (Name == "cuda.wgmma_mma" || Name == "cuda.wgmma_mma_rs") {
    if (llvm::Error E = emitWgmmaMma(B, Op, Operands))
      return std::move(E);
  } else if (Name == "cuda.wgmma_fence") {
    fenceAccumulators(B, Op, Operands[0]);
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_wgmma_fence_sync_aligned, {});
  } else if (Name == "cuda.wgmma_commit") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_wgmma_commit_group_sync_aligned, {});
  } else if (Name == "cuda.wgmma_wait") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_wgmma_wait_group_sync_aligned, {},
                      {Pending(B.getInt64Ty())});
    fenceAccumulators(B, Op, Operands[0]);
  } else if (Name == "cuda.ldgsts") {
    if (llvm::Error E = emitLdgsts(B, Op, Operands))
      return std::move(E);
  } else if (Name == "cuda.ldgsts_commit") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_commit_group, {});
  } else if (Name == "cuda.ldgsts_wait") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_cp_async_wait_group, {},
                      {Pending(B.getInt32Ty())});
  } else if (Name == "cuda.fence_proxy_async") {
    B.CreateIntrinsic(llvm::Intrinsic::nvvm_fence_proxy_async_shared_cta, {});
  } else {
    return false;
  }
  return true;
}
