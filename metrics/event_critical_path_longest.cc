// The event critical path's longest path (event_critical_path.h): the
// graph checked as HTA checks it, networkx's dag_longest_path over it, and
// the result.

#include <algorithm>

#include "metrics/event_critical_path_builder.h"

namespace cookgraph {
namespace event_path_internal {

// CPGraph._validate_graph: negative weights become 0; a sync edge within one
// stream fails.
void Builder::Validate() {
  for (EventGraphEdge& edge : edges_) {
    if (edge.weight < 0) {
      edge.weight = 0;
      ++out_.clamped;
    }
    if (edge.kind != EventEdgeKind::kSync) continue;
    const int64_t su = Stream(node_event_[edge.u]), sv = Stream(node_event_[edge.v]);
    if (su != -1 && su == sv) {
      fatal_ = fmt::format(
          "a CUDA sync edge between two events of stream {}: traceEvents[{}] -> "
          "traceEvents[{}]",
          su, t_.events[node_event_[edge.u]].source, t_.events[node_event_[edge.v]].source);
      return;
    }
  }
}

// CPGraph.critical_path: networkx.dag_longest_path. The topological order is
// networkx's (Kahn's algorithm by generations, starting from the nodes of
// in-degree 0 in the order they were added, successors in edge order); each
// point's distance the largest over its predecessors in edge order (the
// first one wins ties); the path ends at the first point in that order with
// the largest distance.
void Builder::LongestPath() {
  const size_t n = node_event_.size();
  out_.nodes = n;
  std::vector<uint32_t> succ_at(n + 1, 0), pred_at(n + 1, 0);
  for (const EventGraphEdge& edge : edges_) {
    ++succ_at[edge.u + 1];
    ++pred_at[edge.v + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    succ_at[i + 1] += succ_at[i];
    pred_at[i + 1] += pred_at[i];
  }
  std::vector<uint32_t> succ(edges_.size()), pred(edges_.size());  // edge indexes
  {
    std::vector<uint32_t> s(succ_at.begin(), succ_at.end() - 1),
        p(pred_at.begin(), pred_at.end() - 1);
    for (uint32_t i = 0; i < edges_.size(); ++i) {
      succ[s[edges_[i].u]++] = i;
      pred[p[edges_[i].v]++] = i;
    }
  }
  std::vector<uint32_t> indegree(n), order;
  order.reserve(n);
  for (uint32_t v = 0; v < n; ++v) {
    indegree[v] = pred_at[v + 1] - pred_at[v];
    if (indegree[v] == 0) order.push_back(v);
  }
  for (size_t at = 0; at < order.size(); ++at) {  // a FIFO visits generation by generation
    const uint32_t u = order[at];
    for (uint32_t k = succ_at[u]; k < succ_at[u + 1]; ++k) {
      const uint32_t v = edges_[succ[k]].v;
      if (--indegree[v] == 0) order.push_back(v);
    }
  }
  if (order.size() != n) {
    fatal_ = "the critical path graph has a cycle";
    return;
  }
  if (n == 0) {
    fatal_ = "the window has no operator, runtime call or kernel to make a critical path of";
    return;
  }
  std::vector<int64_t> dist(n, 0);
  std::vector<uint32_t> via(n, kNoIndex);  // the edge the longest path comes in by
  for (uint32_t v : order) {
    for (uint32_t k = pred_at[v]; k < pred_at[v + 1]; ++k) {
      const EventGraphEdge& edge = edges_[pred[k]];
      const int64_t d = dist[edge.u] + edge.weight;
      if (via[v] == kNoIndex || d > dist[v]) {
        dist[v] = d;
        via[v] = pred[k];
      }
    }
  }
  uint32_t end = order[0];
  for (uint32_t v : order) {
    if (dist[v] > dist[end]) end = v;
  }
  out_.length_ns = dist[end];
  for (uint32_t v = end; via[v] != kNoIndex; v = edges_[via[v]].u) out_.path.push_back(via[v]);
  std::reverse(out_.path.begin(), out_.path.end());
  if (out_.path.empty()) {
    fatal_ = "the critical path has fewer than 2 points";
    return;
  }
}

void Builder::Finish() {
  out_.edges.reserve(edges_.size());
  for (const EventGraphEdge& edge : edges_) {
    out_.edges.push_back(EventEdge{.from = node_event_[edge.u],
                                   .to = node_event_[edge.v],
                                   .from_end = node_end_[edge.u] != 0,
                                   .to_end = node_end_[edge.v] != 0,
                                   .kind = edge.kind,
                                   .weight_ns = edge.weight,
                                   .owner = edge.owner});
  }
  std::vector<uint8_t> seen(window_.size(), 0);
  auto add = [&](uint32_t e) {
    if (!seen[local_[e]]) {
      seen[local_[e]] = 1;
      out_.events.push_back(e);
    }
  };
  add(out_.edges[out_.path.front()].from);
  for (uint32_t i : out_.path) add(out_.edges[i].to);
  for (size_t k = 0; k < kWarningKinds; ++k) {
    const auto& [count, text] = warnings_[k];
    if (count == 0) continue;
    out_.warnings.push_back(count == 1 ? text
                                       : fmt::format("{} (and {} more like it)", text, count - 1));
  }
}

}  // namespace event_path_internal
}  // namespace cookgraph
