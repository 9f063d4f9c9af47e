//===- VectorMath.cpp - The CPU backend's vector math library -------------===//

#include "VectorMath.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

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
  // n = round(X / ln 2) to nearest even: adding 1.5 * 2^23 leaves n in the
  // low mantissa bits, which are also n + 0x4b400000 as an integer.
  const float Shifter = 12582912.0f;
  llvm::Value *T = Base2 ? B.CreateFAdd(X, C(Shifter))
                         : FMA(X, C(1.44269504088896341f), C(Shifter));
  llvm::Value *N = B.CreateFSub(T, C(Shifter));
  llvm::Value *NI = B.CreateSub(B.CreateBitCast(T, I32), B.getInt32(0x4b400000));
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
  llvm::Value *Poly = C(P[0]);
  for (unsigned I = 1; I != std::size(P); ++I)
    Poly = FMA(Poly, R, C(P[I]));
  llvm::Value *E = FMA(Poly, B.CreateFMul(R, R), B.CreateFAdd(R, C(1.0f)));
  if (HasScalef)
    return B.CreateIntrinsic(llvm::Intrinsic::ldexp, {F32, I32}, {E, NI});
  // e^r * 2^n1 * 2^n2 with n1 = n >> 1 and n2 = n - n1, both normal
  // exponents for every n the clamp allows.
  llvm::Value *N1 = B.CreateAShr(NI, 1), *N2 = B.CreateSub(NI, N1);
  auto Pow2 = [&](llvm::Value *K) {
    return B.CreateBitCast(B.CreateShl(B.CreateAdd(K, B.getInt32(127)), 23), F32);
  };
  return B.CreateFMul(B.CreateFMul(E, Pow2(N1)), Pow2(N2));
}
