//===- AllocationBytes.cpp - Bytes a kernel's allocations take -----------===//

#include "tile/Analysis/AllocationBytes.h"
#include "tile/IR/Walk.h"

using namespace tile;

int64_t tile::getConstShapeBytes(const BufferValue &B, int64_t ElemBytes) {
  std::optional<std::vector<int64_t>> Shape = B.getConstShape();
  if (!Shape)
    return 0;
  int64_t N = ElemBytes;
  for (int64_t E : *Shape)
    N *= E;
  return N;
}

int64_t tile::sumAllocationBytes(
    const Block &Body, llvm::function_ref<bool(const BufferValue &)> Counts,
    llvm::function_ref<int64_t(const BufferValue &)> BytesOf) {
  int64_t Bytes = 0;
  walkStmts(Body, [&](const Stmt &S) {
    if (const auto *A = llvm::dyn_cast<AllocStmt>(&S))
      if (Counts(*A->getBuffer()))
        Bytes += BytesOf(*A->getBuffer());
  });
  return Bytes;
}
