#ifndef COOKGRAPH_WRITERS_HEATMAP_HEATMAP_SELECT_H_
#define COOKGRAPH_WRITERS_HEATMAP_HEATMAP_SELECT_H_

// Which nodes the network heatmap draws. A picture of thousands of nodes is
// neither readable nor quick to lay out, so a large network is reduced to
// what matters for cost: the costliest nodes, the critical path, and the
// nodes one edge away from them.

#include <cstddef>
#include <vector>

#include "graph/network.h"
#include "metrics/analysis.h"

namespace cookgraph {

struct HeatmapLimits {
  /// At most this many nodes are drawn; a network of at most this many is
  /// drawn whole. Graphviz's dot lays out 400 nodes with their clusters in
  /// well under a second (bench/core_bench BM_Heatmap).
  size_t max_nodes = 400;
  /// The costliest nodes by score, kept first in a reduced network.
  size_t top = 50;
};

/// The nodes to draw and what was left out.
struct HeatmapSelection {
  std::vector<NodeIndex> nodes;  // ascending
  size_t total = 0;              // nodes in the network
  size_t critical_total = 0;     // nodes on the critical path
  size_t critical_shown = 0;     // of those, drawn
  bool reduced() const { return nodes.size() < total; }
};

/// The whole network when it has at most `limits.max_nodes` nodes. Otherwise,
/// in this order while fewer than `max_nodes` are chosen: the `top` costliest
/// cooked nodes by score; the critical path from source to sink; then the
/// neighbours of those (one edge away, any kind, either direction), costliest
/// first (nodes that never cooked last, in topological order).
HeatmapSelection SelectHeatmapNodes(const Network& network, const Analysis& analysis,
                                    const HeatmapLimits& limits = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_HEATMAP_HEATMAP_SELECT_H_
