#ifndef COOKGRAPH_GRAPH_LOOPS_H_
#define COOKGRAPH_GRAPH_LOOPS_H_

// Feedback loops (docs/architecture.md#feedback-loops).

#include <string_view>
#include <vector>

#include "graph/condensation.h"
#include "graph/network.h"

namespace cookgraph {

enum class LoopKind : uint8_t {
  kCycle,     // a strongly connected component of more than one node (non-feedback edges)
  kSelfLoop,  // one node with a non-feedback edge to itself
  kFeedback,  // the cycles a feedback edge from -> to closes: `to` reaches `from`,
              // and the two are not in one cyclic component
};

/// "cycle", "self-loop", "feedback".
std::string_view LoopKindName(LoopKind kind);

struct Loop {
  LoopKind kind = LoopKind::kCycle;
  /// The nodes of the loop, in topological order. For kFeedback: every node on
  /// some non-feedback path from the edge's `to` to its `from`, both included
  /// (a feedback edge from a node to itself gives that one node).
  std::vector<NodeIndex> nodes;
  /// For kFeedback: the feedback edge that closes the loop. Unused otherwise.
  NodeIndex feedback_from = 0;
  NodeIndex feedback_to = 0;
};

/// Every loop of the network: cycles and self-loops in component order, then
/// feedback loops in edge order. Every cycle a feedback edge closes is reported
/// once: a feedback edge whose ends lie in one cyclic component closes no cycle
/// beyond that component, so it is covered by the component's own kCycle (or
/// kSelfLoop) entry and gets none of its own; of feedback edges that close the
/// same set of nodes (parallel edges) only the first is reported. A feedback
/// edge from a node to itself outside any cycle gives a one-node kFeedback loop.
/// A feedback edge whose `to` cannot reach its `from` closes no loop and is not
/// reported. `adjacency` is without feedback.
std::vector<Loop> FindLoops(const Network& network, const Adjacency& adjacency,
                            const Condensation& condensation);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_LOOPS_H_
