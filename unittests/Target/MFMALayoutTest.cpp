//===- MFMALayoutTest.cpp - MFMA accumulators as linear layouts -----------===//
//
// rocm-lower-gemm-mfma writes an accumulator's registers by the formulas of
// MFMALayout.h (the ISA guides' lane layout, tiles dealt to the waves in
// turn) and runs epilogues and row reductions on them by the LinearLayout
// that getMFMAAccumulatorLayout gives the fragment layout analysis. The
// two must name the same element for every register of every lane of
// every wave.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Target/ROCm/MFMALayout.h"
#include "gtest/gtest.h"

using namespace tile;
using namespace tile::rocm;

namespace {

struct Case {
  int64_t M, N, Threads;
};

TEST(MFMALayoutTest, LayoutMatchesTheLaneFormulas) {
  const Case Cases[] = {{64, 64, 128}, {64, 128, 128}, {128, 128, 256},
                        {32, 32, 64},  {128, 64, 128}, {64, 64, 256}};
  unsigned Checked = 0;
  for (const MFMAShape &S : MFMAShapes)
    for (const Case &C : Cases) {
      int64_t Waves = C.Threads / WaveSize;
      int64_t TilesN = C.N / S.N, Tiles = (C.M / S.M) * TilesN;
      std::optional<LinearLayout> L =
          getMFMAAccumulatorLayout(S, C.M, C.N, C.Threads);
      if (Tiles % Waves != 0) {
        EXPECT_FALSE(L) << S.Name.str() << " " << C.M << "x" << C.N;
        continue;
      }
      ASSERT_TRUE(L) << S.Name.str() << " " << C.M << "x" << C.N;
      EXPECT_TRUE(L->isBitDisjoint());
      EXPECT_TRUE(L->coversTile());
      EXPECT_EQ(L->getSize(HwDim::Lane), WaveSize);
      EXPECT_EQ(L->getSize(HwDim::Warp), Waves);
      EXPECT_EQ(L->getSize(HwDim::Register), Tiles / Waves * S.AccPerLane);
      for (int64_t W = 0; W != Waves; ++W)
        for (int64_t Lane = 0; Lane != WaveSize; ++Lane)
          for (int64_t E = 0; E != L->getSize(HwDim::Register); ++E) {
            int64_t TT = E / S.AccPerLane, R = E % S.AccPerLane;
            int64_t T = W + TT * Waves;
            int64_t Row = (T / TilesN) * S.M + (R / 4) * 4 * S.Groups +
                          (Lane / S.N) * 4 + R % 4;
            int64_t Col = (T % TilesN) * S.N + Lane % S.N;
            LinearLayout::Coords X = L->apply(E, Lane, W);
            ASSERT_EQ(X[0], Row) << S.Name.str() << " e " << E << " lane " << Lane;
            ASSERT_EQ(X[1], Col) << S.Name.str() << " e " << E << " lane " << Lane;
            ++Checked;
          }
    }
  EXPECT_GT(Checked, 0u);
}

TEST(MFMALayoutTest, NoLayoutWhenTilesDoNotShareOut) {
  // 3 waves, or a 48-row tile count that is not a power of two.
  EXPECT_FALSE(getMFMAAccumulatorLayout(MFMAShapes[0], 64, 64, 192));
  EXPECT_FALSE(getMFMAAccumulatorLayout(MFMAShapes[0], 48, 64, 64));
  // Fewer tiles than waves.
  EXPECT_FALSE(getMFMAAccumulatorLayout(MFMAShapes[1], 32, 32, 128));
}

} // namespace
