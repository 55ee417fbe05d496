#include "metrics/percentile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cookgraph {
namespace {

// Expected values follow h = (n - 1) * p / 100 and
// x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] - x[floor(h)]), worked by hand;
// they agree with numpy.percentile(x, p) (method "linear").

TEST(Percentile, LinearInterpolationBetweenClosestRanks) {
  const std::vector<double> x = {1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(Percentile(x, 0), 1.0);
  EXPECT_DOUBLE_EQ(Percentile(x, 25), 1.75);  // h = 0.75: 1 + 0.75 * 1
  EXPECT_DOUBLE_EQ(Percentile(x, 50), 2.5);   // h = 1.5: 2 + 0.5 * 1
  EXPECT_DOUBLE_EQ(Percentile(x, 95), 3.85);  // h = 2.85: 3 + 0.85 * 1
  EXPECT_DOUBLE_EQ(Percentile(x, 100), 4.0);
}

TEST(Percentile, UnevenGaps) {
  const std::vector<double> x = {1, 2, 5};
  EXPECT_DOUBLE_EQ(Percentile(x, 50), 2.0);   // h = 1 exactly
  EXPECT_DOUBLE_EQ(Percentile(x, 95), 4.7);   // h = 1.9: 2 + 0.9 * 3
  EXPECT_DOUBLE_EQ(Percentile(x, 99), 4.94);  // h = 1.98: 2 + 0.98 * 3
  const std::vector<double> y = {10, 20};
  EXPECT_DOUBLE_EQ(Percentile(y, 95), 19.5);  // h = 0.95
}

TEST(Percentile, OneValueIsEveryPercentile) {
  const std::vector<double> x = {7.5};
  EXPECT_EQ(Percentile(x, 0), 7.5);
  EXPECT_EQ(Percentile(x, 50), 7.5);
  EXPECT_EQ(Percentile(x, 99), 7.5);
  EXPECT_EQ(Percentile(x, 100), 7.5);
}

TEST(Percentile, EmptyIsNaN) { EXPECT_TRUE(std::isnan(Percentile({}, 50))); }

TEST(Percentile, OutOfRangePercentIsClampedToTheEnds) {
  const std::vector<double> x = {1, 2, 3};
  EXPECT_EQ(Percentile(x, -5), 1.0);
  EXPECT_EQ(Percentile(x, 150), 3.0);
}

}  // namespace
}  // namespace cookgraph
