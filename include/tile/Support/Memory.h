//===- Memory.h - The machine's physical memory ----------------*- C++ -*-===//
//
// How much physical memory this machine has, for the checks that refuse an
// allocation before making it (the reference interpreter's buffers,
// tile-jit's random inputs) rather than abort in the allocator.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_SUPPORT_MEMORY_H
#define TILE_SUPPORT_MEMORY_H

#include <cstdint>
#include <optional>
#include <unistd.h>

namespace tile {

/// Bytes of physical memory, where the system says.
inline std::optional<uint64_t> getPhysicalMemory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long Pages = sysconf(_SC_PHYS_PAGES), Size = sysconf(_SC_PAGESIZE);
  if (Pages > 0 && Size > 0)
    return uint64_t(Pages) * uint64_t(Size);
#endif
  return std::nullopt;
}

} // namespace tile

#endif // TILE_SUPPORT_MEMORY_H
