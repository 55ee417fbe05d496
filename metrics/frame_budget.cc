#include "metrics/frame_budget.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "metrics/percentile.h"

namespace cookgraph {

MeanP95Max MeanP95MaxOf(std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  MeanP95Max m;
  m.mean = sum / static_cast<double>(values.size());
  // A selection, not a sort: the what-if predicts these for every node, two
  // or three times (metrics/whatif.h, advisor/gains.h).
  constexpr double kPs[] = {95, 100};
  double at[2];
  Percentiles(values, kPs, at);
  m.p95 = at[0];
  m.max = at[1];
  return m;
}

FrameSummary SummariseFrames(const Samples& samples, std::optional<double> budget) {
  FrameSummary summary;
  summary.has_budget = budget.has_value();
  const double budget_ms = budget.value_or(0);
  summary.budget_ms = budget_ms;
  summary.measured = samples.has_frame_ms();
  const size_t frame_count = samples.frame_count();
  if (frame_count == 0) return summary;

  // A frame is measured when frame_ms has a value for it; frames past the end
  // of a short frame_ms series count as not measured.
  std::span<const double> measured = samples.frame_ms();
  measured = measured.first(std::min(measured.size(), frame_count));
  bool all_measured = measured.size() == frame_count;
  for (double v : measured) all_measured = all_measured && !IsMissing(v);

  std::vector<double>& frame_ms = summary.frame_ms;
  frame_ms.assign(frame_count, 0.0);
  // Frames without a value that had no work (Samples::unmeasured_frames_idle)
  // stay at 0 ms and out of the statistics below.
  const bool skip_unmeasured = samples.unmeasured_frames_idle() && samples.has_frame_ms();
  std::vector<bool> counted(frame_count, !skip_unmeasured);
  if (skip_unmeasured) {
    for (size_t f = 0; f < measured.size(); ++f) counted[f] = !IsMissing(measured[f]);
    for (size_t f = 0; f < frame_count; ++f) {
      if (!counted[f]) frame_ms[f] = kMissing;
    }
  } else if (!all_measured) {
    // Sum cook_ms node by node: each series is contiguous, so this walks memory
    // in order instead of striding across nodes frame by frame.
    for (NodeIndex node = 0; node < samples.node_count(); ++node) {
      std::span<const double> cook = samples.series(node, Metric::kCookMs);
      const size_t n = std::min(cook.size(), frame_count);
      for (size_t f = 0; f < n; ++f) {
        if (!IsMissing(cook[f])) frame_ms[f] += cook[f];
      }
    }
  }
  for (size_t f = 0; f < measured.size(); ++f) {
    if (!IsMissing(measured[f])) frame_ms[f] = measured[f];
  }

  std::vector<double> counted_ms;
  counted_ms.reserve(frame_count);
  for (size_t f = 0; f < frame_count; ++f) {
    if (!counted[f]) continue;
    counted_ms.push_back(frame_ms[f]);
    if (summary.has_budget && frame_ms[f] > budget_ms) summary.over_budget.push_back(f);
  }
  summary.counted = counted_ms.size();
  if (counted_ms.empty()) return summary;
  const MeanP95Max m = MeanP95MaxOf(counted_ms);
  summary.mean_ms = m.mean;
  summary.p95_ms = m.p95;
  summary.max_ms = m.max;
  return summary;
}

}  // namespace cookgraph
