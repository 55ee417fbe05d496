#include "graph/upstream.h"

#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace cookgraph {
namespace {

using testing::D;
using testing::F;
using testing::MakeNetwork;

using Costs = std::vector<double>;

Costs Upstream(const Network& network, const std::vector<double>& weight) {
  Adjacency adjacency(network);
  return UpstreamCost(adjacency, Condense(network, adjacency), weight);
}

TEST(UpstreamCost, EmptyNetwork) { EXPECT_TRUE(Upstream(MakeNetwork(0, {}), {}).empty()); }

TEST(UpstreamCost, IsolatedNodesCostTheirOwnWeight) {
  EXPECT_EQ(Upstream(MakeNetwork(3, {}), {1, 2, 4}), (Costs{1, 2, 4}));
}

TEST(UpstreamCost, DiamondCountsTheSharedAncestorOnce) {
  // 0 -> {1, 2} -> 3: 3 has ancestors 0, 1, 2, with 0 reached twice.
  Costs cost = Upstream(MakeNetwork(4, {D(0, 1), D(0, 2), D(1, 3), D(2, 3)}), {1, 2, 4, 8});
  EXPECT_EQ(cost, (Costs{1, 3, 5, 15}));
}

TEST(UpstreamCost, ParallelEdgesCountOnce) {
  EXPECT_EQ(Upstream(MakeNetwork(2, {D(0, 1), D(0, 1), {0, 1, EdgeKind::kRef}}), {1, 2}),
            (Costs{1, 3}));
}

TEST(UpstreamCost, CycleMembersAreAncestorsOfEachOther) {
  // 0 -> {1 <-> 2} -> 3, plus a self-loop on 3.
  Costs cost =
      Upstream(MakeNetwork(4, {D(0, 1), D(1, 2), D(2, 1), D(2, 3), D(3, 3)}), {1, 2, 4, 8});
  EXPECT_EQ(cost, (Costs{1, 7, 7, 15}));
}

TEST(UpstreamCost, FeedbackEdgesAreIgnored) {
  EXPECT_EQ(Upstream(MakeNetwork(2, {D(0, 1), F(1, 0)}), {1, 2}), (Costs{1, 3}));
}

TEST(UpstreamCost, DisconnectedPartsDoNotMix) {
  Costs cost = Upstream(MakeNetwork(4, {D(0, 1), D(2, 3)}), {1, 2, 4, 8});
  EXPECT_EQ(cost, (Costs{1, 3, 4, 12}));
}

TEST(UpstreamCost, ZeroWeightsCostNothing) {
  Costs cost = Upstream(MakeNetwork(4, {D(0, 1), D(0, 2), D(1, 3), D(2, 3)}), {0, 0, 0, 0});
  EXPECT_EQ(cost, (Costs{0, 0, 0, 0}));
}

TEST(UpstreamCost, LongChainPastManyBlocks) {
  constexpr NodeIndex kN = 5000;
  std::vector<Edge> edges;
  for (NodeIndex i = 0; i + 1 < kN; ++i) edges.push_back(D(i, i + 1));
  Costs cost = Upstream(MakeNetwork(kN, edges), Costs(kN, 1));
  for (NodeIndex i = 0; i < kN; ++i) ASSERT_EQ(cost[i], i + 1) << "node " << i;
}

TEST(UpstreamCost, LadderOfDiamondsPastManyBlocks) {
  // Pairs (2k, 2k+1) each feed both nodes of the next pair: every node has two
  // predecessors sharing all their ancestors.
  constexpr NodeIndex kPairs = 1500;
  std::vector<Edge> edges;
  for (NodeIndex k = 0; k + 1 < kPairs; ++k) {
    for (NodeIndex a : {2 * k, 2 * k + 1}) {
      for (NodeIndex b : {2 * k + 2, 2 * k + 3}) edges.push_back(D(a, b));
    }
  }
  Costs cost = Upstream(MakeNetwork(2 * kPairs, edges), Costs(2 * kPairs, 1));
  for (NodeIndex v = 0; v < 2 * kPairs; ++v) ASSERT_EQ(cost[v], v / 2 * 2 + 1) << "node " << v;
}

TEST(UpstreamCost, WideFanInPastOneBlock) {
  // 1500 sources feed one sink, which feeds a tail.
  constexpr NodeIndex kSources = 1500;
  std::vector<Edge> edges;
  for (NodeIndex s = 0; s < kSources; ++s) edges.push_back(D(s, kSources));
  edges.push_back(D(kSources, kSources + 1));
  Costs weight(kSources + 2, 1);
  weight[7] = 0;  // a zero-weight ancestor is no source
  Costs cost = Upstream(MakeNetwork(kSources + 2, edges), weight);
  EXPECT_EQ(cost[kSources], kSources);
  EXPECT_EQ(cost[kSources + 1], kSources + 1);
}

}  // namespace
}  // namespace cookgraph
