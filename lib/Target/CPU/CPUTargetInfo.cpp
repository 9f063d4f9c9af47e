//===- CPUTargetInfo.cpp - The CPU backend's LLVM target machine ----------===//

#include "CPUTargetInfo.h"
#include "VectorMath.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/IR/Walk.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include <functional>
#include <map>
#include <mutex>
#include <utility>

using namespace tile;

void tile::initializeCPUTarget() {
  static std::once_flag InitOnce;
  std::call_once(InitOnce, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
tile::getCPUTargetMachine(const TargetSpec &T) {
  initializeCPUTarget();
  std::string CPU = T.getAttr("mcpu").value_or("native").str();
  auto TM = createTargetMachine(llvm::sys::getProcessTriple(), CPU);
  if (TM)
    (*TM)->Options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  return TM;
}

namespace {

/// An empty function compiled for \p TM, for TTI's answers, which are per
/// function.
struct Probe {
  llvm::LLVMContext C;
  llvm::Module M{"tile-cpu-probe", C};
  llvm::Function *F;

  explicit Probe(llvm::TargetMachine &TM) {
    M.setTargetTriple(TM.getTargetTriple());
    M.setDataLayout(TM.createDataLayout());
    F = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(C), false),
                               llvm::Function::ExternalLinkage, "probe", M);
  }
};

/// Tile's math functions and the LLVM intrinsics the shared emitter
/// (LLVMDeviceTarget::emitMath) computes them with; rsqrt is 1 / sqrt.
constexpr std::pair<Intrinsic, llvm::Intrinsic::ID> kMathIntrinsics[] = {
    {Intrinsic::Exp, llvm::Intrinsic::exp},   {Intrinsic::Exp2, llvm::Intrinsic::exp2},
    {Intrinsic::Log, llvm::Intrinsic::log},   {Intrinsic::Log2, llvm::Intrinsic::log2},
    {Intrinsic::Sqrt, llvm::Intrinsic::sqrt}, {Intrinsic::Rsqrt, llvm::Intrinsic::sqrt},
    {Intrinsic::Tanh, llvm::Intrinsic::tanh},
};

/// A measured timing that CPU.td records (tile-tblgen -gen-instr-timings).
struct MeasuredTiming {
  const char *CPU, *Instr;
  double RThroughput, Latency;
  const char *Source;
};

constexpr MeasuredTiming kMeasuredTimings[] = {
#define GET_TILE_INSTR_TIMINGS
#include "CPUTimings.inc"
};

/// The timing of the instruction with LLVM opcode name \p Name on \p TM's
/// CPU: measured where CPU.td records it, else from the CPU's scheduling
/// model; unknown where the model has none for it (or times it only by
/// the operands of each use).
InstrTiming getInstrTiming(const llvm::TargetMachine &TM, llvm::StringRef Name) {
  InstrTiming T;
  for (const MeasuredTiming &M : kMeasuredTimings)
    if (TM.getTargetCPU() == M.CPU && Name == M.Instr) {
      T.RThroughput = M.RThroughput;
      T.Latency = M.Latency;
      T.Source = std::string("measured: ") + M.Source;
      return T;
    }
  const llvm::MCInstrInfo &MII = *TM.getMCInstrInfo();
  const llvm::MCSubtargetInfo &STI = *TM.getMCSubtargetInfo();
  const llvm::MCSchedModel &SM = STI.getSchedModel();
  T.Source = "LLVM's scheduling model";
  if (!SM.hasInstrSchedModel())
    return T;
  for (unsigned Opc = 0, E = MII.getNumOpcodes(); Opc != E; ++Opc) {
    if (MII.getName(Opc) != Name)
      continue;
    const llvm::MCSchedClassDesc *SC = SM.getSchedClassDesc(MII.get(Opc).getSchedClass());
    if (!SC || !SC->isValid() || SC->isVariant())
      return T;
    T.RThroughput = llvm::MCSchedModel::getReciprocalThroughput(STI, *SC);
    T.Latency = llvm::MCSchedModel::computeInstrLatency(STI, *SC);
    return T;
  }
  return T;
}

/// \p V with at most two decimals, without trailing zeros.
std::string formatCycles(double V) {
  std::string S = llvm::formatv("{0:F2}", V).str();
  while (S.back() == '0')
    S.pop_back();
  if (S.back() == '.')
    S.pop_back();
  return S;
}

/// Sets Info.PreferBF16Dot and the timings it rests on (Info.HasBF16Dot and
/// NumVectorRegs set).
void chooseBF16Dot(const llvm::TargetMachine &TM, CPUVectorInfo &Info) {
  Info.CPUName = TM.getTargetCPU().str();
  if (!Info.HasBF16Dot) {
    Info.BF16DotReason = "the target's CPU (" + Info.CPUName +
                         ") has no AVX512-BF16 (vdpbf16ps)";
    return;
  }
  Info.BF16DotTiming = getInstrTiming(TM, "VDPBF16PSZr");
  Info.F32FmaTiming = getInstrTiming(TM, "VFMADD231PSZr");
  const InstrTiming &Dot = Info.BF16DotTiming, &Fma = Info.F32FmaTiming;
  if (!Dot.isKnown() || !Fma.isKnown()) {
    // Nothing to compare: the instruction made for bf16.
    Info.PreferBF16Dot = true;
    Info.BF16DotReason = "LLVM's scheduling model of " + Info.CPUName +
                         " does not time vdpbf16ps and vfmadd231ps, and the CPU "
                         "has vdpbf16ps";
    return;
  }
  // The default register block of 512-bit f32 vectors (two a row).
  int64_t Accs = 2 * getDefaultGemmRows(Info.NumVectorRegs, 2);
  double DotMACs = Dot.macsPerCycle(32, Accs), FmaMACs = Fma.macsPerCycle(16, Accs);
  Info.PreferBF16Dot = DotMACs > FmaMACs;
  auto Describe = [](const InstrTiming &T) {
    return "reciprocal throughput " + formatCycles(T.RThroughput) + ", latency " +
           formatCycles(T.Latency) + " (" + T.Source + ")";
  };
  Info.BF16DotReason = "vdpbf16ps retires " + formatCycles(DotMACs) +
                       " multiply-adds a cycle on " + Info.CPUName + " against " +
                       formatCycles(FmaMACs) + " for f32 FMAs with " +
                       std::to_string(Accs) + " accumulators (vdpbf16ps: " +
                       Describe(Dot) + "; vfmadd231ps: " + Describe(Fma) + ")" +
                       (DotMACs == FmaMACs ? "; a tie goes to the FMAs" : "");
}

unsigned getFixedVectorBits(const llvm::TargetTransformInfo &TTI) {
  return TTI.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
      .getFixedValue();
}

} // namespace

// getCPUVectorInfo's answers and the machines of its probes, by target
// string. Three passes and codegen ask for each compile; each answer costs
// a TargetMachine (host CPU detection, subtarget features) and the probes
// (together 1-2 ms here), and depends only on the target (its canonical
// string holds every attribute set, mcpu, veclib and exp included) and on
// this process's host. Autotuning compiles on many threads, hence the
// lock.
static std::mutex &getCPUInfoLock() {
  static std::mutex Lock;
  return Lock;
}
static std::map<std::string, CPUVectorInfo, std::less<>> &getKnownVectorInfo() {
  static std::map<std::string, CPUVectorInfo, std::less<>> Known;
  return Known;
}
static std::map<std::string, llvm::TargetMachine *> &getSpareTargetMachines() {
  static std::map<std::string, llvm::TargetMachine *> Spare;
  return Spare;
}

/// What getCPUVectorInfo computes, uncached: a TargetMachine for the CPU
/// (left in \p MadeTM) and three cost-model probes.
static llvm::Expected<CPUVectorInfo>
computeCPUVectorInfo(const TargetSpec &T, std::unique_ptr<llvm::TargetMachine> &MadeTM) {
  auto TM = getCPUTargetMachine(T);
  if (!TM)
    return TM.takeError();
  MadeTM = std::move(*TM);
  Probe P(*MadeTM);
  llvm::TargetTransformInfo TTI = MadeTM->getTargetTransformInfo(*P.F);
  CPUVectorInfo Info;
  unsigned Regs = TTI.getNumberOfRegisters(TTI.getRegisterClassForType(true));
  if (unsigned Bits = getFixedVectorBits(TTI))
    Info.VectorBits = Bits;
  if (Regs)
    Info.NumVectorRegs = Regs;
  if (unsigned Line = TTI.getCacheLineSize())
    Info.CacheLineBytes = Line;
  Info.HasBF16Dot = MadeTM->getMCSubtargetInfo()->checkFeatures("+avx512bf16");
  Info.HasF16Arith = MadeTM->getMCSubtargetInfo()->checkFeatures("+avx512fp16");
  chooseBF16Dot(*MadeTM, Info);

  // Asked for a width beyond any register's, TTI reports the widest
  // registers the CPU has rather than the width its tuning prefers.
  Probe Wide(*MadeTM);
  Wide.F->addFnAttr(kPreferVectorWidthAttr, "65536");
  llvm::TargetTransformInfo WideTTI = MadeTM->getTargetTransformInfo(*Wide.F);
  Info.WidestVectorBits = std::max(Info.VectorBits, getFixedVectorBits(WideTTI));

  // A math function is computed lane by lane when a vector of the widest
  // width costs at least as much as one scalar call per lane (f32) and the
  // vector math library has no variant of that width.
  auto VM = CPUVectorMath::get(T, *MadeTM);
  if (!VM)
    return VM.takeError();
  unsigned Lanes = Info.WidestVectorBits / 32;
  llvm::Type *F32 = llvm::Type::getFloatTy(Wide.C);
  auto *Vec = llvm::FixedVectorType::get(F32, Lanes);
  auto Cost = [&](llvm::Intrinsic::ID ID, llvm::Type *Ty) {
    llvm::IntrinsicCostAttributes Attrs(ID, Ty, {Ty});
    return WideTTI.getIntrinsicInstrCost(Attrs,
                                         llvm::TargetTransformInfo::TCK_RecipThroughput);
  };
  for (auto [I, ID] : kMathIntrinsics)
    if (Lanes > 1 && Cost(ID, Vec) >= Cost(ID, F32) * Lanes &&
        !VM->coversAt(I, Info.WidestVectorBits))
      Info.LaneByLane.push_back(I);
  return Info;
}

llvm::Expected<CPUVectorInfo> tile::getCPUVectorInfo(const TargetSpec &T) {
  std::string Key = T.str();
  {
    std::lock_guard<std::mutex> G(getCPUInfoLock());
    if (auto It = getKnownVectorInfo().find(Key); It != getKnownVectorInfo().end())
      return It->second;
  }
  std::unique_ptr<llvm::TargetMachine> TM;
  llvm::Expected<CPUVectorInfo> Info = computeCPUVectorInfo(T, TM);
  if (!Info)
    return Info.takeError();
  std::lock_guard<std::mutex> G(getCPUInfoLock());
  // The probes' machine, for takeCPUTargetMachine. Never deleted if no one
  // takes it: a TargetMachine destroyed among the static destructors at
  // exit could outlive parts of LLVM it uses.
  llvm::TargetMachine *&Spare = getSpareTargetMachines()[Key];
  if (!Spare)
    Spare = TM.release();
  return getKnownVectorInfo().try_emplace(std::move(Key), std::move(*Info)).first->second;
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
tile::takeCPUTargetMachine(const TargetSpec &T) {
  {
    std::lock_guard<std::mutex> G(getCPUInfoLock());
    auto It = getSpareTargetMachines().find(T.str());
    if (It != getSpareTargetMachines().end() && It->second)
      return std::unique_ptr<llvm::TargetMachine>(std::exchange(It->second, nullptr));
  }
  return getCPUTargetMachine(T);
}

unsigned tile::getKernelVectorBits(const CPUVectorInfo &Info, const KernelStmt &K) {
  if (Info.WidestVectorBits == Info.VectorBits || Info.LaneByLane.empty())
    return Info.WidestVectorBits;
  bool LaneByLane = false;
  std::function<void(const Expr &)> Visit = [&](const Expr &E) {
    if (const auto *C = llvm::dyn_cast<CallExpr>(&E))
      LaneByLane |= llvm::is_contained(Info.LaneByLane, C->getIntrinsic());
    forEachChild(E, Visit);
  };
  // forEachExprSlot visits without changing anything.
  walkStmts(const_cast<Block &>(K.getBody()), [&](Stmt &S) {
    forEachExprSlot(S, [&](ExprPtr &E) { Visit(*E); });
  });
  return LaneByLane ? Info.VectorBits : Info.WidestVectorBits;
}

CPUVectorInfo tile::getKernelVectorInfo(const CPUVectorInfo &Info, const KernelStmt &K) {
  CPUVectorInfo Out = Info;
  Out.VectorBits = getKernelVectorBits(Info, K);
  return Out;
}
