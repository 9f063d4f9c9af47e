//===- FragmentLayouts.h - Which thread holds which fragment element -*- C++ -*-===//
//
// Layout inference for the fragments of a kernel, shared by every backend
// and naming none. Each `fragment` buffer with a power-of-two shape gets a
// LinearLayout, decided in three rounds (the levels of TileLang's
// inference, over Triton's representation):
//  1. strict: a gemm's accumulator takes the layout the backend's matrix
//     instruction needs, through the backend's MatrixLayoutProvider;
//  2. common, to a fixed point: a parallel loop that reads or writes a
//     fragment with a layout at its own loop variables adopts that layout,
//     and passes it to the other fragments it indexes by its variables (a
//     1-D fragment indexed by a row or column variable gets the projection:
//     a broadcast, replicated over the threads that hold the other
//     dimension); reduce gives its result the projection of its source;
//     a copy between fragments gives one side the other's layout;
//  3. free: a fragment copied from or to global memory that is still
//     without a layout is blocked (each thread holds 16-byte vectors of
//     consecutive elements, the warps' accesses contiguous), and round 2
//     runs again.
// Where a fragment gets two different layouts, the analysis records a
// conversion at the statement that needs the second, with its cost class
// (register permutation, warp shuffles or shared memory); lowerings insert
// it rather than fall back to scalar code.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_FRAGMENTLAYOUTS_H
#define TILE_ANALYSIS_FRAGMENTLAYOUTS_H

#include "tile/Analysis/LinearLayout.h"
#include "tile/IR/IR.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/SourceMgr.h"
#include <string>
#include <vector>

namespace tile {

/// What a backend's matrix instructions need of fragments. Each backend
/// that lowers gemm to a matrix instruction implements it in its folder
/// (mma.sync and wgmma in lib/Target/CUDA).
class MatrixLayoutProvider {
public:
  virtual ~MatrixLayoutProvider();
  /// The instruction, for messages: "mma.sync m16n8k16".
  virtual llvm::StringRef getInstructionName() const = 0;
  /// Threads of a warp (the lane bits of every layout).
  virtual int64_t getWarpSize() const { return 32; }
  /// The layout the accumulator of \p Gemm, an \p M x \p N fragment, takes
  /// in a block of \p Threads threads; an error says why the instruction
  /// cannot take the gemm.
  virtual llvm::Expected<LinearLayout>
  getAccumulatorLayout(const OpStmt &Gemm, int64_t M, int64_t N,
                       int64_t Threads) const = 0;
};

/// A fragment's layout and what decided it.
struct FragmentLayout {
  LinearLayout Layout;
  /// "the mma.sync m16n8k16 accumulator of the gemm", "the columns of %Cf",
  /// "blocked, 8-element vectors".
  std::string Origin;
  /// The statement that decided it.
  llvm::SMLoc Loc;
};

/// A place where a fragment must change layout.
struct LayoutConversion {
  const Stmt *At;
  const BufferValue *Buf;
  LinearLayout From, To;
  ConversionKind Kind;
};

class FragmentLayoutAnalysis {
public:
  /// Infers the layouts of \p K's fragments. \p Matrix may be null (a
  /// backend without matrix instructions): gemm accumulators then get no
  /// layout from their gemm.
  FragmentLayoutAnalysis(const KernelStmt &K,
                         const MatrixLayoutProvider *Matrix,
                         int64_t VectorBytes = 16);

  /// Null when \p B got no layout (getWhyNone says why).
  const FragmentLayout *getLayout(const BufferValue *B) const;
  llvm::StringRef getWhyNone(const BufferValue *B) const;
  llvm::ArrayRef<LayoutConversion> getConversions() const { return Convs; }
  /// The kernel's fragments in allocation order.
  llvm::ArrayRef<const BufferValue *> getFragments() const { return Frags; }

  /// Every fragment's layout, the replicated hardware bits and the
  /// conversions; locations through \p SM when given.
  void print(llvm::raw_ostream &OS, const llvm::SourceMgr *SM) const;

private:
  void strict();
  bool common();
  bool free();
  bool assign(const BufferValue *B, LinearLayout L, std::string Origin,
              const Stmt &At);
  bool propagateLoop(const ForStmt &F);

  const KernelStmt &K;
  const MatrixLayoutProvider *Matrix;
  int64_t VectorBytes;
  int64_t Threads = 0, WarpSize = 32;
  std::vector<const BufferValue *> Frags;
  llvm::DenseMap<const BufferValue *, std::vector<int64_t>> Shapes;
  llvm::DenseMap<const BufferValue *, FragmentLayout> Layouts;
  llvm::DenseMap<const BufferValue *, std::string> WhyNone;
  std::vector<LayoutConversion> Convs;
  /// Fragments copied from or to global memory, with that memory's dtype.
  llvm::DenseMap<const BufferValue *, DType> GlobalCopies;
};

/// The blocked layout of a \p Shape fragment over \p Threads threads of
/// \p WarpSize: \p Vector consecutive elements per register group, then
/// lanes, then warps, then more registers, over the row-major index; hardware
/// bits beyond the tile replicate. Shape and sizes are powers of two.
LinearLayout getBlockedLayout(llvm::ArrayRef<int64_t> Shape, int64_t Threads,
                              int64_t WarpSize, int64_t Vector);

} // namespace tile

#endif // TILE_ANALYSIS_FRAGMENTLAYOUTS_H
