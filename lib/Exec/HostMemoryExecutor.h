//===- HostMemoryExecutor.h - Executors on host memory ----------*- C++ -*-===//
//
// Private to libTileExec. The orc and webgpu executors keep tensors in this
// process's memory: allocation is aligned_alloc, copies are memcpy, and
// every call has finished when it returns.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_EXEC_HOSTMEMORYEXECUTOR_H
#define TILE_LIB_EXEC_HOSTMEMORYEXECUTOR_H

#include "tile/Exec/Executor.h"
#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace tile {

/// An executor whose device memory is host memory.
class HostMemoryExecutor : public Executor {
public:
  void deallocate(void *P) override { std::free(P); }
  llvm::Error copyToDevice(void *Dst, const void *Src, size_t Bytes) override {
    if (Bytes) // memcpy's pointers must be valid even for zero bytes
      std::memcpy(Dst, Src, Bytes);
    return llvm::Error::success();
  }
  llvm::Error copyFromDevice(void *Dst, const void *Src,
                             size_t Bytes) override {
    if (Bytes)
      std::memcpy(Dst, Src, Bytes);
    return llvm::Error::success();
  }
  /// Every call runs to completion before it returns.
  llvm::Error synchronize() override { return llvm::Error::success(); }

protected:
  /// \p Bytes (at least one \p Align) of memory aligned to \p Align, for
  /// deallocate to free.
  static llvm::Expected<void *> allocateAligned(size_t Bytes, size_t Align) {
    size_t Size = std::max(Align, (Bytes + Align - 1) / Align * Align);
    void *P = std::aligned_alloc(Align, Size);
    if (!P)
      return llvm::createStringError("cannot allocate " + llvm::Twine(Bytes) +
                                     " bytes of host memory");
    return P;
  }
};

} // namespace tile

#endif // TILE_LIB_EXEC_HOSTMEMORYEXECUTOR_H
