//===- WGMMABuilder.h - Per-thread wgmma code for the Hopper passes -*- C++ -*-===//
//
// What the Hopper lowerings (hopper-lower-gemm-wgmma for GEMM K loops,
// hopper-wgmma-fragments for gemm chains such as FlashAttention) share to
// write their per-thread code: the stored layout of a shared operand tile,
// the cuda.ldgsts copies that fill one ring stage of it from global memory,
// the wgmma instructions of one gemm, and the accumulator-layout clears
// and copies out. WGMMALayout.h holds the layouts themselves.
//
// Both instruction families: wgmma (sm_90a) and the per-warp mma.sync
// m16n8k16 (sm_80), whose accumulator and A operand layouts are the row
// layout's per warp.
//
// Row layout. Every register fragment these passes keep is [R, C] (or [R])
// with R = 64 * WG * MT for WG warpgroups: warpgroup g owns the 64-row
// slices g*MT .. g*MT + MT - 1, and within a slice thread t (warp w of its
// warpgroup, lane l) holds element
//   local mt*C/2 + 4*j + 2*h + e  =  (row 16w + l/4 + 8h, column 8j + 2(l%4) + e)
// for j < C/8 and h, e in {0, 1}: the wgmma accumulator layout (for C up
// to 256, and for C a multiple of 256 as instructions of N = 256 side by
// side), which for a 16-bit fragment is also the register layout of
// wgmma's A operand, k-step kk being locals mt*C/2 + 8kk .. + 7. A row
// vector [R] holds local mt*2 + h = row 16w + l/4 + 8h of slice mt,
// replicated over the four lanes of a quad.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_CUDA_WGMMABUILDER_H
#define TILE_LIB_TARGET_CUDA_WGMMABUILDER_H

#include "WGMMALayout.h"
#include "tile/Transforms/StmtBuilder.h"
#include "llvm/ADT/DenseMap.h"
#include <string>
#include <utility>

namespace tile {
namespace hopper {

/// A wgmma operand tile in shared memory: its stored layout and ring.
struct SharedTile {
  BufferValue *Tile = nullptr;
  /// Stored shape [Rows, Contig]; MN-major when Contig is M or N.
  int64_t Rows = 0, Contig = 0;
  bool MNMajor = false;
  int64_t Swizzle = 0;
  /// Bytes per ring stage (a multiple of StageAlign).
  int64_t StageBytes = 0;
};

/// Plans the stored layout of the rank-2 shared tile \p Tile read as a
/// wgmma operand (MN-major or K-major); false with the reason in \p Why.
bool planSharedTile(SharedTile &O, BufferValue *Tile, bool MNMajor,
                    std::string &Why);

/// The instruction shape of one gemm on register accumulators.
struct WgmmaShape {
  DType Ty = DType::F16;
  int64_t BK = 0;
  /// 64-row slices per warpgroup, N per instruction, instructions along N.
  int64_t MT = 0, NInst = 0, NI = 0;
};

/// The instruction split of \p Cols accumulator columns: NInst = Cols up to
/// 256, else 256 with Cols a multiple of it; nullopt when Cols fits neither.
std::optional<std::pair<int64_t, int64_t>> splitColumns(int64_t Cols);

/// The initializers of a kernel's lets, by value.
using LetInits = llvm::DenseMap<const Value *, const Expr *>;

/// Whether \p E is provably a multiple of \p D: a literal, a let whose
/// initializer is (\p Lets), sums and differences of such, products with
/// one such factor.
bool provablyMultipleOf(const Expr &E, int64_t D, const LetInits &Lets);

/// Whether \p Copy's source is a contiguous global tensor of \p Tile's dtype
/// whose last two dimensions are the tile's rows and columns (the others
/// single points), with a column offset provably a multiple of 16 bytes;
/// false with the reason in \p Why.
bool checkTileCopy(const OpStmt &Copy, const BufferValue &Tile, const LetInits &Lets,
                   std::string &Why);

class WGMMABuilder : public StmtBuilder {
public:
  WGMMABuilder(const Function &F, const OpRegistry &Ops)
      : StmtBuilder(F, Ops) {}

protected:
  /// `if %tx < T { Body }`: code every thread runs as written.
  StmtPtr perThread(Stmts Body);
  /// \p In with each `if` that has no else (perThread's) replaced by its
  /// statements.
  static Stmts unwrapPerThread(Stmts In);
  StmtPtr opPending(llvm::StringRef Name, int64_t Pending,
                    BufferValue *Acc = nullptr);
  static OpOperand regionOperand(BufferValue *B, std::vector<ExprPtr> Offsets,
                                 std::vector<int64_t> Extents = {});
  static OpOperand exprOperand(ExprPtr E);
  static ExprPtr call(Intrinsic Fn, ExprPtr A, ExprPtr B, ExprPtr C = nullptr);
  /// \p E with \p Var replaced by \p Val (a copy when \p Var is null).
  static ExprPtr substitute(const Expr &E, const Value *Var, const Expr *Val);

  /// cuda.ldgsts of the tile `copy` reads (its source region with \p Var
  /// replaced by \p Val) into ring stage \p Stage of \p O: each thread
  /// copies chunks %tx, %tx + T, ... of the tile. Two versions, chosen once
  /// per tile for the whole block: when the tile lies wholly inside the
  /// tensor and its rows are whole chunks, each chunk is one
  /// `cuda.ldgsts {full}` at the tile's linear offset plus a per-thread
  /// offset that does not depend on the loop (hoisted by LLVM), with no
  /// bounds test; otherwise every chunk is clamped to the tensor and
  /// zero-filled outside it. \p Compact keeps the code small in registers
  /// (for a producer warpgroup with few of them): one rolled loop over the
  /// thread's chunks, each clamped.
  Stmts loadTile(const SharedTile &O, const OpStmt &Copy, const Value *Var,
                 const Expr *Val, const Expr &Stage, bool Compact = false);

  /// The cuda.tma_load boxes that copy the tile `copy` reads (its source
  /// region with \p Var replaced by \p Val, from a contiguous tensor of
  /// rank 2 to 5) into stage \p Stage of \p O, completing on
  /// \p Mbar[\p Bar]: the stored tile is Contig * E / W column blocks of
  /// Rows rows of W bytes, each block one swizzled box (of at most 256
  /// rows; taller blocks take several), elements outside the tensor zero.
  Stmts tmaLoadTile(const SharedTile &O, const OpStmt &Copy, const Value *Var,
                    const Expr *Val, const Expr &Stage, BufferValue *Mbar,
                    const Expr &Bar);

  /// `cuda.<Name> %Mbar[Index] [, Arg]` with `tx_bytes` and `per_warp`
  /// when given.
  StmtPtr mbarrierOp(BufferValue *Mbar, llvm::StringRef Name, ExprPtr Index,
                     ExprPtr Arg = nullptr, int64_t TxBytes = 0,
                     bool PerWarp = false);

  /// One gemm's wgmma instructions between a fence and a commit: for each
  /// k-step, 64-row slice and N-instruction, a cuda.wgmma_mma (A and B in
  /// shared memory, stage offsets \p AStage and \p BStage, null for a
  /// single stage) or a cuda.wgmma_mma_rs when \p ARegs (A in registers in
  /// the row layout, ARegsCols columns) is given. With \p ZeroFirst the
  /// first k-step overwrites the accumulator. \p WG is the warpgroup.
  Stmts wgmmaGemm(const WgmmaShape &S, const SharedTile *A, BufferValue *ARegs,
                  int64_t ARegsCols, const SharedTile &B, BufferValue *C,
                  Value *WG, const Expr *AStage, const Expr *BStage,
                  bool ZeroFirst, llvm::SMLoc Loc);

  /// The same gemm as per-warp mma.sync m16n8k16 (sm_80): warp q of
  /// warpgroup \p WG computes the 16 rows 16q .. 16q + 15 of each of its
  /// slices, which in the row layout are exactly the accumulators of its
  /// n8 tiles (tile j: locals 4j .. 4j + 3 of the slice) and, for a 16-bit
  /// fragment A in registers, the A operands of its k-steps (locals
  /// 8kk .. 8kk + 7). Shared operands are read with ldmatrix.x4 (.trans
  /// for MN-major tiles) from the same swizzled stored layouts, two n8
  /// tiles of B at a time (N per instruction a multiple of 16). With
  /// \p ZeroFirst the accumulator is zeroed first.
  Stmts mmaSyncGemm(const WgmmaShape &S, const SharedTile *A, BufferValue *ARegs,
                    int64_t ARegsCols, const SharedTile &B, BufferValue *C,
                    Value *WG, const Expr *AStage, const Expr *BStage,
                    bool ZeroFirst, llvm::SMLoc Loc);

  /// The element index in the 1-D ring of \p O of element (\p Row,
  /// \p Col) of its stored [Rows, Contig] shape (\p Col a whole 16-byte
  /// chunk), at stage \p Stage (null: a single buffer); the lets it needs
  /// go to \p Out.
  ExprPtr storedElement(Stmts &Out, const SharedTile &O, ExprPtr Row, ExprPtr Col,
                        const Expr *Stage);

  /// The same element index for Row = \p RowFine + \p RowCoarse and Col =
  /// \p ColFine + \p ColCoarse, where the coarse parts are multiples of 8
  /// rows and of \p ColAlign elements and the fine ones (a lane's place in
  /// an ldmatrix) are below them: ColFine at most \p ColFineMax. Under the
  /// 128-byte swizzle the fine part alone decides the XOR key, so the index
  /// is (swizzled fine offset ^ in-row coarse bytes) plus coarse terms:
  /// across a gemm's unrolled k-steps and n-tiles only as many distinct
  /// per-thread values as in-row coarse offsets (4 for 16-bit operands),
  /// the rest immediate offsets, where the whole byte offset swizzled took
  /// one register per ldmatrix (ptxas spilled FlashAttention at d256).
  /// Other swizzles and alignments: storedElement of the sums.
  ExprPtr storedElementSplit(Stmts &Out, const SharedTile &O, ExprPtr RowFine,
                             ExprPtr RowCoarse, ExprPtr ColFine, int64_t ColFineMax,
                             ExprPtr ColCoarse, int64_t ColAlign, const Expr *Stage);

  /// Every thread sets its \p Elems locals of \p Frag to \p Op's value
  /// (clear or fill) converted to \p Frag's dtype.
  Stmts lowerFill(const OpStmt &Op, BufferValue *Frag, int64_t Elems);

  /// `copy %F -> X` of a row-layout fragment with MT slices of columns
  /// split as \p NInst x \p NI: each thread stores its elements, converted,
  /// guarded when X is global. Locals 2j and 2j + 1 are adjacent columns of
  /// one row: where X's rows are contiguous and the pair is aligned (even
  /// column offset and row length) and inside X, one cuda.store_pair.
  /// \p Dims are X's dimensions of F's rows and columns. With
  /// \p Predicated and X global, the choice is made once for the whole
  /// fragment instead (cuda.aligned of X's start, even offset and row
  /// length): one side stores pairs, the other single elements, each a
  /// cuda.store_if (a predicated store, no branch) whose column offset is
  /// its immediate. That epilogue is less code for LLVM and ptxas (the
  /// warp-specialized GEMM's cold compile); kernels near the register
  /// limit keep the per-pair choice (flash attention spilled with it).
  Stmts lowerCopyOut(const OpStmt &Op, BufferValue *Frag, int64_t MT,
                     int64_t NInst, int64_t NI,
                     std::pair<unsigned, unsigned> Dims, bool Predicated = false);

  /// `cuda.aligned %Tensor -> %Name[0] {bytes = Bytes}` (with `specialize`
  /// where asked) appended to \p Body; the test `%Name[0] != 0`.
  ExprPtr alignedTest(Stmts &Body, llvm::StringRef Name, BufferValue *Tensor,
                      int64_t Bytes, bool Specialize, llvm::SMLoc Loc);

  /// Where a copy out of a row-layout fragment to global memory is staged
  /// (lowerStagedCopyOut): a K-major shared operand tile of the fragment's
  /// shape and the copy's element type, one buffer, whose rows each
  /// warpgroup alone reads (as the A operand of its gemms) and no longer
  /// needs; the named barrier 1 + \p FirstBarrier + g of each warpgroup g.
  struct StagedCopy {
    const SharedTile *Tile = nullptr;
    int64_t FirstBarrier = 0;
    /// The tile's buffer (a persistent kernel's double-buffered once
    /// tile), or null for its only one.
    const Expr *Stage = nullptr;
    /// The tile is refilled afterwards (a persistent kernel's next tile):
    /// the warpgroup waits on its barrier again once its threads have read
    /// their chunks, so that one thread's release covers them all.
    bool Refilled = false;
    /// The fallback's pair stores predicated (lowerCopyOut's Predicated).
    bool PredicatedFallback = false;
  };

  /// Rows of fewer bytes are not staged: measured on an H100, staging sped
  /// up the head-dim 128 and 256 attention (256- and 512-byte rows) by
  /// 2-8% but slowed the causal grouped-query d64 kernel (128-byte rows)
  /// by 6%, for 1.5% on its plain entry.
  static constexpr int64_t MinStagedRowBytes = 256;

  /// Why the copy \p Op of a fragment of \p Cols columns to global memory,
  /// whose columns are the destination's dimension \p ColDim, cannot be
  /// staged (lowerStagedCopyOut), or empty: the columns must be the
  /// destination's contiguous last dimension, its elements 16-bit, its
  /// rows whole 16-byte chunks per thread and at least MinStagedRowBytes.
  static std::string whyNotStaged(const OpStmt &Op, unsigned ColDim, int64_t Cols);

  /// `copy %F -> X` (X global, its columns contiguous) through the shared
  /// tile of \p S: where X's data, its row length and the copy's column
  /// offset allow 16-byte accesses (tested once), each warpgroup writes its
  /// rows' pairs, converted, into the tile's swizzled layout (bank
  /// conflict free), waits on its named barrier, and copies its rows out
  /// as 16-byte chunks, each thread whole chunks of consecutive columns
  /// (a warp's stores whole 128-byte lines), guarded at X's edges; else
  /// lowerCopyOut's pair stores. The tile's bytes are the warpgroup's own,
  /// so no other warpgroup waits.
  Stmts lowerStagedCopyOut(const OpStmt &Op, BufferValue *Frag, int64_t MT,
                           int64_t NInst, int64_t NI,
                           std::pair<unsigned, unsigned> Dims, const StagedCopy &S);

  /// Puts the shared tiles of \p RingElems first in \p K as 1-D buffers of
  /// that many elements (their stages then sit at StageAlign multiples of
  /// dynamic shared memory) and turns the fragments of \p LocalElems into
  /// local arrays of that many elements.
  static void placeBuffers(
      KernelStmt &K, const llvm::DenseMap<const BufferValue *, int64_t> &RingElems,
      const llvm::DenseMap<const BufferValue *, int64_t> &LocalElems);

  int64_t Threads = 0;
  Value *Tid = nullptr;
};

} // namespace hopper
} // namespace tile

#endif // TILE_LIB_TARGET_CUDA_WGMMABUILDER_H
