#include "graph/condensation.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/strong_components.hpp>
#include <cassert>
#include <functional>
#include <queue>
#include <utility>

namespace cookgraph {
namespace {

// 32-bit vertex and edge indices: Adjacency already limits a network to 2^32
// edges, and halving the index width keeps a 4M-edge graph in cache longer.
using BglGraph =
    boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                       boost::no_property, uint32_t, uint32_t>;

// Per node, the BGL component number of its strongly connected component.
// BGL's strong_components is Tarjan's algorithm run as a visitor of
// depth_first_search, which keeps its own stack on the heap (unless
// BOOST_RECURSIVE_DFS is defined, which we never do), so a chain of a million
// nodes does not overflow the call stack.
std::vector<uint32_t> StrongComponents(const Adjacency& adjacency) {
  const auto n = static_cast<uint32_t>(adjacency.size());
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  size_t edge_count = 0;
  for (NodeIndex u = 0; u < n; ++u) edge_count += adjacency.out(u).size();
  edges.reserve(edge_count);
  // Walking the nodes in index order yields the edges sorted by source, which
  // is what the edges_are_sorted constructor needs.
  for (NodeIndex u = 0; u < n; ++u) {
    for (NodeIndex v : adjacency.out(u)) edges.emplace_back(u, v);
  }
  BglGraph graph(boost::edges_are_sorted, edges.begin(), edges.end(), n, edges.size());
  edges = {};  // the graph holds its own copy; give the memory back before the DFS

  std::vector<uint32_t> component(n);
  boost::strong_components(
      graph, boost::make_iterator_property_map(component.begin(), get(boost::vertex_index, graph)));
  return component;
}

}  // namespace

Condensation Condense(const Network& network, const Adjacency& adjacency) {
  const auto n = static_cast<uint32_t>(network.size());
  assert(adjacency.size() == n);
  Condensation result;
  if (n == 0) return result;

  // Tarjan numbers components in reverse topological order, which is a valid
  // order but not the deterministic one the header promises. Renumber them by
  // first appearance in NodeIndex order instead: then a component's label is
  // smaller exactly when its smallest member is, and the Kahn queue below can
  // order ready components by label alone.
  std::vector<uint32_t> label = StrongComponents(adjacency);
  uint32_t count = 0;  // number of components
  {
    constexpr uint32_t kUnset = UINT32_MAX;
    std::vector<uint32_t> relabel(n, kUnset);  // BGL number -> label
    for (NodeIndex v = 0; v < n; ++v) {
      uint32_t& l = relabel[label[v]];
      if (l == kUnset) l = count++;
      label[v] = l;
    }
  }

  // Members per label in CSR form (counting sort), ascending by NodeIndex
  // because the nodes are visited in order.
  std::vector<uint32_t> member_offsets(count + 1, 0);
  for (NodeIndex v = 0; v < n; ++v) ++member_offsets[label[v] + 1];
  for (uint32_t c = 0; c < count; ++c) member_offsets[c + 1] += member_offsets[c];
  std::vector<NodeIndex> members(n);
  {
    std::vector<uint32_t> fill(member_offsets.begin(), member_offsets.end() - 1);
    for (NodeIndex v = 0; v < n; ++v) members[fill[label[v]]++] = v;
  }

  // In-degree of each label in the condensed DAG, counting parallel edges:
  // the queue loop decrements once per edge, so the counts match.
  std::vector<uint32_t> indegree(count, 0);
  for (NodeIndex u = 0; u < n; ++u) {
    for (NodeIndex v : adjacency.out(u)) {
      if (label[u] != label[v]) ++indegree[label[v]];
    }
  }

  // Kahn's algorithm with a min-heap of labels: among ready components the one
  // with the smallest member goes first, so the order follows the input order
  // wherever the edges allow it. O((N + E) + C log C).
  std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
  for (uint32_t c = 0; c < count; ++c) {
    if (indegree[c] == 0) ready.push(c);
  }
  std::vector<uint32_t> position(count);  // label -> index in topological order
  result.members.reserve(count);
  result.cyclic.reserve(count);
  result.order.reserve(n);
  while (!ready.empty()) {
    const uint32_t c = ready.top();
    ready.pop();
    position[c] = static_cast<uint32_t>(result.members.size());
    std::vector<NodeIndex> group(members.begin() + member_offsets[c],
                                 members.begin() + member_offsets[c + 1]);
    bool self_edge = false;
    for (NodeIndex u : group) {
      result.order.push_back(u);
      for (NodeIndex v : adjacency.out(u)) {
        if (v == u) self_edge = true;
        const uint32_t d = label[v];
        if (d != c && --indegree[d] == 0) ready.push(d);
      }
    }
    result.cyclic.push_back(group.size() > 1 || self_edge);
    result.members.push_back(std::move(group));
  }

  result.component.resize(n);
  for (NodeIndex v = 0; v < n; ++v) result.component[v] = position[label[v]];
  return result;
}

}  // namespace cookgraph
