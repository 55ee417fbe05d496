#ifndef COOKGRAPH_METRICS_PERCENTILE_H_
#define COOKGRAPH_METRICS_PERCENTILE_H_

#include <span>

namespace cookgraph {

/// The p-th percentile (0..100) of ascending `sorted` values, by linear
/// interpolation between closest ranks (NumPy's default, "linear"): with
/// h = (n - 1) * p / 100, the value is x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] - x[floor(h)]).
/// NaN for an empty span.
double Percentile(std::span<const double> sorted, double p);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_PERCENTILE_H_
