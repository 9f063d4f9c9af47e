//===- CPUTargetInfo.cpp - The CPU backend's LLVM target machine ----------===//

#include "CPUTargetInfo.h"
#include "tile/CodeGen/LLVMCodeGen.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include <mutex>

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

llvm::Expected<CPUVectorInfo> tile::getCPUVectorInfo(const TargetSpec &T) {
  auto TM = getCPUTargetMachine(T);
  if (!TM)
    return TM.takeError();
  // TTI answers per function: ask about an empty one compiled for T.
  llvm::LLVMContext C;
  llvm::Module M("tile-cpu-probe", C);
  M.setTargetTriple((*TM)->getTargetTriple());
  M.setDataLayout((*TM)->createDataLayout());
  llvm::Function *F = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(C), false),
      llvm::Function::ExternalLinkage, "probe", M);
  llvm::TargetTransformInfo TTI = (*TM)->getTargetTransformInfo(*F);
  CPUVectorInfo Info;
  unsigned Bits =
      TTI.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
          .getFixedValue();
  unsigned Regs = TTI.getNumberOfRegisters(TTI.getRegisterClassForType(true));
  if (Bits)
    Info.VectorBits = Bits;
  if (Regs)
    Info.NumVectorRegs = Regs;
  if (unsigned Line = TTI.getCacheLineSize())
    Info.CacheLineBytes = Line;
  return Info;
}
