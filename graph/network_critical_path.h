#ifndef COOKGRAPH_GRAPH_NETWORK_CRITICAL_PATH_H_
#define COOKGRAPH_GRAPH_NETWORK_CRITICAL_PATH_H_

// The heaviest path through the condensed DAG (docs/architecture.md#critical-path).

#include <span>
#include <vector>

#include "graph/condensation.h"
#include "graph/network.h"

namespace cookgraph {

struct Path {
  /// Nodes from source to sink; a component on the path contributes all its
  /// members (ascending NodeIndex). Empty for an empty network and when every
  /// path weighs 0 (no frames, nothing cooked): no node is then more critical
  /// than another.
  std::vector<NodeIndex> nodes;
  double weight = 0;  // sum of the node weights on the path
};

/// The path through the condensed DAG (non-feedback edges) with the largest sum
/// of `weight` (one value >= 0 per node, e.g. per_frame_ms). Ties go to the path
/// found first in topological order. An empty Path (weight 0) when the heaviest
/// path weighs 0. `adjacency` is without feedback edges.
Path CriticalPath(const Adjacency& adjacency, const Condensation& condensation,
                  std::span<const double> weight);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_NETWORK_CRITICAL_PATH_H_
