//===- CPUCodeGen.cpp - Device and host codegen for CPUs ------------------===//
//
// Kernels become functions `void k(void **args, i32 bx, i32 by, i32 bz)`
// that the orc execution backend calls once per block from its thread
// pool; on-chip buffers are stack arrays of the task. Both kernels and host
// entry points are optimized at O3 for the target's `mcpu` (native: this
// machine) and compiled to relocatable objects.
//
//===----------------------------------------------------------------------===//

#include "CPUTargetInfo.h"
#include "VectorMath.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/CodeGen/LLVMDiagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/Remarks.h"
#include "tile/Target/BackendContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include <algorithm>
#include <iterator>
#include <set>

namespace tile {
namespace {

class CPUDeviceTarget : public LLVMDeviceTarget {
public:
  CPUDeviceTarget(CPUVectorInfo Vec, const CPUVectorMath &VM, bool HasScalef,
                  bool HasReduce, RemarkEngine &Remarks)
      : Vec(std::move(Vec)), VM(VM), HasScalef(HasScalef), HasReduce(HasReduce),
        Remarks(Remarks) {}

  /// exp and exp2 of f32 inline where the vector math says so, to 16-bit
  /// accuracy in kernels whose results are 16-bit (chooseExpAccuracy).
  llvm::Value *emitMath(llvm::IRBuilder<> &B, llvm::StringRef Name,
                        llvm::Value *X) override {
    if (VM.inlinesExp() && X->getType()->isFloatTy() && (Name == "exp" || Name == "exp2")) {
      if (FastExp)
        return emitFastExpF32(B, X, Name == "exp2", HasScalef);
      return emitInlineExpF32(B, X, Name == "exp2", HasScalef);
    }
    return LLVMDeviceTarget::emitMath(B, Name, X);
  }

  /// The kernel's vector width is the one the CPU passes sized its loops
  /// for (getKernelVectorBits); it is stated on the function where it is
  /// not the width LLVM's tuning for the CPU prefers anyway.
  llvm::Function *createKernel(llvm::Module &M, llvm::StringRef Name,
                               KernelEmission &K) override {
    llvm::LLVMContext &C = M.getContext();
    llvm::Type *I32 = llvm::Type::getInt32Ty(C);
    auto *FT = llvm::FunctionType::get(llvm::Type::getVoidTy(C),
                                       {llvm::PointerType::get(C, 0), I32, I32, I32},
                                       false);
    llvm::Function *F =
        llvm::Function::Create(FT, llvm::Function::ExternalLinkage, Name, M);
    F->addFnAttr(llvm::Attribute::NoUnwind);
    FastExp = VM.inlinesExp() &&
              chooseFastExp(*K.Kernel, VM.getExpAccuracy(), HasReduce, Remarks);
    unsigned Bits = getKernelVectorBits(Vec, *K.Kernel);
    if (Bits != Vec.VectorBits)
      F->addFnAttr(kPreferVectorWidthAttr, llvm::utostr(Bits));
    F->getArg(0)->setName("args");
    F->getArg(1)->setName("bx");
    F->getArg(2)->setName("by");
    F->getArg(3)->setName("bz");
    return F;
  }

  llvm::Value *getCapture(llvm::IRBuilder<> &B, KernelEmission &K, unsigned I,
                          llvm::Type *Ty) override {
    llvm::Value *Slot = B.CreateLoad(
        B.getPtrTy(), B.CreateConstInBoundsGEP1_64(B.getPtrTy(), K.Fn->getArg(0), I));
    return B.CreateLoad(Ty, Slot, K.Captures[I].V->getName());
  }

  llvm::Value *getBlockIndex(llvm::IRBuilder<> &B, KernelEmission &K,
                             unsigned Dim) override {
    return K.Fn->getArg(1 + Dim);
  }

  llvm::Value *allocateOnChip(llvm::IRBuilder<> &B, KernelEmission &K,
                              const BufferValue &Buf, llvm::Type *ElemTy,
                              uint64_t NumElems) override {
    // Allocas in the entry block: the task's stack, promoted to registers
    // by LLVM where possible.
    llvm::IRBuilder<> Entry(&K.Fn->getEntryBlock(),
                            K.Fn->getEntryBlock().getFirstInsertionPt());
    llvm::AllocaInst *A = Entry.CreateAlloca(
        llvm::ArrayType::get(ElemTy, NumElems), nullptr, Buf.getName());
    A->setAlignment(llvm::Align(64));
    return A;
  }

  /// cpu.prefetch: llvm.prefetch of the element's address (read, data
  /// cache, the op's locality). The element may lie past the tensor's end,
  /// so its address is computed without inbounds.
  llvm::Error emitTargetOp(llvm::IRBuilder<> &B, KernelEmission &K, const OpStmt &Op,
                           llvm::ArrayRef<llvm::Value *> Operands) override {
    if (Op.getName() == "cpu.dpbf16ps")
      return emitDpbf16ps(B, Op, Operands);
    if (Op.getName() == "cpu.transpose_pairs")
      return emitTransposePairs(B, Op, Operands);
    if (Op.getName() == "cpu.fma" || Op.getName() == "cpu.copy_lanes")
      return emitLanes(B, Op, Operands);
    if (Op.getName() == "cpu.widen_bf16")
      return emitWidenBF16(B, Op, Operands);
    if (Op.getName() != "cpu.prefetch")
      return LLVMDeviceTarget::emitTargetOp(B, K, Op, Operands);
    llvm::Value *Addr = Operands[0];
    if (auto *G = llvm::dyn_cast<llvm::GetElementPtrInst>(Addr))
      G->setNoWrapFlags(llvm::GEPNoWrapFlags::none());
    B.CreateIntrinsic(llvm::Intrinsic::prefetch, {Addr->getType()},
                      {Addr, B.getInt32(0),
                       B.getInt32(uint32_t(Op.getAttrOrDefault("locality").getInt())),
                       B.getInt32(1)});
    return llvm::Error::success();
  }

  /// `!{!"tile.loop", i32 N}`: the loop was made by the statement at
  /// getLoopLoc(N).
  llvm::Metadata *getLoopProperty(llvm::LLVMContext &C, llvm::SMLoc Loc) override {
    LoopLocs.push_back(Loc);
    return llvm::MDNode::get(
        C, {llvm::MDString::get(C, kLoopTag),
            llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                llvm::Type::getInt32Ty(C), LoopLocs.size() - 1))});
  }

  /// The location of the statement that made the loop with ID \p LoopID,
  /// if it has the property of getLoopProperty.
  std::optional<llvm::SMLoc> getLoopLoc(const llvm::MDNode *LoopID) const {
    for (const llvm::MDOperand &Op : llvm::drop_begin(LoopID->operands())) {
      const auto *Prop = llvm::dyn_cast<llvm::MDNode>(Op);
      if (!Prop || Prop->getNumOperands() != 2)
        continue;
      const auto *Name = llvm::dyn_cast<llvm::MDString>(Prop->getOperand(0));
      if (!Name || Name->getString() != kLoopTag)
        continue;
      uint64_t N = llvm::mdconst::extract<llvm::ConstantInt>(Prop->getOperand(1))
                       ->getZExtValue();
      if (N < LoopLocs.size())
        return LoopLocs[N];
    }
    return std::nullopt;
  }

private:
  static constexpr const char *kLoopTag = "tile.loop";

  /// cpu.dpbf16ps: one vdpbf16ps of the 16 f32 at c, the bf16 pair at a
  /// broadcast, and the 32 bf16 at b.
  llvm::Error emitDpbf16ps(llvm::IRBuilder<> &B, const OpStmt &Op,
                           llvm::ArrayRef<llvm::Value *> Operands) const {
    if (!Vec.HasBF16Dot)
      return llvm::createStringError(
          "'cpu.dpbf16ps' needs AVX512-BF16 (vdpbf16ps), which the target's CPU "
          "lacks; compile for a CPU that has it (-mcpu), or write a gemm");
    auto *AccTy = llvm::FixedVectorType::get(B.getFloatTy(), 16);
    auto *PairsTy = llvm::FixedVectorType::get(B.getBFloatTy(), 32);
    llvm::Value *C = Operands[0];
    llvm::Value *Acc = B.CreateAlignedLoad(AccTy, C, llvm::Align(4));
    llvm::Value *Pair = B.CreateAlignedLoad(B.getInt32Ty(), Operands[1], llvm::Align(2));
    llvm::Value *A = B.CreateBitCast(B.CreateVectorSplat(16, Pair), PairsTy);
    llvm::Value *Bv = B.CreateAlignedLoad(PairsTy, Operands[2], llvm::Align(2));
    llvm::Value *R = B.CreateIntrinsic(llvm::Intrinsic::x86_avx512bf16_dpbf16ps_512, {},
                                       {Acc, A, Bv});
    B.CreateAlignedStore(R, C, llvm::Align(4));
    return llvm::Error::success();
  }

  /// cpu.fma (the lanes of c plus the broadcast element of a times the
  /// lanes of b: a vector fmul and fadd, fused by the code generator as
  /// the scalar ones are) and cpu.copy_lanes (a vector load and store).
  llvm::Error emitLanes(llvm::IRBuilder<> &B, const OpStmt &Op,
                        llvm::ArrayRef<llvm::Value *> Operands) const {
    bool F64 = Op.getOperands()[0].R.Buf->getDType() == DType::F64;
    llvm::Type *ElemTy = F64 ? B.getDoubleTy() : B.getFloatTy();
    llvm::Align Al(F64 ? 8 : 4);
    auto *VT = llvm::FixedVectorType::get(
        ElemTy, unsigned(Op.getAttrOrDefault("lanes").getInt()));
    if (Op.getName() == "cpu.copy_lanes") {
      B.CreateAlignedStore(B.CreateAlignedLoad(VT, Operands[1], Al), Operands[0], Al);
      return llvm::Error::success();
    }
    llvm::Value *Acc = B.CreateAlignedLoad(VT, Operands[0], Al);
    llvm::Value *A = B.CreateVectorSplat(VT->getNumElements(),
                                         B.CreateAlignedLoad(ElemTy, Operands[1], Al));
    llvm::Value *Bv = B.CreateAlignedLoad(VT, Operands[2], Al);
    B.CreateAlignedStore(B.CreateFAdd(Acc, B.CreateFMul(A, Bv)), Operands[0], Al);
    return llvm::Error::success();
  }

  /// cpu.widen_bf16: the bf16 elements loaded as 16-bit integers (pairs as
  /// 32-bit ones), moved to the upper half of 32-bit lanes (a zero
  /// extension and a shift; the second element of a pair is there already,
  /// with the first masked off) and stored as f32.
  llvm::Error emitWidenBF16(llvm::IRBuilder<> &B, const OpStmt &Op,
                            llvm::ArrayRef<llvm::Value *> Operands) const {
    unsigned Lanes = unsigned(Op.getAttrOrDefault("lanes").getInt());
    auto *I32s = llvm::FixedVectorType::get(B.getInt32Ty(), Lanes);
    auto *F32s = llvm::FixedVectorType::get(B.getFloatTy(), Lanes);
    llvm::Value *Dst = Operands[0], *Src = Operands[1];
    if (!Op.getAttrOrDefault("pairs").getBool()) {
      auto *I16s = llvm::FixedVectorType::get(B.getInt16Ty(), Lanes);
      llvm::Value *X = B.CreateZExt(B.CreateAlignedLoad(I16s, Src, llvm::Align(2)), I32s);
      B.CreateAlignedStore(B.CreateBitCast(B.CreateShl(X, 16), F32s), Dst, llvm::Align(4));
      return llvm::Error::success();
    }
    int64_t DstRow = *Op.getOperand("dst").R.Buf->getShape().back()->getConstInt();
    llvm::Value *X = B.CreateAlignedLoad(I32s, Src, llvm::Align(2));
    B.CreateAlignedStore(B.CreateBitCast(B.CreateShl(X, 16), F32s), Dst, llvm::Align(4));
    B.CreateAlignedStore(B.CreateBitCast(B.CreateAnd(X, 0xFFFF0000u), F32s),
                         B.CreateConstGEP1_64(B.getFloatTy(), Dst, DstRow),
                         llvm::Align(4));
    return llvm::Error::success();
  }

  /// cpu.transpose_pairs: 16 rows of 16 pairs, as 32-bit lanes, loaded,
  /// transposed in four rounds of two-vector shuffles (round d exchanges
  /// bit d of the row with bit d of the lane: lanes l + d of row i and l of
  /// row i + d, for i and l without bit d) and stored.
  llvm::Error emitTransposePairs(llvm::IRBuilder<> &B, const OpStmt &Op,
                                 llvm::ArrayRef<llvm::Value *> Operands) const {
    auto RowElems = [&](llvm::StringRef Name) {
      return *Op.getOperand(Name).R.Buf->getShape().back()->getConstInt();
    };
    int64_t DstRow = RowElems("dst"), SrcRow = RowElems("src");
    constexpr unsigned N = 16;
    auto *RowTy = llvm::FixedVectorType::get(B.getInt32Ty(), N);
    llvm::SmallVector<llvm::Value *, N> V;
    for (unsigned R = 0; R != N; ++R)
      V.push_back(B.CreateAlignedLoad(
          RowTy, B.CreateConstGEP1_64(B.getInt16Ty(), Operands[1], R * SrcRow),
          llvm::Align(2)));
    for (unsigned D = N / 2; D >= 1; D /= 2)
      for (unsigned I = 0; I != N; ++I) {
        if (I & D)
          continue;
        llvm::SmallVector<int, N> Lo, Hi;
        for (unsigned L = 0; L != N; ++L) {
          Lo.push_back(L & D ? int(N + L - D) : int(L));
          Hi.push_back(L & D ? int(N + L) : int(L + D));
        }
        llvm::Value *X = V[I], *Y = V[I + D];
        V[I] = B.CreateShuffleVector(X, Y, Lo);
        V[I + D] = B.CreateShuffleVector(X, Y, Hi);
      }
    for (unsigned R = 0; R != N; ++R)
      B.CreateAlignedStore(V[R],
                           B.CreateConstGEP1_64(B.getInt16Ty(), Operands[0], R * DstRow),
                           llvm::Align(2));
    return llvm::Error::success();
  }

  CPUVectorInfo Vec;
  const CPUVectorMath &VM;
  bool HasScalef;
  /// Whether the CPU has vreduceps (AVX-512DQ): dropFastExpClamps.
  bool HasReduce;
  RemarkEngine &Remarks;
  /// Whether the kernel being emitted takes emitFastExpF32.
  bool FastExp = false;
  std::vector<llvm::SMLoc> LoopLocs;
};

/// The statement that made the innermost loop around \p Region (a loop
/// header or an instruction) that getLoopProperty tagged: where LLVM's
/// remarks about a loop are reported (tile/CodeGen/LLVMDiagnostics.h).
llvm::SMLoc locateLoop(const CPUDeviceTarget &T, const llvm::Value *Region) {
  const llvm::BasicBlock *BB = llvm::dyn_cast_or_null<llvm::BasicBlock>(Region);
  if (const auto *I = llvm::dyn_cast_or_null<llvm::Instruction>(Region))
    BB = I->getParent();
  if (!BB)
    return llvm::SMLoc();
  llvm::Function &F = const_cast<llvm::Function &>(*BB->getParent());
  llvm::DominatorTree DT(F);
  llvm::LoopInfo LI(DT);
  for (const llvm::Loop *L = LI.getLoopFor(BB); L; L = L->getParentLoop())
    if (const llvm::MDNode *ID = L->getLoopID())
      if (std::optional<llvm::SMLoc> Loc = T.getLoopLoc(ID))
        return *Loc;
  return llvm::SMLoc();
}

/// Makes \p St store its value as a vector of integers of the same element
/// width when the elements are half or bfloat. LLVM 22's x86 instruction
/// selection has non-temporal store patterns for integer, float and double
/// vectors only: on AVX-512 targets (skylake-avx512, cooperlake, znver4,
/// sapphirerapids), where half and bfloat vectors are legal types, such a
/// store silently becomes an ordinary one (vmovaps), which reads each line
/// of the output before writing it.
void storeAsIntegers(llvm::StoreInst *St) {
  auto *VT = llvm::cast<llvm::FixedVectorType>(St->getValueOperand()->getType());
  if (!VT->getElementType()->isHalfTy() && !VT->getElementType()->isBFloatTy())
    return;
  llvm::IRBuilder<> B(St);
  St->setOperand(0, B.CreateBitCast(St->getValueOperand(),
                                    llvm::FixedVectorType::get(B.getInt16Ty(),
                                                               VT->getNumElements())));
}

/// Where a non-temporal store's address comes from: its base pointer and
/// the constant byte offset from it.
struct StreamedStore {
  llvm::StoreInst *St;
  int64_t Offset;
};

/// Stores of one basic block to one base pointer, with nothing between
/// them that may access the memory they write: one alignment test of the
/// base serves them all.
struct StreamGroup {
  llvm::Value *Base = nullptr;
  uint64_t Size = 0;
  llvm::SmallVector<StreamedStore, 8> Stores;
};

/// Whether \p I, between two stores of a group, may touch the memory they
/// write: anything that writes memory, or reads other than a load from
/// the kernel's own stack array whose address never escapes (which a
/// tensor's pointer cannot point into).
bool mayTouchStreamedMemory(const llvm::Instruction &I,
                            llvm::DenseMap<const llvm::Value *, bool> &Private) {
  if (!I.mayReadOrWriteMemory())
    return false;
  const auto *L = llvm::dyn_cast<llvm::LoadInst>(&I);
  if (!L || !L->isSimple())
    return true;
  const llvm::Value *Obj = llvm::getUnderlyingObject(L->getPointerOperand());
  if (!llvm::isa<llvm::AllocaInst>(Obj))
    return true;
  auto [It, New] = Private.try_emplace(Obj, false);
  if (New)
    It->second = !llvm::PointerMayBeCaptured(Obj, /*ReturnCaptures=*/true,
                                             /*MaxUsesToExplore=*/~0u);
  return !It->second;
}

/// The groups of \p Stores (non-temporal vector stores of \p F, of at least
/// 16 bytes and a power-of-two size up to 64, not yet known to be aligned to it), in
/// program order.
std::vector<StreamGroup> groupStreamedStores(llvm::Function &F,
                                             const llvm::SmallPtrSetImpl<llvm::StoreInst *> &Stores) {
  const llvm::DataLayout &DL = F.getDataLayout();
  llvm::DenseMap<const llvm::Value *, bool> Private;
  std::vector<StreamGroup> Groups;
  for (llvm::BasicBlock &BB : F) {
    StreamGroup G;
    auto Close = [&] {
      if (!G.Stores.empty())
        Groups.push_back(std::move(G));
      G = StreamGroup();
    };
    for (llvm::Instruction &I : BB) {
      auto *St = llvm::dyn_cast<llvm::StoreInst>(&I);
      if (!St || !Stores.contains(St)) {
        if (mayTouchStreamedMemory(I, Private))
          Close();
        continue;
      }
      llvm::APInt Off(DL.getIndexTypeSizeInBits(St->getPointerOperandType()), 0);
      llvm::Value *Base = St->getPointerOperand()->stripAndAccumulateConstantOffsets(
          DL, Off, /*AllowNonInbounds=*/true);
      uint64_t Size = DL.getTypeStoreSize(St->getValueOperand()->getType());
      if (Base != G.Base || Size != G.Size)
        Close();
      G.Base = Base;
      G.Size = Size;
      G.Stores.push_back({St, Off.getSExtValue()});
      // A pointer that may come from a stack array (through a phi or a
      // select) could alias the loads the group lets pass: such a store
      // is tested alone.
      const llvm::Value *Obj =
          llvm::getUnderlyingObject(St->getPointerOperand(), /*MaxLookup=*/0);
      if (llvm::isa<llvm::PHINode, llvm::SelectInst, llvm::AllocaInst>(Obj))
        Close();
    }
    Close();
  }
  return Groups;
}

/// Tests \p G's base for alignment to \p Levels' first level: where it is,
/// each store takes the alignment its offset leaves it; otherwise the next
/// level, and after the last the stores as they are. The stores are
/// contiguous and in order, before \p G's last.
void versionStreamGroup(StreamGroup &G, llvm::ArrayRef<uint64_t> Levels) {
  if (Levels.empty())
    return;
  llvm::Align L(Levels.front());
  bool Gains = llvm::any_of(G.Stores, [&](const StreamedStore &S) {
    return llvm::commonAlignment(L, S.Offset) > S.St->getAlign();
  });
  if (!Gains)
    return versionStreamGroup(G, Levels.drop_front());
  llvm::StoreInst *First = G.Stores.front().St;
  llvm::IRBuilder<> B(First);
  llvm::Value *Addr = B.CreatePtrToInt(G.Base, B.getInt64Ty());
  llvm::Value *Aligned =
      B.CreateICmpEQ(B.CreateAnd(Addr, B.getInt64(L.value() - 1)), B.getInt64(0));
  llvm::Instruction *Then, *Else;
  llvm::SplitBlockAndInsertIfThenElse(Aligned, First->getIterator(), &Then, &Else);
  for (StreamedStore &S : G.Stores) {
    auto *A = llvm::cast<llvm::StoreInst>(S.St->clone());
    A->setAlignment(std::max(S.St->getAlign(), llvm::commonAlignment(L, S.Offset)));
    A->insertBefore(Then->getIterator());
    S.St->moveBefore(Else->getIterator());
  }
  versionStreamGroup(G, Levels.drop_front());
}

/// Marks the vector stores of kernels to memory other than their own stack
/// non-temporal, and ends each such kernel with a store fence so that
/// the stores are visible when the task's completion is. After
/// vectorization these are the stores of element-wise loops over tensors:
/// each element is written once, and writing it around the caches saves
/// reading its line first (a third of the traffic of a copy). x86 only.
///
/// x86 has non-temporal vector stores only for aligned addresses; LLVM
/// splits an unaligned one into 8-byte stores, which fill the write
/// combining buffers far more slowly. The tensors' alignment is not known
/// at compile time, so the stores of 16 bytes or more test their address:
/// aligned to their size (always, for aligned tensors and tile offsets, so
/// the branch predicts perfectly) each is one aligned store, otherwise the
/// split one; a 64-byte store is first tried at 32-byte alignment. The
/// stores of a basic block at constant offsets from one pointer, with
/// nothing between them that may access what they write, share one test
/// of that pointer (groupStreamedStores): a row of a GEMM's C tile, the
/// unrolled vectors of an element-wise loop. A test per store made
/// about five blocks of each, a third of the code generation time of
/// bench/cpu/gemm_f32.tile's 16 stores.
void streamGlobalStores(llvm::Module &LM) {
  if (!llvm::Triple(LM.getTargetTriple()).isX86())
    return;
  llvm::LLVMContext &C = LM.getContext();
  const llvm::DataLayout &DL = LM.getDataLayout();
  llvm::MDNode *One = llvm::MDNode::get(
      C, llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(C), 1)));
  for (llvm::Function &F : LM) {
    if (F.isDeclaration())
      continue;
    bool Streams = false;
    llvm::SmallPtrSet<llvm::StoreInst *, 16> Tested;
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        auto *St = llvm::dyn_cast<llvm::StoreInst>(&I);
        if (!St || !St->getValueOperand()->getType()->isVectorTy() ||
            llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(St->getPointerOperand())))
          continue;
        St->setMetadata(llvm::LLVMContext::MD_nontemporal, One);
        storeAsIntegers(St);
        Streams = true;
        uint64_t Size = DL.getTypeStoreSize(St->getValueOperand()->getType());
        if (Size >= 16 && llvm::isPowerOf2_64(std::min<uint64_t>(Size, 64)))
          Tested.insert(St);
      }
    if (!Streams)
      continue;
    for (StreamGroup &G : groupStreamedStores(F, Tested)) {
      // Contiguous, before the group's last store: every operand of the
      // others is defined before it.
      llvm::StoreInst *Last = G.Stores.back().St;
      for (StreamedStore &S : llvm::drop_end(G.Stores))
        S.St->moveBefore(Last->getIterator());
      // A 64-byte vector whose address is only 32-byte aligned (every other
      // row of an odd-width f32 matrix) still takes two aligned 32-byte
      // stores.
      uint64_t Want = std::min<uint64_t>(G.Size, 64);
      llvm::SmallVector<uint64_t, 2> Levels = {Want};
      if (Want > 32)
        Levels.push_back(32);
      versionStreamGroup(G, Levels);
    }
    for (llvm::BasicBlock &BB : F)
      if (auto *R = llvm::dyn_cast<llvm::ReturnInst>(BB.getTerminator())) {
        llvm::IRBuilder<> B(R);
        B.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {});
      }
  }
}

/// Lets LLVM divide by a float as it multiplies by its reciprocal (the
/// `arcp` flag on every fdiv of \p LM), so that a division by a
/// loop-invariant value (softmax's sum, a norm's count) becomes one
/// reciprocal outside the loop and a multiply per element: a vector
/// division costs several multiplies' throughput (a quarter of softmax's
/// time on the AMD EPYC of docs/Performance.md). The quotient may then
/// differ from the correctly rounded one by about one ulp, and a divisor
/// below 2^-126 in magnitude gives an infinite quotient.
void allowReciprocals(llvm::Module &LM) {
  for (llvm::Function &F : LM)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (I.getOpcode() == llvm::Instruction::FDiv)
          I.setHasAllowReciprocal(true);
}

/// The AVX-512 masked ps intrinsic among \p I512, \p I256, \p I128 for
/// \p VT's width (256 and 128 need AVX-512VL, \p HasVL), or
/// not_intrinsic.
llvm::Intrinsic::ID maskedPsIntrinsic(const llvm::FixedVectorType &VT, bool HasVL,
                                      llvm::Intrinsic::ID I512, llvm::Intrinsic::ID I256,
                                      llvm::Intrinsic::ID I128) {
  switch (VT.getNumElements()) {
  case 16: return I512;
  case 8: return HasVL ? I256 : llvm::Intrinsic::not_intrinsic;
  case 4: return HasVL ? I128 : llvm::Intrinsic::not_intrinsic;
  default: return llvm::Intrinsic::not_intrinsic;
  }
}

/// Calls the masked ps intrinsic \p ID of \p VT's width on \p Args with a
/// poison passthrough, every lane enabled and, at 512 bits, the current
/// rounding mode.
llvm::Value *createAllLanesPs(llvm::IRBuilder<> &B, llvm::Intrinsic::ID ID,
                              llvm::FixedVectorType *VT,
                              llvm::SmallVector<llvm::Value *, 5> Args) {
  bool Wide = VT->getNumElements() == 16;
  Args.push_back(llvm::PoisonValue::get(VT));
  Args.push_back(Wide ? static_cast<llvm::Value *>(B.getInt16(0xffff)) : B.getInt8(0xff));
  if (Wide)
    Args.push_back(B.getInt32(4)); // the current rounding mode
  return B.CreateIntrinsic(ID, {}, Args);
}

/// Scales by vscalefps's float exponent directly where the inline exp's
/// `ldexp(p, fptosi(roundeven(t)))` or the fast exp's
/// `ldexp(p, fptosi(floor(t)))` was vectorized (\p LM optimized): x86's
/// lowering of llvm.ldexp converts the integer exponent back to a float
/// for vscalefps, so the exponent would take a round trip through the
/// integers (vcvttps2dq, vcvtdq2ps) that the instruction never needed; 2
/// of the fast exp's 12 instructions. The rounded value is an integer (or
/// NaN, inf: the ldexp's is then NaN, and vscalefps's too after the clamp
/// before), so vscalefps's floor of it is itself. 512-bit vectors with
/// AVX-512F, 256 and 128 with AVX-512VL too.
void scaleByFloatExponents(llvm::Module &LM, const llvm::MCSubtargetInfo &STI) {
  if (!STI.checkFeatures("+avx512f"))
    return;
  bool HasVL = STI.checkFeatures("+avx512vl");
  std::vector<llvm::CallInst *> Calls;
  for (llvm::Function &F : LM)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I))
          if (Call->getIntrinsicID() == llvm::Intrinsic::ldexp)
            Calls.push_back(Call);
  for (llvm::CallInst *Call : Calls) {
    auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(Call->getType());
    auto *ToInt = llvm::dyn_cast<llvm::FPToSIInst>(Call->getArgOperand(1));
    if (!VT || !VT->getElementType()->isFloatTy() || !ToInt)
      continue;
    auto *Round = llvm::dyn_cast<llvm::IntrinsicInst>(ToInt->getOperand(0));
    if (!Round ||
        (Round->getIntrinsicID() != llvm::Intrinsic::roundeven &&
         Round->getIntrinsicID() != llvm::Intrinsic::floor) ||
        Round->getType() != VT)
      continue;
    llvm::Intrinsic::ID ID = maskedPsIntrinsic(
        *VT, HasVL, llvm::Intrinsic::x86_avx512_mask_scalef_ps_512,
        llvm::Intrinsic::x86_avx512_mask_scalef_ps_256,
        llvm::Intrinsic::x86_avx512_mask_scalef_ps_128);
    if (ID == llvm::Intrinsic::not_intrinsic)
      continue;
    llvm::IRBuilder<> B(Call);
    llvm::Value *R = createAllLanesPs(B, ID, VT, {Call->getArgOperand(0), Round});
    Call->replaceAllUsesWith(R);
    Call->eraseFromParent();
    if (ToInt->use_empty())
      ToInt->eraseFromParent();
  }
}

/// \p V clamped as the exponent of the inline exp2 and the fast exp
/// (emitInlineExpF32, emitFastExpF32): select(c > hi, hi, select(t < lo,
/// lo, t)) with ordered compares, lo <= -150 and hi >= 128, bounds beyond
/// which 2^t rounds to 0 or overflows; the unclamped t, or null.
llvm::Value *unclampedExpArgument(llvm::Value *V) {
  using namespace llvm::PatternMatch;
  llvm::Value *Lo, *T;
  const llvm::APFloat *Hi1, *Hi2, *Lo1, *Lo2;
  llvm::CmpPredicate PHi, PLo;
  if (!match(V, m_Select(m_FCmp(PHi, m_Value(Lo), m_APFloat(Hi1)), m_APFloat(Hi2),
                         m_Deferred(Lo))) ||
      PHi != llvm::FCmpInst::FCMP_OGT || *Hi1 != *Hi2 || Hi1->convertToFloat() < 128.0f)
    return nullptr;
  if (!match(Lo, m_Select(m_FCmp(PLo, m_Value(T), m_APFloat(Lo1)), m_APFloat(Lo2),
                          m_Deferred(T))) ||
      PLo != llvm::FCmpInst::FCMP_OLT || *Lo1 != *Lo2 || Lo1->convertToFloat() > -150.0f)
    return nullptr;
  return T;
}

/// Drops the clamps of the fast exp and the inline exp2 where they were
/// vectorized and scale by vscalefps (after scaleByFloatExponents). The
/// inline exp2, from `c = clamp(t)`, `n = roundeven(c)`, `f = c - n`,
/// `scalef(p(f), n)` to `n = roundeven(t)`, `f = vreduceps(t)` (t -
/// round(t) in one instruction, AVX-512DQ), `scalef(p(f), n)`. The fast
/// exp's floor form, from `n = floor(c)`, `f = c - n`, `scalef(p(f), n)` to
/// `f = vreduceps(t)` rounding down and `scalef(p(f), t)`: vscalefps
/// itself scales by 2^floor of its exponent operand, so n is no
/// instruction. The clamps keep f finite for t = +-inf and the integer
/// exponent of the scalar form in range; vscalefps needs neither:
/// vreduceps of +-inf is 0, so p(f) = p(0) = 1 and vscalefps by +-inf
/// gives inf and 0, a finite exponent beyond the clamps overflows to inf
/// or underflows to 0 in vscalefps itself (rounding once), and NaN stays
/// NaN. The fast exp is then seven vector instructions (vmulps, vreduceps,
/// four FMAs, vscalefps) instead of the ten of its scalar form; the
/// clamps' removal took softmax's f16 rows, which take two exps per
/// element, about 10% less time on the AMD EPYC of docs/Performance.md.
void dropFastExpClamps(llvm::Module &LM, const llvm::MCSubtargetInfo &STI) {
  if (!STI.checkFeatures("+avx512dq"))
    return;
  bool HasVL = STI.checkFeatures("+avx512vl");
  std::vector<llvm::IntrinsicInst *> Rounds;
  for (llvm::Function &F : LM)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
          if ((II->getIntrinsicID() == llvm::Intrinsic::roundeven ||
               II->getIntrinsicID() == llvm::Intrinsic::floor) &&
              II->getType()->isVectorTy())
            Rounds.push_back(II);
  for (llvm::IntrinsicInst *Round : Rounds) {
    auto *VT = llvm::cast<llvm::FixedVectorType>(Round->getType());
    llvm::Value *Clamped = Round->getArgOperand(0);
    llvm::Value *T = unclampedExpArgument(Clamped);
    if (!T || !VT->getElementType()->isFloatTy())
      continue;
    llvm::Intrinsic::ID ID = maskedPsIntrinsic(
        *VT, HasVL, llvm::Intrinsic::x86_avx512_mask_reduce_ps_512,
        llvm::Intrinsic::x86_avx512_mask_reduce_ps_256,
        llvm::Intrinsic::x86_avx512_mask_reduce_ps_128);
    if (ID == llvm::Intrinsic::not_intrinsic)
      continue;
    // Every use of n is a vscalefps exponent or f = c - n, and c has no
    // other uses: otherwise the clamped values are still needed.
    llvm::SmallVector<llvm::Instruction *, 2> Fracs;
    bool OnlyScalef = true;
    for (llvm::User *U : Round->users()) {
      auto *I = llvm::cast<llvm::Instruction>(U);
      if (I->getOpcode() == llvm::Instruction::FSub && I->getOperand(0) == Clamped &&
          I->getOperand(1) == Round)
        Fracs.push_back(I);
      else if (auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(I);
               !II || (II->getIntrinsicID() != llvm::Intrinsic::x86_avx512_mask_scalef_ps_512 &&
                       II->getIntrinsicID() != llvm::Intrinsic::x86_avx512_mask_scalef_ps_256 &&
                       II->getIntrinsicID() != llvm::Intrinsic::x86_avx512_mask_scalef_ps_128) ||
                      II->getArgOperand(1) != Round)
        OnlyScalef = false;
    }
    if (!OnlyScalef || Fracs.empty() ||
        llvm::any_of(Clamped->users(), [&](llvm::User *U) {
          return U != Round && !llvm::is_contained(Fracs, U);
        }))
      continue;
    bool Floor = Round->getIntrinsicID() == llvm::Intrinsic::floor;
    llvm::IRBuilder<> B(Round);
    // imm 8 | RC: no fraction bits kept, inexact not signalled, rounding
    // to nearest even (RC 0) or down (RC 1).
    llvm::Value *Frac = createAllLanesPs(B, ID, VT, {T, B.getInt32(Floor ? 9 : 8)});
    for (llvm::Instruction *F : Fracs) {
      F->replaceAllUsesWith(Frac);
      F->eraseFromParent();
    }
    if (Floor) {
      // vscalefps floors t itself.
      Round->replaceAllUsesWith(T);
      Round->eraseFromParent();
    } else {
      Round->setArgOperand(0, T);
    }
    llvm::RecursivelyDeleteTriviallyDeadInstructions(Clamped);
  }
}

/// One step `Prev op V[Lane]` of a chain that combines the lanes of a
/// vector one after another: an fadd (the lane either side: InstCombine
/// puts a constant start on the right of lane 0's add), or a compare and
/// select `Prev P V[Lane] ? Prev : V[Lane]` for P ogt or olt (the max and
/// min of cpu-fuse-elementwise's partial results, one vmaxps / vminps).
struct LaneStep {
  llvm::Value *Prev = nullptr;
  llvm::ExtractElementInst *Elt = nullptr;
  /// The compare of a select step; null for an fadd.
  llvm::FCmpInst *Cmp = nullptr;
};

/// \p I as a step of a chain of \p Opcode (FAdd or Select; for Select,
/// compares of predicate \p Pred when it is not BAD_FCMP_PREDICATE).
std::optional<LaneStep> matchLaneStep(llvm::Value *I, unsigned Opcode,
                                      llvm::CmpInst::Predicate Pred) {
  auto *Inst = llvm::dyn_cast<llvm::Instruction>(I);
  // Max and min of f16 as well (cpu-fuse-elementwise's f16 partial results
  // of a max over f16 values).
  if (!Inst || Inst->getOpcode() != Opcode ||
      !(Inst->getType()->isFloatTy() ||
        (Opcode == llvm::Instruction::Select && Inst->getType()->isHalfTy())))
    return std::nullopt;
  LaneStep S;
  if (Opcode == llvm::Instruction::FAdd) {
    auto *E1 = llvm::dyn_cast<llvm::ExtractElementInst>(Inst->getOperand(1));
    auto *E0 = llvm::dyn_cast<llvm::ExtractElementInst>(Inst->getOperand(0));
    if (E1 && llvm::isa<llvm::ConstantInt>(E1->getIndexOperand())) {
      S.Elt = E1;
      S.Prev = Inst->getOperand(0);
    } else if (E0 && llvm::isa<llvm::ConstantInt>(E0->getIndexOperand())) {
      S.Elt = E0;
      S.Prev = Inst->getOperand(1);
    } else {
      return std::nullopt;
    }
    return S;
  }
  auto *Sel = llvm::cast<llvm::SelectInst>(Inst);
  auto *Cmp = llvm::dyn_cast<llvm::FCmpInst>(Sel->getCondition());
  if (!Cmp || !Cmp->hasOneUse() || Cmp->getOperand(0) != Sel->getTrueValue() ||
      Cmp->getOperand(1) != Sel->getFalseValue() ||
      (Cmp->getPredicate() != llvm::CmpInst::FCMP_OGT &&
       Cmp->getPredicate() != llvm::CmpInst::FCMP_OLT) ||
      (Pred != llvm::CmpInst::BAD_FCMP_PREDICATE && Cmp->getPredicate() != Pred))
    return std::nullopt;
  S.Elt = llvm::dyn_cast<llvm::ExtractElementInst>(Sel->getFalseValue());
  if (!S.Elt || !llvm::isa<llvm::ConstantInt>(S.Elt->getIndexOperand()))
    return std::nullopt;
  S.Prev = Sel->getTrueValue();
  S.Cmp = Cmp;
  return S;
}

/// Combines the lanes of a vector in a tree where the code combines them
/// with a value one after another: `acc op v[0] op v[1] ... op v[n-1]`,
/// the last step of a fused reduction's partial results
/// (cpu-fuse-elementwise folds whole vectors pairwise and leaves the last
/// vector's lanes to this chain). A sum becomes `acc + reduce.fadd(v)`
/// with reassociation, which x86 codegen makes halvings of the vector
/// (log2(n) shuffles and adds) instead of n dependent scalar adds and the
/// n - 1 extracts before them: per row of a GEMV tile, as many
/// instructions again as the tile's multiply-adds. The sum may differ
/// from the in-order one by the rounding of a different order; a
/// reduction's order is unspecified. A max or min (a compare and select
/// per lane; the chain may start at lane 0 itself, InstCombine having
/// folded the identity away) becomes the same compare and select on
/// halves of the vector, log2(n) vmaxps instead of n dependent vmaxss,
/// then `acc` against the result: softmax's exp of a tile waits for its
/// maximum, so the chain's latency is paid once per tile. The result is
/// the same value (the lanes of fused partial results are never NaN; with
/// NaN lanes, which lane wins depends on the order in the chain too).
void reduceLanesInTrees(llvm::Module &LM) {
  // The chain ends: steps whose element is v[n-1] of an n-lane float
  // vector.
  std::vector<llvm::WeakTrackingVH> Ends;
  for (llvm::Function &F : LM)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        std::optional<LaneStep> S;
        if (I.getOpcode() == llvm::Instruction::FAdd || I.getOpcode() == llvm::Instruction::Select)
          S = matchLaneStep(&I, I.getOpcode(), llvm::CmpInst::BAD_FCMP_PREDICATE);
        if (!S)
          continue;
        auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(S->Elt->getVectorOperandType());
        uint64_t Lane = llvm::cast<llvm::ConstantInt>(S->Elt->getIndexOperand())->getZExtValue();
        if (VT && Lane >= 3 && Lane + 1 == VT->getNumElements())
          Ends.push_back(&I);
      }
  for (llvm::WeakTrackingVH &Handle : Ends) {
    // An end may have gone with an earlier chain's rewrite.
    auto *End = llvm::dyn_cast_or_null<llvm::Instruction>(Handle);
    if (!End)
      continue;
    unsigned Opcode = End->getOpcode();
    std::optional<LaneStep> EndStep =
        matchLaneStep(End, Opcode, llvm::CmpInst::BAD_FCMP_PREDICATE);
    if (!EndStep)
      continue;
    llvm::CmpInst::Predicate Pred =
        EndStep->Cmp ? EndStep->Cmp->getPredicate() : llvm::CmpInst::BAD_FCMP_PREDICATE;
    llvm::Value *V = EndStep->Elt->getVectorOperand();
    auto *VT = llvm::cast<llvm::FixedVectorType>(V->getType());
    int64_t N = VT->getNumElements();
    // Walk back from lane n-1 to lane 0; each step but the last one used
    // only by the next (a select step by the next compare and select).
    auto IsLane = [&](llvm::Value *X, int64_t L) {
      auto *E = llvm::dyn_cast<llvm::ExtractElementInst>(X);
      auto *C = E ? llvm::dyn_cast<llvm::ConstantInt>(E->getIndexOperand()) : nullptr;
      return C && E->getVectorOperand() == V && C->getSExtValue() == L;
    };
    llvm::Value *Cur = End;
    llvm::Instruction *Next = nullptr;
    llvm::Value *Start = nullptr;
    bool Ok = true;
    for (int64_t L = N - 1; L >= 0 && Ok; --L) {
      if (L == 0 && IsLane(Cur, 0)) { // the chain starts at lane 0
        Start = nullptr;
        break;
      }
      std::optional<LaneStep> S = matchLaneStep(Cur, Opcode, Pred);
      auto *CurI = llvm::dyn_cast<llvm::Instruction>(Cur);
      if (!S || !IsLane(S->Elt, L) || CurI->getParent() != End->getParent()) {
        Ok = false;
        break;
      }
      if (Next && Opcode == llvm::Instruction::Select) {
        llvm::Value *NextCmp = llvm::cast<llvm::SelectInst>(Next)->getCondition();
        Ok = llvm::all_of(CurI->users(), [&](llvm::User *U) { return U == Next || U == NextCmp; });
      } else if (Next && !CurI->hasOneUse()) {
        Ok = false;
      }
      Next = CurI;
      Cur = Start = S->Prev;
    }
    if (!Ok)
      continue;
    llvm::IRBuilder<> B(End);
    llvm::Value *R;
    if (Opcode == llvm::Instruction::FAdd) {
      llvm::FastMathFlags FMF;
      FMF.setAllowReassoc();
      B.setFastMathFlags(FMF);
      R = B.CreateFAddReduce(Start ? Start : llvm::ConstantFP::getNegativeZero(B.getFloatTy()), V);
    } else {
      if (!llvm::isPowerOf2_64(N))
        continue;
      // Halves while two or more lanes are left, then lane 0 against
      // lane 1.
      llvm::Value *W = V;
      for (int64_t H = N / 2; H >= 2; H /= 2) {
        llvm::SmallVector<int, 16> LoM, HiM;
        for (int64_t I = 0; I != H; ++I) {
          LoM.push_back(I);
          HiM.push_back(I + H);
        }
        llvm::Value *Lo = B.CreateShuffleVector(W, LoM);
        llvm::Value *Hi = B.CreateShuffleVector(W, HiM);
        W = B.CreateSelect(B.CreateFCmp(Pred, Lo, Hi), Lo, Hi);
      }
      llvm::Value *L0 = B.CreateExtractElement(W, uint64_t(0));
      llvm::Value *L1 = B.CreateExtractElement(W, uint64_t(1));
      R = B.CreateSelect(B.CreateFCmp(Pred, L0, L1), L0, L1);
      if (Start)
        R = B.CreateSelect(B.CreateFCmp(Pred, Start, R), Start, R);
    }
    End->replaceAllUsesWith(R);
    llvm::RecursivelyDeleteTriviallyDeadInstructions(End);
  }
}

/// Whether \p LM calls a function of the x86 vector function ABI (a vector
/// math library's).
bool callsVectorFunctions(const llvm::Module &LM) {
  return llvm::any_of(LM, [](const llvm::Function &F) {
    return F.isDeclaration() && F.getName().starts_with("_ZGV");
  });
}

/// The middle-end pipeline of \p T's `llvm_opt` (unset: kernel).
LLVMPipeline getPipeline(const TargetSpec &T) {
  return T.getAttr("llvm_opt").value_or("kernel") == "O3" ? LLVMPipeline::O3
                                                          : LLVMPipeline::Kernel;
}

/// The LLVM context's pass gate for `-llvm_codegen=nolsr`: the code
/// generator's loop strength reduction (and its preparation of the loops'
/// freeze instructions) does not run, which takes about a third of the
/// f32 GEMM's code generation time on the 2-core Xeon VM of
/// bench/cpu/compile-latency-2026-12-07-0325-ab.txt. The
/// passes ask the gate of the module's context (as they ask -opt-bisect-limit
/// and -opt-disable, whose gate this one then consults), so the choice is
/// this compile's and not the process's.
class CPUCodeGenPassGate : public llvm::OptPassGate {
public:
  /// Stands as \p C's gate until destroyed.
  explicit CPUCodeGenPassGate(llvm::LLVMContext &C) : C(C), Outer(C.getOptPassGate()) {
    C.setOptPassGate(*this);
  }
  ~CPUCodeGenPassGate() override { C.setOptPassGate(Outer); }
  CPUCodeGenPassGate(const CPUCodeGenPassGate &) = delete;
  CPUCodeGenPassGate &operator=(const CPUCodeGenPassGate &) = delete;

  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef Pass, llvm::StringRef IR) const override {
    if (Pass == "Loop Strength Reduction" ||
        Pass == "Canonicalize Freeze Instructions in Loops")
      return false;
    return !Outer.isEnabled() || Outer.shouldRunPass(Pass, IR);
  }

private:
  llvm::LLVMContext &C;
  llvm::OptPassGate &Outer;
};

/// Whether \p T's `llvm_codegen` (unset: O3) leaves out loop strength
/// reduction.
bool skipsLoopStrengthReduction(const TargetSpec &T) {
  return T.getAttr("llvm_codegen").value_or("O3") == "nolsr";
}

/// \p Pipeline (with the vector math library's vector variants) + object code,
/// keeping, when given, the optimized IR as readable source in \p Source
/// and the assembly in \p Asm. The library, when the code calls it, goes into \p Notes
/// for the executor to load; a default library that is not there is
/// noted with the reason.
llvm::Error compile(llvm::Module &LM, llvm::TargetMachine &TM, const CPUVectorMath &VM,
                    LLVMPipeline Pipeline, std::string &Object, std::string *Source,
                    std::map<std::string, std::string> &Notes,
                    std::vector<KernelArtifact::CodeGenTiming> &Timings,
                    const ExpShiftRemark &ExpRemark, std::string *Asm,
                    bool SkipLSR) {
  CodeGenPhaseTimer Phases(Timings);
  llvm::TargetLibraryInfoImpl Libraries(TM.getTargetTriple());
  VM.addMappings(Libraries);
  Phases.done("llvm-setup");
  optimizeModule(LM, TM, &Libraries, Pipeline);
  scaleByFloatExponents(LM, *TM.getMCSubtargetInfo());
  dropFastExpClamps(LM, *TM.getMCSubtargetInfo());
  foldExpShifts(LM, ExpRemark);
  reduceLanesInTrees(LM);
  Phases.done("llvm-opt");
  if (callsVectorFunctions(LM))
    Notes[KernelArtifact::kSharedLibrariesNote] = VM.getLibrary().str();
  if (!VM.getUnavailableReason().empty())
    Notes["vector-math"] = (VM.inlinesExp() ? "exp and exp2 inline, the others none: "
                                            : "none: ") +
                           VM.getUnavailableReason().str();
  streamGlobalStores(LM);
  // For the code generator only (the middle end's passes have their own
  // pipeline), and taken down with it.
  std::optional<CPUCodeGenPassGate> Gate;
  if (SkipLSR)
    Gate.emplace(LM.getContext());
  if (Source)
    *Source = printLLVMModule(LM);
  if (Asm) {
    std::unique_ptr<llvm::Module> Copy = llvm::CloneModule(LM);
    auto A = emitMachineCode(*Copy, TM, EmitKind::Assembly);
    if (!A)
      return A.takeError();
    *Asm = std::move(*A);
  }
  auto Obj = emitMachineCode(LM, TM, EmitKind::Object);
  if (!Obj)
    return Obj.takeError();
  Object = std::move(*Obj);
  Phases.done("llvm-codegen");
  return llvm::Error::success();
}

} // namespace

namespace {

/// The LLVM module of a compile's kernels and what optimizing and
/// compiling it needs, kept together for KernelArtifact::FinishDeviceCode.
struct CPUDeviceCompile {
  CPUDeviceCompile(const BackendContext &Ctx, const Module &M, CPUVectorInfo Vec,
                   std::unique_ptr<llvm::TargetMachine> TMIn, CPUVectorMath VMIn)
      : TM(std::move(TMIn)), VM(std::move(VMIn)), Diags(C, M.getContext(), "cpu-codegen"),
        LM("tile-device", C),
        T(std::move(Vec), VM, TM->getMCSubtargetInfo()->checkFeatures("+avx512f"),
          TM->getMCSubtargetInfo()->checkFeatures("+avx512dq"), M.getContext().getRemarks()),
        Remarks(M.getContext().getRemarks()), Pipeline(getPipeline(Ctx.getTarget())),
        KeepIR(Ctx.keepsLLVMIR()), KeepAsm(Ctx.keepsAssembly()),
        SkipLSR(skipsLoopStrengthReduction(Ctx.getTarget())) {
    Diags.setLocator([this](const llvm::Value *Region) { return locateLoop(T, Region); });
  }

  /// Optimizes and compiles LM into \p Artifact's device fields.
  llvm::Error run(KernelArtifact &Artifact) {
    // foldExpShifts' remarks, once per loop and message.
    std::set<std::pair<const char *, std::string>> Said;
    auto ExpRemark = [&](const llvm::Instruction &I, bool Passed, llvm::StringRef Message) {
      RemarkKind Kind = Passed ? RemarkKind::Passed : RemarkKind::Missed;
      if (!Remarks.isEnabled(Kind, "cpu-codegen"))
        return;
      llvm::SMLoc Loc = locateLoop(T, &I);
      if (Said.insert({Loc.getPointer(), Message.str()}).second)
        Remarks.emit(Kind, "cpu-codegen", Loc, Message);
    };
    // Assembly needs a second run of the code generator: only when asked.
    if (llvm::Error E = compile(LM, *TM, VM, Pipeline, Artifact.DeviceCode,
                                KeepIR ? &Artifact.DeviceSource : nullptr, Artifact.Notes,
                                Artifact.Timings, ExpRemark,
                                KeepAsm ? &Artifact.Notes["device-asm"] : nullptr, SkipLSR))
      return E;
    return Diags.takeError("CPU code generation failed:");
  }

  llvm::LLVMContext C;
  std::unique_ptr<llvm::TargetMachine> TM;
  CPUVectorMath VM;
  LLVMDiagnosticHandler Diags;
  llvm::Module LM;
  CPUDeviceTarget T;
  RemarkEngine &Remarks;
  LLVMPipeline Pipeline;
  bool KeepIR, KeepAsm, SkipLSR;
};

} // namespace

/// CPU.td's IntrinsicOnlyFeatures, sorted.
static constexpr llvm::StringLiteral kIntrinsicOnlyFeatures[] = {
#define GET_TILE_INTRINSIC_ONLY_FEATURES
#include "CPUIntrinsicOnlyFeatures.inc"
};

/// Names the CPU the kernels are compiled for and the features its code
/// may use, which the executor checks against the host before it runs them
/// (KernelArtifact::kCPUFeaturesNote): those the CPU has, less those whose
/// instructions only intrinsics the backend never calls emit.
static void recordCPUFeatures(const llvm::MCSubtargetInfo &STI, KernelArtifact &Artifact) {
  Artifact.DeviceArch = STI.getCPU().str();
  std::string Features;
  for (const llvm::SubtargetFeatureKV &KV : STI.getAllProcessorFeatures())
    if (STI.getFeatureBits().test(KV.Value) &&
        !std::binary_search(std::begin(kIntrinsicOnlyFeatures),
                            std::end(kIntrinsicOnlyFeatures), llvm::StringRef(KV.Key)))
      (Features += KV.Key) += '\n';
  Artifact.Notes[KernelArtifact::kCPUFeaturesNote] = std::move(Features);
}

/// Emits the kernels' LLVM IR, and leaves its optimization and code
/// generation, most of the time of a compile, to FinishDeviceCode: the
/// host code needs only the kernels' entries (names, arguments,
/// specializations), so compileModule generates it on another core
/// meanwhile.
llvm::Error generateCPUDeviceCode(const BackendContext &Ctx, const Module &M,
                                  KernelArtifact &Artifact) {
  if (Ctx.getTarget().getKind().Name == llvm::StringRef("c"))
    return makeNotImplementedError(Ctx, "C source codegen");
  CodeGenPhaseTimer Phases(Artifact.Timings);
  llvm::Expected<CPUVectorInfo> Vec = getCPUVectorInfo(Ctx.getTarget());
  if (!Vec)
    return Vec.takeError();
  auto TM = takeCPUTargetMachine(Ctx.getTarget());
  if (!TM)
    return TM.takeError();
  auto VM = CPUVectorMath::get(Ctx.getTarget(), **TM);
  if (!VM)
    return VM.takeError();
  recordCPUFeatures(*(*TM)->getMCSubtargetInfo(), Artifact);
  auto D = std::make_shared<CPUDeviceCompile>(Ctx, M, std::move(*Vec), std::move(*TM),
                                              std::move(*VM));
  if (llvm::Error E = emitDeviceKernels(M, D->T, D->LM, Artifact))
    return E;
  allowReciprocals(D->LM);
  Phases.done("llvm-ir");
  Artifact.DeviceFmt = DeviceFormat::Object;
  Artifact.FinishDeviceCode = [D](KernelArtifact &A) { return D->run(A); };
  return llvm::Error::success();
}

llvm::Error generateCPUHostCode(const BackendContext &Ctx, const Module &M,
                                KernelArtifact &Artifact) {
  initializeCPUTarget();
  HostCodeGenOptions Opts;
  Opts.DeviceType = 1; // kDLCPU: the tensors live in host memory
  Opts.KeepIR = Ctx.keepsLLVMIR();
  return generateHostObject(
      M, Opts, Ctx.getHostTarget().getAttr("mcpu").value_or("native"), Artifact);
}

} // namespace tile
