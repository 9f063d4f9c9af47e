//===- HostCode.cpp - Host code linked in this process by ORC -------------===//
//
// Every execution backend runs the generated host entry points on this
// CPU. The objects are linked by an LLJIT instance in which the runtime's
// C ABI functions and the half/bfloat conversion helpers are absolute
// symbols, and the rest resolves against the process (libm) and the shared
// libraries the artifact names (a vector math library).
//
//===----------------------------------------------------------------------===//

#include "HostCode.h"
#include "SoftFloat.h"
#include "llvm/ExecutionEngine/Orc/AbsoluteSymbols.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include <mutex>

using namespace tile;

HostCode::~HostCode() = default;

llvm::Expected<std::unique_ptr<HostCode>>
HostCode::create(llvm::ArrayRef<const std::string *> Objects,
                 llvm::ArrayRef<std::string> Libraries) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto J = llvm::orc::LLJITBuilder().create();
  if (!J)
    return J.takeError();
  llvm::orc::MangleAndInterner Mangle((*J)->getExecutionSession(),
                                      (*J)->getDataLayout());
  llvm::orc::SymbolMap Runtime;
  auto Define = [&](const char *Name, void *Addr) {
    Runtime[Mangle(Name)] = {llvm::orc::ExecutorAddr::fromPtr(Addr),
                             llvm::JITSymbolFlags::Exported |
                                 llvm::JITSymbolFlags::Callable};
  };
  Define("tile_rt_fail", reinterpret_cast<void *>(&tile_rt_fail));
  Define("tile_rt_launch", reinterpret_cast<void *>(&tile_rt_launch));
  Define("tile_rt_tensor_map", reinterpret_cast<void *>(&tile_rt_tensor_map));
  Define("tile_rt_alloc_workspace", reinterpret_cast<void *>(&tile_rt_alloc_workspace));
  Define("tile_rt_free_workspace", reinterpret_cast<void *>(&tile_rt_free_workspace));
  for (auto [Name, Addr] : getSoftFloatHelpers())
    Define(Name, Addr);
  if (llvm::Error E = (*J)->getMainJITDylib().define(
          llvm::orc::absoluteSymbols(std::move(Runtime))))
    return std::move(E);
  auto Gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*J)->getDataLayout().getGlobalPrefix());
  if (!Gen)
    return Gen.takeError();
  (*J)->getMainJITDylib().addGenerator(std::move(*Gen));
  for (const std::string &Lib : Libraries) {
    auto LibGen = llvm::orc::DynamicLibrarySearchGenerator::Load(
        Lib.c_str(), (*J)->getDataLayout().getGlobalPrefix());
    if (!LibGen)
      return llvm::createStringError("cannot load the shared library '" + Lib +
                                     "' that the device code calls: " +
                                     llvm::toString(LibGen.takeError()));
    (*J)->getMainJITDylib().addGenerator(std::move(*LibGen));
  }
  for (const std::string *Obj : Objects)
    if (llvm::Error E = (*J)->addObjectFile(
            llvm::MemoryBuffer::getMemBufferCopy(*Obj, "tile-object")))
      return std::move(E);
  std::unique_ptr<HostCode> H(new HostCode());
  H->JIT = std::move(*J);
  return H;
}

llvm::Expected<void *> HostCode::lookup(llvm::StringRef Symbol) {
  auto It = Cache.find(Symbol);
  if (It != Cache.end())
    return It->second;
  auto S = JIT->lookup(Symbol);
  if (!S)
    return S.takeError();
  void *P = S->toPtr<void *>();
  Cache[Symbol] = P;
  return P;
}

llvm::Error HostCode::call(llvm::StringRef Symbol, llvm::ArrayRef<TileArg> Args,
                           RuntimeCall &Call) {
  auto Fn = lookup(Symbol);
  if (!Fn)
    return Fn.takeError();
  return invoke(*Fn, Symbol, Args, Call);
}

llvm::Error HostCode::invoke(void *Fn, llvm::StringRef Symbol,
                             llvm::ArrayRef<TileArg> Args, RuntimeCall &Call) {
  using EntryFn = int32_t (*)(const TileArg *, int32_t, void *);
  int32_t RC = reinterpret_cast<EntryFn>(Fn)(Args.data(), Args.size(), &Call);
  if (RC == 0)
    return llvm::Error::success();
  if (Call.ArgumentRefused)
    return llvm::make_error<ArgumentError>(Call.Error);
  return llvm::createStringError(Call.Error.empty()
                                     ? "'" + Symbol.str() + "' failed with code " +
                                           std::to_string(RC)
                                     : Call.Error);
}

llvm::Expected<std::unique_ptr<HostCode>> tile::loadHostCode(const KernelArtifact &A) {
  if (A.HostObject.empty())
    return llvm::createStringError("the artifact has no host object");
  return HostCode::create({&A.HostObject});
}
