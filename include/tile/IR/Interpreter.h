//===- Interpreter.h - The reference interpreter of Tile IR -----*- C++ -*-===//
//
// Runs a verified function at the tile level, before any lowering, with
// every value computed in f64 or exact 64-bit integers. It implements the
// language's semantics directly from their definitions (region extents,
// guarded global accesses, gemm, reduce, cumsum, atomics, per-thread
// statements), independently of the passes and backends, so it is the
// oracle they are checked against (tile-jit --check).
//
// Semantics in brief:
//  - Float values are computed and stored in f64, never rounded to f16,
//    bf16 or f32 (unless InterpretOptions::RoundStores asks for it).
//  - Integer values are exact; every integer operation wraps to the width
//    of its type, as the backends compute. Integer division by zero,
//    signed division overflow and shifts by the width or more are errors.
//    Buffers hold doubles, so 64-bit integer elements are exact to 2^53.
//  - Casts: integer to integer wraps; float to integer truncates toward
//    zero and saturates (NaN gives 0); anything to i1 is `!= 0`.
//  - min/max on floats propagate NaN, so a poisoned element stays visible.
//  - `&&`, `||` and `select` evaluate only what decides the result, so a
//    guarded load such as `select(%i < N, %A[%i], 0.0)` is not an error.
//  - Blocks of a kernel run one after another, %bx fastest. Statements that
//    depend on the thread index run for every thread in turn: consecutive
//    ones form a run executed by thread 0, then thread 1, ...; a barrier
//    ends a run. Everything else runs once per block. On-chip buffers
//    (shared, fragment, local, var) belong to the block.
//  - NaN marks an element never written: on-chip buffers start as NaN
//    (InterpretOptions::PoisonOnChip); reading a NaN as an integer in an
//    expression is an error.
//  - Tile ops guard global memory (reads outside read 0, writes outside are
//    dropped); an on-chip region out of range, and any direct load, store
//    or atomic_elem out of range, is an error.
//
// Usage:
//   TensorArg A({M, K}, AData), B({K, N}, BData);
//   TensorArg C = TensorArg::filled({M, N}, NAN);  // poisoned output
//   InterpretOptions Opts;
//   Opts.SM = &SM;                                 // located errors
//   if (llvm::Error E = interpretFunction(*F, {A, B, C}, Opts))
//     ...;                                         // C.Data holds the result
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_INTERPRETER_H
#define TILE_IR_INTERPRETER_H

#include "tile/IR/IR.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class SourceMgr;
}

namespace tile {

/// A tensor passed for a buffer parameter: its elements as doubles. The
/// interpreter reads inputs from it and writes results into it.
struct TensorArg {
  std::vector<int64_t> Shape;
  /// Element strides; empty for contiguous row-major. Element (i0, i1, ...)
  /// is Data[i0 * Strides[0] + i1 * Strides[1] + ...].
  std::vector<int64_t> Strides;
  std::vector<double> Data;

  TensorArg() = default;
  TensorArg(std::vector<int64_t> Shape, std::vector<double> Data)
      : Shape(std::move(Shape)), Data(std::move(Data)) {}
  /// A contiguous row-major tensor with every element \p Fill.
  static TensorArg filled(std::vector<int64_t> Shape, double Fill);

  int64_t getNumElements() const;
  /// The strides in use: Strides, or the row-major ones.
  std::vector<int64_t> getEffectiveStrides() const;
  /// The element at \p Index (one entry per dimension).
  double &at(llvm::ArrayRef<int64_t> Index);
  double at(llvm::ArrayRef<int64_t> Index) const;
};

/// One argument, in parameter order: a tensor for a buffer parameter, a
/// number for a scalar parameter.
class ArgValue {
public:
  enum class Kind { Tensor, Float, Int };

  ArgValue(TensorArg &T) : K(Kind::Tensor), T(&T) {}
  static ArgValue tensor(TensorArg &T) { return ArgValue(T); }
  /// A scalar given as a double; an integer parameter needs an integral
  /// value in its type's range.
  static ArgValue scalar(double V) { return ArgValue(Kind::Float, V, 0); }
  /// A scalar given as an integer; converted for a float parameter.
  static ArgValue integer(int64_t V) { return ArgValue(Kind::Int, 0, V); }

  Kind getKind() const { return K; }
  TensorArg *getTensor() const { return T; }
  double getFloat() const { return F; }
  int64_t getInt() const { return I; }

private:
  ArgValue(Kind K, double F, int64_t I) : K(K), F(F), I(I) {}
  Kind K;
  TensorArg *T = nullptr;
  double F = 0;
  int64_t I = 0;
};

struct InterpretOptions {
  /// When set, errors carry the location they are about, rendered as
  /// `file:line:col: error: message` with the source line and a caret.
  const llvm::SourceMgr *SM = nullptr;
  /// Fill on-chip buffers with NaN when they are allocated, so that an
  /// element read before it is written shows in the results.
  bool PoisonOnChip = true;
  /// Round every float written to a buffer (and float scalar arguments) to
  /// the buffer's dtype: f32, f16, bf16, fp8. Arithmetic stays in f64.
  bool RoundStores = false;
};

/// Runs \p F on \p Args, given in parameter order. Symbolic dimensions
/// (and stride symbols) are bound from the tensors' shapes (and strides).
/// Tensors are updated in place, also when an error stops the run midway.
///
/// Errors: a missing, extra or mismatched argument (wrong kind, rank, a
/// shape or stride that contradicts a literal or another tensor sharing a
/// symbol, integer data that is not a value of the dtype), an op the
/// interpreter does not know (backend dialect ops), and run-time faults
/// (out-of-range accesses, integer division by zero, reading an unwritten
/// integer element), each naming what and where.
llvm::Error interpretFunction(const Function &F, llvm::ArrayRef<ArgValue> Args,
                              const InterpretOptions &Opts = {});

/// \p V rounded to the nearest value of float type \p T (ties to even);
/// \p V itself for f64 and for non-float types.
double roundToDType(double V, DType T);

/// An error message as the interpreter (and the emulators) report it:
/// `file:line:col: error: Msg`, the source line and a caret when \p SM
/// holds \p Loc; \p Msg alone otherwise.
std::string renderLocatedMessage(const llvm::SourceMgr *SM, llvm::SMLoc Loc,
                                 const llvm::Twine &Msg);

} // namespace tile

#endif // TILE_IR_INTERPRETER_H
