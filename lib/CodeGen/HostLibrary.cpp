//===- HostLibrary.cpp - Host code linked into a shared object ------------===//
//
// An execution backend links an artifact's relocatable host objects in its
// process through ORC, which costs a few milliseconds each time: the JIT's
// set-up, LLVM's target registration and the link itself. A shared object
// linked once by ld.lld loads with dlopen in a fraction of that, which is
// what a kernel cache hit wants. The objects call two kinds of functions
// they do not define: the runtime ABI (tile_rt_*), which libTileExec
// exports under those names, and compiler-rt's half and bfloat conversions,
// which the orc link binds to libTileExec's own definitions. The library
// binds the latter the same way, through a small object of hidden
// functions, each a tail jump to the definition libTileExec exports, so
// that both loads run the same conversions.
//
//===----------------------------------------------------------------------===//

#include "tile/CodeGen/LLVMCodeGen.h"
#include "tile/Exec/Executor.h"
#include "tile/Support/FileIdentity.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace tile;

std::optional<std::string> tile::findLinker() {
  return findExternalTool("TILE_LD_LLD", "ld.lld-22",
                          "/usr/lib/llvm-22/bin/ld.lld");
}

/// An object defining each callee of getRuntimeLibcallAliases() as a
/// hidden function that tail-jumps to its definition, arguments untouched.
static llvm::Expected<std::string> emitLibcallAliases() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext C;
  llvm::Module M("tile-libcall-aliases", C);
  auto *FT = llvm::FunctionType::get(llvm::Type::getVoidTy(C), false);
  for (const RuntimeLibcallAlias &A : getRuntimeLibcallAliases()) {
    llvm::FunctionCallee Def = M.getOrInsertFunction(A.Definition, FT);
    llvm::Function *F = llvm::Function::Create(
        FT, llvm::Function::ExternalLinkage, A.Callee, M);
    F->setVisibility(llvm::GlobalValue::HiddenVisibility);
    F->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "", F));
    B.CreateCall(Def)->setTailCallKind(llvm::CallInst::TCK_MustTail);
    B.CreateRetVoid();
  }
  auto TM = createTargetMachine(llvm::sys::getProcessTriple(), "generic", "",
                                llvm::CodeGenOptLevel::None);
  if (!TM)
    return TM.takeError();
  return emitMachineCode(M, **TM, EmitKind::Object);
}

llvm::Error tile::linkHostLibrary(KernelArtifact &A, llvm::StringRef Linker) {
  std::vector<const std::string *> Objects = A.getHostLinkedObjects();
  if (Objects.empty())
    return llvm::createStringError("the artifact has no host object");
  llvm::Expected<std::string> Aliases = emitLibcallAliases();
  if (!Aliases)
    return Aliases.takeError();
  std::vector<ExternalToolInput> Inputs;
  for (const std::string *O : Objects)
    Inputs.push_back({*O, "o"});
  Inputs.push_back({*Aliases, "o"});
  // -Bsymbolic: the library's own symbols never resolve to another
  // definition in the process.
  llvm::StringRef Flags[] = {"-shared", "-Bsymbolic", "--build-id=none",
                             "-z", "noexecstack", "--hash-style=gnu"};
  llvm::Expected<ExternalToolRun> R =
      runExternalTool(Linker, Flags, Inputs, "so");
  if (!R)
    return R.takeError();
  if (R->ExitCode != 0 || !R->Output)
    return llvm::createStringError(R->getFailureMessage(Linker));
  A.HostLibrary = std::move(*R->Output);
  recordExternalTool(A.Notes, Linker);
  return llvm::Error::success();
}
