#include "graph/reachability.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph_test_util.h"

namespace cookgraph {
namespace {

using testing::D;
using testing::F;

using Flags = std::vector<bool>;

Network WithOutputs(size_t count, const std::vector<Edge>& edges,
                    const std::vector<NodeIndex>& outputs) {
  Network network;
  for (size_t i = 0; i < count; ++i) {
    bool output = std::find(outputs.begin(), outputs.end(), i) != outputs.end();
    EXPECT_TRUE(network.AddNode({.id = "n" + std::to_string(i), .output = output}));
  }
  for (const Edge& e : edges) network.AddEdge(e.from, e.to, e.kind);
  return network;
}

Flags Reaches(const Network& network) { return ReachesOutput(network, Adjacency(network)); }

TEST(ReachesOutput, AllFalseWithoutOutputs) {
  EXPECT_EQ(Reaches(WithOutputs(3, {D(0, 1), D(1, 2)}, {})), (Flags{false, false, false}));
  EXPECT_TRUE(Reaches(WithOutputs(0, {}, {})).empty());
}

TEST(ReachesOutput, OutputReachesItselfAndItsAncestors) {
  // 0 -> 1 -> 2 (output), 1 -> 3 (dead end), 4 alone.
  Flags reaches = Reaches(WithOutputs(5, {D(0, 1), D(1, 2), D(1, 3)}, {2}));
  EXPECT_EQ(reaches, (Flags{true, true, true, false, false}));
}

TEST(ReachesOutput, FeedbackEdgesDoNotFeedOutputs) {
  // 0 only feeds 1 (an output) through a feedback edge; 2 feeds it by reference.
  Flags reaches = Reaches(WithOutputs(3, {F(0, 1), {2, 1, EdgeKind::kRef}}, {1}));
  EXPECT_EQ(reaches, (Flags{false, true, true}));
}

TEST(ReachesOutput, CyclesAndSeveralOutputs) {
  // 0 <-> 1 -> 2 (output); 3 -> 4 (output).
  Flags reaches = Reaches(WithOutputs(5, {D(0, 1), D(1, 0), D(1, 2), D(3, 4)}, {2, 4}));
  EXPECT_EQ(reaches, (Flags{true, true, true, true, true}));
}

Flags Live(const Network& network) { return LiveNodes(network, Adjacency(network)); }

TEST(LiveNodes, CalleesAndKernelsOfALiveOpAreLive) {
  // 0 (conv) -> 1 (softmax, output) by data; 0 calls 2, 2 calls 3, 3 launches 4
  // (a kernel). 5 is a debug op feeding nothing; it calls 6.
  Flags live = Live(WithOutputs(7,
                                {D(0, 1), {0, 2, EdgeKind::kCall}, {2, 3, EdgeKind::kCall},
                                 {3, 4, EdgeKind::kLaunch}, {5, 6, EdgeKind::kCall}},
                                {1}));
  EXPECT_EQ(live, (Flags{true, true, true, true, true, false, false}));
  // ReachesOutput keeps the literal rule: callees do not reach the output.
  EXPECT_EQ(Reaches(WithOutputs(3, {D(0, 1), {0, 2, EdgeKind::kCall}}, {1})),
            (Flags{true, true, false}));
}

TEST(LiveNodes, WhatFeedsALiveCalleeIsLive) {
  // 0 calls 1 (0 is an output); 2 feeds 1 by data; 3 feeds 1 only by feedback.
  Flags live = Live(WithOutputs(4, {{0, 1, EdgeKind::kCall}, D(2, 1), F(3, 1)}, {0}));
  EXPECT_EQ(live, (Flags{true, true, true, false}));
}

TEST(LiveNodes, FlowEdgesDoNotMakeTheirTargetLive) {
  // A flow edge is a dependency, not nesting: 0 (output) -> 1 by flow keeps 1 dead.
  Flags live = Live(WithOutputs(2, {{0, 1, EdgeKind::kFlow}}, {0}));
  EXPECT_EQ(live, (Flags{true, false}));
  EXPECT_EQ(Live(WithOutputs(2, {D(0, 1)}, {})), (Flags{false, false}));
}

}  // namespace
}  // namespace cookgraph
