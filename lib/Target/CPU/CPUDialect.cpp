//===- CPUDialect.cpp - The cpu dialect: op table and verifiers -----------===//
//
// registerCPUOps() (generated from CPUOps.td) and the C++ checks the op
// declarations name. Registering the CPU backend's dialect registers these
// ops.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"

using namespace tile;

namespace tile {

bool verifyCPUPrefetchOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &Src = Op.getOperand("src");
  bool OK = true;
  if (Src.R.Buf->getScope() != MemScope::Global) {
    Diag.error(Src.getLoc(), "'cpu.prefetch' prefetches global memory, but %" +
                                 Src.R.Buf->getName() + " is " +
                                 getScopeName(Src.R.Buf->getScope()));
    OK = false;
  }
  if (Src.R.isWholeBuffer() && Src.R.Buf->getRank() > 0) {
    Diag.error(Src.getLoc(), "'cpu.prefetch' names one element: index %" +
                                 Src.R.Buf->getName() + " in every dimension");
    OK = false;
  }
  for (const RegionIndex &I : Src.R.Indices)
    if (I.Extent) {
      Diag.error(Src.getLoc(), "'cpu.prefetch' names one element, not an extent");
      OK = false;
      break;
    }
  int64_t Locality = Op.getAttrOrDefault("locality").getInt();
  if (Locality < 0 || Locality > 3) {
    Diag.error(Op.getLoc(), "'cpu.prefetch' locality must be between 0 and 3, not " +
                                llvm::Twine(Locality));
    OK = false;
  }
  return OK;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "CPUOps.inc"
