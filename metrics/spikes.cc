#include "metrics/spikes.h"

#include <algorithm>

namespace cookgraph {

std::vector<Spike> AttributeSpikes(const Samples& samples, const FrameSummary& frames,
                                   std::span<const NodeStats> stats, size_t limit,
                                   const std::vector<bool>& skip) {
  std::vector<Spike> spikes;
  if (frames.over_budget.empty() || limit == 0) return spikes;

  const size_t frame_count = std::min(samples.frame_count(), frames.frame_ms.size());
  double overrun = 0;  // ms over budget, summed over the over-budget frames
  for (size_t f : frames.over_budget) {
    if (f < frame_count) overrun += frames.frame_ms[f] - frames.budget_ms;
  }
  const std::vector<int64_t>& frame_index = samples.frame_index();

  const size_t node_count = std::min(samples.node_count(), stats.size());
  for (NodeIndex node = 0; node < node_count; ++node) {
    if (stats[node].cooked_frames == 0 || (!skip.empty() && skip[node])) continue;
    std::span<const double> cook = samples.series(node, Metric::kCookMs);
    Spike spike{.node = node, .median_ms = stats[node].p50_ms};
    for (size_t f : frames.over_budget) {
      if (f >= frame_count || f >= cook.size() || IsMissing(cook[f])) continue;
      const double excess = cook[f] - spike.median_ms;
      if (!(excess > 0)) continue;
      ++spike.frames;
      spike.excess_ms += excess;
      if (spike.frames == 1 || excess > spike.max_excess_ms) {  // earliest frame wins ties
        spike.max_excess_ms = excess;
        spike.worst_frame = f < frame_index.size() ? frame_index[f] : static_cast<int64_t>(f);
      }
    }
    if (spike.frames == 0) continue;
    spike.share_of_overrun = overrun > 0 ? spike.excess_ms / overrun : 0.0;
    spikes.push_back(spike);
  }

  auto larger = [](const Spike& a, const Spike& b) {
    if (a.excess_ms != b.excess_ms) return a.excess_ms > b.excess_ms;
    return a.node < b.node;
  };
  if (spikes.size() > limit) {
    std::partial_sort(spikes.begin(), spikes.begin() + static_cast<ptrdiff_t>(limit), spikes.end(),
                      larger);
    spikes.resize(limit);
  } else {
    std::sort(spikes.begin(), spikes.end(), larger);
  }
  return spikes;
}

}  // namespace cookgraph
