//===- MFMALayout.h - Lane layouts of the MFMA instructions -----*- C++ -*-===//
//
// Which elements of A, B and C each lane of a wave64 holds for the MFMA
// shapes the ROCm backend emits, as the CDNA2/CDNA3 ISA guides give them
// for v_mfma_f32_{16x16x16,32x32x8}{f16,bf16_1k}. rocm-lower-gemm-mfma
// builds its index expressions from these formulas and the codegen picks
// the intrinsic from the shape; nothing else knows the layout.
//
// With G = 64 / M lane groups (4 for 16x16, 2 for 32x32), lane l holds:
//   A[m][k]:  m = l % M,  k = (l / M) * 4 + v            (v = 0..3)
//   B[k][n]:  n = l % N,  k = (l / N) * 4 + v            (v = 0..3)
//   C[m][n]:  n = l % N,  m = (r / 4) * 4G + (l / N) * 4 + r % 4
//                                                    (r = 0..M*N/64 - 1)
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_ROCM_MFMALAYOUT_H
#define TILE_LIB_TARGET_ROCM_MFMALAYOUT_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace tile {
namespace rocm {

constexpr int WaveSize = 64;
/// A and B elements per lane: four f16 or bf16 values (64 bits).
constexpr int OperandsPerLane = 4;

struct MFMAShape {
  llvm::StringRef Name;
  int M, N, K;
  /// f32 accumulators per lane: M * N / 64.
  int AccPerLane;
  /// Lane groups along K (and along the rows of C): 64 / M.
  int Groups;
};

inline constexpr MFMAShape MFMAShapes[] = {
    {"m16n16k16", 16, 16, 16, 4, 4},
    {"m32n32k8", 32, 32, 8, 16, 2},
};

inline std::optional<MFMAShape> lookupMFMAShape(llvm::StringRef Name) {
  for (const MFMAShape &S : MFMAShapes)
    if (S.Name == Name)
      return S;
  return std::nullopt;
}

} // namespace rocm
} // namespace tile

#endif // TILE_LIB_TARGET_ROCM_MFMALAYOUT_H
