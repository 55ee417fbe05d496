#ifndef COOKGRAPH_GRAPH_CONDENSATION_H_
#define COOKGRAPH_GRAPH_CONDENSATION_H_

// Strongly connected components of the non-feedback edges, and the topological
// order of the condensed DAG (docs/architecture.md#topological-order).

#include <cstdint>
#include <vector>

#include "graph/network.h"

namespace cookgraph {

/// The condensation of a network: each strongly connected component (SCC) of
/// the non-feedback edges becomes one vertex of a DAG.
struct Condensation {
  /// Per node: the index of its component in `members`.
  std::vector<uint32_t> component;
  /// Per component, in topological order of the condensed DAG: its nodes in
  /// ascending NodeIndex order. Among components that are ready at the same
  /// time, the one with the smallest NodeIndex comes first, so the order
  /// follows the input order wherever the edges allow it.
  std::vector<std::vector<NodeIndex>> members;
  /// Per component: true when it holds a cycle (more than one node, or one node
  /// with a non-feedback edge to itself).
  std::vector<bool> cyclic;
  /// All nodes: the members of each component, component after component.
  std::vector<NodeIndex> order;
};

/// Condenses `network`. `adjacency` must be built without feedback edges.
Condensation Condense(const Network& network, const Adjacency& adjacency);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_CONDENSATION_H_
