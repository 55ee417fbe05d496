#ifndef COOKGRAPH_METRICS_WELCH_H_
#define COOKGRAPH_METRICS_WELCH_H_

// Welch's unequal-variances t-test, one-sided for a slowdown: is the mean of
// the "after" samples larger than that of the "before" samples? Boost.Math's
// Student's t distribution does the arithmetic inside welch.cc; no Boost type
// appears here.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace cookgraph {

/// Count, mean and unbiased (n - 1) variance of one sample.
struct Moments {
  size_t n = 0;
  double mean = 0;      // 0 when n == 0
  double variance = 0;  // sample variance, divides by n - 1; 0 when n < 2
};

/// The moments of the values of `values` that are not missing (NaN).
Moments MomentsOf(std::span<const double> values);

/// Why a test has or has no p-value.
enum class WelchStatus : uint8_t {
  kTested,         // t, df and p from the t distribution
  kTooFewSamples,  // a side has fewer than 2 samples: no variance, no test
  kExact,          // neither side varies and the means differ: p is 0 or 1, no t
  kNoVariance,     // neither side varies and the means are equal: no test
};

struct WelchResult {
  WelchStatus status = WelchStatus::kTooFewSamples;
  double t = 0;   // (mean_after - mean_before) / standard error; kTested only
  double df = 0;  // Welch–Satterthwaite degrees of freedom; kTested only
  /// One-sided p-value for "after is slower": P(T >= t) under equal means.
  /// nullopt for kTooFewSamples and kNoVariance; for kExact 0 when after is
  /// larger, else 1.
  std::optional<double> p_slower;
};

/// Welch's t-test of `after` against `before`.
WelchResult WelchTest(const Moments& before, const Moments& after);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_WELCH_H_
