// Top-k selection kernels: exactness against a sort-based reference, the
// approx == exact guarantee, ties, and threshold selection.
#include "tetrad/compress/selection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "test_util.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

// Sort-based reference: largest |x| first, ties towards the lower index.
std::vector<uint32_t> referenceTopK(const std::vector<float>& x, size_t k) {
  std::vector<uint32_t> order(x.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return magnitudeKey(x[a]) > magnitudeKey(x[b]); });
  order.resize(std::min(k, x.size()));
  std::sort(order.begin(), order.end());
  return order;
}

TEST(Selection, KeptCountRoundsAndClamps) {
  EXPECT_EQ(keptCount(0, 0.5), 0u);
  EXPECT_EQ(keptCount(1000, 0.01), 10u);
  EXPECT_EQ(keptCount(1000, 0.0001), 1u);  // at least one
  EXPECT_EQ(keptCount(1000, 1.0), 1000u);
  EXPECT_EQ(keptCount(16777216, 0.01), 167772u);
}

TEST(Selection, ExactMatchesReferenceOnSmallTensors) {
  for (size_t n : {1u, 2u, 15u, 16u, 17u, 100u, 1000u, 4099u}) {
    std::vector<float> x = testing::gaussian(n, n);
    for (size_t k : {size_t{0}, size_t{1}, n / 3, n - 1, n, n + 5}) {
      std::vector<uint32_t> got;
      selectTopK(x, k, SelectionMethod::kExact, got);
      EXPECT_EQ(got, referenceTopK(x, k)) << "n=" << n << " k=" << k;
    }
  }
}

TEST(Selection, TiesGoToLowerIndices) {
  std::vector<float> x(100, 1.0f);
  x[7] = -3.0f;  // largest magnitude, negative
  x[50] = 0.0f;
  x[51] = -0.0f;  // ties with +0
  std::vector<uint32_t> got;
  selectTopK(x, 4, SelectionMethod::kExact, got);
  EXPECT_EQ(got, (std::vector<uint32_t>{0, 1, 2, 7}));
  selectTopK(x, 99, SelectionMethod::kExact, got);
  EXPECT_EQ(got.size(), 99u);
  EXPECT_TRUE(std::find(got.begin(), got.end(), 51u) == got.end());  // last of the zeros
}

TEST(Selection, InfinityAndNanCountAsLargest) {
  std::vector<float> x = testing::gaussian(64, 3);
  x[10] = -std::numeric_limits<float>::infinity();
  x[20] = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint32_t> got;
  selectTopK(x, 2, SelectionMethod::kExact, got);
  EXPECT_EQ(got, (std::vector<uint32_t>{10, 20}));
}

TEST(Selection, ApproxEqualsExactOnLargeTensors) {
  // Several shapes of data: Gaussian, heavy-tailed, many exact ties, mostly zero.
  const size_t n = (size_t{1} << 18) + 123;
  std::vector<std::vector<float>> inputs;
  inputs.push_back(testing::gaussian(n, 1));
  std::vector<float> heavy = testing::gaussian(n, 2);
  for (float& v : heavy) v = v * v * v * v * v;
  inputs.push_back(heavy);
  std::vector<float> ties(n);
  for (size_t i = 0; i < n; ++i) ties[i] = static_cast<float>(i % 7) - 3.0f;
  inputs.push_back(ties);
  std::vector<float> sparse(n, 0.0f);
  for (size_t i = 0; i < n; i += 97) sparse[i] = static_cast<float>(i % 13) + 1.0f;
  inputs.push_back(sparse);
  for (size_t which = 0; which < inputs.size(); ++which) {
    for (double ratio : {0.0001, 0.001, 0.01, 0.1, 0.5}) {
      const size_t k = keptCount(n, ratio);
      std::vector<uint32_t> exact, approx;
      selectTopK(inputs[which], k, SelectionMethod::kExact, exact);
      selectTopK(inputs[which], k, SelectionMethod::kApprox, approx);
      ASSERT_EQ(exact.size(), k);
      EXPECT_EQ(approx, exact) << "input " << which << " ratio " << ratio;
      if (ratio == 0.01 || ratio == 0.5) {
        EXPECT_EQ(exact, referenceTopK(inputs[which], k)) << "input " << which;
      }
    }
  }
}

TEST(Selection, ApproxFallsBackWhenTheSampleMisses) {
  // Adversarial layouts for a sampled threshold: the large values sit in one
  // short run (often missed by the sample: threshold 0, candidate overflow)
  // or everything ties (the threshold equals the k-th key).
  const size_t n = size_t{1} << 17;
  for (size_t offset : {0u, 5000u, 77777u, 131000u}) {
    std::vector<float> x(n, 0.001f);
    for (size_t i = offset; i < std::min(n, offset + 60); ++i) x[i] = -5.0f - i % 3;
    for (size_t k : {30u, 100u, 1000u}) {
      std::vector<uint32_t> exact, approx;
      selectTopK(x, k, SelectionMethod::kExact, exact);
      selectTopK(x, k, SelectionMethod::kApprox, approx);
      EXPECT_EQ(approx, exact) << offset << " " << k;
      EXPECT_EQ(exact, referenceTopK(x, k)) << offset << " " << k;
    }
  }
}

TEST(Selection, KeepsExactlyTheLargestMagnitudes) {
  const std::vector<float> x = testing::gaussian(200000, 9);
  const size_t k = 2000;
  std::vector<uint32_t> got;
  selectTopK(x, k, SelectionMethod::kApprox, got);
  ASSERT_EQ(got.size(), k);
  EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  float smallestKept = std::numeric_limits<float>::infinity();
  for (uint32_t i : got) smallestKept = std::min(smallestKept, std::fabs(x[i]));
  size_t above = 0;
  for (float v : x) above += std::fabs(v) > smallestKept ? 1 : 0;
  EXPECT_EQ(above, k - 1);  // Gaussian data: no ties
}

TEST(Selection, AtLeastKeepsEveryElementAtOrAboveThreshold) {
  const std::vector<float> x = testing::gaussian(10007, 4);
  std::vector<uint32_t> got;
  selectAtLeast(x, 1.5f, got);
  std::vector<uint32_t> expected;
  for (uint32_t i = 0; i < x.size(); ++i) {
    if (std::fabs(x[i]) >= 1.5f) expected.push_back(i);
  }
  EXPECT_EQ(got, expected);
  EXPECT_GT(got.size(), 1000u);
  EXPECT_THROW(selectAtLeast(x, -1.0f, got), InvalidArgument);
}

}  // namespace
}  // namespace tetrad
