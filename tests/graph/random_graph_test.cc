// Property tests: the fast algorithms against plain breadth-first searches on
// seeded random networks with cycles, self-loops, parallel and feedback edges.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "graph/condensation.h"
#include "graph/network_critical_path.h"
#include "graph/loops.h"
#include "graph/reachability.h"
#include "graph/upstream.h"
#include "graph_test_util.h"

namespace cookgraph {
namespace internal {
// graph/upstream.cc: UpstreamCost with bitsets of `words` words, narrowed down
// to `min_words` when a sweep needs more than `budget_words` of live bitsets.
std::vector<double> UpstreamCostInBlocks(const Adjacency& adjacency,
                                         const Condensation& condensation,
                                         std::span<const double> weight, uint32_t words,
                                         uint32_t min_words, size_t budget_words);
}  // namespace internal
namespace {

using testing::CheckCondensation;
using testing::NaiveReach;
using testing::RandomNetwork;

struct Shape {
  uint32_t seed;
  size_t nodes;
  size_t edges;
  int backward_percent;  // of the edges; the more, the bigger the cycles
};

void PrintTo(const Shape& s, std::ostream* os) {
  *os << "seed " << s.seed << ", " << s.nodes << " nodes, " << s.edges << " edges, "
      << s.backward_percent << "% backward";
}

class RandomGraph : public ::testing::TestWithParam<Shape> {
 protected:
  void SetUp() override {
    const Shape shape = GetParam();
    network_ = RandomNetwork(shape.seed, shape.nodes, shape.edges, shape.backward_percent);
    adjacency_ = Adjacency(network_);
    condensation_ = Condense(network_, adjacency_);
    // Small integers, a third of them zero: sums are exact in any order, and
    // zero-weight nodes are skipped as sources.
    std::mt19937 rng(shape.seed);
    std::uniform_int_distribution<int> w(-4, 8);
    weight_.resize(network_.size());
    for (double& x : weight_) x = std::max(0, w(rng));
  }

  Network network_;
  Adjacency adjacency_;
  Condensation condensation_;
  std::vector<double> weight_;
};

TEST_P(RandomGraph, OrderIsValid) { EXPECT_EQ(CheckCondensation(network_, condensation_), ""); }

TEST_P(RandomGraph, UpstreamCostMatchesBreadthFirstSearch) {
  std::vector<double> expected(network_.size(), 0);
  for (NodeIndex v = 0; v < network_.size(); ++v) {
    std::vector<bool> ancestor = NaiveReach(adjacency_, v, /*backward=*/true);
    for (NodeIndex a = 0; a < network_.size(); ++a) {
      if (ancestor[a]) expected[v] += weight_[a];
    }
  }
  EXPECT_EQ(UpstreamCost(adjacency_, condensation_, weight_), expected);
  // Blocks of 64, 128 and 512 sources, many blocks even on small graphs; then
  // a budget of live bitsets so small that sweeps fail and start again with
  // narrower blocks.
  struct Variant {
    uint32_t words, min_words;
    size_t budget_words;
  };
  for (Variant v : {Variant{1, 1, 1 << 20}, Variant{2, 2, 1 << 20}, Variant{8, 8, 1 << 20},
                    Variant{8, 1, 24}, Variant{64, 1, 200}}) {
    std::vector<double> cost = internal::UpstreamCostInBlocks(adjacency_, condensation_, weight_,
                                                              v.words, v.min_words, v.budget_words);
    ASSERT_EQ(cost.size(), expected.size());
    for (NodeIndex n = 0; n < network_.size(); ++n) {
      ASSERT_EQ(cost[n], expected[n]) << "node " << n << " with " << v.words << " words down to "
                                      << v.min_words << " in " << v.budget_words;
    }
  }
}

TEST_P(RandomGraph, FeedbackLoopsMatchBreadthFirstSearch) {
  std::vector<Loop> loops = FindLoops(network_, adjacency_, condensation_);
  size_t next = 0;
  for (; next < loops.size() && loops[next].kind != LoopKind::kFeedback; ++next) {
    const uint32_t c = condensation_.component[loops[next].nodes[0]];
    EXPECT_TRUE(condensation_.cyclic[c]);
    EXPECT_EQ(loops[next].nodes, condensation_.members[c]);
  }
  EXPECT_EQ(next, static_cast<size_t>(
                      std::count(condensation_.cyclic.begin(), condensation_.cyclic.end(), true)));
  std::vector<uint32_t> rank(network_.size());
  for (uint32_t i = 0; i < condensation_.order.size(); ++i) rank[condensation_.order[i]] = i;
  std::set<std::vector<NodeIndex>> seen;
  for (const Edge& e : network_.edges()) {
    if (e.kind != EdgeKind::kFeedback) continue;
    // loops.h: ends in one cyclic component are covered by its cycle entry.
    const uint32_t c = condensation_.component[e.from];
    if (c == condensation_.component[e.to] && condensation_.cyclic[c]) continue;
    std::vector<bool> down = NaiveReach(adjacency_, e.to, false);
    if (!down[e.from]) continue;
    std::vector<bool> up = NaiveReach(adjacency_, e.from, true);
    std::vector<NodeIndex> expected;
    for (NodeIndex v : condensation_.order) {
      if (down[v] && up[v]) expected.push_back(v);
    }
    // A node set already reported (parallel feedback edges) is not repeated.
    if (!seen.insert(expected).second) continue;
    ASSERT_LT(next, loops.size());
    EXPECT_EQ(loops[next].kind, LoopKind::kFeedback);
    EXPECT_EQ(loops[next].feedback_from, e.from);
    EXPECT_EQ(loops[next].feedback_to, e.to);
    EXPECT_EQ(loops[next].nodes, expected) << e.from << " -> " << e.to;
    ++next;
  }
  EXPECT_EQ(next, loops.size());
}

TEST_P(RandomGraph, CriticalPathIsAHeaviestPath) {
  Path path = CriticalPath(adjacency_, condensation_, weight_);
  // A path of whole components, each fed by the one before.
  double sum = 0;
  uint32_t previous = UINT32_MAX;
  for (size_t i = 0; i < path.nodes.size();) {
    const uint32_t c = condensation_.component[path.nodes[i]];
    const auto& members = condensation_.members[c];
    ASSERT_TRUE(std::equal(members.begin(), members.end(), path.nodes.begin() + i));
    if (previous != UINT32_MAX) {
      bool fed = false;
      for (NodeIndex u : condensation_.members[previous]) {
        for (NodeIndex v : adjacency_.out(u)) fed = fed || condensation_.component[v] == c;
      }
      ASSERT_TRUE(fed) << "components " << previous << " and " << c << " are not adjacent";
    }
    for (NodeIndex v : members) sum += weight_[v];
    previous = c;
    i += members.size();
  }
  EXPECT_EQ(sum, path.weight);
  // The heaviest path from each component to a sink, computed backwards.
  const size_t count = condensation_.members.size();
  std::vector<double> from(count, 0);
  double heaviest = 0;
  for (size_t c = count; c-- > 0;) {
    double next = 0, own = 0;
    for (NodeIndex u : condensation_.members[c]) {
      own += weight_[u];
      for (NodeIndex v : adjacency_.out(u)) {
        if (condensation_.component[v] != c)
          next = std::max(next, from[condensation_.component[v]]);
      }
    }
    from[c] = own + next;
    heaviest = std::max(heaviest, from[c]);
  }
  EXPECT_EQ(path.weight, heaviest);
}

TEST_P(RandomGraph, ReachesOutputMatchesBreadthFirstSearch) {
  Network marked;
  for (NodeIndex v = 0; v < network_.size(); ++v) {
    Node node = network_.node(v);
    node.output = v % 97 == 5;
    ASSERT_TRUE(marked.AddNode(std::move(node)));
  }
  for (const Edge& e : network_.edges()) marked.AddEdge(e.from, e.to, e.kind);
  std::vector<bool> reaches = ReachesOutput(marked, adjacency_);
  for (NodeIndex v = 0; v < marked.size(); ++v) {
    std::vector<bool> down = NaiveReach(adjacency_, v, false);
    bool expected = false;
    for (NodeIndex o = 5; o < marked.size(); o += 97) expected = expected || down[o];
    ASSERT_EQ(reaches[v], expected) << "node " << v;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, RandomGraph,
                         ::testing::Values(Shape{1, 50, 60, 2}, Shape{2, 300, 250, 2},
                                           Shape{3, 2000, 2200, 1}, Shape{4, 3000, 9000, 0},
                                           Shape{5, 2500, 5000, 0}, Shape{6, 3000, 3000, 0},
                                           Shape{7, 1200, 20000, 2}, Shape{8, 2000, 6000, 1},
                                           Shape{9, 9000, 20000, 0}));

}  // namespace
}  // namespace cookgraph
