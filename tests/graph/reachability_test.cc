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

}  // namespace
}  // namespace cookgraph
