#include "metrics/welch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cookgraph {
namespace {

// Reference values computed independently with Python's `statistics`
// (sample variances) and mpmath at 50 digits (the one-sided tail as the
// regularized incomplete beta I_{df/(df+t^2)}(df/2, 1/2) / 2); the script is
// tests/tools/welch_reference.py.
struct Case {
  const char* name;
  std::vector<double> before, after;
  double t, df, p_slower;
};

const Case kCases[] = {
    // Wikipedia's "Welch's t-test" example A1, A2: t = 2.46, df = 24.99,
    // two-sided p = 0.021 (here one-sided, half of it).
    {"wikipedia",
     {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4},
     {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4},
     2.4553563982860061,
     24.988529290231415,
     0.010689000731433491},
    {"unequal_sizes",
     {1.0, 1.2, 0.9, 1.1, 1.05},
     {1.3, 1.25, 1.4, 1.1, 1.35, 1.5, 1.2, 1.45, 1.3},
     4.0971801578526709,
     9.2533416226297784,
     0.0012675611169917074},
    {"faster",
     {2.0, 2.2, 2.1, 1.9, 2.05, 2.15},
     {1.7, 1.9, 1.8, 1.75},
     -4.5482563631242764,
     7.6148969889065005,
     0.99893434798230126},
    // One constant side: df falls back to the other side's n - 1.
    {"one_constant",
     {3.0, 3.0, 3.0, 3.0},
     {3.1, 3.3, 2.9, 3.2, 3.05},
     1.621861517703873,
     4.0,
     0.09007591377890731},
};

TEST(Welch, MatchesIndependentlyComputedValues) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const WelchResult r = WelchTest(MomentsOf(c.before), MomentsOf(c.after));
    ASSERT_EQ(r.status, WelchStatus::kTested);
    EXPECT_NEAR(r.t, c.t, 1e-12 * std::abs(c.t));
    EXPECT_NEAR(r.df, c.df, 1e-12 * c.df);
    ASSERT_TRUE(r.p_slower.has_value());
    EXPECT_NEAR(*r.p_slower, c.p_slower, 1e-10 * c.p_slower);
  }
}

TEST(Welch, SwappingTheSidesMirrorsTheTest) {
  const Case& c = kCases[0];
  const WelchResult r = WelchTest(MomentsOf(c.after), MomentsOf(c.before));
  EXPECT_NEAR(r.t, -c.t, 1e-12 * c.t);
  EXPECT_NEAR(*r.p_slower, 1 - c.p_slower, 1e-12);
}

TEST(Welch, MomentsSkipMissingValuesAndUseTheSampleVariance) {
  const Moments m = MomentsOf(std::vector<double>{1, NAN, 2, 3, NAN, 4});
  EXPECT_EQ(m.n, 4u);
  EXPECT_DOUBLE_EQ(m.mean, 2.5);
  EXPECT_DOUBLE_EQ(m.variance, 5.0 / 3.0);  // squared deviations 5, divided by n - 1
  EXPECT_EQ(MomentsOf(std::vector<double>{NAN, NAN}).n, 0u);
}

TEST(Welch, FewerThanTwoSamplesOnASideIsNoTest) {
  const WelchResult one =
      WelchTest(MomentsOf(std::vector<double>{1.0}), MomentsOf(std::vector<double>{5, 6, 7}));
  EXPECT_EQ(one.status, WelchStatus::kTooFewSamples);
  EXPECT_FALSE(one.p_slower.has_value());
  const WelchResult none =
      WelchTest(MomentsOf(std::vector<double>{}), MomentsOf(std::vector<double>{5, 6}));
  EXPECT_EQ(none.status, WelchStatus::kTooFewSamples);
  EXPECT_FALSE(none.p_slower.has_value());
}

TEST(Welch, ConstantSidesAreExactOrNoTest) {
  const WelchResult same = WelchTest(MomentsOf(std::vector<double>{2, 2, 2}),
                                     MomentsOf(std::vector<double>{2, 2, 2, 2}));
  EXPECT_EQ(same.status, WelchStatus::kNoVariance);
  EXPECT_FALSE(same.p_slower.has_value());
  const WelchResult slower =
      WelchTest(MomentsOf(std::vector<double>{2, 2, 2}), MomentsOf(std::vector<double>{3, 3}));
  EXPECT_EQ(slower.status, WelchStatus::kExact);
  EXPECT_EQ(slower.p_slower, 0.0);
  const WelchResult faster =
      WelchTest(MomentsOf(std::vector<double>{2, 2, 2}), MomentsOf(std::vector<double>{1, 1}));
  EXPECT_EQ(faster.p_slower, 1.0);
}

TEST(Welch, TinyVariancesKeepDegreesOfFreedomInRange) {
  // Variances near the smallest doubles underflow the Welch–Satterthwaite
  // denominator; df stays within [min(n) - 1, n_before + n_after - 2].
  const Moments before{.n = 10, .mean = 1.0, .variance = 1e-300};
  const Moments after{.n = 20, .mean = 1.0 + 1e-150, .variance = 1e-300};
  const WelchResult r = WelchTest(before, after);
  ASSERT_EQ(r.status, WelchStatus::kTested);
  EXPECT_GE(r.df, 9.0);
  EXPECT_LE(r.df, 28.0);
  ASSERT_TRUE(r.p_slower.has_value());
  EXPECT_GE(*r.p_slower, 0.0);
  EXPECT_LE(*r.p_slower, 1.0);
}

}  // namespace
}  // namespace cookgraph
