//===- VectorMath.cpp - The CPU backend's vector math library -------------===//

#include "VectorMath.h"
#include "LoopVersioning.h"
#include "tile/IR/Walk.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include <cmath>
#include <functional>

using namespace tile;

namespace {

/// The math functions libmvec has vector variants of, by Tile intrinsic
/// and by the name of the LLVM intrinsic and the libm function.
struct MathFunction {
  Intrinsic Fn;
  const char *Name;
};
constexpr MathFunction kFunctions[] = {
    {Intrinsic::Exp, "exp"},   {Intrinsic::Exp2, "exp2"}, {Intrinsic::Log, "log"},
    {Intrinsic::Log2, "log2"}, {Intrinsic::Tanh, "tanh"},
};

constexpr const char *kLibmvec = "libmvec.so.1";

using IsaLevel = CPUVectorMath::IsaLevel;

/// The ISA levels \p TM's CPU has, narrowest first: SSE ('b') always,
/// AVX2 ('d') or else AVX ('c') at 256 bits, AVX-512 ('e').
llvm::SmallVector<IsaLevel, 3> getIsaLevels(const llvm::TargetMachine &TM) {
  const llvm::MCSubtargetInfo &STI = *TM.getMCSubtargetInfo();
  llvm::SmallVector<IsaLevel, 3> Levels = {{'b', 128}};
  if (STI.checkFeatures("+avx2"))
    Levels.push_back({'d', 256});
  else if (STI.checkFeatures("+avx"))
    Levels.push_back({'c', 256});
  if (STI.checkFeatures("+avx512f"))
    Levels.push_back({'e', 512});
  return Levels;
}

} // namespace

llvm::Expected<CPUVectorMath> CPUVectorMath::get(const TargetSpec &T,
                                                 const llvm::TargetMachine &TM) {
  CPUVectorMath VM;
  llvm::StringRef Want = T.getAttr("veclib").value_or("tile");
  llvm::StringRef Exp = T.getAttr("exp").value_or("auto");
  VM.ExpMode = Exp == "fast"       ? ExpAccuracy::Fast
               : Exp == "accurate" ? ExpAccuracy::Accurate
                                   : ExpAccuracy::Auto;
  if (VM.ExpMode != ExpAccuracy::Auto && Want != "tile")
    return llvm::createStringError("-exp=" + Exp.str() +
                                   " sets the accuracy of the inline exp, which -veclib=" +
                                   Want.str() + " does not use; drop -exp or use -veclib=tile");
  if (Want == "none")
    return std::move(VM);
  VM.InlineExp = Want == "tile";
  const llvm::Triple &Triple = TM.getTargetTriple();
  std::string Err;
  if (!Triple.isX86_64() || !Triple.isOSLinux() || !Triple.isGNUEnvironment())
    VM.Reason = "libmvec is glibc's x86-64 library; the target is " + Triple.str();
  else if (!llvm::sys::DynamicLibrary::getPermanentLibrary(kLibmvec, &Err).isValid())
    VM.Reason = "cannot load " + std::string(kLibmvec) + ": " + Err;
  if (!VM.Reason.empty()) {
    if (Want == "libmvec")
      return llvm::createStringError("-veclib=libmvec: " + VM.Reason);
    return std::move(VM);
  }
  VM.Library = kLibmvec;
  VM.Levels = getIsaLevels(TM);
  return std::move(VM);
}

bool CPUVectorMath::coversAt(Intrinsic I, unsigned Bits) const {
  if (InlineExp && (I == Intrinsic::Exp || I == Intrinsic::Exp2))
    return true;
  if (Library.empty() ||
      !llvm::any_of(kFunctions, [&](const MathFunction &F) { return F.Fn == I; }))
    return false;
  return llvm::any_of(Levels, [&](const IsaLevel &L) { return L.Bits == Bits; });
}

void CPUVectorMath::addMappings(llvm::TargetLibraryInfoImpl &TLII) const {
  if (Library.empty())
    return;
  llvm::StringSaver Names(*Alloc);
  std::vector<llvm::VecDesc> Descs;
  for (const MathFunction &F : kFunctions)
    for (const IsaLevel &L : Levels)
      for (unsigned EltBits : {32u, 64u}) {
        if (InlineExp && EltBits == 32 && (F.Fn == Intrinsic::Exp || F.Fn == Intrinsic::Exp2))
          continue;
        unsigned VF = L.Bits / EltBits;
        std::string Suffix = EltBits == 32 ? "f" : "";
        llvm::StringRef Vector = Names.save(std::string("_ZGV") + L.Letter + "N" +
                                            llvm::utostr(VF) + "v_" + F.Name + Suffix);
        llvm::StringRef Prefix = Names.save("_ZGV_LLVM_N" + llvm::utostr(VF) + "v");
        for (std::string Scalar :
             {std::string("llvm.") + F.Name + (EltBits == 32 ? ".f32" : ".f64"),
              std::string(F.Name) + Suffix})
          Descs.emplace_back(Names.save(Scalar), Vector,
                             llvm::ElementCount::getFixed(VF), /*Masked=*/false,
                             Prefix, std::nullopt);
      }
  TLII.addVectorizableFunctions(Descs);
}

namespace {

/// P[0] x^(n-1) + ... + P[n-1] by Horner's rule with fused multiply-adds.
llvm::Value *emitHorner(llvm::IRBuilder<> &B, llvm::ArrayRef<float> P, llvm::Value *X) {
  llvm::Type *F32 = B.getFloatTy();
  llvm::Value *Poly = llvm::ConstantFP::get(F32, P[0]);
  for (float Coeff : P.drop_front())
    Poly = B.CreateIntrinsic(llvm::Intrinsic::fmuladd, {F32},
                             {Poly, X, llvm::ConstantFP::get(F32, Coeff)});
  return Poly;
}

/// V * 2^NI for the exponents the exp clamps allow: one ldexp (vscalefps)
/// where the CPU has it, else V * 2^n1 * 2^n2 with n1 = NI >> 1 and
/// n2 = NI - n1, both normal exponents.
llvm::Value *emitScaleByPow2(llvm::IRBuilder<> &B, llvm::Value *V, llvm::Value *NI,
                             bool HasScalef) {
  llvm::Type *F32 = B.getFloatTy();
  if (HasScalef)
    return B.CreateIntrinsic(llvm::Intrinsic::ldexp, {F32, B.getInt32Ty()}, {V, NI});
  llvm::Value *N1 = B.CreateAShr(NI, 1), *N2 = B.CreateSub(NI, N1);
  auto Pow2 = [&](llvm::Value *K) {
    return B.CreateBitCast(B.CreateShl(B.CreateAdd(K, B.getInt32(127)), 23), F32);
  };
  return B.CreateFMul(B.CreateFMul(V, Pow2(N1)), Pow2(N2));
}

} // namespace

llvm::Value *tile::emitInlineExpF32(llvm::IRBuilder<> &B, llvm::Value *X, bool Base2,
                                    bool HasScalef) {
  llvm::Type *F32 = B.getFloatTy(), *I32 = B.getInt32Ty();
  auto C = [&](float V) { return llvm::ConstantFP::get(F32, V); };
  auto FMA = [&](llvm::Value *A, llvm::Value *M, llvm::Value *Add) {
    return B.CreateIntrinsic(llvm::Intrinsic::fmuladd, {F32}, {A, M, Add});
  };
  // Beyond these bounds the result is 0 or overflows whatever X is (e^-104
  // and 2^-151 round to 0, e^89 and 2^129 to inf). Ordered compares keep
  // NaN.
  float Lo = Base2 ? -151.0f : -104.0f, Hi = Base2 ? 129.0f : 89.0f;
  X = B.CreateSelect(B.CreateFCmpOLT(X, C(Lo)), C(Lo), X);
  X = B.CreateSelect(B.CreateFCmpOGT(X, C(Hi)), C(Hi), X);
  // n = round(X / ln 2) to nearest even (roundeven: one vrndscaleps or
  // vroundps). X / ln 2 is rounded first, so n may be the neighbour of
  // the nearest integer when X / ln 2 lies within an ulp of a half; r then
  // lies an ulp outside [-ln 2 / 2, ln 2 / 2], where the polynomial is as
  // accurate.
  llvm::Value *N = B.CreateIntrinsic(
      llvm::Intrinsic::roundeven, {F32},
      {Base2 ? X : B.CreateFMul(X, C(1.44269504088896341f))});
  llvm::Value *NI = B.CreateFPToSI(N, I32);
  // r = X - n ln 2, |r| <= ln 2 / 2; ln 2 = 0.693359375 - 2.12194440e-4,
  // whose first part has few enough bits that n times it is exact.
  llvm::Value *R;
  if (Base2) {
    R = B.CreateFMul(B.CreateFSub(X, N), C(0.693147180559945309f));
  } else {
    R = FMA(N, C(-0.693359375f), X);
    R = FMA(N, C(2.12194440e-4f), R);
  }
  // e^r = 1 + r + r^2 P(r) (Cephes expf.c).
  static constexpr float P[] = {1.9875691500E-4f, 1.3981999507E-3f, 8.3334519073E-3f,
                                4.1665795894E-2f, 1.6666665459E-1f, 5.0000001201E-1f};
  llvm::Value *Poly = emitHorner(B, P, R);
  llvm::Value *E = FMA(Poly, B.CreateFMul(R, R), B.CreateFAdd(R, C(1.0f)));
  return emitScaleByPow2(B, E, NI, HasScalef);
}

llvm::Value *tile::emitFastExpF32(llvm::IRBuilder<> &B, llvm::Value *X, bool Base2,
                                  bool HasScalef) {
  llvm::Type *F32 = B.getFloatTy();
  auto C = [&](float V) { return llvm::ConstantFP::get(F32, V); };
  // t = x log2(e), rounded once: |t| 2^-24 of absolute error, a relative
  // error of the result below |t| 2^-24 ln 2 (1e-6 where |t| < 24).
  llvm::Value *T = Base2 ? X : B.CreateFMul(X, C(1.44269504088896341f));
  // Beyond these bounds the result is 0 or inf whatever t is (2^-151 and
  // 2^129 round there); the clamp also keeps t - floor(t) finite for
  // t = +-inf. Ordered compares keep NaN.
  T = B.CreateSelect(B.CreateFCmpOLT(T, C(-151.0f)), C(-151.0f), T);
  T = B.CreateSelect(B.CreateFCmpOGT(T, C(129.0f)), C(129.0f), T);
  // The floor form: n = floor(t), f = t - n in [0, 1]. Rounding down rather
  // than to nearest is what vscalefps does with its exponent operand, so
  // that once vectorized with AVX-512DQ n is no instruction at all: f is
  // one vreduceps of t rounding down and vscalefps takes t itself
  // (dropFastExpClamps in CPUCodeGen.cpp). f is exact except for t in
  // (-1/2, 0), where t + 1 rounds by 2^-25 at most (2e-8 of the result;
  // it may round to 1, where the polynomial is as accurate).
  llvm::Value *N = B.CreateIntrinsic(llvm::Intrinsic::floor, {F32}, {T});
  llvm::Value *F = B.CreateFSub(T, N);
  // 2^f = 1 + f (c1 + f (c2 + f (c3 + f c4))), a minimax fit of the
  // relative error on [0, 1] with p(0) = 1, so that exp(0) and the exp2 of
  // an integer are exact (softmax's largest element gives 1): 2.95e-6 with
  // the coefficients rounded to f32 (2.9e-6 unrounded, the same as the
  // round-to-nearest form's fit on [-1/2, 1/2], the interval's length being
  // the same). bench/cpu/exp_ulp.py measures the whole.
  static constexpr float P[] = {1.342668384e-2f, 5.224247277e-2f, 2.412801981e-1f,
                                6.930448413e-1f, 1.0f};
  llvm::Value *Poly = emitHorner(B, P, F);
  return emitScaleByPow2(B, Poly, B.CreateFPToSI(N, B.getInt32Ty()), HasScalef);
}

bool tile::chooseFastExp(const KernelStmt &K, CPUVectorMath::ExpAccuracy Mode,
                         bool HasReduce, RemarkEngine &Remarks) {
  using ExpAccuracy = CPUVectorMath::ExpAccuracy;
  const Expr *FirstExp = nullptr;
  std::function<void(const Expr &)> FindExp = [&](const Expr &E) {
    if (FirstExp)
      return;
    if (const auto *Call = llvm::dyn_cast<CallExpr>(&E))
      if ((Call->getIntrinsic() == Intrinsic::Exp ||
           Call->getIntrinsic() == Intrinsic::Exp2) &&
          Call->getDType() == DType::F32) {
        FirstExp = &E;
        return;
      }
    forEachChild(E, FindExp);
  };
  // The first tensor written whose elements are not f16 or bf16.
  const BufferValue *Wide = nullptr;
  auto Written = [&](const BufferValue *B) {
    if (!Wide && B->getScope() == MemScope::Global && B->getDType() != DType::F16 &&
        B->getDType() != DType::BF16)
      Wide = B;
  };
  walkStmts(K.getBody(), [&](const Stmt &CS) {
    Stmt &S = const_cast<Stmt &>(CS);
    forEachExprSlot(S, [&](ExprPtr &E) { FindExp(*E); });
    if (const auto *St = llvm::dyn_cast<StoreStmt>(&S))
      Written(St->getBuffer());
    if (const auto *Op = llvm::dyn_cast<OpStmt>(&S))
      for (unsigned I = 0; I != Op->getOperands().size(); ++I) {
        const OpOperand &O = Op->getOperand(I);
        if (O.Kind == OperandKind::Region && Op->getInfo().operands()[I].Written)
          Written(O.R.Buf);
      }
  });
  if (!FirstExp)
    return false;
  // The fast form's clamps go once vectorized where vreduceps is
  // (dropFastExpClamps in CPUCodeGen.cpp).
  auto KeepsClamps = [&] {
    if (!HasReduce && Remarks.isEnabled(RemarkKind::Missed, "cpu-codegen"))
      Remarks.emit(RemarkKind::Missed, "cpu-codegen", FirstExp->getLoc(),
                   "exp keeps its clamps to the range of finite nonzero results "
                   "(two vector instructions): t - floor(t) in one vreduceps, 0 "
                   "for infinite t, needs AVX-512DQ, which the CPU lacks");
  };
  if (Mode == ExpAccuracy::Fast) {
    if (Remarks.isEnabled(RemarkKind::Passed, "cpu-codegen"))
      Remarks.emit(RemarkKind::Passed, "cpu-codegen", FirstExp->getLoc(),
                   "exp to 2^-18 relative error in f16's range, 2^-17 in "
                   "f32's (floor form: degree-4 polynomial, no Cody-Waite "
                   "reduction): -exp=fast");
    KeepsClamps();
    return true;
  }
  if (Mode == ExpAccuracy::Accurate) {
    if (Remarks.isEnabled(RemarkKind::Missed, "cpu-codegen"))
      Remarks.emit(RemarkKind::Missed, "cpu-codegen", FirstExp->getLoc(),
                   "exp at f32 accuracy (Cody-Waite reduction, degree-6 "
                   "polynomial): -exp=accurate");
    return false;
  }
  if (Wide) {
    if (Remarks.isEnabled(RemarkKind::Missed, "cpu-codegen"))
      Remarks.emit(RemarkKind::Missed, "cpu-codegen", FirstExp->getLoc(),
                   "exp at f32 accuracy (Cody-Waite reduction, degree-6 "
                   "polynomial): the kernel writes " +
                       getDTypeName(Wide->getDType()) + " tensor %" + Wide->getName() +
                       "; only kernels whose results are rounded to f16 or bf16 "
                       "take the 2^-18 expansion");
    return false;
  }
  if (Remarks.isEnabled(RemarkKind::Passed, "cpu-codegen"))
    Remarks.emit(RemarkKind::Passed, "cpu-codegen", FirstExp->getLoc(),
                 "exp to 2^-18 relative error in f16's range, 2^-17 in f32's "
                 "(floor form: degree-4 polynomial, no Cody-Waite reduction): "
                 "every tensor the kernel writes is f16 or bf16");
  KeepsClamps();
  return true;
}

namespace {

/// Whether every lane of \p V is an f16 value or infinite: at most 65504
/// in magnitude where finite (fpext of half, selects of such values,
/// constants that are).
bool isF16OrInfinite(const llvm::Value *V, unsigned Depth = 0) {
  using namespace llvm::PatternMatch;
  if (Depth > 4)
    return false;
  if (const auto *Ext = llvm::dyn_cast<llvm::FPExtInst>(V))
    return Ext->getSrcTy()->getScalarType()->isHalfTy();
  if (const auto *Sel = llvm::dyn_cast<llvm::SelectInst>(V))
    return isF16OrInfinite(Sel->getTrueValue(), Depth + 1) &&
           isF16OrInfinite(Sel->getFalseValue(), Depth + 1);
  if (const auto *C = llvm::dyn_cast<llvm::Constant>(V)) {
    auto Fits = [](const llvm::Constant *E) {
      const auto *F = llvm::dyn_cast_or_null<llvm::ConstantFP>(E);
      return F && (F->getValueAPF().isInfinity() ||
                   (F->getValueAPF().isFinite() &&
                    std::fabs(F->getValueAPF().convertToFloat()) <= 65504.0f));
    };
    if (const llvm::Constant *S = C->getSplatValue())
      return Fits(S);
    auto *VT = llvm::dyn_cast<llvm::FixedVectorType>(C->getType());
    if (!VT)
      return Fits(C);
    for (unsigned I = 0; I != VT->getNumElements(); ++I)
      if (!Fits(C->getAggregateElement(I)))
        return false;
    return true;
  }
  return false;
}

bool isScalefPs(const llvm::Value *V) {
  const auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(V);
  return II && (II->getIntrinsicID() == llvm::Intrinsic::x86_avx512_mask_scalef_ps_512 ||
                II->getIntrinsicID() == llvm::Intrinsic::x86_avx512_mask_scalef_ps_256 ||
                II->getIntrinsicID() == llvm::Intrinsic::x86_avx512_mask_scalef_ps_128);
}

bool isFloorReducePs(const llvm::Value *V) {
  const auto *II = llvm::dyn_cast<llvm::IntrinsicInst>(V);
  if (!II || (II->getIntrinsicID() != llvm::Intrinsic::x86_avx512_mask_reduce_ps_512 &&
              II->getIntrinsicID() != llvm::Intrinsic::x86_avx512_mask_reduce_ps_256 &&
              II->getIntrinsicID() != llvm::Intrinsic::x86_avx512_mask_reduce_ps_128))
    return false;
  const auto *Imm = llvm::dyn_cast<llvm::ConstantInt>(II->getArgOperand(1));
  return Imm && Imm->getZExtValue() == 9;
}

/// One vectorized fast exp of `x - m`: scalef(p(f), t) with t = (x - m)
/// log2(e), f = t - floor(t) (one vreduceps) and p a Horner chain of
/// fmuladd whose every step has one use.
struct ShiftedExp {
  llvm::Instruction *T;          ///< fmul (x - m), log2(e)
  llvm::Value *X;                ///< x
  llvm::Value *M;                ///< the scalar m, splat
  /// The chain's constant operands: (fmuladd, operand index).
  llvm::SmallVector<std::pair<llvm::IntrinsicInst *, unsigned>, 6> Coeffs;
};

std::optional<ShiftedExp> matchShiftedExp(llvm::IntrinsicInst &Scalef) {
  using namespace llvm::PatternMatch;
  ShiftedExp S;
  llvm::Value *D;
  const llvm::APFloat *L;
  auto *T = llvm::dyn_cast<llvm::Instruction>(Scalef.getArgOperand(1));
  if (!T || !match(T, m_FMul(m_Value(D), m_APFloat(L))) ||
      *L != llvm::APFloat(1.44269504088896341f))
    return std::nullopt;
  S.T = T;
  llvm::Value *MS;
  if (!match(D, m_OneUse(m_FSub(m_Value(S.X), m_Value(MS)))))
    return std::nullopt;
  S.M = llvm::getSplatValue(MS);
  if (!S.M || !S.M->getType()->isFloatTy())
    return std::nullopt;
  // t is used by the scalef and by vreduceps, whose result only the
  // chain uses.
  llvm::Value *F = nullptr;
  for (llvm::User *U : T->users()) {
    if (U == &Scalef)
      continue;
    if (!isFloorReducePs(U) || F)
      return std::nullopt;
    F = U;
  }
  if (!F)
    return std::nullopt;
  llvm::Value *P = Scalef.getArgOperand(0);
  unsigned FUses = 0;
  while (true) {
    auto IsSplat = [](const llvm::Value *V) {
      const auto *C = llvm::dyn_cast<llvm::Constant>(V);
      return C && C->getSplatValue();
    };
    auto *Step = llvm::dyn_cast<llvm::IntrinsicInst>(P);
    if (!Step || Step->getIntrinsicID() != llvm::Intrinsic::fmuladd || !Step->hasOneUse() ||
        !IsSplat(Step->getArgOperand(2)))
      return std::nullopt;
    S.Coeffs.push_back({Step, 2});
    ++FUses;
    llvm::Value *A = Step->getArgOperand(0), *B = Step->getArgOperand(1);
    if (B != F)
      std::swap(A, B);
    if (B != F)
      return std::nullopt;
    if (IsSplat(A)) {
      S.Coeffs.push_back({Step, A == Step->getArgOperand(0) ? 0u : 1u});
      break;
    }
    P = A;
  }
  if (F->getNumUses() != FUses)
    return std::nullopt;
  return S;
}

/// An exp that foldExpShifts rewrote: its vscalefps and the polynomial's
/// coefficient operands with the scalar K c each now splats.
struct FoldedExp {
  llvm::IntrinsicInst *Scalef;
  llvm::SmallVector<std::tuple<llvm::IntrinsicInst *, unsigned, llvm::Value *>, 6> Coeffs;
};

/// An exp of \p Folds multiplied by r, one value for its loop (a splat):
/// softmax's exp(x - m) / s once the division is a multiply by the
/// reciprocal (allowReciprocals).
struct ScaledExp {
  const FoldedExp *Exp;
  llvm::Instruction *Mul;
  llvm::Value *R;
};

/// Folds the multiply of each ScaledExp into its polynomial's
/// coefficients (K c r instead of K c), removing a vmulps per vector.
/// p K r 2^n rounds once where p K 2^n r rounded twice, the same to an ulp
/// while K r keeps K c r normal: the loop is versioned on |r| in
/// [2^-100, 2^100] (one branch before it), and runs as it was otherwise
/// (r zero, infinite, NaN or extreme: exp(x) * inf is NaN where exp(x)
/// underflows, which no scaling of the polynomial gives).
void foldExpScales(llvm::ArrayRef<FoldedExp> Folds, const ExpShiftRemark &Remark) {
  llvm::MapVector<llvm::Function *, std::vector<ScaledExp>> ByFunction;
  for (const FoldedExp &FE : Folds) {
    using namespace llvm::PatternMatch;
    if (!FE.Scalef->hasOneUse())
      continue;
    auto *Mul = llvm::cast<llvm::Instruction>(*FE.Scalef->user_begin());
    llvm::Value *RS;
    if (!match(Mul, m_c_FMul(m_Specific(FE.Scalef), m_Value(RS))))
      continue;
    llvm::Value *R = llvm::getSplatValue(RS);
    if (!R || !R->getType()->isFloatTy())
      continue;
    ByFunction[FE.Scalef->getFunction()].push_back({&FE, Mul, R});
  }
  for (auto &[F, Scaled] : ByFunction) {
    llvm::DominatorTree DT(*F);
    llvm::LoopInfo LI(DT);
    llvm::MapVector<llvm::Loop *, std::vector<const ScaledExp *>> ByLoop;
    for (const ScaledExp &SE : Scaled) {
      llvm::Loop *L = LI.getLoopFor(SE.Mul->getParent());
      auto *RI = llvm::dyn_cast<llvm::Instruction>(SE.R);
      if (L && L->isInnermost() && (!RI || !L->contains(RI)))
        ByLoop[L].push_back(&SE);
    }
    for (auto &[L, Exps] : ByLoop) {
      // In the preheader: whether every r is in range, and K c r.
      llvm::DenseMap<std::pair<llvm::Value *, llvm::Value *>, llvm::Value *> RC;
      auto Condition = [&](llvm::IRBuilder<> &B) {
        llvm::Type *F32 = B.getFloatTy();
        llvm::Value *Safe = nullptr;
        llvm::SmallPtrSet<llvm::Value *, 2> Checked;
        for (const ScaledExp *SE : Exps) {
          if (Checked.insert(SE->R).second) {
            llvm::Value *A = B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, SE->R);
            llvm::Value *InRange =
                B.CreateAnd(B.CreateFCmpOGE(A, llvm::ConstantFP::get(F32, 0x1p-100f)),
                            B.CreateFCmpOLE(A, llvm::ConstantFP::get(F32, 0x1p100f)));
            Safe = Safe ? B.CreateAnd(Safe, InRange) : InRange;
          }
          auto *VT = llvm::cast<llvm::FixedVectorType>(SE->Mul->getType());
          for (auto [Step, Idx, KC] : SE->Exp->Coeffs) {
            llvm::Value *&V = RC[{SE->R, KC}];
            if (!V)
              V = B.CreateVectorSplat(VT->getElementCount(), B.CreateFMul(KC, SE->R));
          }
        }
        return Safe;
      };
      llvm::ValueToValueMapTy VMap;
      if (!versionLoop(*L, DT, LI, Condition, VMap, ".rfold"))
        continue;
      for (const ScaledExp *SE : Exps) {
        for (auto [Step, Idx, KC] : SE->Exp->Coeffs)
          llvm::cast<llvm::IntrinsicInst>(VMap[Step])->setArgOperand(Idx, RC[{SE->R, KC}]);
        auto *Mul = llvm::cast<llvm::Instruction>(VMap[SE->Mul]);
        Mul->replaceAllUsesWith(VMap[SE->Exp->Scalef]);
        Mul->eraseFromParent();
        Remark(*SE->Exp->Scalef, true,
               "exp(x - m) * r, r one value for the loop (a division by it): r folded "
               "into the polynomial's coefficients where |r| is in [2^-100, 2^100], the "
               "loop as it was otherwise");
      }
    }
  }
}

} // namespace

void tile::foldExpShifts(llvm::Module &LM, const ExpShiftRemark &Remark) {
  std::vector<llvm::IntrinsicInst *> Scalefs;
  for (llvm::Function &Fn : LM)
    for (llvm::BasicBlock &BB : Fn)
      for (llvm::Instruction &I : BB)
        if (isScalefPs(&I))
          Scalefs.push_back(llvm::cast<llvm::IntrinsicInst>(&I));
  // The scaled coefficients and -c_hi per m and vector type, shared by
  // the interleaved copies of a loop's body and the loops that splat the
  // same m.
  struct Folded {
    /// Where the values per m go: after its definition.
    llvm::Instruction *InsertBefore;
    llvm::Value *NegHi;
    /// Per coefficient c: the splat of K c and K c.
    llvm::DenseMap<llvm::Constant *, std::pair<llvm::Value *, llvm::Value *>> Coeffs;
    llvm::Value *K;
  };
  llvm::DenseMap<std::pair<llvm::Value *, llvm::Type *>, Folded> Done;
  std::vector<FoldedExp> Folds;
  for (llvm::IntrinsicInst *Scalef : Scalefs) {
    std::optional<ShiftedExp> S = matchShiftedExp(*Scalef);
    if (!S)
      continue;
    if (!isF16OrInfinite(S->X)) {
      Remark(*Scalef, false,
             "exp(x - m) keeps a subtraction and a multiply per vector: x is not "
             "known to be an f16 value, so x log2(e) - m log2(e) in one FMA may "
             "differ (m log2(e) overflowing where x - m does not)");
      continue;
    }
    auto *VT = llvm::cast<llvm::FixedVectorType>(S->T->getType());
    auto [It, New] = Done.try_emplace({S->M, VT});
    Folded &Fo = It->second;
    llvm::Type *F32 = S->M->getType();
    if (New) {
      if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(S->M))
        Fo.InsertBefore = &*Phi->getParent()->getFirstInsertionPt();
      else if (auto *I = llvm::dyn_cast<llvm::Instruction>(S->M))
        Fo.InsertBefore = I->getNextNode();
      else
        Fo.InsertBefore = &*S->T->getFunction()->getEntryBlock().getFirstInsertionPt();
      llvm::IRBuilder<> B(Fo.InsertBefore);
      auto C = [&](float V) { return llvm::ConstantFP::get(F32, V); };
      auto FMA = [&](llvm::Value *A, llvm::Value *M, llvm::Value *Add) {
        return B.CreateIntrinsic(llvm::Intrinsic::fma, {F32}, {A, M, Add});
      };
      llvm::Value *M = S->M, *L = C(1.44269504088896341f);
      // c = m log2(e) = c_hi + c_lo, both in f32: c_hi = fl(m log2(e)),
      // c_lo = fma(m, log2(e), -c_hi) exactly. Where m is finite but c_hi
      // is beyond 2^100 in magnitude it is clamped there and c_lo is 0:
      // x log2(e) - c_hi, |x log2(e)| < 2^17, is then as far beyond
      // exp2's range as (x - m) log2(e), and stays finite where x is
      // infinite (x - m infinite, not NaN). Where |c_hi| >= 2^20, c_lo
      // (at most half an ulp of c_hi) is dropped for the same reason; m
      // infinite or NaN keeps c_hi = m log2(e) and c_lo = 0.
      llvm::Value *Hi = B.CreateFMul(M, L);
      llvm::Value *MFinite = B.CreateFCmpONE(
          B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, M), C(INFINITY));
      llvm::Value *Clamped = B.CreateBinaryIntrinsic(
          llvm::Intrinsic::minnum, B.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, Hi, C(-0x1p100f)),
          C(0x1p100f));
      Hi = B.CreateSelect(MFinite, Clamped, Hi);
      llvm::Value *NegHi = B.CreateFNeg(Hi);
      llvm::Value *Lo = B.CreateSelect(
          B.CreateFCmpOLT(B.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, Hi), C(0x1p20f)),
          FMA(M, L, NegHi), C(0.0f));
      // exp2(x log2(e) - c_hi) = exp(x - m) 2^c_lo, so the polynomial is
      // scaled by K = 2^-c_lo = e^u, u = -c_lo ln 2, |u| < 2^-5 ln 2:
      // 1 + u + u^2/2 + u^3/6, the next term below 2^-26.
      llvm::Value *U = B.CreateFMul(Lo, C(-0.693147180559945309f));
      llvm::Value *K = FMA(FMA(FMA(U, C(1.0f / 6), C(0.5f)), U, C(1.0f)), U, C(1.0f));
      Fo.NegHi = B.CreateVectorSplat(VT->getElementCount(), NegHi);
      Fo.K = K;
    }
    // t = fma(x, log2(e), -c_hi).
    llvm::IRBuilder<> B(S->T);
    llvm::Value *T = B.CreateIntrinsic(
        llvm::Intrinsic::fma, {VT},
        {S->X, llvm::ConstantVector::getSplat(VT->getElementCount(),
                                              llvm::ConstantFP::get(F32, 1.44269504088896341f)),
         Fo.NegHi});
    FoldedExp FE{Scalef, {}};
    for (auto [Step, Idx] : S->Coeffs) {
      auto *Coeff = llvm::cast<llvm::Constant>(Step->getArgOperand(Idx));
      auto &[Scaled, KC] = Fo.Coeffs[Coeff];
      if (!Scaled) {
        llvm::Constant *Scalar = Coeff->getSplatValue();
        llvm::IRBuilder<> PB(Fo.InsertBefore);
        auto *One = llvm::dyn_cast<llvm::ConstantFP>(Scalar);
        KC = One && One->isExactlyValue(1.0) ? Fo.K : PB.CreateFMul(Fo.K, Scalar);
        Scaled = PB.CreateVectorSplat(VT->getElementCount(), KC);
      }
      Step->setArgOperand(Idx, Scaled);
      FE.Coeffs.push_back({Step, Idx, KC});
    }
    Folds.push_back(std::move(FE));
    llvm::Instruction *OldT = S->T;
    llvm::Instruction *OldD = llvm::cast<llvm::Instruction>(OldT->getOperand(0));
    OldT->replaceAllUsesWith(T);
    OldT->eraseFromParent();
    OldD->eraseFromParent();
    Remark(*Scalef, true,
           "exp(x - m), x an f16 value: x log2(e) - m log2(e) in one FMA, m log2(e) "
           "split in two f32 parts, the lower one folded into the polynomial once per m");
  }
  foldExpScales(Folds, Remark);
}
