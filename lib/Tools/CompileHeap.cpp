//===- CompileHeap.cpp - The tools' heap for compiling --------------------===//

#include "tile/Tools/CompileHeap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

using namespace tile;

namespace {
enum class HeapState { NotReserved, NotGrown, TooSmall, AdviceRefused, Huge };
} // namespace

// Plain data: what reserveCompileHeap did, for describeCompileHeap.
static HeapState State = HeapState::NotReserved;
static int AdviceErrno = 0;
/// The part of the heap asked to have huge pages: [HugeStart, HugeEnd).
static uintptr_t HugeStart = 0, HugeEnd = 0;

static constexpr size_t MiB = size_t(1) << 20;

void tile::reserveCompileHeap() {
#if defined(__linux__) && defined(__GLIBC__)
  if (State != HeapState::NotReserved)
    return;
  constexpr size_t HugePage = 2 * MiB;
  // Freed memory stays in the process, the heap grows in steps of 64 MiB,
  // and blocks below 32 MiB (glibc's largest threshold) come from it.
  mallopt(M_TRIM_THRESHOLD, int(512 * MiB));
  mallopt(M_TOP_PAD, int(64 * MiB));
  mallopt(M_MMAP_THRESHOLD, int(32 * MiB));
  // Grow the heap now (by the block and the top pad; nothing is touched).
  char *Before = static_cast<char *>(sbrk(0));
  char *P = static_cast<char *>(malloc(16 * MiB));
  char *After = static_cast<char *>(sbrk(0));
  free(P);
  // The block starts in the heap's free top (below Before) and ends above it.
  if (After <= Before || P >= After) {
    State = HeapState::NotGrown;
    return;
  }
  uintptr_t Start = llvm::alignTo(reinterpret_cast<uintptr_t>(Before), HugePage);
  uintptr_t End = llvm::alignDown(reinterpret_cast<uintptr_t>(After), HugePage);
  if (End <= Start) {
    State = HeapState::TooSmall;
    return;
  }
  if (madvise(reinterpret_cast<void *>(Start), End - Start, MADV_HUGEPAGE)) {
    State = HeapState::AdviceRefused;
    AdviceErrno = errno;
    return;
  }
  State = HeapState::Huge;
  HugeStart = Start;
  HugeEnd = End;
#endif
}

void tile::endCompileHeap() {
#if defined(__linux__) && defined(__GLIBC__)
  if (State == HeapState::NotReserved)
    return;
  mallopt(M_MMAP_THRESHOLD, int(128 * 1024));
  if (HugeEnd > HugeStart)
    madvise(reinterpret_cast<void *>(HugeStart), HugeEnd - HugeStart,
            MADV_NOHUGEPAGE);
#endif
}

std::string tile::describeCompileHeap() {
  switch (State) {
  case HeapState::NotReserved:
#if defined(__linux__) && defined(__GLIBC__)
    return "heap: as the C library keeps it (not reserved for the compile)";
#else
    return "heap: as the C library keeps it (the compile heap needs Linux "
           "and glibc)";
#endif
  case HeapState::NotGrown:
    return "heap: 4 KiB pages (the heap did not grow: the C library placed a "
           "16 MiB block outside it)";
  case HeapState::TooSmall:
    return "heap: 4 KiB pages (the heap grew by less than a huge page)";
  case HeapState::AdviceRefused:
    return ("heap: 4 KiB pages (madvise MADV_HUGEPAGE: " +
            llvm::Twine(strerror(AdviceErrno)) + ")")
        .str();
  case HeapState::Huge:
    break;
  }
  // The kernel's policy: "always [madvise] never" and the like.
  std::string Policy = "unknown";
  if (auto B = llvm::MemoryBuffer::getFileAsStream(
          "/sys/kernel/mm/transparent_hugepage/enabled")) {
    llvm::StringRef S = (*B)->getBuffer();
    size_t L = S.find('['), R = S.find(']');
    if (L != llvm::StringRef::npos && R != llvm::StringRef::npos && L < R)
      Policy = S.slice(L + 1, R).str();
  }
  return ("heap: " + llvm::Twine((HugeEnd - HugeStart) / MiB) +
          " MiB advised to have transparent huge pages (the system's policy: " +
          Policy + (Policy == "never" ? ", so it has small pages)" : ")"))
      .str();
}
