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

std::vector<bool> LiveNodes(const Network& network, const Adjacency& adjacency) {
  const size_t n = network.size();
  // Callees (call and launch edges) of every node, in compressed form.
  std::vector<uint32_t> offsets(n + 1, 0);
  auto is_call = [](EdgeKind kind) { return kind == EdgeKind::kCall || kind == EdgeKind::kLaunch; };
  for (const Edge& e : network.edges()) {
    if (is_call(e.kind)) ++offsets[e.from + 1];
  }
  for (size_t v = 0; v < n; ++v) offsets[v + 1] += offsets[v];
  std::vector<NodeIndex> callees(offsets[n]);
  std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
  for (const Edge& e : network.edges()) {
    if (is_call(e.kind)) callees[fill[e.from]++] = e.to;
  }
  // One search from all outputs; a node that turns live makes its
  // predecessors (through non-feedback edges) and its callees live: O(N + E).
  std::vector<bool> live(n, false);
  std::vector<NodeIndex> queue;
  auto visit = [&](NodeIndex v) {
    if (live[v]) return;
    live[v] = true;
    queue.push_back(v);
  };
  for (NodeIndex v = 0; v < n; ++v) {
    if (network.node(v).output) visit(v);
  }
  for (size_t head = 0; head < queue.size(); ++head) {
    NodeIndex v = queue[head];
    for (NodeIndex u : adjacency.in(v)) visit(u);
    for (uint32_t i = offsets[v]; i < offsets[v + 1]; ++i) visit(callees[i]);
  }
  return live;
}

}  // namespace cookgraph
