#include "metrics/percentile.h"

#include <algorithm>
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

void Percentiles(std::span<double> values, std::span<const double> ps, std::span<double> out) {
  const size_t n = values.size();
  size_t from = 0;  // values[0, from) are at most values[from], in place
  for (size_t k = 0; k < ps.size(); ++k) {
    const double p = ps[k];
    if (n == 0 || std::isnan(p)) {
      out[k] = NAN;
      continue;
    }
    if (p <= 0) {
      out[k] = *std::min_element(values.begin(), values.end());
      continue;
    }
    const double h = static_cast<double>(n - 1) * p / 100.0;
    const double lo_h = std::floor(h);
    const auto lo = static_cast<size_t>(lo_h);
    if (p >= 100 || lo + 1 >= n) {
      out[k] = *std::max_element(values.begin() + static_cast<std::ptrdiff_t>(from), values.end());
      continue;
    }
    auto nth = values.begin() + static_cast<std::ptrdiff_t>(lo);
    std::nth_element(values.begin() + static_cast<std::ptrdiff_t>(from), nth, values.end());
    const double below = *nth;
    const double above = *std::min_element(nth + 1, values.end());
    out[k] = below + (h - lo_h) * (above - below);
    from = lo;
  }
}

}  // namespace cookgraph
