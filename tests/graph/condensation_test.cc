#include "graph/condensation.h"

#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace cookgraph {
namespace {

using testing::CheckCondensation;
using testing::D;
using testing::F;
using testing::MakeNetwork;

using Members = std::vector<std::vector<NodeIndex>>;

Condensation CondenseChecked(const Network& network) {
  Condensation c = Condense(network, Adjacency(network));
  EXPECT_EQ(CheckCondensation(network, c), "");
  return c;
}

TEST(Condense, EmptyNetworkHasNoComponents) {
  Network net;
  Condensation c = Condense(net, Adjacency(net));
  EXPECT_TRUE(c.component.empty());
  EXPECT_TRUE(c.members.empty());
  EXPECT_TRUE(c.cyclic.empty());
  EXPECT_TRUE(c.order.empty());
}

TEST(Condense, NodesWithoutEdgesKeepInputOrder) {
  Condensation c = CondenseChecked(MakeNetwork(3, {}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{0, 1, 2}));
  EXPECT_EQ(c.members, (Members{{0}, {1}, {2}}));
  EXPECT_EQ(c.cyclic, (std::vector<bool>{false, false, false}));
}

TEST(Condense, EdgesAgainstInputOrderComeFirst) {
  // 2 -> 1 -> 0: the only valid order is the reverse of the input.
  Condensation c = CondenseChecked(MakeNetwork(3, {D(2, 1), D(1, 0)}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{2, 1, 0}));
  EXPECT_EQ(c.component, (std::vector<uint32_t>{2, 1, 0}));
}

TEST(Condense, ReadyComponentWithSmallestNodeGoesFirst) {
  // 0 waits for 3 and 1 waits for 4. Ready at first: 2, 3, 4. After 3, node 0
  // is ready and beats 4.
  Condensation c = CondenseChecked(MakeNetwork(5, {D(3, 0), D(4, 1)}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{2, 3, 0, 4, 1}));
}

TEST(Condense, TwoNodeCycleStaysTogether) {
  Condensation c = CondenseChecked(MakeNetwork(3, {D(0, 1), D(1, 0), D(2, 0)}));
  EXPECT_EQ(c.members, (Members{{2}, {0, 1}}));
  EXPECT_EQ(c.cyclic, (std::vector<bool>{false, true}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{2, 0, 1}));
  EXPECT_EQ(c.component, (std::vector<uint32_t>{1, 1, 0}));
}

TEST(Condense, SelfLoopMakesASingleNodeCyclic) {
  Condensation c = CondenseChecked(MakeNetwork(2, {D(0, 1), D(1, 1)}));
  EXPECT_EQ(c.members, (Members{{0}, {1}}));
  EXPECT_EQ(c.cyclic, (std::vector<bool>{false, true}));
}

TEST(Condense, FeedbackEdgeDoesNotBreakTopologicalOrder) {
  // 0 -> 1 -> 2 with feedback 2 -> 0 and a feedback self-edge: no cycle.
  Condensation c = CondenseChecked(MakeNetwork(3, {D(0, 1), D(1, 2), F(2, 0), F(1, 1)}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{0, 1, 2}));
  EXPECT_EQ(c.cyclic, (std::vector<bool>{false, false, false}));
}

TEST(Condense, ParallelEdgesAreCountedConsistently) {
  // In-degrees count both parallel edges; both are released by the same pop.
  Condensation c = CondenseChecked(MakeNetwork(3, {D(1, 0), D(1, 0), {1, 0, EdgeKind::kRef}}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{1, 0, 2}));
}

TEST(Condense, CycleWithTailsAndNestedCycles) {
  // 0 -> {1 2 3} (1->2->3->1 and 2->1) -> 4, with 5 -> 2 and 4 -> 6 -> 4.
  Network net = MakeNetwork(
      7, {D(0, 1), D(1, 2), D(2, 3), D(3, 1), D(2, 1), D(3, 4), D(5, 2), D(4, 6), D(6, 4)});
  Condensation c = CondenseChecked(net);
  EXPECT_EQ(c.members, (Members{{0}, {5}, {1, 2, 3}, {4, 6}}));
  EXPECT_EQ(c.cyclic, (std::vector<bool>{false, false, true, true}));
}

TEST(Condense, DisconnectedPartsInterleaveByInputOrder) {
  // Two chains 0 -> 2 -> 4 and 1 -> 3 -> 5.
  Condensation c = CondenseChecked(MakeNetwork(6, {D(0, 2), D(2, 4), D(1, 3), D(3, 5)}));
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{0, 1, 2, 3, 4, 5}));
}

TEST(Condense, EveryEdgeKindButFeedbackOrders) {
  Network net = MakeNetwork(6, {{5, 4, EdgeKind::kData},
                                {4, 3, EdgeKind::kRef},
                                {3, 2, EdgeKind::kCall},
                                {2, 1, EdgeKind::kLaunch},
                                {1, 0, EdgeKind::kFlow}});
  Condensation c = CondenseChecked(net);
  EXPECT_EQ(c.order, (std::vector<NodeIndex>{5, 4, 3, 2, 1, 0}));
}

TEST(Condense, LongCycleDoesNotOverflowTheStack) {
  // Depth-first search goes 300k nodes deep down 0 -> 1 -> ... before the edge
  // back to 0 closes the cycle: a recursive DFS would need 300k stack frames.
  constexpr NodeIndex kN = 300000;
  std::vector<Edge> edges;
  for (NodeIndex i = 0; i + 1 < kN; ++i) edges.push_back(D(i, i + 1));
  edges.push_back(D(kN - 1, 0));
  Network ring = MakeNetwork(kN, edges);
  Condensation c = Condense(ring, Adjacency(ring));
  ASSERT_EQ(c.members.size(), 1u);
  EXPECT_EQ(c.members[0].size(), kN);
  EXPECT_TRUE(c.cyclic[0]);
}

}  // namespace
}  // namespace cookgraph
