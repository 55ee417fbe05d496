#ifndef COOKGRAPH_TESTS_GRAPH_GRAPH_TEST_UTIL_H_
#define COOKGRAPH_TESTS_GRAPH_GRAPH_TEST_UTIL_H_

// Small helpers shared by the graph tests: building networks from edge lists,
// and checking a Condensation against the definition in docs/architecture.md#topological-order.
// Header-only because tests/CMakeLists.txt compiles only *_test.cc files.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "graph/condensation.h"
#include "graph/network.h"

namespace cookgraph::testing {

/// Shorthands for edge lists.
inline Edge D(NodeIndex from, NodeIndex to) { return {from, to, EdgeKind::kData}; }
inline Edge F(NodeIndex from, NodeIndex to) { return {from, to, EdgeKind::kFeedback}; }

/// A network of nodes "n0".."n<count-1>" with `edges` added in order.
inline Network MakeNetwork(size_t count, const std::vector<Edge>& edges) {
  Network network;
  for (size_t i = 0; i < count; ++i) {
    auto added = network.AddNode({.id = "n" + std::to_string(i)});
    if (!added) std::abort();  // ids are unique by construction
  }
  for (const Edge& e : edges) network.AddEdge(e.from, e.to, e.kind);
  return network;
}

/// Nodes reachable from `start` (included) through non-feedback edges, forward
/// or, with `backward`, against the edges. A plain BFS, the reference the fast
/// algorithms are compared with.
inline std::vector<bool> NaiveReach(const Adjacency& adjacency, NodeIndex start, bool backward) {
  std::vector<bool> seen(adjacency.size(), false);
  std::vector<NodeIndex> queue{start};
  seen[start] = true;
  for (size_t head = 0; head < queue.size(); ++head) {
    const NodeIndex u = queue[head];
    for (NodeIndex v : backward ? adjacency.in(u) : adjacency.out(u)) {
      if (!seen[v]) {
        seen[v] = true;
        queue.push_back(v);
      }
    }
  }
  return seen;
}

/// Empty when `c` is a valid condensation of `network` (components are the
/// strongly connected ones, members sorted, `order` their concatenation, every
/// non-feedback edge between components goes forward, `cyclic` right);
/// otherwise a description of the first violation. Quadratic: small graphs only.
inline std::string CheckCondensation(const Network& network, const Condensation& c) {
  const size_t n = network.size();
  if (c.component.size() != n) return "component has the wrong size";
  if (c.cyclic.size() != c.members.size()) return "cyclic has the wrong size";
  std::vector<NodeIndex> concatenated;
  for (size_t k = 0; k < c.members.size(); ++k) {
    const auto& m = c.members[k];
    if (m.empty()) return "component " + std::to_string(k) + " is empty";
    if (!std::is_sorted(m.begin(), m.end())) return "members not ascending";
    for (NodeIndex v : m) {
      if (c.component[v] != k) return "component[" + std::to_string(v) + "] disagrees";
    }
    concatenated.insert(concatenated.end(), m.begin(), m.end());
  }
  if (concatenated != c.order) return "order is not the concatenation of members";
  std::vector<NodeIndex> sorted = c.order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != i) return "order is not a permutation of the nodes";
  }
  if (sorted.size() != n) return "order is not a permutation of the nodes";

  for (const Edge& e : network.edges()) {
    if (e.kind == EdgeKind::kFeedback) continue;
    if (c.component[e.from] > c.component[e.to]) {
      return "edge " + std::to_string(e.from) + " -> " + std::to_string(e.to) + " goes backward";
    }
  }
  // Same component exactly when mutually reachable.
  Adjacency adjacency(network);
  std::vector<std::vector<bool>> reach(n);
  for (NodeIndex v = 0; v < n; ++v) reach[v] = NaiveReach(adjacency, v, false);
  for (NodeIndex u = 0; u < n; ++u) {
    for (NodeIndex v = 0; v < n; ++v) {
      const bool same = reach[u][v] && reach[v][u];
      if (same != (c.component[u] == c.component[v])) {
        return "nodes " + std::to_string(u) + " and " + std::to_string(v) +
               (same ? " are strongly connected but split" : " are merged but not connected");
      }
    }
  }
  for (size_t k = 0; k < c.members.size(); ++k) {
    const NodeIndex first = c.members[k][0];
    bool self = false;
    for (NodeIndex v : adjacency.out(first)) self = self || v == first;
    if (c.cyclic[k] != (c.members[k].size() > 1 || self)) {
      return "cyclic[" + std::to_string(k) + "] is wrong";
    }
  }
  return {};
}

/// A seeded random network of `nodes` nodes and about `edges` edges: forward
/// edges (a DAG) of every non-feedback kind, `backward_percent` backward ones
/// (cycles), 1% self-loops, 3% feedback edges (closing a loop or not, some
/// self-feedback) and a few parallel edges.
inline Network RandomNetwork(uint32_t seed, size_t nodes, size_t edges, int backward_percent) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<NodeIndex> any(0, static_cast<NodeIndex>(nodes - 1));
  std::uniform_int_distribution<int> percent(0, 99);
  std::vector<Edge> list;
  list.reserve(edges);
  while (list.size() < edges) {
    NodeIndex u = any(rng), v = any(rng);
    const int roll = percent(rng);
    if (roll < 3) {
      list.push_back({u, v, EdgeKind::kFeedback});
    } else if (roll < 4) {
      list.push_back(D(u, u));
    } else if (roll < 4 + backward_percent) {
      list.push_back(D(std::max(u, v), std::min(u, v)));
    } else {
      if (u == v) continue;
      if (u > v) std::swap(u, v);
      const auto kind = static_cast<EdgeKind>(std::array{0, 1, 3, 4, 5}[roll % 5]);
      list.push_back({u, v, kind});
      if (roll == 99) list.push_back({u, v, kind});  // parallel
    }
  }
  return MakeNetwork(nodes, list);
}

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_GRAPH_GRAPH_TEST_UTIL_H_
