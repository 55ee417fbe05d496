#include "graph/loops.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_set>

namespace cookgraph {
namespace {

constexpr std::array<std::string_view, 3> kLoopKindNames = {"cycle", "self-loop", "feedback"};

// Finds the nodes of the loops closed by feedback edges. Reachability between
// nodes is reachability between their components, so the searches run on the
// condensed DAG. Visit marks carry a per-search stamp, so the arrays are
// cleared once, not once per edge.
class FeedbackLoopFinder {
 public:
  FeedbackLoopFinder(const Adjacency& adjacency, const Condensation& condensation)
      : condensation_(condensation),
        forward_(condensation.members.size(), 0),
        backward_(condensation.members.size(), 0) {
    // Distinct successors and predecessors of each component, in CSR form.
    const auto count = static_cast<uint32_t>(condensation.members.size());
    std::vector<uint32_t> listed_for(count, UINT32_MAX);  // == c: already a successor of c
    std::vector<uint32_t> in_count(count + 1, 0);
    out_offsets_.push_back(0);
    for (uint32_t c = 0; c < count; ++c) {
      for (NodeIndex u : condensation.members[c]) {
        for (NodeIndex v : adjacency.out(u)) {
          const uint32_t d = condensation.component[v];
          if (d == c || listed_for[d] == c) continue;
          listed_for[d] = c;
          out_.push_back(d);
          ++in_count[d + 1];
        }
      }
      out_offsets_.push_back(static_cast<uint32_t>(out_.size()));
    }
    for (uint32_t c = 0; c < count; ++c) in_count[c + 1] += in_count[c];
    in_offsets_ = in_count;
    in_.resize(out_.size());
    for (uint32_t c = 0; c < count; ++c) {
      for (uint32_t i = out_offsets_[c]; i < out_offsets_[c + 1]; ++i) in_[in_count[out_[i]]++] = c;
    }
  }

  // The nodes on some non-feedback path from `to` to `from`, in topological
  // order; empty when `to` cannot reach `from`. The ends must lie in different
  // components, or be one node outside any cycle.
  std::vector<NodeIndex> Nodes(NodeIndex from, NodeIndex to) {
    if (from == to) return {from};
    const uint32_t first = condensation_.component[to];
    const uint32_t last = condensation_.component[from];
    // Components are numbered in topological order: a later one cannot reach
    // an earlier one.
    if (first > last) return {};
    ++stamp_;
    // Forward from `to`'s component, but only into components no later than
    // `from`'s.
    queue_.assign(1, first);
    forward_[first] = stamp_;
    for (size_t head = 0; head < queue_.size(); ++head) {
      const uint32_t c = queue_[head];
      for (uint32_t i = out_offsets_[c]; i < out_offsets_[c + 1]; ++i) {
        const uint32_t d = out_[i];
        if (forward_[d] == stamp_ || d > last) continue;
        forward_[d] = stamp_;
        queue_.push_back(d);
      }
    }
    if (forward_[last] != stamp_) return {};
    // Backward from `from`'s component inside the forward set. Every component
    // of a path between the ends is both reached from `to` and reaches `from`,
    // so staying inside the forward set loses none and yields the intersection.
    queue_.assign(1, last);
    backward_[last] = stamp_;
    for (size_t head = 0; head < queue_.size(); ++head) {
      const uint32_t c = queue_[head];
      for (uint32_t i = in_offsets_[c]; i < in_offsets_[c + 1]; ++i) {
        const uint32_t p = in_[i];
        if (backward_[p] == stamp_ || forward_[p] != stamp_) continue;
        backward_[p] = stamp_;
        queue_.push_back(p);
      }
    }
    std::sort(queue_.begin(), queue_.end());
    std::vector<NodeIndex> nodes;
    for (uint32_t c : queue_) {
      const auto& members = condensation_.members[c];
      nodes.insert(nodes.end(), members.begin(), members.end());
    }
    return nodes;
  }

 private:
  const Condensation& condensation_;
  std::vector<uint32_t> out_offsets_, out_, in_offsets_, in_;  // the condensed DAG
  std::vector<uint32_t> forward_, backward_;  // per component: == stamp_ when visited
  std::vector<uint32_t> queue_;
  uint32_t stamp_ = 0;  // one per feedback edge; fewer than 2^32 edges, so it never wraps
};

}  // namespace

std::string_view LoopKindName(LoopKind kind) { return kLoopKindNames[static_cast<size_t>(kind)]; }

std::vector<Loop> FindLoops(const Network& network, const Adjacency& adjacency,
                            const Condensation& condensation) {
  std::vector<Loop> loops;
  for (size_t c = 0; c < condensation.members.size(); ++c) {
    if (!condensation.cyclic[c]) continue;
    const auto& members = condensation.members[c];
    loops.push_back(Loop{.kind = members.size() > 1 ? LoopKind::kCycle : LoopKind::kSelfLoop,
                         .nodes = members});
  }

  // Built lazily: most networks have no feedback edges at all.
  std::optional<FeedbackLoopFinder> finder;
  // The loop a feedback edge closes is fixed by the components of its ends: the
  // smallest component of the loop is `to`'s, the largest `from`'s. So equal
  // pairs give equal loops and different pairs different ones.
  std::unordered_set<uint64_t> reported;  // first component << 32 | last component
  for (const Edge& e : network.edges()) {
    if (e.kind != EdgeKind::kFeedback) continue;
    const uint32_t first = condensation.component[e.to];
    const uint32_t last = condensation.component[e.from];
    // Both ends in one cycle: every cycle through them stays inside it, and the
    // component's own loop already lists it. Copying the component per edge
    // made the output quadratic.
    if (first == last && condensation.cyclic[first]) continue;
    if (!reported.insert(uint64_t{first} << 32 | last).second) continue;  // parallel edge
    if (!finder) finder.emplace(adjacency, condensation);
    std::vector<NodeIndex> nodes = finder->Nodes(e.from, e.to);
    if (nodes.empty()) continue;  // `to` does not reach `from`: no loop
    loops.push_back(Loop{.kind = LoopKind::kFeedback,
                         .nodes = std::move(nodes),
                         .feedback_from = e.from,
                         .feedback_to = e.to});
  }
  return loops;
}

}  // namespace cookgraph
