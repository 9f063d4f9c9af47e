//===- ReferenceCompareTest.cpp - tile-jit --check's comparator -----------===//
//
// The comparison behind tile-jit --check: tolerance by dtype, NaN (a
// poisoned, unwritten element) against a number, exact integers.
//
//===----------------------------------------------------------------------===//

#include "tile/Driver/Reference.h"
#include "gtest/gtest.h"
#include <cmath>

using namespace tile;

namespace {

TEST(ReferenceCompare, ToleranceNaNAndPoison) {
  HostTensor T(DType::F32, {3});
  T.set(0, 1.0);
  T.set(1, 2.00001);
  T.set(2, std::nan(""));
  ReferenceResult R{{3}, {1.0, 2.0, 3.0}};
  CheckReport C = compareWithReference(T, R);
  EXPECT_EQ(C.Failures, 1); // the NaN (an unwritten, poisoned element)
  EXPECT_EQ(C.FirstBad, 2);
  T.set(2, 3.1);
  C = compareWithReference(T, R);
  EXPECT_EQ(C.Failures, 1); // 0.1 is beyond 1e-4 + 1e-4 * 3
  EXPECT_NEAR(C.MaxAbsErr, 0.1, 1e-6);
  T.set(2, 3.0);
  EXPECT_EQ(compareWithReference(T, R).Failures, 0);
  HostTensor I(DType::I32, {1});
  I.set(0, 5);
  EXPECT_EQ(compareWithReference(I, ReferenceResult{{1}, {6}}).Failures, 1);
}

} // namespace
