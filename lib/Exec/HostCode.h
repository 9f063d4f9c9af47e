//===- HostCode.h - The JIT-linked host code of an artifact -----*- C++ -*-===//
//
// Private to libTileExec: the host code of an artifact, linked in this
// process by ORC (shared by every execution backend whose host code runs
// on this CPU). The executors' factories are declared by the generated
// ExecBackends.inc (ExecutorFactories.h).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EXEC_HOSTCODE_H
#define TILE_LIB_EXEC_HOSTCODE_H

#include "tile/Exec/Executor.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <string>
#include <vector>

namespace tile {

/// The artifact's host object (and, for CPU targets, its device object)
/// linked by ORC's JITLink, with the runtime ABI functions defined; or the
/// artifact's host library, loaded by the system's dynamic loader.
class HostCode {
public:
  ~HostCode();
  /// The host code of \p A: its host library when it has one, else its
  /// getHostLinkedObjects() through ORC. The shared libraries its device
  /// code calls are loaded first. A host library the dynamic loader
  /// refuses degrades to the objects, with the reason in
  /// getLibraryFailure().
  static llvm::Expected<std::unique_ptr<HostCode>>
  load(const KernelArtifact &A);
  /// Links \p Objects (relocatable objects) into a new JIT. Symbols they
  /// do not define resolve against the runtime, this process and then the
  /// shared \p Libraries (names or paths, as dlopen takes them), which are
  /// loaded here.
  static llvm::Expected<std::unique_ptr<HostCode>>
  create(llvm::ArrayRef<const std::string *> Objects,
         llvm::ArrayRef<std::string> Libraries = {});
  /// Loads \p Image, a shared object, with dlopen (from an anonymous
  /// in-memory file), after the shared \p Libraries. Its undefined symbols
  /// resolve against the process: the runtime ABI functions and the
  /// helpers of getRuntimeLibcallAliases() are libTileExec's exports.
  static llvm::Expected<std::unique_ptr<HostCode>>
  loadLibrary(llvm::StringRef Image, llvm::ArrayRef<std::string> Libraries = {});
  llvm::Expected<void *> lookup(llvm::StringRef Symbol);
  /// Calls entry point \p Symbol with \p Call as its runtime context; the
  /// error carries what the host code or the runtime recorded.
  llvm::Error call(llvm::StringRef Symbol, llvm::ArrayRef<TileArg> Args,
                   RuntimeCall &Call);
  /// Calls the entry point \p Symbol whose address lookup() gave, as
  /// call() does.
  static llvm::Error invoke(void *Fn, llvm::StringRef Symbol,
                            llvm::ArrayRef<TileArg> Args, RuntimeCall &Call);

  /// Whether this runs a host library loaded with dlopen (else objects
  /// linked through ORC).
  bool isLibrary() const { return Library != nullptr; }
  /// Why load() linked the objects of an artifact that has a host
  /// library; empty when it did not have to.
  llvm::StringRef getLibraryFailure() const { return LibraryFailure; }

private:
  HostCode() = default;
  struct Session;
  std::unique_ptr<Session> Orc;
  /// dlopen's handle of a loaded host library.
  void *Library = nullptr;
  std::string LibraryFailure;
  llvm::StringMap<void *> Cache;
};

/// An entry point of host code looked up once, with the kernels it
/// launches: each call makes the backend's RuntimeCall \p CallT from the
/// executor and the kernels and runs the entry's host function.
template <typename CallT, typename ExecT, typename KernelT>
class PreparedHostEntry : public PreparedEntry {
public:
  PreparedHostEntry(ExecT &Exec, const std::vector<KernelT> &Kernels, void *Fn,
                    llvm::StringRef Symbol)
      : Exec(Exec), Kernels(Kernels), Fn(Fn), Symbol(Symbol) {}
  llvm::Error call(llvm::ArrayRef<TileArg> Args) override {
    CallT Call(Exec, Kernels);
    return HostCode::invoke(Fn, Symbol, Args, Call);
  }

private:
  ExecT &Exec;
  const std::vector<KernelT> &Kernels;
  void *Fn;
  std::string Symbol;
};

} // namespace tile

#endif // TILE_LIB_EXEC_HOSTCODE_H
