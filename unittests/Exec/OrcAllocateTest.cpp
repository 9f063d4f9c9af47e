//===- OrcAllocateTest.cpp - Host memory of the orc executor --------------===//
//
// The orc executor's tensors: every allocation is cache-line aligned and
// writable to its last byte; those of a huge page or more start on a huge
// page (2 MiB), where the kernel can back them with huge pages.
//
//===----------------------------------------------------------------------===//

#include "tile/Exec/Executor.h"
#include "gtest/gtest.h"
#include <cstdint>
#include <cstring>

using namespace tile;

namespace {

TEST(OrcAllocate, AlignmentBySize) {
  llvm::Expected<std::unique_ptr<Executor>> E = Executor::create(ExecBackendKind::Orc);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  constexpr uintptr_t HugePage = uintptr_t(2) << 20;
  for (size_t Bytes : {size_t(1), size_t(100), size_t(HugePage - 1), size_t(HugePage),
                       size_t(3 * HugePage + 5)}) {
    llvm::Expected<void *> P = (*E)->allocate(Bytes);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    uintptr_t A = reinterpret_cast<uintptr_t>(*P);
    EXPECT_EQ(A % 64, 0u) << Bytes;
    if (Bytes >= HugePage)
      EXPECT_EQ(A % HugePage, 0u) << Bytes;
    std::memset(*P, 0x5a, Bytes);
    EXPECT_EQ(static_cast<unsigned char *>(*P)[Bytes - 1], 0x5a);
    (*E)->deallocate(*P);
  }
}

} // namespace
