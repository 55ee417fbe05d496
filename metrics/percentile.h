#ifndef COOKGRAPH_METRICS_PERCENTILE_H_
#define COOKGRAPH_METRICS_PERCENTILE_H_

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

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_PERCENTILE_H_
