#include "graph/network.h"

#include <gtest/gtest.h>

#include <string>

namespace cookgraph {
namespace {

TEST(Network, ParentIsDerivedFromSlashSeparatedId) {
  Network net;
  auto a = net.AddNode({.id = "/project1/comp1/noise1"});
  auto b = net.AddNode({.id = "/project1"});
  auto c = net.AddNode({.id = "relu_3"});
  auto d = net.AddNode({.id = "/x/y", .parent = "bin0"});
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(net.node(*a).parent, "/project1/comp1");
  EXPECT_EQ(net.node(*b).parent, "");
  EXPECT_EQ(net.node(*c).parent, "");
  EXPECT_EQ(net.node(*d).parent, "bin0");
}

TEST(Network, DuplicateIdIsAnErrorNamingTheId) {
  Network net;
  ASSERT_TRUE(net.AddNode({.id = "/a"}));
  auto again = net.AddNode({.id = "/a"});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().Format(), "node '/a': duplicate id (first defined as node 0)");
}

TEST(Network, ContainerDepthCountsTheLevelsDerivedParentPeels) {
  EXPECT_EQ(ContainerDepth(""), 0u);
  EXPECT_EQ(ContainerDepth("x"), 0u);
  EXPECT_EQ(ContainerDepth("/a"), 0u);
  EXPECT_EQ(ContainerDepth("a/b"), 1u);
  EXPECT_EQ(ContainerDepth("/a/b/c"), 2u);
  EXPECT_EQ(ContainerDepth("/a//b"), 2u);  // "/a/" then "/a"
  // The same count as applying DerivedParent until it gives "".
  for (std::string id : {"/p/c/b", "a/b/c/", "//", "/a//b/"}) {
    size_t levels = 0;
    for (std::string p = DerivedParent(id); !p.empty(); p = DerivedParent(p)) ++levels;
    EXPECT_EQ(ContainerDepth(id), levels) << id;
  }
}

std::string Nested(size_t containers) {
  std::string id;
  for (size_t i = 0; i <= containers; ++i) id += "/a";
  return id;  // "/a" inside `containers` containers
}

TEST(Network, NodeNestedTooDeepByItsIdIsRefusedWithoutATrace) {
  Network net;
  ASSERT_EQ(ContainerDepth(Nested(kMaxContainerDepth)), kMaxContainerDepth);
  ASSERT_TRUE(net.AddNode({.id = Nested(kMaxContainerDepth)}));
  auto deep = net.AddNode({.id = Nested(kMaxContainerDepth + 1)});
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().where, "node '" + Nested(kMaxContainerDepth + 1) + "'");
  EXPECT_EQ(deep.error().message, "nests 257 containers deep; cookgraph supports at most 256");
  EXPECT_EQ(net.size(), 1u);
  EXPECT_EQ(net.Find(Nested(kMaxContainerDepth + 1)), std::nullopt);
}

TEST(Network, NodeNestedTooDeepByItsExplicitParentIsRefused) {
  Network net;
  ASSERT_TRUE(net.AddNode({.id = "ok", .parent = Nested(kMaxContainerDepth - 1)}));
  auto deep = net.AddNode({.id = "x", .parent = Nested(kMaxContainerDepth)});
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().Format(),
            "node 'x': nests 257 containers deep; cookgraph supports at most 256");
}

TEST(Network, EmptyIdIsAnError) {
  Network net;
  EXPECT_FALSE(net.AddNode({.id = ""}));
}

TEST(Network, FindAndOutputs) {
  Network net;
  ASSERT_TRUE(net.AddNode({.id = "a"}));
  EXPECT_FALSE(net.has_outputs());
  ASSERT_TRUE(net.AddNode({.id = "b", .output = true}));
  EXPECT_TRUE(net.has_outputs());
  EXPECT_EQ(net.Find("b"), 1u);
  EXPECT_EQ(net.Find("c"), std::nullopt);
}

TEST(Network, EdgeKindNamesRoundTrip) {
  for (int k = 0; k < kEdgeKindCount; ++k) {
    auto kind = static_cast<EdgeKind>(k);
    EXPECT_EQ(ParseEdgeKind(EdgeKindName(kind)), kind);
  }
  EXPECT_EQ(ParseEdgeKind("wire"), std::nullopt);
}

TEST(Adjacency, FeedbackEdgesAreLeftOutUnlessAsked) {
  Network net;
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(net.AddNode({.id = id}));
  net.AddEdge(0, 1, EdgeKind::kData);
  net.AddEdge(1, 2, EdgeKind::kRef);
  net.AddEdge(2, 0, EdgeKind::kFeedback);
  net.AddEdge(0, 1, EdgeKind::kData);  // parallel edges stay
  Adjacency without(net);
  EXPECT_EQ(without.out(0).size(), 2u);
  EXPECT_EQ(without.in(0).size(), 0u);
  EXPECT_EQ(without.in(1).size(), 2u);
  Adjacency with(net, /*with_feedback=*/true);
  ASSERT_EQ(with.in(0).size(), 1u);
  EXPECT_EQ(with.in(0)[0], 2u);
}

TEST(Error, FormatsFileLineColumnWhereAndMessageOnOneLine) {
  Error e{.file = "net.json", .line = 3, .column = 7, .where = "node 'x'", .message = "bad\nthing"};
  EXPECT_EQ(e.Format(), "net.json:3:7: node 'x': bad thing");
  EXPECT_EQ(Error{.message = "plain"}.Format(), "plain");
}

TEST(Error, ShowsControlBytesFromTheInputAsEscapesNotToTheTerminal) {
  // A node named with an escape sequence (JSON allows "\u001b") must not reach
  // the terminal as one: it could retitle the window or hide the message.
  Error e{.where = "node '\x1b]0;pwned\x07\x7f'", .message = "tab\tstays"};
  EXPECT_EQ(e.Format(), "node '\\x1b]0;pwned\\x07\\x7f': tab\tstays");
}

}  // namespace
}  // namespace cookgraph
