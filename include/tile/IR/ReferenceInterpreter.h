//===- ReferenceInterpreter.h - Tile IR executed in f64 ---------*- C++ -*-===//
//
// The reference interpreter runs a verified function at the tile level,
// before any lowering, with every value held as a double: floats are never
// rounded to their storage type, integers are exact (to 2^53) and wrap to
// their width when stored or cast. It implements the language's semantics
// directly -- region extents, guarded global accesses, gemm, reduce,
// cumsum, atomics, per-thread statements -- independently of the passes,
// so it is the oracle every backend is checked against.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_REFERENCEINTERPRETER_H
#define TILE_IR_REFERENCEINTERPRETER_H

#include "tile/IR/IR.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace llvm {
class SourceMgr;
}

namespace tile {

/// A tensor argument: row-major values in f64.
struct RefTensor {
  std::vector<int64_t> Shape;
  std::vector<double> Data;
};

/// One argument, in parameter order: a tensor for a buffer parameter, a
/// number for a scalar parameter.
struct RefArg {
  RefTensor *Tensor = nullptr;
  double Scalar = 0;

  static RefArg tensor(RefTensor &T) { return {&T, 0}; }
  static RefArg scalar(double V) { return {nullptr, V}; }
};

struct InterpreterOptions {
  /// Renders locations in error messages (`file:line:col: ...`) when set.
  const llvm::SourceMgr *SM = nullptr;
  /// On-chip buffers start as NaN (floats) so that reading an element
  /// before writing it shows in the results.
  bool PoisonOnChip = true;
};

/// Runs \p F on \p Args. Tensors are updated in place. Errors: an argument
/// that does not match its parameter (rank, shape against literal or
/// shared symbolic dimensions), an out-of-range on-chip or direct global
/// access, a dialect op, division by zero.
llvm::Error interpretFunction(const Function &F, llvm::ArrayRef<RefArg> Args,
                              const InterpreterOptions &Opts = {});

} // namespace tile

#endif // TILE_IR_REFERENCEINTERPRETER_H
