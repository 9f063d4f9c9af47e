//===- MFMALayout.cpp - MFMA accumulators as linear layouts ---------------===//

#include "MFMALayout.h"

using namespace tile;
using namespace tile::rocm;

std::optional<LinearLayout> rocm::getMFMAAccumulatorLayout(const MFMAShape &S,
                                                           int64_t M, int64_t N,
                                                           int64_t Threads) {
  if (M % S.M != 0 || N % S.N != 0 || Threads % WaveSize != 0)
    return std::nullopt;
  int64_t TilesM = M / S.M, TilesN = N / S.N, Waves = Threads / WaveSize;
  int64_t Tiles = TilesM * TilesN;
  for (int64_t X : {TilesM, TilesN, Waves})
    if (!isPowerOfTwo(X))
      return std::nullopt;
  if (Tiles % Waves != 0)
    return std::nullopt;
  // Bit j of the tile index t: the tile's column below log2(TilesN), its
  // row above.
  unsigned NBits = log2Exact(TilesN);
  auto TileBit = [&](LinearLayout &L, HwDim D, unsigned J) {
    if (J < NBits)
      L.addRun(D, 1, S.N << J, 1);
    else
      L.addRun(D, 0, S.M << (J - NBits), 1);
  };
  unsigned WaveBits = log2Exact(Waves), TileBits = log2Exact(Tiles);
  LinearLayout L({M, N});
  // Register r of a tile: row r % 4, then (r / 4) * 4G.
  L.addRun(HwDim::Register, 0, 1, 2)
      .addRun(HwDim::Register, 0, 4 * S.Groups, log2Exact(S.AccPerLane / 4));
  // The wave's tiles tt: bits WaveBits.. of t.
  for (unsigned J = WaveBits; J != TileBits; ++J)
    TileBit(L, HwDim::Register, J);
  // Lane l: column l % N, rows 4 * (l / N).
  L.addRun(HwDim::Lane, 1, 1, log2Exact(S.N))
      .addRun(HwDim::Lane, 0, 4, log2Exact(S.Groups));
  for (unsigned J = 0; J != WaveBits; ++J)
    TileBit(L, HwDim::Warp, J);
  return L;
}

llvm::Expected<LinearLayout>
MFMALayouts::getAccumulatorLayout(const OpStmt &Gemm, int64_t M, int64_t N,
                                  int64_t Threads) const {
  llvm::Expected<MFMAShape> S = ShapeOf(Gemm);
  if (!S)
    return S.takeError();
  std::optional<LinearLayout> L = getMFMAAccumulatorLayout(*S, M, N, Threads);
  if (!L)
    return llvm::createStringError(
        "the " + S->Name.str() + " tiles of [" + std::to_string(M) + ", " +
        std::to_string(N) + "] do not share out evenly over " +
        std::to_string(Threads / WaveSize) +
        " waves in powers of two");
  return std::move(*L);
}
