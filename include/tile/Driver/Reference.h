//===- Reference.h - Checking results against the interpreter ---*- C++ -*-===//
//
// Runs the reference interpreter (f64) on the same inputs a backend ran on,
// and compares the backend's results with a tolerance chosen by dtype.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DRIVER_REFERENCE_H
#define TILE_DRIVER_REFERENCE_H

#include "tile/Driver/HostTensor.h"
#include "tile/IR/IR.h"
#include "llvm/Support/Error.h"
#include <map>

namespace llvm {
class SourceMgr;
}

namespace tile {

/// A tensor computed by the interpreter, in f64.
struct ReferenceResult {
  std::vector<int64_t> Shape;
  std::vector<double> Values;
};

/// Interprets \p F with tensors \p Tensors (by parameter name; their
/// contents are the inputs) and scalars \p Scalars; returns every tensor's
/// final contents.
llvm::Expected<std::map<std::string, ReferenceResult>>
runReference(const Function &F, const std::map<std::string, HostTensor> &Tensors,
             const std::map<std::string, double> &Scalars,
             llvm::SourceMgr &SM);

struct CheckReport {
  double MaxAbsErr = 0, MaxRelErr = 0;
  double ATol = 0, RTol = 0;
  int64_t Failures = 0;
  int64_t FirstBad = -1;
  double FirstGot = 0, FirstWant = 0;
};

/// The tolerance for results stored as \p T: |got - want| <= ATol + RTol *
/// |want|. f32: 1e-5/1e-4 ... f16: 1e-2/1e-2, bf16 and fp8 coarser; exact
/// for integers.
std::pair<double, double> getTolerance(DType T);

/// Compares \p Got with \p Want element by element. A NaN where the
/// reference has a number (or the reverse) is a failure.
CheckReport compareWithReference(const HostTensor &Got,
                                 const ReferenceResult &Want);

} // namespace tile

#endif // TILE_DRIVER_REFERENCE_H
