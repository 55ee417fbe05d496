#include "graph/reachability.h"

namespace cookgraph {

std::vector<bool> ReachesOutput(const Network& network, const Adjacency& adjacency) {
  const size_t n = network.size();
  std::vector<bool> reaches(n, false);
  // One breadth-first search backwards from all outputs at once: O(N + E).
  std::vector<NodeIndex> queue;
  for (NodeIndex v = 0; v < n; ++v) {
    if (network.node(v).output) {
      reaches[v] = true;
      queue.push_back(v);
    }
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    for (NodeIndex u : adjacency.in(queue[head])) {
      if (reaches[u]) continue;
      reaches[u] = true;
      queue.push_back(u);
    }
  }
  return reaches;
}

}  // namespace cookgraph
