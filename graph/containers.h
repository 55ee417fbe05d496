#ifndef COOKGRAPH_GRAPH_CONTAINERS_H_
#define COOKGRAPH_GRAPH_CONTAINERS_H_

// The container hierarchy (COMPs, bins, modules) implied by the nodes' parents.

#include <string>
#include <vector>

#include "graph/network.h"

namespace cookgraph {

/// One container and the nodes it holds; plain data made by Containers().
struct Container {
  std::string id;      // e.g. "/project1/comp1"; "" is the top level
  std::string parent;  // the enclosing container; "" for top-level containers
  int depth = 0;       // 0 for the top level, 1 for its children, ... <= kMaxContainerDepth
  std::vector<NodeIndex> direct;  // nodes whose parent is this container (ascending)
  std::vector<NodeIndex> all;     // nodes anywhere beneath it (ascending)
};

/// Every container that holds at least one node, directly or through nested
/// containers, sorted by id. A container's parent is the parent of the node with
/// the container's id when there is one, else the DerivedParent of its id.
/// The top level ("") is included only when some node has no parent.
/// Explicit parents that form a cycle are cut, and a container that a chain of
/// explicit parents would nest more than kMaxContainerDepth deep is moved to the
/// top level (its `parent` becomes "", depth 1); either way every chain of
/// parents ends, depth <= kMaxContainerDepth and `all` holds each node at most
/// kMaxContainerDepth + 1 times in all.
std::vector<Container> Containers(const Network& network);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_CONTAINERS_H_
