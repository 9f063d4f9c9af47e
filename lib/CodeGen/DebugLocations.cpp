//===- DebugLocations.cpp - .tile locations as LLVM debug locations -------===//
//
// One DIFile per SourceMgr buffer, named as the buffer is (the name the
// parser was given), so that LLVMDiagnosticHandler finds the buffer again
// from a remark's location. The compile unit's emission kind is NoDebug:
// code generators emit no line tables or debug sections for it, and the
// "Debug Info Version" flag keeps the locations through a bitcode round
// trip (an external llc).
//
//===----------------------------------------------------------------------===//

#include "DebugLocations.h"
#include "tile/CodeGen/LLVMDiagnostics.h"
#include "tile/IR/IR.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace tile;

std::unique_ptr<DebugLocations> DebugLocations::create(TileContext &TC,
                                                       llvm::Module &LM) {
  if (!wantsLLVMRemarkLocations(TC))
    return nullptr;
  return std::unique_ptr<DebugLocations>(new DebugLocations(*TC.getSourceMgr(), LM));
}

DebugLocations::DebugLocations(llvm::SourceMgr &SM, llvm::Module &LM)
    : SM(SM), LM(LM), DIB(LM) {}

DebugLocations::~DebugLocations() {
  if (!CU)
    return;
  DIB.finalize();
  if (!LM.getModuleFlag("Debug Info Version"))
    LM.addModuleFlag(llvm::Module::Warning, "Debug Info Version",
                     llvm::DEBUG_METADATA_VERSION);
}

llvm::DIFile *DebugLocations::getFile(llvm::SMLoc Loc) {
  unsigned Id = SM.FindBufferContainingLoc(Loc);
  if (!Id)
    return nullptr;
  llvm::DIFile *&F = Files[Id];
  if (!F)
    F = DIB.createFile(SM.getMemoryBuffer(Id)->getBufferIdentifier(), "");
  return F;
}

llvm::DISubprogram *DebugLocations::addFunction(llvm::Function &F, llvm::SMLoc Loc) {
  llvm::DIFile *File = Loc.isValid() ? getFile(Loc) : nullptr;
  if (!File)
    File = DIB.createFile(SM.getNumBuffers()
                              ? SM.getMemoryBuffer(SM.getMainFileID())->getBufferIdentifier()
                              : "<tile>",
                          "");
  if (!CU)
    CU = DIB.createCompileUnit(llvm::DISourceLanguageName(llvm::dwarf::DW_LANG_C), File,
                               "tile", /*isOptimized=*/true, "", 0, "",
                               llvm::DICompileUnit::NoDebug);
  unsigned Line = Loc.isValid() ? SM.getLineAndColumn(Loc).first : 0;
  llvm::DISubprogram *SP = DIB.createFunction(
      File, F.getName(), F.getName(), File, Line,
      DIB.createSubroutineType(DIB.getOrCreateTypeArray({})), Line,
      llvm::DINode::FlagZero,
      llvm::DISubprogram::SPFlagDefinition | llvm::DISubprogram::SPFlagOptimized);
  F.setSubprogram(SP);
  return SP;
}

llvm::DILocation *DebugLocations::get(llvm::SMLoc Loc, llvm::DISubprogram *SP) {
  if (!Loc.isValid() || !SP || !SM.FindBufferContainingLoc(Loc))
    return nullptr;
  auto [Line, Col] = SM.getLineAndColumn(Loc);
  return llvm::DILocation::get(LM.getContext(), Line, Col, SP);
}
