#include "graph/network_critical_path.h"

#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace cookgraph {
namespace {

using testing::D;
using testing::F;
using testing::MakeNetwork;

using Nodes = std::vector<NodeIndex>;

Path Critical(const Network& network, const std::vector<double>& weight) {
  Adjacency adjacency(network);
  return CriticalPath(adjacency, Condense(network, adjacency), weight);
}

TEST(CriticalPath, EmptyNetworkHasAnEmptyPath) {
  Path path = Critical(MakeNetwork(0, {}), {});
  EXPECT_TRUE(path.nodes.empty());
  EXPECT_EQ(path.weight, 0);
}

TEST(CriticalPath, SingleNode) {
  Path path = Critical(MakeNetwork(1, {}), {2.5});
  EXPECT_EQ(path.nodes, Nodes{0});
  EXPECT_EQ(path.weight, 2.5);
}

TEST(CriticalPath, NothingMeasuredGivesAnEmptyPath) {
  // Without frames every weight is 0: no node is more critical than another,
  // so none is picked (the score table used to flag an arbitrary one 'C').
  Path path = Critical(MakeNetwork(3, {D(0, 1), D(1, 2)}), {0, 0, 0});
  EXPECT_TRUE(path.nodes.empty());
  EXPECT_EQ(path.weight, 0);
}

TEST(CriticalPath, HeavierBranchOfADiamondWins) {
  // 0 -> {1, 2} -> 3; branch 2 is heavier.
  Path path = Critical(MakeNetwork(4, {D(0, 1), D(0, 2), D(1, 3), D(2, 3)}), {1, 2, 5, 1});
  EXPECT_EQ(path.nodes, (Nodes{0, 2, 3}));
  EXPECT_EQ(path.weight, 7);
}

TEST(CriticalPath, HeaviestPathNeedNotBeLongest) {
  // 0 -> 1 -> 2 -> 3 weighs 4; the lone node 4 weighs 10.
  Path path = Critical(MakeNetwork(5, {D(0, 1), D(1, 2), D(2, 3)}), {1, 1, 1, 1, 10});
  EXPECT_EQ(path.nodes, Nodes{4});
  EXPECT_EQ(path.weight, 10);
}

TEST(CriticalPath, TiesGoToThePathFoundFirstInTopologicalOrder) {
  // Diamond with equal branches: through 1, not 2.
  Path diamond = Critical(MakeNetwork(4, {D(0, 1), D(0, 2), D(1, 3), D(2, 3)}), {1, 3, 3, 1});
  EXPECT_EQ(diamond.nodes, (Nodes{0, 1, 3}));
  // Two disconnected chains of equal weight: the one that comes first.
  Path chains = Critical(MakeNetwork(4, {D(2, 3), D(0, 1)}), {1, 1, 1, 1});
  EXPECT_EQ(chains.nodes, (Nodes{0, 1}));
  // Predecessors listed against topological order still resolve the same way.
  Path reversed = Critical(MakeNetwork(4, {D(2, 3), D(1, 3), D(0, 1), D(0, 2)}), {1, 3, 3, 1});
  EXPECT_EQ(reversed.nodes, (Nodes{0, 1, 3}));
}

TEST(CriticalPath, CycleComponentContributesAllItsMembers) {
  // 0 -> {1, 2 cycle} -> 3, and a lighter bypass 0 -> 4 -> 3.
  Network net = MakeNetwork(5, {D(0, 1), D(1, 2), D(2, 1), D(2, 3), D(0, 4), D(4, 3)});
  Path path = Critical(net, {1, 2, 2, 1, 3});
  EXPECT_EQ(path.nodes, (Nodes{0, 1, 2, 3}));
  EXPECT_EQ(path.weight, 6);
}

TEST(CriticalPath, FeedbackEdgesAreNotPartOfPaths) {
  // Only the feedback edge 2 -> 0 would join the heavy nodes.
  Path path = Critical(MakeNetwork(3, {D(0, 1), F(2, 0)}), {4, 1, 4});
  EXPECT_EQ(path.nodes, (Nodes{0, 1}));
  EXPECT_EQ(path.weight, 5);
}

TEST(CriticalPath, ParallelEdgesDoNotCountTwice) {
  Path path = Critical(MakeNetwork(2, {D(0, 1), D(0, 1)}), {1, 2});
  EXPECT_EQ(path.nodes, (Nodes{0, 1}));
  EXPECT_EQ(path.weight, 3);
}

}  // namespace
}  // namespace cookgraph
