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
  llvm::StringRef Want = T.getAttr("veclib").value_or("libmvec");
  if (Want == "none")
    return std::move(VM);
  const llvm::Triple &Triple = TM.getTargetTriple();
  std::string Err;
  if (!Triple.isX86_64() || !Triple.isOSLinux() || !Triple.isGNUEnvironment())
    VM.Reason = "libmvec is glibc's x86-64 library; the target is " + Triple.str();
  else if (!llvm::sys::DynamicLibrary::getPermanentLibrary(kLibmvec, &Err).isValid())
    VM.Reason = "cannot load " + std::string(kLibmvec) + ": " + Err;
  if (!VM.Reason.empty()) {
    if (T.isExplicit("veclib"))
      return llvm::createStringError("-veclib=libmvec: " + VM.Reason);
    return std::move(VM);
  }
  VM.Library = kLibmvec;
  VM.Levels = getIsaLevels(TM);
  return std::move(VM);
}

bool CPUVectorMath::coversAt(Intrinsic I, unsigned Bits) const {
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
