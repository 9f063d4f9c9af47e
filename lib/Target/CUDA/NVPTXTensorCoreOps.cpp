//===- NVPTXTensorCoreOps.cpp - LLVM IR for the per-thread cuda ops -------===//
//
// cuda.ldmatrix   -> llvm.nvvm.ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].b16
// cuda.mma_sync   -> llvm.nvvm.mma.m16n8k16.row.col.{f32.f32 (f16), bf16}
// cuda.cp_async   -> llvm.nvvm.cp.async.cg.shared.global.16[.s]
// cuda.cp_async_commit / _wait -> llvm.nvvm.cp.async.{commit,wait}.group
// cuda.store_pair -> one <2 x T> store
//
// Register operands are the thread's local arrays: the values are loaded
// from and stored to them as 32-bit words (two b16 elements each), which
// SROA turns into registers once every index is a constant.
//
//===----------------------------------------------------------------------===//

#include "NVPTXTensorCoreOps.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace tile {

bool isNVPTXTensorCoreOp(llvm::StringRef Name) {
  return Name == "cuda.ldmatrix" || Name == "cuda.mma_sync" ||
         Name == "cuda.cp_async" || Name == "cuda.cp_async_commit" ||
         Name == "cuda.cp_async_wait" || Name == "cuda.store_pair" ||
         Name == "cuda.store_if";
}

namespace {

/// \p P as a pointer in address space \p AS.
llvm::Value *inAddrSpace(llvm::IRBuilder<> &B, llvm::Value *P, unsigned AS) {
  if (P->getType()->getPointerAddressSpace() == AS)
    return P;
  return B.CreateAddrSpaceCast(P, llvm::PointerType::get(B.getContext(), AS));
}

/// Word \p I (32 bits) of the register array at \p Base.
llvm::Value *wordAddr(llvm::IRBuilder<> &B, llvm::Value *Base, unsigned I) {
  return B.CreateConstInBoundsGEP1_64(B.getInt32Ty(), Base, I);
}

llvm::Value *loadWord(llvm::IRBuilder<> &B, llvm::Value *Base, unsigned I) {
  return B.CreateAlignedLoad(B.getInt32Ty(), wordAddr(B, Base, I), llvm::Align(4));
}

/// Calls \p ID (overloaded on \p Tys), casting pointer arguments to the
/// address spaces it takes.
llvm::CallInst *callIntrinsic(llvm::IRBuilder<> &B, llvm::Intrinsic::ID ID,
                              llvm::SmallVector<llvm::Value *> Args,
                              llvm::ArrayRef<llvm::Type *> Tys = {}) {
  llvm::Module *M = B.GetInsertBlock()->getModule();
  llvm::Function *F = llvm::Intrinsic::getOrInsertDeclaration(M, ID, Tys);
  llvm::FunctionType *FT = F->getFunctionType();
  for (unsigned I = 0; I != Args.size(); ++I)
    if (auto *PT = llvm::dyn_cast<llvm::PointerType>(FT->getParamType(I)))
      Args[I] = inAddrSpace(B, Args[I], PT->getAddressSpace());
  return B.CreateCall(F, Args);
}

void emitLdmatrix(llvm::IRBuilder<> &B, const OpStmt &Op,
                  llvm::ArrayRef<llvm::Value *> Operands) {
  Attribute NumAttr = Op.getAttrOrDefault("num");
  llvm::StringRef Num = NumAttr.getStr();
  bool Trans = Op.getAttrOrDefault("trans").getBool();
  using namespace llvm::Intrinsic;
  ID Id;
  unsigned N;
  if (Num == "x1") {
    Id = Trans ? nvvm_ldmatrix_sync_aligned_m8n8_x1_trans_b16
               : nvvm_ldmatrix_sync_aligned_m8n8_x1_b16;
    N = 1;
  } else if (Num == "x2") {
    Id = Trans ? nvvm_ldmatrix_sync_aligned_m8n8_x2_trans_b16
               : nvvm_ldmatrix_sync_aligned_m8n8_x2_b16;
    N = 2;
  } else {
    Id = Trans ? nvvm_ldmatrix_sync_aligned_m8n8_x4_trans_b16
               : nvvm_ldmatrix_sync_aligned_m8n8_x4_b16;
    N = 4;
  }
  // Overloaded on the pointer: a shared-memory address.
  llvm::Value *Src = inAddrSpace(B, Operands[0], 3);
  llvm::CallInst *R = callIntrinsic(B, Id, {Src}, {Src->getType()});
  for (unsigned I = 0; I != N; ++I) {
    llvm::Value *W = N == 1 ? static_cast<llvm::Value *>(R)
                            : B.CreateExtractValue(R, I);
    B.CreateAlignedStore(W, wordAddr(B, Operands[1], I), llvm::Align(4));
  }
}

void emitMmaSync(llvm::IRBuilder<> &B, const OpStmt &Op,
                 llvm::ArrayRef<llvm::Value *> Operands) {
  bool BF16 = Op.getOperand("a").R.Buf->getDType() == DType::BF16;
  // The f16 form takes <2 x half> words, the bf16 form i32 words.
  llvm::Type *HalfPair = llvm::FixedVectorType::get(B.getHalfTy(), 2);
  auto Word = [&](unsigned Opnd, unsigned I) {
    llvm::Value *W = loadWord(B, Operands[Opnd], I);
    return BF16 ? W : B.CreateBitCast(W, HalfPair);
  };
  llvm::SmallVector<llvm::Value *> Args;
  for (unsigned I = 0; I != 4; ++I)
    Args.push_back(Word(0, I));
  for (unsigned I = 0; I != 2; ++I)
    Args.push_back(Word(1, I));
  llvm::Value *C = Operands[2];
  for (unsigned I = 0; I != 4; ++I)
    Args.push_back(B.CreateAlignedLoad(
        B.getFloatTy(), B.CreateConstInBoundsGEP1_64(B.getFloatTy(), C, I),
        llvm::Align(4)));
  llvm::CallInst *D = callIntrinsic(
      B,
      BF16 ? llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_bf16
           : llvm::Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32,
      Args);
  for (unsigned I = 0; I != 4; ++I)
    B.CreateAlignedStore(B.CreateExtractValue(D, I),
                         B.CreateConstInBoundsGEP1_64(B.getFloatTy(), C, I),
                         llvm::Align(4));
}

/// Whether \p P is a multiple of \p Align bytes.
llvm::Value *isAligned(llvm::IRBuilder<> &B, llvm::Value *P, uint64_t Align) {
  llvm::Value *Addr = B.CreatePtrToInt(P, B.getInt64Ty());
  return B.CreateICmpEQ(B.CreateAnd(Addr, B.getInt64(Align - 1)), B.getInt64(0));
}

/// Emits Then() where \p Cond holds and Else() elsewhere, then continues
/// after both.
void emitIfElse(llvm::IRBuilder<> &B, llvm::Value *Cond,
                llvm::function_ref<void()> Then, llvm::function_ref<void()> Else) {
  llvm::Function *F = B.GetInsertBlock()->getParent();
  llvm::LLVMContext &C = B.getContext();
  auto *T = llvm::BasicBlock::Create(C, "aligned", F);
  auto *E = llvm::BasicBlock::Create(C, "unaligned", F);
  auto *M = llvm::BasicBlock::Create(C, "aligned.end", F);
  B.CreateCondBr(Cond, T, E);
  B.SetInsertPoint(T);
  Then();
  B.CreateBr(M);
  B.SetInsertPoint(E);
  Else();
  B.CreateBr(M);
  B.SetInsertPoint(M);
}

void emitCpAsync(llvm::IRBuilder<> &B, const OpStmt &Op,
                 llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::Value *Src = Operands[0], *Dst = Operands[1];
  llvm::Value *Bytes = B.CreateIntCast(Operands[2], B.getInt32Ty(), false);
  auto Async = [&] {
    auto *C = llvm::dyn_cast<llvm::ConstantInt>(Bytes);
    if (C && C->getZExtValue() == 16)
      callIntrinsic(B, llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16, {Dst, Src});
    else
      callIntrinsic(B, llvm::Intrinsic::nvvm_cp_async_cg_shared_global_16_s,
                    {Dst, Src, Bytes});
  };
  // A source that is not 16-byte aligned (a tensor whose data starts
  // inside an allocation) is copied element by element, synchronously,
  // with the same zero fill.
  auto Sync = [&] {
    llvm::LLVMContext &Ctx = B.getContext();
    llvm::Type *ElemTy = getLLVMMemType(Ctx, Op.getOperand("src").R.Buf->getDType());
    const llvm::DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
    uint64_t Size = DL.getTypeAllocSize(ElemTy).getFixedValue();
    for (uint64_t I = 0; I * Size < 16; ++I) {
      llvm::Value *In = B.CreateICmpULT(B.getInt32(I * Size), Bytes);
      llvm::Value *V = llvm::Constant::getNullValue(ElemTy);
      llvm::BasicBlock *Before = B.GetInsertBlock();
      llvm::Function *F = Before->getParent();
      auto *Load = llvm::BasicBlock::Create(Ctx, "cp.elem", F);
      auto *Join = llvm::BasicBlock::Create(Ctx, "cp.elem.end", F);
      B.CreateCondBr(In, Load, Join);
      B.SetInsertPoint(Load);
      llvm::Value *L = B.CreateAlignedLoad(
          ElemTy, B.CreateConstInBoundsGEP1_64(ElemTy, Src, I), llvm::Align(Size));
      B.CreateBr(Join);
      B.SetInsertPoint(Join);
      llvm::PHINode *Phi = B.CreatePHI(ElemTy, 2);
      Phi->addIncoming(V, Before);
      Phi->addIncoming(L, Load);
      B.CreateAlignedStore(Phi, B.CreateConstInBoundsGEP1_64(ElemTy, Dst, I),
                           llvm::Align(Size));
    }
  };
  emitIfElse(B, isAligned(B, Src, 16), Async, Sync);
}

/// The first \p N elements at \p Src (\p Op's `src`), each converted to
/// the element type of \p Op's `dst` (cuda.store_pair, cuda.store_if).
llvm::SmallVector<llvm::Value *, 2>
loadConvertedSrc(llvm::IRBuilder<> &B, const OpStmt &Op, llvm::Value *Src,
                 int64_t N) {
  llvm::LLVMContext &Ctx = B.getContext();
  llvm::Type *SrcTy = getLLVMMemType(Ctx, Op.getOperand("src").R.Buf->getDType());
  llvm::Type *DstTy = getLLVMMemType(Ctx, Op.getOperand("dst").R.Buf->getDType());
  const llvm::DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
  llvm::SmallVector<llvm::Value *, 2> Vals;
  for (int64_t I = 0; I != N; ++I) {
    llvm::Value *V = B.CreateAlignedLoad(
        SrcTy, B.CreateConstInBoundsGEP1_64(SrcTy, Src, I),
        DL.getABITypeAlign(SrcTy));
    if (SrcTy != DstTy)
      V = B.CreateFPCast(V, DstTy);
    Vals.push_back(V);
  }
  return Vals;
}

/// \p Vals as one <N x T> vector.
llvm::Value *packVector(llvm::IRBuilder<> &B,
                        llvm::ArrayRef<llvm::Value *> Vals) {
  llvm::Value *Vec = llvm::PoisonValue::get(
      llvm::FixedVectorType::get(Vals.front()->getType(), Vals.size()));
  for (unsigned I = 0; I != Vals.size(); ++I)
    Vec = B.CreateInsertElement(Vec, Vals[I], I);
  return Vec;
}

void emitStorePair(llvm::IRBuilder<> &B, const OpStmt &Op,
                   llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::Type *DstTy =
      getLLVMMemType(B.getContext(), Op.getOperand("dst").R.Buf->getDType());
  const llvm::DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
  llvm::Value *Vec = packVector(B, loadConvertedSrc(B, Op, Operands[0], 2));
  uint64_t Size = DL.getTypeAllocSize(DstTy).getFixedValue();
  // A local array's elements become registers: one vector store, whatever
  // the offset, keeps the pair one value (one packed conversion). A shared
  // buffer starts aligned (at least 16 bytes) and the pass emitting the op
  // proves the offset even: one vector store, no test.
  MemScope DstScope = Op.getOperand("dst").R.Buf->getScope();
  if (DstScope == MemScope::Local || DstScope == MemScope::Shared) {
    B.CreateAlignedStore(Vec, Operands[1],
                         llvm::Align(DstScope == MemScope::Shared ? 2 * Size : Size));
    return;
  }
  // A global one where the address allows it (the tensor's start may be
  // misaligned), else two element stores.
  emitIfElse(
      B, isAligned(B, Operands[1], 2 * Size),
      [&] { B.CreateAlignedStore(Vec, Operands[1], llvm::Align(2 * Size)); },
      [&] {
        for (unsigned I = 0; I != 2; ++I)
          B.CreateAlignedStore(B.CreateExtractElement(Vec, I),
                               B.CreateConstInBoundsGEP1_64(DstTy, Operands[1], I),
                               llvm::Align(Size));
      });
}

/// The extent of \p Op's operand \p Name in its last dimension (1 when the
/// operand names one element).
int64_t lastExtent(const OpStmt &Op, llvm::StringRef Name) {
  const Region &R = Op.getOperand(Name).R;
  if (R.isWholeBuffer() || !R.Indices.back().Extent)
    return 1;
  return R.Indices.back().Extent->getConstInt().value_or(1);
}

/// cuda.store_if: the converted element or pair as one 16-, 32- or 64-bit
/// value (a pair of 32-bit elements: two), stored by a predicated
/// st.global in inline asm (the predicate an i1 operand, constraint "b"),
/// so that the guard is no branch.
void emitStoreIf(llvm::IRBuilder<> &B, const OpStmt &Op,
                 llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::LLVMContext &Ctx = B.getContext();
  llvm::Type *DstTy = getLLVMMemType(Ctx, Op.getOperand("dst").R.Buf->getDType());
  const llvm::DataLayout &DL = B.GetInsertBlock()->getModule()->getDataLayout();
  unsigned Bits = unsigned(DL.getTypeAllocSize(DstTy).getFixedValue() * 8);
  int64_t W = lastExtent(Op, "src");
  llvm::SmallVector<llvm::Value *, 2> Vals =
      loadConvertedSrc(B, Op, Operands[0], W);
  // A pair of 16-bit elements is one 32-bit value (one packed conversion).
  if (W == 2 && Bits == 16) {
    Vals.assign(1, packVector(B, Vals));
    Bits = 32;
  }
  llvm::Type *IntTy = B.getIntNTy(Bits);
  llvm::Value *Pred = Operands[2];
  if (!Pred->getType()->isIntegerTy(1))
    Pred = B.CreateICmpNE(Pred, llvm::Constant::getNullValue(Pred->getType()));
  llvm::Value *Dst = Operands[1];
  if (Dst->getType()->getPointerAddressSpace() != 1)
    Dst = B.CreateAddrSpaceCast(Dst, llvm::PointerType::get(Ctx, 1));
  // `offset` is the store's immediate: the stores of one row share the
  // address (one value, not one getelementptr per store, on which NVPTX's
  // straight-line strength reduction spends time quadratic in their
  // number in one basic block).
  int64_t OffBytes = Op.getAttrOrDefault("offset").getInt() *
                     int64_t(DL.getTypeAllocSize(DstTy).getFixedValue());
  llvm::SmallVector<llvm::Value *, 4> Args = {B.CreatePtrToInt(Dst, B.getInt64Ty()),
                                              Pred};
  std::string Ty = "b" + std::to_string(Bits);
  const char *Reg = Bits == 16 ? "h" : Bits == 32 ? "r" : "l";
  std::string Data = Vals.size() == 1 ? "$2" : "{$2, $3}";
  std::string Cons = "l,b";
  for (llvm::Value *V : Vals) {
    Args.push_back(B.CreateBitCast(V, IntTy));
    Cons += std::string(",") + Reg;
  }
  Cons += ",~{memory}";
  std::string Asm = "@$1 st.global" +
                    std::string(Vals.size() == 2 ? ".v2." : ".") + Ty + " [$0" +
                    (OffBytes ? "+" + std::to_string(OffBytes) : std::string()) + "], " +
                    Data + ";";
  llvm::SmallVector<llvm::Type *, 4> Tys;
  for (llvm::Value *A : Args)
    Tys.push_back(A->getType());
  auto *FT = llvm::FunctionType::get(B.getVoidTy(), Tys, false);
  B.CreateCall(FT, llvm::InlineAsm::get(FT, Asm, Cons, /*hasSideEffects=*/true), Args);
}

} // namespace

llvm::Error emitNVPTXTensorCoreOp(llvm::IRBuilder<> &B, const OpStmt &Op,
                                  llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::StringRef Name = Op.getName();
  if (Name == "cuda.ldmatrix")
    emitLdmatrix(B, Op, Operands);
  else if (Name == "cuda.mma_sync")
    emitMmaSync(B, Op, Operands);
  else if (Name == "cuda.cp_async")
    emitCpAsync(B, Op, Operands);
  else if (Name == "cuda.cp_async_commit")
    callIntrinsic(B, llvm::Intrinsic::nvvm_cp_async_commit_group, {});
  else if (Name == "cuda.cp_async_wait")
    callIntrinsic(B, llvm::Intrinsic::nvvm_cp_async_wait_group,
                  {B.getInt32(Op.getAttrOrDefault("pending").getInt())});
  else if (Name == "cuda.store_pair")
    emitStorePair(B, Op, Operands);
  else if (Name == "cuda.store_if")
    emitStoreIf(B, Op, Operands);
  else
    return llvm::createStringError("'" + Name + "' is not a tensor-core op");
  return llvm::Error::success();
}

} // namespace tile
