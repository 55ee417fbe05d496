#ifndef COOKGRAPH_GRAPH_REACHABILITY_H_
#define COOKGRAPH_GRAPH_REACHABILITY_H_

// Which nodes feed a network output (for dead cooks, DESIGN.md §4).

#include <vector>

#include "graph/network.h"

namespace cookgraph {

/// Per node: true when an output node can be reached from it through
/// non-feedback edges (an output node reaches itself). All false when the
/// network marks no outputs. `adjacency` is without feedback edges.
std::vector<bool> ReachesOutput(const Network& network, const Adjacency& adjacency);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_REACHABILITY_H_
