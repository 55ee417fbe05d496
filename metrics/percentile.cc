#include "metrics/percentile.h"

#include <cmath>

namespace cookgraph {

double Percentile(std::span<const double> sorted, double p) {
  if (sorted.empty() || std::isnan(p)) return NAN;
  const size_t n = sorted.size();
  if (p <= 0) return sorted.front();
  if (p >= 100) return sorted.back();
  // h = (n - 1) * p / 100, evaluated in this order as the header writes it.
  const double h = static_cast<double>(n - 1) * p / 100.0;
  const double lo_h = std::floor(h);
  const auto lo = static_cast<size_t>(lo_h);
  if (lo + 1 >= n) return sorted[n - 1];
  return sorted[lo] + (h - lo_h) * (sorted[lo + 1] - sorted[lo]);
}

}  // namespace cookgraph
