//===- LegalizeForOpenCL.cpp - LLVM IR that OpenCL 1.2 SPIR-V accepts -----===//
//
// The Level Zero backend promises SPIR-V that validates for OpenCL 1.2,
// whose full profile has neither 16-bit float arithmetic (the Float16
// capability, which LLVM's SPIR-V backend declares for any `half`), nor
// bfloat16 (which it rejects without SPV_KHR_bfloat16), nor floating-point
// atomics (SPV_EXT_shader_atomic_float_add). Before optimization, so that
// nothing narrows float code back into half:
//  - f16 and bf16 values become f32 holding the same (exactly
//    representable) value; arithmetic on them happens in f32 and is
//    rounded back to the 16-bit format's precision, which for +, -, *, /
//    and sqrt gives the correctly rounded 16-bit result;
//  - their memory becomes i16, converted with integer operations (round to
//    nearest even; subnormals, infinities and NaN kept);
//  - floating-point atomicrmw becomes a compare-exchange loop on the bits.
//
//===----------------------------------------------------------------------===//

#include "LegalizeForOpenCL.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

bool isHalfLike(Type *T) { return T->isHalfTy() || T->isBFloatTy(); }

class Legalizer {
public:
  explicit Legalizer(Function &F)
      : F(F), C(F.getContext()), B(C), F32(Type::getFloatTy(C)),
        I16(Type::getInt16Ty(C)), I32(Type::getInt32Ty(C)) {}

  Error run() {
    // Atomics first: their expansion splits blocks.
    std::vector<AtomicRMWInst *> Atomics;
    for (Instruction &I : instructions(F))
      if (auto *AI = dyn_cast<AtomicRMWInst>(&I); AI && AI->isFloatingPointOperation())
        Atomics.push_back(AI);
    for (AtomicRMWInst *AI : Atomics)
      if (Error E = expandFloatAtomic(*AI))
        return E;
    ReversePostOrderTraversal<Function *> RPOT(&F);
    for (BasicBlock *BB : RPOT)
      for (Instruction &I : make_early_inc_range(*BB))
        if (Error E = visit(I))
          return E;
    for (auto &[Old, New] : Phis)
      for (unsigned I = 0; I != Old->getNumIncomingValues(); ++I)
        New->addIncoming(toF32(Old->getIncomingValue(I), Old->getType()),
                         Old->getIncomingBlock(I));
    for (auto It = Dead.rbegin(); It != Dead.rend(); ++It) {
      if (!(*It)->use_empty())
        (*It)->replaceAllUsesWith(PoisonValue::get((*It)->getType()));
      (*It)->eraseFromParent();
    }
    return Error::success();
  }

private:
  /// The f32 value standing for the 16-bit float \p V of type \p Ty.
  Value *toF32(Value *V, Type *Ty) {
    if (auto *CF = dyn_cast<ConstantFP>(V)) {
      APFloat X = CF->getValueAPF();
      bool LosesInfo;
      X.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &LosesInfo);
      return ConstantFP::get(F32, X);
    }
    if (isa<PoisonValue>(V) || isa<UndefValue>(V))
      return PoisonValue::get(F32);
    auto It = Map.find(V);
    assert(It != Map.end() && "16-bit float value defined after its use");
    return It->second;
  }

  /// f32 from the 16 bits of an f16 or bf16.
  Value *bitsToF32(Value *Bits, Type *Ty) {
    Value *U = B.CreateZExt(Bits, I32);
    if (Ty->isBFloatTy())
      return B.CreateBitCast(B.CreateShl(U, 16), F32);
    // f16: move exponent and mantissa into place and rebias; infinities
    // and NaN get the all-ones exponent, subnormals are renormalized by one
    // exact float subtraction.
    Value *EM = B.CreateShl(B.CreateAnd(U, 0x7fff), 13);
    Value *Exp = B.CreateAnd(EM, 0x7c00 << 13);
    Value *Biased = B.CreateAdd(EM, B.getInt32((127 - 15) << 23));
    Value *InfNan = B.CreateAdd(Biased, B.getInt32((128 - 16) << 23));
    Value *Sub = B.CreateFSub(
        B.CreateBitCast(B.CreateAdd(Biased, B.getInt32(1 << 23)), F32),
        ConstantFP::get(F32, 6.103515625e-05)); // 2^-14
    Value *R = B.CreateSelect(B.CreateICmpEQ(Exp, B.getInt32(0x7c00 << 13)),
                              InfNan, Biased);
    R = B.CreateSelect(B.CreateICmpEQ(Exp, B.getInt32(0)),
                       B.CreateBitCast(Sub, I32), R);
    Value *Sign = B.CreateShl(B.CreateAnd(U, 0x8000), 16);
    return B.CreateBitCast(B.CreateOr(R, Sign), F32);
  }

  /// The 16 bits of \p X rounded to f16 or bf16 (to nearest, ties to even).
  Value *f32ToBits(Value *X, Type *Ty) {
    Value *U = B.CreateBitCast(X, I32);
    if (Ty->isBFloatTy()) {
      Value *IsNaN = B.CreateFCmpUNO(X, X);
      Value *Lsb = B.CreateAnd(B.CreateLShr(U, 16), 1);
      Value *Rounded = B.CreateLShr(B.CreateAdd(U, B.CreateAdd(Lsb, B.getInt32(0x7fff))), 16);
      Value *QNaN = B.CreateOr(B.CreateLShr(U, 16), 0x40);
      return B.CreateTrunc(B.CreateSelect(IsNaN, QNaN, Rounded), I16);
    }
    Value *Sign = B.CreateAnd(U, 0x80000000u);
    Value *A = B.CreateXor(U, Sign);
    // Infinity or NaN once rounded: above the largest finite f16's range.
    Value *Big = B.CreateICmpUGE(A, B.getInt32((127 + 16) << 23));
    Value *Special = B.CreateSelect(B.CreateICmpUGT(A, B.getInt32(255u << 23)),
                                    B.getInt32(0x7e00), B.getInt32(0x7c00));
    // Subnormal or zero: a float addition of 0.5 aligns the 10 mantissa
    // bits at the bottom and rounds to nearest even.
    Value *Small = B.CreateICmpULT(A, B.getInt32(113 << 23));
    const uint32_t DenormMagic = ((127 - 15) + (23 - 10) + 1) << 23;
    Value *Denorm = B.CreateSub(
        B.CreateBitCast(B.CreateFAdd(B.CreateBitCast(A, F32),
                                     B.CreateBitCast(B.getInt32(DenormMagic), F32)),
                        I32),
        B.getInt32(DenormMagic));
    // Normal: rebias and round to nearest even with integer arithmetic.
    Value *Odd = B.CreateAnd(B.CreateLShr(A, 13), 1);
    Value *Normal = B.CreateLShr(
        B.CreateAdd(B.CreateAdd(A, B.getInt32(uint32_t((15 - 127) * (1 << 23) + 0xfff))),
                    Odd),
        13);
    Value *R = B.CreateSelect(Big, Special, B.CreateSelect(Small, Denorm, Normal));
    return B.CreateTrunc(B.CreateOr(R, B.CreateLShr(Sign, 16)), I16);
  }

  /// \p X (f32) rounded to the precision and range of \p Ty.
  Value *roundTo(Value *X, Type *Ty) { return bitsToF32(f32ToBits(X, Ty), Ty); }

  void define(Instruction &I, Value *V) {
    Map[&I] = V;
    Dead.push_back(&I);
  }
  void replace(Instruction &I, Value *V) {
    I.replaceAllUsesWith(V);
    Dead.push_back(&I);
  }

  static bool hasHalfOperand(const Instruction &I) {
    for (const Use &U : I.operands())
      if (isHalfLike(U->getType()))
        return true;
    return false;
  }

  Error unsupported(Instruction &I) {
    std::string S;
    raw_string_ostream OS(S);
    I.print(OS);
    return createStringError("16-bit float operation not supported by the "
                             "OpenCL 1.2 SPIR-V lowering:" + S);
  }

  Error visit(Instruction &I) {
    B.SetInsertPoint(&I);
    if (auto *A = dyn_cast<AllocaInst>(&I)) {
      if (Type *T = legalMemType(A->getAllocatedType()))
        A->setAllocatedType(T);
      return Error::success();
    }
    if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
      if (Type *T = legalMemType(G->getSourceElementType()))
        G->setSourceElementType(T);
      if (Type *T = legalMemType(G->getResultElementType()))
        G->setResultElementType(T);
      return Error::success();
    }
    Type *Ty = I.getType();
    bool HalfResult = isHalfLike(Ty);
    if (!HalfResult && !hasHalfOperand(I))
      return Error::success();
    if (auto *L = dyn_cast<LoadInst>(&I)) {
      if (!HalfResult)
        return unsupported(I);
      LoadInst *N = B.CreateAlignedLoad(I16, L->getPointerOperand(), L->getAlign(),
                                        L->isVolatile());
      define(I, bitsToF32(N, Ty));
      return Error::success();
    }
    if (auto *S = dyn_cast<StoreInst>(&I)) {
      Value *V = S->getValueOperand();
      if (!isHalfLike(V->getType()))
        return unsupported(I);
      // A store of fptrunc(x) rounds x once.
      Value *Bits;
      if (auto *T = dyn_cast<FPTruncInst>(V); T && T->getSrcTy()->isFloatTy())
        Bits = f32ToBits(T->getOperand(0), V->getType());
      else
        Bits = f32ToBits(toF32(V, V->getType()), V->getType());
      B.CreateAlignedStore(Bits, S->getPointerOperand(), S->getAlign(),
                           S->isVolatile());
      Dead.push_back(&I);
      return Error::success();
    }
    if (auto *E = dyn_cast<FPExtInst>(&I)) {
      Value *X = toF32(E->getOperand(0), E->getSrcTy());
      if (Ty->isFloatTy())
        replace(I, X);
      else if (HalfResult) // half -> bfloat does not exist as fpext
        return unsupported(I);
      else
        replace(I, B.CreateFPExt(X, Ty));
      return Error::success();
    }
    if (auto *T = dyn_cast<FPTruncInst>(&I)) {
      Value *X = T->getOperand(0);
      if (isHalfLike(X->getType())) // bfloat -> half and the like
        X = toF32(X, X->getType());
      else if (!X->getType()->isFloatTy())
        X = B.CreateFPTrunc(X, F32);
      define(I, roundTo(X, Ty));
      return Error::success();
    }
    if (auto *BO = dyn_cast<BinaryOperator>(&I)) {
      if (!HalfResult)
        return unsupported(I);
      Value *R = B.CreateBinOp(BO->getOpcode(), toF32(BO->getOperand(0), Ty),
                               toF32(BO->getOperand(1), Ty));
      define(I, roundTo(R, Ty));
      return Error::success();
    }
    if (auto *U = dyn_cast<UnaryOperator>(&I)) {
      define(I, B.CreateUnOp(U->getOpcode(), toF32(U->getOperand(0), Ty)));
      return Error::success();
    }
    if (auto *Cmp = dyn_cast<FCmpInst>(&I)) {
      Type *OpTy = Cmp->getOperand(0)->getType();
      replace(I, B.CreateFCmp(Cmp->getPredicate(), toF32(Cmp->getOperand(0), OpTy),
                              toF32(Cmp->getOperand(1), OpTy)));
      return Error::success();
    }
    if (auto *Sel = dyn_cast<SelectInst>(&I)) {
      define(I, B.CreateSelect(Sel->getCondition(), toF32(Sel->getTrueValue(), Ty),
                               toF32(Sel->getFalseValue(), Ty)));
      return Error::success();
    }
    if (auto *P = dyn_cast<PHINode>(&I)) {
      PHINode *N = PHINode::Create(F32, P->getNumIncomingValues(), P->getName(),
                                   P->getIterator());
      Phis.push_back({P, N});
      define(I, N);
      return Error::success();
    }
    if (auto *Cast = dyn_cast<CastInst>(&I)) {
      switch (Cast->getOpcode()) {
      case Instruction::SIToFP:
      case Instruction::UIToFP:
        define(I, roundTo(B.CreateCast(Cast->getOpcode(), Cast->getOperand(0), F32), Ty));
        return Error::success();
      case Instruction::FPToSI:
      case Instruction::FPToUI:
        replace(I, B.CreateCast(Cast->getOpcode(),
                                toF32(Cast->getOperand(0), Cast->getSrcTy()), Ty));
        return Error::success();
      case Instruction::BitCast:
        if (HalfResult && Cast->getSrcTy()->isIntegerTy(16)) {
          define(I, bitsToF32(Cast->getOperand(0), Ty));
          return Error::success();
        }
        if (Ty->isIntegerTy(16)) {
          replace(I, f32ToBits(toF32(Cast->getOperand(0), Cast->getSrcTy()),
                               Cast->getSrcTy()));
          return Error::success();
        }
        return unsupported(I);
      default:
        return unsupported(I);
      }
    }
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      return visitIntrinsic(*II);
    return unsupported(I);
  }

  Error visitIntrinsic(IntrinsicInst &II) {
    Intrinsic::ID ID = II.getIntrinsicID();
    Type *Ty = II.getType();
    std::vector<Value *> Args;
    Type *ArgTy = nullptr;
    for (Value *A : II.args()) {
      if (isHalfLike(A->getType())) {
        ArgTy = A->getType();
        A = toF32(A, A->getType());
      }
      Args.push_back(A);
    }
    switch (ID) {
    case Intrinsic::fptosi_sat:
    case Intrinsic::fptoui_sat:
      replace(II, B.CreateIntrinsic(ID, {Ty, F32}, Args));
      return Error::success();
    case Intrinsic::fabs:
    case Intrinsic::minnum:
    case Intrinsic::maxnum:
    case Intrinsic::minimum:
    case Intrinsic::maximum:
    case Intrinsic::copysign:
      // Exact in f32: no rounding needed.
      define(II, B.CreateIntrinsic(ID, {F32}, Args));
      return Error::success();
    case Intrinsic::sqrt:
    case Intrinsic::exp:
    case Intrinsic::exp2:
    case Intrinsic::log:
    case Intrinsic::log2:
    case Intrinsic::tanh:
    case Intrinsic::floor:
    case Intrinsic::ceil:
    case Intrinsic::trunc:
    case Intrinsic::fma:
    case Intrinsic::fmuladd:
      define(II, roundTo(B.CreateIntrinsic(ID, {F32}, Args), ArgTy ? ArgTy : Ty));
      return Error::success();
    default:
      return unsupported(II);
    }
  }

  /// i16 for 16-bit floats (and arrays of them), null when \p T is legal.
  Type *legalMemType(Type *T) {
    if (isHalfLike(T))
      return I16;
    if (auto *A = dyn_cast<ArrayType>(T))
      if (Type *E = legalMemType(A->getElementType()))
        return ArrayType::get(E, A->getNumElements());
    return nullptr;
  }

  /// old = load; do { new = op(old, v) } while (!cmpxchg(p, old, new)).
  Error expandFloatAtomic(AtomicRMWInst &AI) {
    Type *Ty = AI.getType();
    if (!Ty->isFloatTy())
      return unsupported(AI);
    Value *Ptr = AI.getPointerOperand(), *Val = AI.getValOperand();
    BasicBlock *Pre = AI.getParent();
    BasicBlock *Exit = Pre->splitBasicBlock(AI.getIterator(), "atomic.done");
    BasicBlock *Loop = BasicBlock::Create(C, "atomic.loop", &F, Exit);
    Pre->getTerminator()->eraseFromParent();
    B.SetInsertPoint(Pre);
    LoadInst *Init = B.CreateAlignedLoad(I32, Ptr, AI.getAlign());
    Init->setAtomic(AtomicOrdering::Monotonic, AI.getSyncScopeID());
    B.CreateBr(Loop);
    B.SetInsertPoint(Loop);
    PHINode *Old = B.CreatePHI(I32, 2, "old");
    Old->addIncoming(Init, Pre);
    Value *OldF = B.CreateBitCast(Old, F32);
    Value *NewF;
    switch (AI.getOperation()) {
    case AtomicRMWInst::FAdd: NewF = B.CreateFAdd(OldF, Val); break;
    case AtomicRMWInst::FSub: NewF = B.CreateFSub(OldF, Val); break;
    case AtomicRMWInst::FMax: NewF = B.CreateMaxNum(OldF, Val); break;
    case AtomicRMWInst::FMin: NewF = B.CreateMinNum(OldF, Val); break;
    default:
      return unsupported(AI);
    }
    AtomicCmpXchgInst *X = B.CreateAtomicCmpXchg(
        Ptr, Old, B.CreateBitCast(NewF, I32), AI.getAlign(), AI.getOrdering(),
        AtomicOrdering::Monotonic, AI.getSyncScopeID());
    Value *Seen = B.CreateExtractValue(X, 0);
    Old->addIncoming(Seen, Loop);
    B.CreateCondBr(B.CreateExtractValue(X, 1), Exit, Loop);
    B.SetInsertPoint(&*Exit->getFirstInsertionPt());
    AI.replaceAllUsesWith(B.CreateBitCast(Seen, F32));
    AI.eraseFromParent();
    return Error::success();
  }

  Function &F;
  LLVMContext &C;
  IRBuilder<> B;
  Type *F32, *I16, *I32;
  DenseMap<Value *, Value *> Map;
  std::vector<Instruction *> Dead;
  std::vector<std::pair<PHINode *, PHINode *>> Phis;
};

} // namespace

Error tile::legalizeForOpenCL12(Module &M) {
  for (Function &F : M)
    if (!F.isDeclaration())
      if (Error E = Legalizer(F).run())
        return E;
  return Error::success();
}
