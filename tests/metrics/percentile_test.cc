#include "metrics/percentile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
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

// Percentiles of `values` (reordered) equal Percentile of them sorted.
void ExpectSelectionAsSorting(std::vector<double>& values, std::span<const double> ps) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> out(ps.size());
  Percentiles(values, ps, out);
  for (size_t k = 0; k < ps.size(); ++k) {
    EXPECT_EQ(out[k], Percentile(sorted, ps[k])) << "n=" << values.size() << " p=" << ps[k];
  }
}

TEST(Percentiles, SelectionEqualsSortingThenPercentile) {
  // Sizes around the edge cases (1, 2, where floor(h) + 1 = n), ties, and
  // larger random series; every p of the list at once, as node_stats asks.
  std::mt19937 rng(5);
  const double ps[] = {0, 1, 25, 50, 50, 95, 99, 99.9, 100};
  for (size_t n : {1, 2, 3, 4, 5, 10, 99, 100, 101, 1000, 4097}) {
    for (int round = 0; round < 20; ++round) {
      std::vector<double> values(n);
      for (double& v : values)
        v = round % 2 ? static_cast<double>(rng() % 7) : std::ldexp(rng(), -20);
      ExpectSelectionAsSorting(values, ps);
    }
  }
  std::vector<double> none;
  double out[1];
  const double p50[] = {50};
  Percentiles(none, p50, out);
  EXPECT_TRUE(std::isnan(out[0]));
}

TEST(Percentiles, OrderedEqualAndPatternedInputsSelectAsSorting) {
  // What defeats a quickselect: sorted, reversed, all equal, organ pipes,
  // sawteeth, two values; each size past the small-range insertion sort.
  const double ps[] = {0, 50, 95, 99, 100};
  for (size_t n : {17, 64, 600, 3001}) {
    std::vector<std::vector<double>> inputs(6, std::vector<double>(n));
    for (size_t i = 0; i < n; ++i) {
      inputs[0][i] = static_cast<double>(i);
      inputs[1][i] = static_cast<double>(n - i);
      inputs[2][i] = 0.25;
      inputs[3][i] = static_cast<double>(std::min(i, n - 1 - i));
      inputs[4][i] = static_cast<double>(i % 10);
      inputs[5][i] = i % 3 == 0 ? 1.0 : 2.0;
    }
    for (std::vector<double>& values : inputs) {
      ExpectSelectionAsSorting(values, ps);
    }
  }
}

}  // namespace
}  // namespace cookgraph
