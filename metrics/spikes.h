#ifndef COOKGRAPH_METRICS_SPIKES_H_
#define COOKGRAPH_METRICS_SPIKES_H_

// Spike attribution: which nodes grew most, against their own median, in the
// over-budget frames.

#include <cstdint>
#include <span>
#include <vector>

#include "metrics/frame_budget.h"
#include "metrics/node_stats.h"
#include "model/samples.h"

namespace cookgraph {

struct Spike {
  NodeIndex node = 0;
  double median_ms = 0;      // the node's own p50 over its cooked frames
  size_t frames = 0;         // over-budget frames in which cook_ms > median_ms
  double excess_ms = 0;      // sum over those frames of (cook_ms - median_ms)
  double max_excess_ms = 0;  // the largest single excess
  int64_t worst_frame = 0;   // engine frame number (frame_index) of that largest excess
  /// excess_ms / the total overrun (sum over over-budget frames of frame time - budget);
  /// may exceed 1 when other nodes shrank in those frames. 0 when there is no overrun.
  double share_of_overrun = 0;
};

/// Nodes ranked by excess_ms (largest first; ties by NodeIndex), at most `limit`,
/// leaving out nodes with no excess. Empty when no frame is over budget.
/// Nodes with `skip[node]` set (when `skip` is not empty) are left out.
std::vector<Spike> AttributeSpikes(const Samples& samples, const FrameSummary& frames,
                                   std::span<const NodeStats> stats, size_t limit,
                                   const std::vector<bool>& skip = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_SPIKES_H_
