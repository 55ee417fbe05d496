#include "graph/loops.h"

#include <gtest/gtest.h>

#include "graph_test_util.h"

namespace cookgraph {
namespace {

using testing::D;
using testing::F;
using testing::MakeNetwork;

using Nodes = std::vector<NodeIndex>;

std::vector<Loop> Loops(const Network& network) {
  Adjacency adjacency(network);
  return FindLoops(network, adjacency, Condense(network, adjacency));
}

TEST(FindLoops, KindNames) {
  EXPECT_EQ(LoopKindName(LoopKind::kCycle), "cycle");
  EXPECT_EQ(LoopKindName(LoopKind::kSelfLoop), "self-loop");
  EXPECT_EQ(LoopKindName(LoopKind::kFeedback), "feedback");
}

TEST(FindLoops, NoneInADagOrAnEmptyNetwork) {
  EXPECT_TRUE(Loops(MakeNetwork(0, {})).empty());
  EXPECT_TRUE(Loops(MakeNetwork(4, {D(0, 1), D(0, 2), D(1, 3), D(2, 3)})).empty());
}

TEST(FindLoops, SelfLoop) {
  auto loops = Loops(MakeNetwork(2, {D(0, 1), D(1, 1)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kSelfLoop);
  EXPECT_EQ(loops[0].nodes, Nodes{1});
}

TEST(FindLoops, CyclesInComponentOrder) {
  // Cycle {2, 3} comes before cycle {0, 1} because 3 feeds 0.
  auto loops = Loops(MakeNetwork(4, {D(0, 1), D(1, 0), D(2, 3), D(3, 2), D(3, 0)}));
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[0].nodes, (Nodes{2, 3}));
  EXPECT_EQ(loops[1].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[1].nodes, (Nodes{0, 1}));
}

TEST(FindLoops, FeedbackEdgeLoopHoldsOnlyNodesBetweenItsEnds) {
  // 0 -> 1 -> 2 -> 3, feedback 3 -> 1. Node 4 hangs off 1 (not an ancestor of
  // 3), node 5 feeds 2 (not a descendant of 1), node 0 is before the loop.
  auto loops = Loops(MakeNetwork(6, {D(0, 1), D(1, 2), D(2, 3), F(3, 1), D(1, 4), D(5, 2)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kFeedback);
  EXPECT_EQ(loops[0].nodes, (Nodes{1, 2, 3}));
  EXPECT_EQ(loops[0].feedback_from, 3u);
  EXPECT_EQ(loops[0].feedback_to, 1u);
}

TEST(FindLoops, FeedbackLoopThroughADiamondIsInTopologicalOrder) {
  // Input order 0, 3, 2, 1 is not topological: 3 depends on 1 and 2.
  auto loops = Loops(MakeNetwork(4, {D(0, 2), D(0, 3), D(3, 1), D(2, 1), F(1, 0)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].nodes, (Nodes{0, 2, 3, 1}));
}

TEST(FindLoops, FeedbackEdgeThatClosesNoLoopIsNotReported) {
  // 0 -> 1 with feedback 0 -> 1: 1 cannot reach 0.
  EXPECT_TRUE(Loops(MakeNetwork(2, {D(0, 1), F(0, 1)})).empty());
  // Disconnected ends.
  EXPECT_TRUE(Loops(MakeNetwork(2, {F(1, 0)})).empty());
}

TEST(FindLoops, FeedbackPathsDoNotCloseOtherFeedbackLoops) {
  // 1 reaches 0 only through the other feedback edge 2 -> 0.
  auto loops = Loops(MakeNetwork(3, {D(0, 1), D(1, 2), F(2, 0), F(0, 1)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].feedback_from, 2u);
  EXPECT_EQ(loops[0].feedback_to, 0u);
  EXPECT_EQ(loops[0].nodes, (Nodes{0, 1, 2}));
}

TEST(FindLoops, SelfFeedbackIsAOneNodeLoop) {
  auto loops = Loops(MakeNetwork(2, {D(0, 1), F(1, 1)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kFeedback);
  EXPECT_EQ(loops[0].nodes, Nodes{1});
  EXPECT_EQ(loops[0].feedback_from, 1u);
  EXPECT_EQ(loops[0].feedback_to, 1u);
}

TEST(FindLoops, SelfFeedbackOnACycleIsReportedAsTheCycle) {
  // The feedback 1 -> 1 closes no loop beyond the cycle {0, 1}.
  auto loops = Loops(MakeNetwork(2, {D(0, 1), D(1, 0), F(1, 1)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[0].nodes, (Nodes{0, 1}));
}

TEST(FindLoops, SelfFeedbackOnASelfLoopIsReportedAsTheSelfLoop) {
  auto loops = Loops(MakeNetwork(1, {D(0, 0), F(0, 0)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kSelfLoop);
}

TEST(FindLoops, CyclesFirstThenFeedbackInEdgeOrder) {
  // Feedback 3 -> 2 is declared before feedback 2 -> 0; the cycle {0, 1} on the
  // way is reported first and belongs to the second feedback loop whole.
  auto loops =
      Loops(MakeNetwork(4, {D(0, 1), D(1, 0), D(1, 2), D(2, 3), F(3, 2), F(2, 0), D(0, 0)}));
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_EQ(loops[0].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[0].nodes, (Nodes{0, 1}));
  EXPECT_EQ(loops[1].kind, LoopKind::kFeedback);
  EXPECT_EQ(loops[1].nodes, (Nodes{2, 3}));
  EXPECT_EQ(loops[2].kind, LoopKind::kFeedback);
  EXPECT_EQ(loops[2].nodes, (Nodes{0, 1, 2}));
}

TEST(FindLoops, FeedbackInsideACycleIsReportedAsTheCycle) {
  // 0 -> 1 -> 2 -> 0 is a cycle; feedback 2 -> 1 closes nothing beyond it.
  auto loops = Loops(MakeNetwork(3, {D(0, 1), D(1, 2), D(2, 0), F(2, 1)}));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[0].nodes, (Nodes{0, 1, 2}));
}

TEST(FindLoops, RingWithFeedbackOnEveryNodeIsOneLoop) {
  // A ring of 5000 nodes with a feedback edge i+1 -> i beside every data edge:
  // copying the ring once per feedback edge gave 25 million node entries.
  constexpr NodeIndex kRing = 5000;
  std::vector<Edge> edges;
  for (NodeIndex i = 0; i < kRing; ++i) {
    edges.push_back(D(i, (i + 1) % kRing));
    edges.push_back(F((i + 1) % kRing, i));
  }
  auto loops = Loops(MakeNetwork(kRing, edges));
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[0].nodes.size(), kRing);
}

TEST(FindLoops, ParallelFeedbackEdgesAreReportedOnce) {
  // Two feedback edges 2 -> 0 and one 2 -> 1 into the cycle {0, 1}: the first
  // two close the same nodes, the third too (its `to` shares the cycle).
  auto loops = Loops(
      MakeNetwork(3, {D(0, 1), D(1, 0), D(1, 2), F(2, 0), F(2, 0), F(2, 1), F(2, 2), F(2, 2)}));
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_EQ(loops[0].kind, LoopKind::kCycle);
  EXPECT_EQ(loops[1].kind, LoopKind::kFeedback);
  EXPECT_EQ(loops[1].nodes, (Nodes{0, 1, 2}));
  EXPECT_EQ(loops[1].feedback_from, 2u);
  EXPECT_EQ(loops[1].feedback_to, 0u);
  // The self-feedback on 2, which is on no cycle, stays one node, once.
  EXPECT_EQ(loops[2].kind, LoopKind::kFeedback);
  EXPECT_EQ(loops[2].nodes, Nodes{2});
}

}  // namespace
}  // namespace cookgraph
