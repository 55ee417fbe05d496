#ifndef COOKGRAPH_METRICS_PERCENTILE_H_
#define COOKGRAPH_METRICS_PERCENTILE_H_

#include <cstddef>
#include <span>

namespace cookgraph {

/// The p-th percentile (0..100) of ascending `sorted` values, by linear
/// interpolation between closest ranks (NumPy's default, "linear"): with
/// h = (n - 1) * p / 100, the value is x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] - x[floor(h)]).
/// NaN for an empty span.
double Percentile(std::span<const double> sorted, double p);

/// The same percentiles of unsorted `values`, for ascending `ps`, into `out`
/// (one per p): equal to sorting and calling Percentile, in linear time on
/// average (a selection on ever smaller ranges). Reorders `values`.
void Percentiles(std::span<double> values, std::span<const double> ps, std::span<double> out);

/// The k-th smallest (0-based) of `values` (none NaN, k < size), by the
/// selection Percentiles uses. Reorders `values`: none before position k is
/// larger, none after it smaller.
double NthSmallest(std::span<double> values, size_t k);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_PERCENTILE_H_
