#include "metrics/rollup.h"

#include <algorithm>

#include "graph/containers.h"

namespace cookgraph {

std::vector<ContainerStats> RollUp(const Snapshot& snapshot, const Analysis& analysis) {
  const std::vector<NodeStats>& stats = analysis.stats;
  const double mean_frame_ms = analysis.frames.mean_ms;
  std::vector<ContainerStats> rolled;
  for (const Container& container : Containers(snapshot.network)) {
    ContainerStats entry{.id = container.id, .depth = container.depth};
    entry.nodes = container.all.size();
    bool have_costliest = false;
    double costliest_ms = 0;
    for (NodeIndex node : container.all) {
      if (node >= stats.size()) continue;  // an Analysis of another network; count what matches
      const NodeStats& s = stats[node];
      if (s.cooked_frames > 0) ++entry.cooked_nodes;
      // Waiting (a queue, a mixer) is not work: not counted in a container's cost.
      if (node < analysis.waiting.size() && analysis.waiting[node]) continue;
      entry.per_frame_ms += s.per_frame_ms;
      entry.max_ms = std::max(entry.max_ms, s.max_ms);
      // `all` is ascending, so ties go to the smallest NodeIndex.
      if (!have_costliest || s.per_frame_ms > costliest_ms) {
        have_costliest = true;
        costliest_ms = s.per_frame_ms;
        entry.costliest = snapshot.network.node(node).id;
      }
    }
    for (NodeIndex node : container.direct) {
      const bool waits = node < analysis.waiting.size() && analysis.waiting[node];
      if (node < stats.size() && !waits) entry.self_per_frame_ms += stats[node].per_frame_ms;
    }
    entry.share = mean_frame_ms > 0 ? entry.per_frame_ms / mean_frame_ms : 0.0;
    rolled.push_back(std::move(entry));
  }
  std::sort(rolled.begin(), rolled.end(), [](const ContainerStats& a, const ContainerStats& b) {
    if (a.per_frame_ms != b.per_frame_ms) return a.per_frame_ms > b.per_frame_ms;
    return a.id < b.id;
  });
  return rolled;
}

}  // namespace cookgraph
