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
// A block's waves take the MFMA tiles of an accumulator in turn (tile
// t = w + W * tt for wave w of W), and a lane keeps the registers of its
// tt-th tile at tt * (M*N/64) + r: getMFMAAccumulatorLayout gives that as a
// LinearLayout, which the shared fragment layout analysis
// (tile/Analysis/FragmentLayouts.h) takes through MFMALayouts.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TARGET_ROCM_MFMALAYOUT_H
#define TILE_LIB_TARGET_ROCM_MFMALAYOUT_H

#include "tile/Analysis/FragmentLayouts.h"
#include "llvm/ADT/StringRef.h"
#include <functional>
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

/// The layout of an \p M x \p N accumulator in tiles of \p S over
/// \p Threads threads (waves of 64), each lane's registers tile by tile;
/// none unless the tiles share out evenly over the waves and every count
/// is a power of two.
std::optional<LinearLayout> getMFMAAccumulatorLayout(const MFMAShape &S,
                                                     int64_t M, int64_t N,
                                                     int64_t Threads);

/// The MFMA accumulator layouts of the gemms rocm-lower-gemm-mfma lowers
/// (the shape each gets is its choice), for the fragment layout analysis.
class MFMALayouts : public MatrixLayoutProvider {
public:
  /// \p ShapeOf gives the MFMA shape a gemm is lowered with, or why not.
  explicit MFMALayouts(
      std::function<llvm::Expected<MFMAShape>(const OpStmt &)> ShapeOf)
      : ShapeOf(std::move(ShapeOf)) {}
  llvm::StringRef getInstructionName() const override { return "MFMA"; }
  int64_t getWarpSize() const override { return WaveSize; }
  llvm::Expected<LinearLayout>
  getAccumulatorLayout(const OpStmt &Gemm, int64_t M, int64_t N,
                       int64_t Threads) const override;

private:
  std::function<llvm::Expected<MFMAShape>(const OpStmt &)> ShapeOf;
};

} // namespace rocm
} // namespace tile

#endif // TILE_LIB_TARGET_ROCM_MFMALAYOUT_H
