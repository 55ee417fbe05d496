#include "metrics/spikes.h"

#include <algorithm>

#include "graph/parallel.h"

namespace cookgraph {
namespace {

// `node`'s growth over its median in the frames `over` (positions within its
// series, ascending). Without branches on the data: half the frames of a
// steady node lie above its median, a branch the processor guesses wrong as
// often as right.
Spike NodeSpike(NodeIndex node, double median, std::span<const double> cook,
                std::span<const size_t> over) {
  Spike spike{.node = node, .median_ms = median};
  size_t worst = 0;
  for (size_t f : over) {
    const double excess = cook[f] - median;  // NaN where missing: not > 0
    const bool grew = excess > 0;
    spike.frames += grew;
    spike.excess_ms += grew ? excess : 0.0;
    if (excess > spike.max_excess_ms) {  // strictly: the earliest frame wins ties
      spike.max_excess_ms = excess;
      worst = f;
    }
  }
  spike.worst_frame = static_cast<int64_t>(worst);
  return spike;
}

}  // namespace

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
  const std::span<const size_t> over(frames.over_budget);

  const size_t node_count = std::min(samples.node_count(), stats.size());
  // Each node's spike depends on its own series only: a large snapshot's
  // nodes in two halves, one per core, joined in order.
  constexpr size_t kParallelSamples = size_t{1} << 20;
  std::vector<Spike> found[2];
  auto spikes_of = [&](size_t from, size_t to, size_t half) {
    std::vector<Spike>& out = found[half];
    for (auto node = static_cast<NodeIndex>(from); node < to; ++node) {
      if (stats[node].cooked_frames == 0 || (!skip.empty() && skip[node])) continue;
      std::span<const double> cook = samples.series(node, Metric::kCookMs);
      // over_budget ascends: the frames this series has are a prefix of it.
      const size_t has = std::min(frame_count, cook.size());
      const auto end = std::lower_bound(over.begin(), over.end(), has);
      Spike spike = NodeSpike(node, stats[node].p50_ms, cook,
                              over.first(static_cast<size_t>(end - over.begin())));
      if (spike.frames == 0) continue;
      const auto f = static_cast<size_t>(spike.worst_frame);
      spike.worst_frame = f < frame_index.size() ? frame_index[f] : static_cast<int64_t>(f);
      spike.share_of_overrun = overrun > 0 ? spike.excess_ms / overrun : 0.0;
      out.push_back(spike);
    }
  };
  RunHalvesIf(node_count * over.size() >= kParallelSamples, node_count, spikes_of);
  spikes = std::move(found[0]);
  spikes.insert(spikes.end(), found[1].begin(), found[1].end());

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
