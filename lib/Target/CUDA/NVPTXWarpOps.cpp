//===- NVPTXWarpOps.cpp - 128-bit global accesses and warp shuffles -------===//
//
// LLVM IR for the per-thread ops of the cuda dialect that
// cuda-register-fragments produces:
//  - cuda.vload / cuda.vstore move `width` consecutive elements between
//    global or shared memory and a thread's local array. When the address
//    is aligned to the access size the elements travel as one access of
//    16, 8 or 4 bytes (ld.global.v4.b32 / st.shared.v4.b32, ..., written as
//    inline PTX: an LLVM vector load whose lanes are all extracted is split
//    back into scalar loads by InstCombine); otherwise one element at a
//    time.
//    The branch is uniform across a warp whenever the tile's start is
//    (each thread's offset is a multiple of the width).
//  - cuda.shfl_xor is shfl.sync.bfly.b32 over the full warp; narrower
//    values travel in the low bits of the 32-bit register.
//
//===----------------------------------------------------------------------===//

#include "NVPTXWarpOps.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace tile::cuda {
namespace {

/// Whether elements of \p T are held in registers as they are stored.
bool sameInRegisters(llvm::LLVMContext &C, DType T) {
  return getLLVMType(C, T) == getLLVMMemType(C, T);
}

llvm::Error unsupported(const OpStmt &Op, DType T) {
  return llvm::createStringError("'" + Op.getName() + "' cannot move " +
                                 getDTypeName(T) + " elements");
}

/// if ((addr & (bytes - 1)) == 0) Vec() else Scalar(); then continues.
void ifAligned(llvm::IRBuilder<> &B, llvm::Value *Addr, uint64_t Bytes,
               llvm::function_ref<void()> Vec,
               llvm::function_ref<void()> Scalar) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Function *Fn = B.GetInsertBlock()->getParent();
  llvm::Value *Low = B.CreateAnd(B.CreatePtrToInt(Addr, B.getInt64Ty()),
                                 B.getInt64(Bytes - 1));
  auto *VecBB = llvm::BasicBlock::Create(C, "vec", Fn);
  auto *ScalarBB = llvm::BasicBlock::Create(C, "vec.unaligned", Fn);
  auto *Done = llvm::BasicBlock::Create(C, "vec.end", Fn);
  B.CreateCondBr(B.CreateICmpEQ(Low, B.getInt64(0)), VecBB, ScalarBB);
  B.SetInsertPoint(VecBB);
  Vec();
  B.CreateBr(Done);
  B.SetInsertPoint(ScalarBB);
  Scalar();
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
}

/// The 32-bit words of one aligned access of \p Bytes (4, 8 or 16).
unsigned wordsFor(uint64_t Bytes) { return Bytes >= 4 ? unsigned(Bytes / 4) : 0; }

std::string vecSuffix(unsigned Words) {
  return Words == 1 ? std::string(".b32") : ".v" + std::to_string(Words) + ".b32";
}

/// The state space of an access through \p Addr (a shared pointer is in
/// address space 3 and is given to PTX as a 32-bit shared-window address)
/// and the inline-asm operand and constraint for the address.
std::pair<llvm::StringRef, llvm::StringRef> addressOperand(llvm::IRBuilder<> &B,
                                                           llvm::Value *&Addr) {
  if (Addr->getType()->getPointerAddressSpace() != 3)
    return {"global", "l"};
  Addr = B.CreatePtrToInt(Addr, B.getInt32Ty());
  return {"shared", "r"};
}

/// ld.{global,shared}[.vN].b32 of \p Words words at \p Addr, as <Words x i32>.
llvm::Value *loadWords(llvm::IRBuilder<> &B, llvm::Value *Addr, unsigned Words) {
  llvm::LLVMContext &C = B.getContext();
  llvm::Type *I32 = B.getInt32Ty();
  auto [Space, AddrCons] = addressOperand(B, Addr);
  std::string Regs, Cons;
  for (unsigned I = 0; I != Words; ++I) {
    Regs += (I ? ", $" : "$") + std::to_string(I);
    Cons += "=r,";
  }
  llvm::Type *RetTy =
      Words == 1 ? I32
                 : llvm::StructType::get(C, std::vector<llvm::Type *>(Words, I32));
  std::string Asm = "ld." + Space.str() + vecSuffix(Words) + " " +
                    (Words == 1 ? Regs : "{" + Regs + "}") + ", [$" +
                    std::to_string(Words) + "];";
  auto *FT = llvm::FunctionType::get(RetTy, {Addr->getType()}, false);
  // A shared load must stay after the barrier that orders it after other
  // threads' stores: the asm reads memory.
  bool Shared = Space == "shared";
  Cons += AddrCons.str();
  if (Shared)
    Cons += ",~{memory}";
  llvm::Value *R =
      B.CreateCall(llvm::InlineAsm::get(FT, Asm, Cons, /*hasSideEffects=*/Shared), {Addr});
  llvm::Value *V = llvm::PoisonValue::get(llvm::FixedVectorType::get(I32, Words));
  for (unsigned I = 0; I != Words; ++I)
    V = B.CreateInsertElement(V, Words == 1 ? R : B.CreateExtractValue(R, I), I);
  return V;
}

/// st.{global,shared}[.vN].b32 of <Words x i32> \p V at \p Addr.
void storeWords(llvm::IRBuilder<> &B, llvm::Value *Addr, llvm::Value *V,
                unsigned Words) {
  auto [Space, AddrCons] = addressOperand(B, Addr);
  std::string Regs, Cons = AddrCons.str();
  std::vector<llvm::Value *> Args{Addr};
  std::vector<llvm::Type *> Tys{Addr->getType()};
  for (unsigned I = 0; I != Words; ++I) {
    Regs += (I ? ", $" : "$") + std::to_string(I + 1);
    Cons += ",r";
    Args.push_back(B.CreateExtractElement(V, I));
    Tys.push_back(B.getInt32Ty());
  }
  std::string Asm = "st." + Space.str() + vecSuffix(Words) + " [$0], " +
                    (Words == 1 ? Regs : "{" + Regs + "}") + ";";
  auto *FT = llvm::FunctionType::get(B.getVoidTy(), Tys, false);
  B.CreateCall(llvm::InlineAsm::get(FT, Asm, Cons + ",~{memory}", true), Args);
}

/// What cuda.vload and cuda.vstore share: the element types of the global
/// and the local side, their LLVM types, the width, the size of a global
/// element, and the operands (src, dst).
struct VecAccess {
  DType GT, LT;
  llvm::Type *GTy, *LTy;
  unsigned W, Size;
  bool Aligned;
  llvm::Value *Src, *Dst;
};

/// Fills \p A for \p Op, whose operand \p Global is the global side and
/// \p Local the local one; an error for elements registers do not hold as
/// they are stored.
llvm::Error getVecAccess(llvm::IRBuilder<> &B, const OpStmt &Op,
                         llvm::ArrayRef<llvm::Value *> Operands,
                         llvm::StringRef Global, llvm::StringRef Local,
                         VecAccess &A) {
  llvm::LLVMContext &C = B.getContext();
  A.GT = Op.getOperand(Global).R.Buf->getDType();
  A.LT = Op.getOperand(Local).R.Buf->getDType();
  if (!sameInRegisters(C, A.GT) || !sameInRegisters(C, A.LT))
    return unsupported(Op, sameInRegisters(C, A.GT) ? A.LT : A.GT);
  A.W = Op.getAttrOrDefault("width").getInt();
  A.Aligned = Op.getAttrOrDefault("aligned").getBool();
  A.GTy = getLLVMType(C, A.GT);
  A.LTy = getLLVMType(C, A.LT);
  A.Size = getDTypeBytes(A.GT);
  A.Src = Operands[0];
  A.Dst = Operands[1];
  return llvm::Error::success();
}

/// The access of \p A at the global address \p Addr: \p Vec(Words) where
/// the address is aligned to the whole access (known, with `aligned`, or
/// tested here), \p Scalar otherwise (and always for one element or fewer
/// than 4 bytes).
void emitVecAccess(llvm::IRBuilder<> &B, const VecAccess &A, llvm::Value *Addr,
                   llvm::function_ref<void(unsigned Words)> Vec,
                   llvm::function_ref<void()> Scalar) {
  unsigned Words = wordsFor(uint64_t(A.W) * A.Size);
  if (A.W == 1 || !Words)
    return Scalar();
  if (A.Aligned)
    return Vec(Words);
  ifAligned(B, Addr, uint64_t(A.W) * A.Size, [&] { Vec(Words); }, Scalar);
}

llvm::Error emitVecLoad(llvm::IRBuilder<> &B, const OpStmt &Op,
                        llvm::ArrayRef<llvm::Value *> Operands) {
  VecAccess A;
  if (llvm::Error E = getVecAccess(B, Op, Operands, "src", "dst", A))
    return E;
  auto Put = [&](unsigned I, llvm::Value *V) {
    B.CreateStore(emitConvert(B, V, A.GT, A.LT),
                  B.CreateConstInBoundsGEP1_32(A.LTy, A.Dst, I));
  };
  emitVecAccess(
      B, A, A.Src,
      [&](unsigned Words) {
        llvm::Value *V = B.CreateBitCast(loadWords(B, A.Src, Words),
                                         llvm::FixedVectorType::get(A.GTy, A.W));
        for (unsigned I = 0; I != A.W; ++I)
          Put(I, B.CreateExtractElement(V, I));
      },
      [&] {
        for (unsigned I = 0; I != A.W; ++I)
          Put(I, B.CreateAlignedLoad(A.GTy,
                                     B.CreateConstInBoundsGEP1_32(A.GTy, A.Src, I),
                                     llvm::Align(A.Size)));
      });
  return llvm::Error::success();
}

llvm::Error emitVecStore(llvm::IRBuilder<> &B, const OpStmt &Op,
                         llvm::ArrayRef<llvm::Value *> Operands) {
  VecAccess A;
  if (llvm::Error E = getVecAccess(B, Op, Operands, "dst", "src", A))
    return E;
  std::vector<llvm::Value *> Elems;
  for (unsigned I = 0; I != A.W; ++I)
    Elems.push_back(emitConvert(
        B, B.CreateLoad(A.LTy, B.CreateConstInBoundsGEP1_32(A.LTy, A.Src, I)), A.LT,
        A.GT));
  emitVecAccess(
      B, A, A.Dst,
      [&](unsigned Words) {
        llvm::Value *V =
            llvm::PoisonValue::get(llvm::FixedVectorType::get(A.GTy, A.W));
        for (unsigned I = 0; I != A.W; ++I)
          V = B.CreateInsertElement(V, Elems[I], I);
        storeWords(B, A.Dst,
                   B.CreateBitCast(V, llvm::FixedVectorType::get(B.getInt32Ty(), Words)),
                   Words);
      },
      [&] {
        for (unsigned I = 0; I != A.W; ++I)
          B.CreateAlignedStore(Elems[I], B.CreateConstInBoundsGEP1_32(A.GTy, A.Dst, I),
                               llvm::Align(A.Size));
      });
  return llvm::Error::success();
}

llvm::Error emitShflXor(llvm::IRBuilder<> &B, const OpStmt &Op,
                        llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::LLVMContext &C = B.getContext();
  DType VT = Op.getOperand("value").E->getDType();
  DType DT = Op.getOperand("dst").R.Buf->getDType();
  llvm::Value *V = emitConvert(B, Operands[0], VT, DT);
  llvm::Type *Ty = V->getType();
  unsigned Bits = Ty->getPrimitiveSizeInBits();
  if (Bits > 32 || Bits == 0)
    return unsupported(Op, DT);
  // To the low bits of an i32 and back.
  llvm::Type *IntTy = llvm::IntegerType::get(C, Bits);
  llvm::Value *I = Ty->isIntegerTy() ? V : B.CreateBitCast(V, IntTy);
  I = B.CreateZExtOrTrunc(I, B.getInt32Ty());
  llvm::Value *R = B.CreateIntrinsic(
      llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
      {B.getInt32(0xffffffffu), I,
       B.getInt32(uint32_t(Op.getAttrOrDefault("offset").getInt())),
       B.getInt32(0x1f)});
  R = B.CreateTrunc(R, IntTy);
  if (!Ty->isIntegerTy())
    R = B.CreateBitCast(R, Ty);
  B.CreateStore(R, Operands[1]);
  return llvm::Error::success();
}

} // namespace

std::optional<llvm::Error>
emitNVPTXWarpOp(llvm::IRBuilder<> &B, const OpStmt &Op,
                llvm::ArrayRef<llvm::Value *> Operands) {
  llvm::StringRef N = Op.getName();
  if (N == "cuda.vload")
    return emitVecLoad(B, Op, Operands);
  if (N == "cuda.vstore")
    return emitVecStore(B, Op, Operands);
  if (N == "cuda.shfl_xor")
    return emitShflXor(B, Op, Operands);
  return std::nullopt;
}

} // namespace tile::cuda
