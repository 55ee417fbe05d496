#include "metrics/welch.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "model/samples.h"

namespace cookgraph {

Moments MomentsOf(std::span<const double> values) {
  Moments m;
  double sum = 0;
  for (double v : values) {
    if (IsMissing(v)) continue;
    sum += v;
    ++m.n;
  }
  if (m.n == 0) return m;
  m.mean = sum / static_cast<double>(m.n);
  if (m.n < 2) return m;
  // Corrected two-pass, as in node_stats.cc: accurate for large, close values.
  double squares = 0, deviations = 0;
  for (double v : values) {
    if (IsMissing(v)) continue;
    const double d = v - m.mean;
    squares += d * d;
    deviations += d;
  }
  const double n = static_cast<double>(m.n);
  const double variance = (squares - deviations * deviations / n) / (n - 1);
  m.variance = variance > 0 ? variance : 0.0;
  return m;
}

WelchResult WelchTest(const Moments& before, const Moments& after) {
  WelchResult r;
  if (before.n < 2 || after.n < 2) {
    r.status = WelchStatus::kTooFewSamples;
    return r;
  }
  const double va = before.variance / static_cast<double>(before.n);
  const double vb = after.variance / static_cast<double>(after.n);
  const double se2 = va + vb;
  const double difference = after.mean - before.mean;
  if (!(se2 > 0)) {
    // Both sides constant: the difference is known exactly, or there is none.
    if (difference == 0) {
      r.status = WelchStatus::kNoVariance;
    } else {
      r.status = WelchStatus::kExact;
      r.p_slower = difference > 0 ? 0.0 : 1.0;
    }
    return r;
  }
  r.status = WelchStatus::kTested;
  r.t = difference / std::sqrt(se2);
  // Welch–Satterthwaite; a side without variance contributes no term, so with
  // one constant side df is the other side's n - 1.
  const double denominator =
      va * va / static_cast<double>(before.n - 1) + vb * vb / static_cast<double>(after.n - 1);
  r.df = se2 * se2 / denominator;
  // Mathematically min(n) - 1 <= df <= n_before + n_after - 2; keep it there
  // when tiny variances underflow the denominator.
  const double lowest = static_cast<double>(std::min(before.n, after.n) - 1);
  const double highest = static_cast<double>(before.n + after.n - 2);
  if (std::isnan(r.df)) r.df = highest;  // 0 / 0: both terms underflowed
  r.df = std::clamp(r.df, lowest, highest);
  if (!std::isfinite(r.t)) {
    r.p_slower = r.t > 0 ? 0.0 : 1.0;
    return r;
  }
  // Boost.Math checks its arguments and throws std::domain_error on bad ones;
  // df is finite and > 0 here (se2 > 0 and each term is finite).
  const boost::math::students_t distribution(r.df);
  r.p_slower = boost::math::cdf(boost::math::complement(distribution, r.t));
  return r;
}

}  // namespace cookgraph
