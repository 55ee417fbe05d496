#include "metrics/percentile.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

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

namespace {

// Moves the k-th smallest of v[lo, hi) to v[k], with none larger before it
// and none smaller after it: std::nth_element's contract, without a branch
// on each comparison. A node's cook times lie on both sides of a pivot at
// random, and nth_element's partition guessed wrong about half the time (an
// eighth of scoring a 20k-node snapshot went there). Values are not NaN.
void Select(double* v, size_t lo, size_t hi, size_t k) {
  for (int round = 0; hi - lo > 16; ++round) {
    if (round == 48) {  // an input that defeats the median of three: give it up
      std::nth_element(v + lo, v + k, v + hi);
      return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    // The median of the first, middle and last, at hi - 1.
    if (v[mid] < v[lo]) std::swap(v[mid], v[lo]);
    if (v[hi - 1] < v[lo]) std::swap(v[hi - 1], v[lo]);
    if (v[mid] < v[hi - 1]) std::swap(v[mid], v[hi - 1]);
    const double pivot = v[hi - 1];
    // [lo, less) < pivot <= [less, i): each value is swapped to the boundary
    // and the boundary moves when it was smaller (Lomuto's, branch-free).
    size_t less = lo;
    for (size_t i = lo; i < hi - 1; ++i) {
      const double x = v[i];
      v[i] = v[less];
      v[less] = x;
      less += x < pivot;
    }
    if (k < less) {
      hi = less;
      continue;
    }
    // Then [less, hi) split again: == pivot, then > pivot. A run of equal
    // values (cook times to a tenth of a microsecond) ends here at once.
    size_t equal = less;
    for (size_t i = less; i < hi; ++i) {
      const double x = v[i];
      v[i] = v[equal];
      v[equal] = x;
      equal += !(pivot < x);
    }
    if (k < equal) return;  // v[k] == pivot, every smaller one before it
    lo = equal;
  }
  for (size_t i = lo + 1; i < hi; ++i) {  // insertion sort of what is left
    const double x = v[i];
    size_t j = i;
    for (; j > lo && x < v[j - 1]; --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

}  // namespace

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
    Select(values.data(), from, n, lo);
    const double below = *nth;
    const double above = *std::min_element(nth + 1, values.end());
    out[k] = below + (h - lo_h) * (above - below);
    from = lo;
  }
}

double NthSmallest(std::span<double> values, size_t k) {
  Select(values.data(), 0, values.size(), k);
  return values[k];
}

}  // namespace cookgraph
