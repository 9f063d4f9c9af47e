//===- JitReport.cpp - tile-jit: outputs and the reference check ----------===//
//
// The last stages of tile-jit: the `ran` line, the --output files, and the
// comparison of every written tensor with the f64 reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "Jit.h"
#include "tile/Driver/Reference.h"
#include "llvm/Support/Format.h"

using namespace tile;

/// \p Index of a row-major tensor of \p Shape as coordinates.
static std::string formatCoordinates(int64_t Index,
                                     const std::vector<int64_t> &Shape) {
  std::vector<int64_t> C(Shape.size());
  for (size_t D = Shape.size(); D-- > 0;) {
    C[D] = Shape[D] ? Index % Shape[D] : 0;
    Index = Shape[D] ? Index / Shape[D] : 0;
  }
  std::string S = "[";
  for (size_t D = 0; D != C.size(); ++D)
    S += (D ? ", " : "") + std::to_string(C[D]);
  return S + "]";
}

bool Jit::writeOutputs(const std::string &RanOn) {
  Out << "ran @" << F->getName() << " on " << RanOn;
  if (!DimValues.empty()) {
    Out << " with";
    for (auto &[K, V] : DimValues)
      Out << " " << K << "=" << V;
  }
  Out << "\n";
  for (auto &[K, V] : OutArgs) {
    auto It = Results.find(K);
    const HostTensor &T = It != Results.end() ? It->second : Tensors[K];
    if (llvm::Error E = writeNpy(V, T))
      return fail(llvm::toString(std::move(E)));
  }
  return true;
}

bool Jit::reference() {
  if (!Opts.Check)
    return true;
  std::map<std::string, HostTensor> Initial;
  for (auto &[K, V] : Tensors)
    Initial[K] = V;
  llvm::Expected<std::map<std::string, ReferenceResult>> R =
      runReference(*RefF, Initial, ScalarValues, SM);
  if (!R)
    return fail("reference interpreter: " + llvm::toString(R.takeError()));
  Ref = std::move(*R);
  return true;
}

std::optional<int> Jit::check() {
  int RC = 0;
  if (!Opts.Check)
    return RC;
  for (auto &[Name, R] : Results) {
    auto It = Ref.find(Name);
    if (It == Ref.end())
      continue;
    CheckReport C = compareWithReference(R, It->second);
    Out << "check " << Name << " (" << getDTypeName(R.getDType()) << ", "
        << R.getNumElements() << " elements): "
        << llvm::format("max abs error %.3e, max rel error %.3e, tolerance "
                        "atol %.1e rtol %.1e",
                        C.MaxAbsErr, C.MaxRelErr, C.ATol, C.RTol);
    if (C.Failures) {
      Out << ": FAILED at " << C.Failures << " elements (first at index "
          << C.FirstBad;
      if (R.getShape().size() > 1)
        Out << " " << formatCoordinates(C.FirstBad, R.getShape());
      Out << ": got " << llvm::format("%g", C.FirstGot) << ", expected "
          << llvm::format("%g", C.FirstWant) << ")\n";
      RC = 1;
    } else {
      Out << ": ok\n";
    }
  }
  if (RC)
    Err << "tile-jit: error: results differ from the reference interpreter\n";
  return RC;
}
