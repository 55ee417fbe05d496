#ifndef COOKGRAPH_GRAPH_REACHABILITY_H_
#define COOKGRAPH_GRAPH_REACHABILITY_H_

// Which nodes feed a network output (for dead cooks, docs/architecture.md#dead-cooks).

#include <vector>

#include "graph/network.h"

namespace cookgraph {

/// Per node: true when an output node can be reached from it through
/// non-feedback edges (an output node reaches itself). All false when the
/// network marks no outputs. `adjacency` is without feedback edges.
std::vector<bool> ReachesOutput(const Network& network, const Adjacency& adjacency);

/// Per node: true when its cooks serve an output. A node is live when it reaches
/// an output (as ReachesOutput), when a live node calls or launches it (a `call`
/// or `launch` edge from a live node: its time is part of that node's cook, as a
/// nested op or a GPU kernel is part of the op that issued it), or when it feeds
/// a live node through non-feedback edges. Without this, every nested op and
/// kernel of a trace would count as a dead cook, since call and launch edges
/// point away from the outputs. All false when the network marks no outputs.
std::vector<bool> LiveNodes(const Network& network, const Adjacency& adjacency);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_REACHABILITY_H_
