#ifndef COOKGRAPH_GRAPH_UPSTREAM_H_
#define COOKGRAPH_GRAPH_UPSTREAM_H_

// Upstream cost (docs/architecture.md#upstream-cost): a node's weight plus that of every distinct
// ancestor through non-feedback edges.

#include <span>
#include <vector>

#include "graph/condensation.h"
#include "graph/network.h"

namespace cookgraph {

/// Per node: weight[n] + the sum of weight[a] over every distinct ancestor a of n
/// (through non-feedback edges; the other members of n's component count as
/// ancestors). Each ancestor counts once however many paths lead from it.
/// `adjacency` is without feedback edges.
std::vector<double> UpstreamCost(const Adjacency& adjacency, const Condensation& condensation,
                                 std::span<const double> weight);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_UPSTREAM_H_
