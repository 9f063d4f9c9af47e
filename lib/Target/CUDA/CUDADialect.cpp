//===- CUDADialect.cpp - The cuda dialect: op table and verifiers ---------===//
//
// registerCUDAOps() (generated from CUDAOps.td) and the C++ checks the op
// declarations name. Registering the CUDA or Hopper backend's dialects
// registers these ops.
//
//===----------------------------------------------------------------------===//

#include "tile/IR/Diagnostics.h"
#include "tile/IR/IR.h"
#include "tile/IR/OpRegistry.h"
#include "tile/Transforms/ExprUtils.h"

using namespace tile;

namespace {

/// Reports unless operand \p Name of \p Op is a region of a buffer in one of
/// \p Scopes.
bool expectScope(const OpStmt &Op, llvm::StringRef Name,
                 std::initializer_list<MemScope> Scopes, llvm::StringRef What,
                 DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  const BufferValue *Buf = O.R.Buf;
  for (MemScope S : Scopes)
    if (Buf->getScope() == S)
      return true;
  Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                             "' must be " + What + ", but %" +
                             Buf->getName() + " is " +
                             getScopeName(Buf->getScope()));
  return false;
}


/// Reports unless \p Name of \p Op names single elements (no extents).
bool expectElement(const OpStmt &Op, llvm::StringRef Name,
                   DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  for (const RegionIndex &I : O.R.Indices)
    if (I.Extent) {
      Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                                 "' names the first element, not an extent");
      return false;
    }
  return true;
}

/// Reports unless \p Name of \p Op is of an integer type (the flag the op
/// writes).
bool expectIntegerFlag(const OpStmt &Op, llvm::StringRef Name,
                       DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  if (isInteger(O.R.Buf->getDType()))
    return true;
  Diag.error(O.getLoc(), "'" + Op.getName() + "' writes an integer flag, but %" +
                             O.R.Buf->getName() + " is " +
                             getDTypeName(O.R.Buf->getDType()));
  return false;
}

/// The checks cuda.vload and cuda.vstore share: \p Global is a global or
/// shared buffer, \p Regs a local array, and width elements of the global type
/// fit one access of at most 16 bytes.
bool verifyVecAccess(const OpStmt &Op, llvm::StringRef Global,
                     llvm::StringRef Regs, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, Global, {MemScope::Global, MemScope::Shared},
                        "in global or shared memory", Diag);
  OK &= expectScope(Op, Regs, {MemScope::Local}, "a local array", Diag);
  OK &= expectElement(Op, Global, Diag);
  OK &= expectElement(Op, Regs, Diag);
  int64_t Width = Op.getAttrOrDefault("width").getInt();
  unsigned Bytes = getDTypeBytes(Op.getOperand(Global).R.Buf->getDType());
  if (Width < 1 || (Width & (Width - 1)) != 0 || Width * Bytes > 16) {
    Diag.error(Op.getLoc(), "'" + Op.getName() + "' width must be a power of "
                            "two with at most 16 bytes of " +
                                getDTypeName(Op.getOperand(Global).R.Buf->getDType()) +
                                ", not " + llvm::Twine(Width));
    OK = false;
  }
  return OK;
}

} // namespace

namespace tile {

bool verifyCUDAWgmmaOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "a", {MemScope::Shared, MemScope::Fragment},
                        "in shared memory or a fragment", Diag);
  OK &= expectScope(Op, "b", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectScope(Op, "c", {MemScope::Fragment}, "a fragment", Diag);
  int64_t Wait = Op.getAttrOrDefault("wait").getInt();
  if (Wait < 0 || Wait > 7) {
    Diag.error(Op.getLoc(), "'cuda.wgmma' wait must be between 0 and 7, not " +
                                llvm::Twine(Wait));
    OK = false;
  }
  return OK;
}

bool verifyCUDATmaCopyOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  MemScope Src = Op.getOperand("src").R.Buf->getScope();
  MemScope Dst = Op.getOperand("dst").R.Buf->getScope();
  bool OK = true;
  if (!((Src == MemScope::Global && Dst == MemScope::Shared) ||
        (Src == MemScope::Shared && Dst == MemScope::Global))) {
    Diag.error(Op.getLoc(), "'cuda.tma_copy' copies between global and shared "
                            "memory, not from " +
                                getScopeName(Src) + " to " + getScopeName(Dst));
    OK = false;
  }
  OK &= expectScope(Op, "barrier", {MemScope::Shared},
                    "an mbarrier in shared memory", Diag);
  return OK;
}

//===--- mbarriers, TMA and register reallocation -------------------------===//

namespace {

/// Reports unless operand \p Name of \p Op is one mbarrier: an element (or
/// the first) of a shared u64 or i64 buffer.
bool expectMbarrier(const OpStmt &Op, llvm::StringRef Name,
                    DiagnosticEngine &Diag) {
  if (!expectScope(Op, Name, {MemScope::Shared}, "an mbarrier in shared memory",
                   Diag))
    return false;
  const OpOperand &O = Op.getOperand(Name);
  DType T = O.R.Buf->getDType();
  if (T != DType::U64 && T != DType::I64) {
    Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                               "' must be a 64-bit mbarrier (an element of a "
                               "u64 or i64 buffer), but %" +
                               O.R.Buf->getName() + " is " + getDTypeName(T));
    return false;
  }
  return expectElement(Op, Name, Diag);
}

/// Reports unless the constant \p V (when it is one) is in [Lo, Hi].
bool expectRange(const OpStmt &Op, llvm::SMLoc Loc, llvm::StringRef What,
                 std::optional<int64_t> V, int64_t Lo, int64_t Hi,
                 DiagnosticEngine &Diag) {
  if (!V || (*V >= Lo && *V <= Hi))
    return true;
  Diag.error(Loc, "'" + Op.getName() + "' " + What + " must be between " +
                      llvm::Twine(Lo) + " and " + llvm::Twine(Hi) + ", not " +
                      llvm::Twine(*V));
  return false;
}

/// Reports unless operand \p Name of \p Op is a whole rank-2 global tensor.
bool expectTensor2D(const OpStmt &Op, llvm::StringRef Name,
                    DiagnosticEngine &Diag) {
  if (!expectScope(Op, Name, {MemScope::Global}, "a global tensor", Diag))
    return false;
  const OpOperand &O = Op.getOperand(Name);
  if (O.R.Buf->getRank() != 2 || !O.R.isWholeBuffer()) {
    Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                               "' must name a whole rank-2 tensor (its box "
                               "is given by the other operands)");
    return false;
  }
  return true;
}

constexpr int64_t MaxMbarrierCount = (int64_t(1) << 20) - 1;

} // namespace

bool verifyCUDAMbarrierOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return expectMbarrier(Op, "barrier", Diag);
}

bool verifyCUDAMbarrierInitOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectMbarrier(Op, "barrier", Diag);
  const OpOperand &Count = Op.getOperand("count");
  return expectRange(Op, Count.getLoc(), "arrival count", Count.E->getConstInt(),
                     1, MaxMbarrierCount, Diag) &&
         OK;
}

bool verifyCUDAMbarrierArriveOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectMbarrier(Op, "barrier", Diag);
  int64_t Tx = Op.getAttrOrDefault("tx_bytes").getInt();
  if (Tx && Op.getAttrOrDefault("per_warp").getBool()) {
    Diag.error(Op.getLoc(), "'cuda.mbarrier_arrive' announces tx_bytes from "
                            "one thread; per_warp arrivals take none");
    OK = false;
  }
  return expectRange(Op, Op.getLoc(), "tx_bytes", Tx, 0, MaxMbarrierCount,
                     Diag) &&
         OK;
}

bool verifyCUDASetmaxnregOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  int64_t Count = Op.getAttrOrDefault("count").getInt();
  if (Count >= 24 && Count <= 256 && Count % 8 == 0)
    return true;
  Diag.error(Op.getLoc(), "'cuda.setmaxnreg' count must be a multiple of 8 "
                          "from 24 to 256, not " +
                              llvm::Twine(Count));
  return false;
}

/// cuda.bar_sync and cuda.bar_arrive: a hardware barrier other than the
/// block barrier 0, completed by whole warps of a block.
bool verifyCUDANamedBarrierOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &Id = Op.getOperand("id");
  bool OK = expectRange(Op, Id.getLoc(), "barrier id", Id.E->getConstInt(), 1, 15, Diag);
  int64_t Threads = Op.getAttrOrDefault("threads").getInt();
  if (Threads > 0 && Threads <= 1024 && Threads % 32 == 0)
    return OK;
  Diag.error(Op.getLoc(), "'" + Op.getName() +
                              "' threads must be whole warps, from 32 to 1024, not " +
                              llvm::Twine(Threads));
  return false;
}

/// The tensor of a cuda.tma_load: a whole rank-2 tensor, or a tensor of
/// rank 3 to 5 with one index per dimension, the last two 0.
static bool expectTmaTensor(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand("tensor");
  if (O.R.Buf->getScope() != MemScope::Global || O.R.Buf->getRank() == 2)
    return expectTensor2D(Op, "tensor", Diag);
  unsigned Rank = O.R.Buf->getRank();
  bool OK = Rank >= 3 && Rank <= 5 && O.R.Indices.size() == Rank;
  for (unsigned D = 0; OK && D != Rank; ++D)
    OK = !O.R.Indices[D].Extent &&
         (D + 2 < Rank || ex::isConst(*O.R.Indices[D].Offset, 0));
  if (!OK)
    Diag.error(O.getLoc(), "'cuda.tma_load' operand 'tensor' of rank " +
                               llvm::Twine(Rank) +
                               " must name one index per dimension, the last "
                               "two 0, without extents (rank 2 to 5)");
  return OK;
}

bool verifyCUDATmaLoadOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectTmaTensor(Op, Diag);
  OK &= expectScope(Op, "dst", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectElement(Op, "dst", Diag);
  OK &= expectMbarrier(Op, "barrier", Diag);
  if (!OK)
    return false;
  DType S = Op.getOperand("tensor").R.Buf->getDType();
  DType D = Op.getOperand("dst").R.Buf->getDType();
  if (S != D) {
    Diag.error(Op.getLoc(), "'cuda.tma_load' copies bytes without conversion: "
                            "tensor and dst must have one dtype, not " +
                                getDTypeName(S) + " and " + getDTypeName(D));
    return false;
  }
  int64_t Rows = Op.getAttrOrDefault("box_rows").getInt();
  int64_t Cols = Op.getAttrOrDefault("box_cols").getInt();
  int64_t W = Op.getAttrOrDefault("swizzle").getInt();
  OK &= expectRange(Op, Op.getLoc(), "box_rows", Rows, 1, 256, Diag);
  OK &= expectRange(Op, Op.getLoc(), "box_cols", Cols, 1, 256, Diag);
  if (!OK)
    return false;
  int64_t RowBytes = Cols * getDTypeBytes(S);
  if (RowBytes % 16 != 0) {
    Diag.error(Op.getLoc(), "'cuda.tma_load' box rows must be whole 16-byte "
                            "chunks, not " +
                                llvm::Twine(RowBytes) + " bytes");
    return false;
  }
  if (W != 0 && W != 32 && W != 64 && W != 128) {
    Diag.error(Op.getLoc(), "'cuda.tma_load' swizzle must be 0, 32, 64 or 128, "
                            "not " + llvm::Twine(W));
    return false;
  }
  if (W && RowBytes > W) {
    Diag.error(Op.getLoc(), "'cuda.tma_load' box rows of " +
                                llvm::Twine(RowBytes) +
                                " bytes do not fit the " + llvm::Twine(W) +
                                "-byte swizzle span");
    return false;
  }
  return true;
}

bool verifyCUDATmaReadyOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &T = Op.getOperand("tensor");
  bool OK = expectScope(Op, "tensor", {MemScope::Global}, "a global tensor", Diag);
  if (OK && (T.R.Buf->getRank() < 2 || T.R.Buf->getRank() > 5 ||
             !T.R.isWholeBuffer())) {
    Diag.error(T.getLoc(), "'cuda.tma_ready' operand 'tensor' must name a whole "
                           "tensor of rank 2 to 5");
    OK = false;
  }
  OK &= expectScope(Op, "dst", {MemScope::Local}, "a local array", Diag);
  if (OK && !Op.getOperand("tensor").R.Buf->getStrides().empty()) {
    Diag.error(Op.getOperand("tensor").getLoc(),
               "'cuda.tma_ready' tests contiguous tensors; %" +
                   Op.getOperand("tensor").R.Buf->getName() +
                   " declares strides");
    OK = false;
  }
  OK = OK && expectIntegerFlag(Op, "dst", Diag);
  return OK && expectElement(Op, "dst", Diag);
}


bool verifyCUDAVecLoadOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifyVecAccess(Op, "src", "dst", Diag);
}

bool verifyCUDAVecStoreOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifyVecAccess(Op, "dst", "src", Diag);
}

bool verifyCUDAShflXorOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "dst", {MemScope::Local}, "a local array", Diag);
  OK &= expectElement(Op, "dst", Diag);
  DType Ty = Op.getOperand("dst").R.Buf->getDType();
  if (getDTypeBits(Ty) > 32) {
    Diag.error(Op.getOperand("dst").getLoc(),
               "'cuda.shfl_xor' moves at most 32 bits, not " + getDTypeName(Ty));
    OK = false;
  }
  int64_t Offset = Op.getAttrOrDefault("offset").getInt();
  if (Offset < 1 || Offset > 31) {
    Diag.error(Op.getLoc(), "'cuda.shfl_xor' offset must be between 1 and 31, "
                            "not " + llvm::Twine(Offset));
    OK = false;
  }
  return OK;
}

//===--- Warp-level tensor cores and cp.async (per-thread ops) ------------===//

namespace {

/// Reports unless the region \p Name of \p Op, a rank-1 local array, has
/// room for \p Need elements from its start.
bool expectLanes(const OpStmt &Op, llvm::StringRef Name, int64_t Need,
                 DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  const BufferValue *Buf = O.R.Buf;
  if (!expectScope(Op, Name, {MemScope::Local},
                   "the thread's registers (a local array)", Diag))
    return false;
  std::optional<std::vector<int64_t>> Shape = Buf->getConstShape();
  int64_t Offset = 0;
  if (!O.R.isWholeBuffer()) {
    if (std::optional<int64_t> C = O.R.Indices.back().Offset->getConstInt())
      Offset = *C;
    if (O.R.Indices.back().Extent)
      if (std::optional<int64_t> E = O.R.Indices.back().Extent->getConstInt();
          E && *E < Need) {
        Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                                   "' needs " + llvm::Twine(Need) +
                                   " elements, but the region has " +
                                   llvm::Twine(*E));
        return false;
      }
  }
  if (Shape && Shape->size() == 1 && Offset + Need > (*Shape)[0]) {
    Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                               "' needs " + llvm::Twine(Need) +
                               " elements, but %" + Buf->getName() + " has " +
                               llvm::Twine((*Shape)[0] - Offset) +
                               " from there");
    return false;
  }
  return true;
}

bool expectB16(const OpStmt &Op, llvm::StringRef Name, DiagnosticEngine &Diag) {
  const OpOperand &O = Op.getOperand(Name);
  DType T = O.R.Buf->getDType();
  if (T == DType::F16 || T == DType::BF16)
    return true;
  Diag.error(O.getLoc(), "'" + Op.getName() + "' operand '" + Name +
                             "' must be f16 or bf16, but %" +
                             O.R.Buf->getName() + " is " + getDTypeName(T));
  return false;
}

} // namespace

bool verifyCUDALdmatrixOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  Attribute NumAttr = Op.getAttrOrDefault("num");
  llvm::StringRef Num = NumAttr.getStr();
  int64_t Matrices = Num == "x1" ? 1 : Num == "x2" ? 2 : 4;
  bool OK = expectScope(Op, "src", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectB16(Op, "src", Diag);
  OK &= expectB16(Op, "dst", Diag);
  OK &= expectLanes(Op, "dst", 2 * Matrices, Diag);
  return OK;
}

bool verifyCUDAMmaSyncOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectB16(Op, "a", Diag) && expectB16(Op, "b", Diag);
  if (OK && Op.getOperand("a").R.Buf->getDType() !=
                Op.getOperand("b").R.Buf->getDType()) {
    Diag.error(Op.getLoc(), "'cuda.mma_sync' takes A and B of one dtype, not " +
                                getDTypeName(Op.getOperand("a").R.Buf->getDType()) +
                                " and " +
                                getDTypeName(Op.getOperand("b").R.Buf->getDType()));
    OK = false;
  }
  const OpOperand &C = Op.getOperand("c");
  if (C.R.Buf->getDType() != DType::F32) {
    Diag.error(C.getLoc(), "'cuda.mma_sync' accumulates in f32, but %" +
                               C.R.Buf->getName() + " is " +
                               getDTypeName(C.R.Buf->getDType()));
    OK = false;
  }
  OK &= expectLanes(Op, "a", 8, Diag);
  OK &= expectLanes(Op, "b", 4, Diag);
  OK &= expectLanes(Op, "c", 4, Diag);
  return OK;
}

bool verifyCUDACpAsyncOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "src", {MemScope::Global}, "in global memory", Diag);
  OK &= expectScope(Op, "dst", {MemScope::Shared}, "in shared memory", Diag);
  DType S = Op.getOperand("src").R.Buf->getDType(),
        D = Op.getOperand("dst").R.Buf->getDType();
  if (S != D) {
    Diag.error(Op.getLoc(), "'cuda.cp_async' copies bytes between buffers of "
                            "one dtype, not " +
                                getDTypeName(S) + " to " + getDTypeName(D));
    OK = false;
  }
  const OpOperand &Bytes = Op.getOperand("bytes");
  if (std::optional<int64_t> N = Bytes.E->getConstInt(); N && (*N < 0 || *N > 16)) {
    Diag.error(Bytes.getLoc(), "'cuda.cp_async' reads 0 to 16 bytes, not " +
                                   llvm::Twine(*N));
    OK = false;
  }
  return OK;
}

bool verifyCUDACpAsyncWaitOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  int64_t N = Op.getAttrOrDefault("pending").getInt();
  if (N >= 0 && N <= 7)
    return true;
  Diag.error(Op.getLoc(), "'cuda.cp_async_wait' pending must be between 0 and "
                          "7, not " +
                              llvm::Twine(N));
  return false;
}

bool verifyCUDAStoreIfOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const Region &S = Op.getOperand("src").R;
  int64_t W = 1;
  if (!S.isWholeBuffer() && S.Indices.back().Extent)
    W = S.Indices.back().Extent->getConstInt().value_or(0);
  bool OK = true;
  if (W != 1 && W != 2) {
    Diag.error(Op.getOperand("src").getLoc(),
               "'cuda.store_if' stores one element or a pair: operand 'src' "
               "needs an extent of 1 or 2");
    OK = false;
  } else {
    OK &= expectLanes(Op, "src", W, Diag);
  }
  OK &= expectScope(Op, "dst", {MemScope::Global}, "a global tensor", Diag);
  if (int64_t Off = Op.getAttrOrDefault("offset").getInt(); Off < 0) {
    Diag.error(Op.getLoc(), "'cuda.store_if' offset must be 0 or more, not " +
                                std::to_string(Off));
    OK = false;
  }
  DType ST = S.Buf->getDType(), DT = Op.getOperand("dst").R.Buf->getDType();
  if (!isFloat(ST) || !isFloat(DT)) {
    Diag.error(Op.getLoc(), "'cuda.store_if' converts between float dtypes, not " +
                                getDTypeName(ST) + " to " + getDTypeName(DT));
    OK = false;
  }
  return OK;
}

bool verifyCUDAAlignedOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  const OpOperand &T = Op.getOperand("tensor");
  bool OK = expectScope(Op, "tensor", {MemScope::Global}, "a global tensor", Diag);
  if (OK && !T.R.isWholeBuffer()) {
    Diag.error(T.getLoc(), "'cuda.aligned' operand 'tensor' must name a whole tensor");
    OK = false;
  }
  int64_t Bytes = Op.getAttrOrDefault("bytes").getInt();
  if (Bytes < 2 || Bytes > 256 || (Bytes & (Bytes - 1)) != 0) {
    Diag.error(Op.getLoc(), "'cuda.aligned' tests an alignment that is a power of "
                            "two from 2 to 256 bytes, not " +
                                std::to_string(Bytes));
    OK = false;
  }
  OK &= expectScope(Op, "dst", {MemScope::Local}, "a local array", Diag);
  OK = OK && expectIntegerFlag(Op, "dst", Diag);
  return OK && expectElement(Op, "dst", Diag);
}

bool verifyCUDALaunchedBlocksOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "dst", {MemScope::Local}, "a local array", Diag);
  const OpOperand &D = Op.getOperand("dst");
  if (OK && D.R.Buf->getDType() != DType::I32) {
    Diag.error(D.getLoc(), "'cuda.launched_blocks' writes an i32 count, but %" +
                               D.R.Buf->getName() + " is " +
                               getDTypeName(D.R.Buf->getDType()));
    OK = false;
  }
  return OK && expectElement(Op, "dst", Diag);
}

bool verifyCUDAStorePairOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectLanes(Op, "src", 2, Diag);
  OK &= expectScope(Op, "dst", {MemScope::Global, MemScope::Shared, MemScope::Local},
                    "in global or shared memory or a local array", Diag);
  DType S = Op.getOperand("src").R.Buf->getDType(),
        D = Op.getOperand("dst").R.Buf->getDType();
  if (!isFloat(S) || !isFloat(D)) {
    Diag.error(Op.getLoc(), "'cuda.store_pair' converts between float dtypes, "
                            "not " +
                                getDTypeName(S) + " to " + getDTypeName(D));
    OK = false;
  }
  return OK;
}

/// cuda.wgmma_mma (A in shared memory) and cuda.wgmma_mma_rs (A in
/// registers: eight elements of a local array).
static bool verifyWgmma(const OpStmt &Op, bool ARegs, DiagnosticEngine &Diag) {
  bool OK = ARegs ? expectScope(Op, "a", {MemScope::Local}, "a local array", Diag)
                  : expectScope(Op, "a", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectScope(Op, "b", {MemScope::Shared}, "in shared memory", Diag);
  OK &= expectScope(Op, "c", {MemScope::Local}, "a local array", Diag);
  if (!OK)
    return false;
  auto Fail = [&](const llvm::Twine &Msg) {
    Diag.error(Op.getLoc(), "'" + Op.getName() + "' " + Msg);
    return false;
  };
  if (ARegs) {
    const Region &A = Op.getOperand("a").R;
    if (A.Indices.size() != 1 || !A.Indices[0].Extent ||
        !ex::isConst(*A.Indices[0].Extent, 8))
      return Fail("takes A as 8 elements of a local array (%a[offset : 8])");
  }
  DType TA = Op.getOperand("a").R.Buf->getDType();
  DType TB = Op.getOperand("b").R.Buf->getDType();
  if (TA != TB || (TA != DType::F16 && TA != DType::BF16))
    return Fail("takes f16 or bf16 A and B of one type, not " +
                getDTypeName(TA) + " and " + getDTypeName(TB));
  if (Op.getOperand("c").R.Buf->getDType() != DType::F32)
    return Fail("accumulates into f32, not " +
                getDTypeName(Op.getOperand("c").R.Buf->getDType()));
  int64_t N = Op.getAttrOrDefault("n").getInt();
  if (N < 8 || N > 256 || N % 8 != 0)
    return Fail("n must be a multiple of 8 from 8 to 256, not " + llvm::Twine(N));
  std::vector<const char *> Swizzles = {"swizzle_b"};
  std::vector<const char *> Offsets = {"lbo_b", "sbo_b"};
  if (!ARegs) {
    Swizzles.insert(Swizzles.begin(), "swizzle_a");
    Offsets.insert(Offsets.begin(), {"lbo_a", "sbo_a"});
  }
  for (const char *Name : Swizzles) {
    int64_t W = Op.getAttrOrDefault(Name).getInt();
    if (W != 32 && W != 64 && W != 128)
      return Fail(llvm::Twine(Name) + " must be 32, 64 or 128, not " + llvm::Twine(W));
  }
  for (const char *Name : Offsets) {
    int64_t V = Op.getAttrOrDefault(Name).getInt();
    if (V <= 0 || V % 16 != 0 || V >= (int64_t(1) << 18))
      return Fail(llvm::Twine(Name) +
                  " must be a positive multiple of 16 below 2^18, not " +
                  llvm::Twine(V));
  }
  return true;
}

bool verifyCUDAWgmmaMmaOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifyWgmma(Op, /*ARegs=*/false, Diag);
}

bool verifyCUDAWgmmaMmaRsOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  return verifyWgmma(Op, /*ARegs=*/true, Diag);
}

bool verifyCUDAPendingAttr(const OpStmt &Op, DiagnosticEngine &Diag) {
  int64_t P = Op.getAttrOrDefault("pending").getInt();
  if (P >= 0 && P <= 7)
    return true;
  Diag.error(Op.getLoc(), "'" + Op.getName() +
                              "' pending must be between 0 and 7, not " +
                              llvm::Twine(P));
  return false;
}

bool verifyCUDAWgmmaAccOperand(const OpStmt &Op, DiagnosticEngine &Diag) {
  if (!expectScope(Op, "acc", {MemScope::Local}, "a local array", Diag))
    return false;
  const Region &Acc = Op.getOperand("acc").R;
  DType T = Acc.Buf->getDType();
  if (!Acc.isWholeBuffer() || !Acc.Buf->getConstShape() ||
      (T != DType::F32 && T != DType::F16 && T != DType::BF16)) {
    Diag.error(Op.getLoc(), "'" + Op.getName() +
                                "' takes a whole local f32, f16 or bf16 array "
                                "of constant shape");
    return false;
  }
  return true;
}

bool verifyCUDAWgmmaWaitOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = verifyCUDAPendingAttr(Op, Diag);
  return verifyCUDAWgmmaAccOperand(Op, Diag) && OK;
}

bool verifyCUDALdgstsOp(const OpStmt &Op, DiagnosticEngine &Diag) {
  bool OK = expectScope(Op, "src", {MemScope::Global}, "in global memory", Diag);
  OK &= expectScope(Op, "dst", {MemScope::Shared}, "in shared memory", Diag);
  if (!OK)
    return false;
  DType S = Op.getOperand("src").R.Buf->getDType();
  DType D = Op.getOperand("dst").R.Buf->getDType();
  if (S != D || getDTypeBits(S) < 8 || 128 % getDTypeBits(S) != 0) {
    Diag.error(Op.getLoc(), "'cuda.ldgsts' copies bytes without conversion: "
                            "src and dst must have one dtype of 1, 2, 4, 8 "
                            "or 16 bytes, not " +
                                getDTypeName(S) + " and " + getDTypeName(D));
    return false;
  }
  return true;
}

} // namespace tile

#define GET_TILE_OP_TABLE
#include "CUDAOps.inc"
