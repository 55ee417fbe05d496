#include "graph/containers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace cookgraph {
namespace {

using Nodes = std::vector<NodeIndex>;

struct NodeSpec {
  const char* id;
  const char* parent = "";
};

Network WithNodes(std::initializer_list<NodeSpec> specs) {
  Network network;
  for (const NodeSpec& s : specs) EXPECT_TRUE(network.AddNode({.id = s.id, .parent = s.parent}));
  return network;
}

// One line per container, so a failure shows the whole hierarchy.
std::string Describe(const std::vector<Container>& containers) {
  std::string out;
  auto list = [](const Nodes& nodes) {
    std::string s;
    for (NodeIndex v : nodes) s += (s.empty() ? "" : ",") + std::to_string(v);
    return s;
  };
  for (const Container& c : containers) {
    out += "'" + c.id + "' in '" + c.parent + "' depth " + std::to_string(c.depth) + " direct [" +
           list(c.direct) + "] all [" + list(c.all) + "]\n";
  }
  return out;
}

TEST(Containers, EmptyNetworkHasNone) { EXPECT_TRUE(Containers(Network{}).empty()); }

TEST(Containers, NestedPathsGiveNestedContainers) {
  // "/p/c" is both a node (a COMP) and the container of "/p/c/b"; no node is
  // at the top level, so "" is not listed.
  Network net = WithNodes({{"/p/a"}, {"/p/c/b"}, {"/p/c"}});
  EXPECT_EQ(Describe(Containers(net)),
            "'/p' in '' depth 1 direct [0,2] all [0,1,2]\n"
            "'/p/c' in '/p' depth 2 direct [1] all [1]\n");
}

TEST(Containers, TopLevelOnlyWhenSomeNodeHasNoParent) {
  Network net = WithNodes({{"/p/a"}, {"relu_3"}, {"/p/c/b"}});
  EXPECT_EQ(Describe(Containers(net)),
            "'' in '' depth 0 direct [1] all [0,1,2]\n"
            "'/p' in '' depth 1 direct [0] all [0,2]\n"
            "'/p/c' in '/p' depth 2 direct [2] all [2]\n");
}

TEST(Containers, ExplicitParentsOfContainerNodesWin) {
  // GStreamer style: bins are nodes with explicit parents.
  Network net =
      WithNodes({{"src", "bin0"}, {"bin0", "pipeline0"}, {"sink", "pipeline0"}, {"pipeline0"}});
  EXPECT_EQ(Describe(Containers(net)),
            "'' in '' depth 0 direct [3] all [0,1,2,3]\n"
            "'bin0' in 'pipeline0' depth 2 direct [0] all [0]\n"
            "'pipeline0' in '' depth 1 direct [1,2] all [0,1,2]\n");
}

TEST(Containers, ContainerWithoutANodeFallsBackToItsPath) {
  // Explicit parent "grp/inner" is no node: its parent comes from the path, and
  // "grp" holds nodes only through it.
  Network net = WithNodes({{"/x/y", "grp/inner"}, {"z", "grp/inner"}});
  EXPECT_EQ(Describe(Containers(net)),
            "'grp' in '' depth 1 direct [] all [0,1]\n"
            "'grp/inner' in 'grp' depth 2 direct [0,1] all [0,1]\n");
}

TEST(Containers, ParentCyclesAreCut) {
  // "a" is in "b" and "b" in "a"; "s" is its own parent. The walk from "a"
  // meets "a" again at "b", which moves to the top level.
  Network net = WithNodes({{"a", "b"}, {"b", "a"}, {"s", "s"}});
  EXPECT_EQ(Describe(Containers(net)),
            "'a' in 'b' depth 2 direct [1] all [1]\n"
            "'b' in '' depth 1 direct [0] all [0,1]\n"
            "'s' in '' depth 1 direct [2] all [2]\n");
}

TEST(Containers, ChainsOfExplicitParentsAreCutAtTheDepthLimit) {
  // 40000 nodes, each the parent of the next: AddNode sees one level each, so
  // Containers() itself must keep the hierarchy bounded. Every 256 levels the
  // chain starts again at the top level; nodes stay where they were.
  constexpr int kChain = 40000;
  constexpr int kMax = static_cast<int>(kMaxContainerDepth);
  Network net;
  std::string id;
  for (int i = 0; i < kChain; ++i) {
    std::string parent = id;
    id = "c" + std::to_string(i);
    ASSERT_TRUE(net.AddNode({.id = id, .parent = parent}));
  }
  auto containers = Containers(net);
  ASSERT_EQ(containers.size(), static_cast<size_t>(kChain));  // "" plus c0..c39998
  EXPECT_EQ(containers[0].id, "");
  EXPECT_EQ(containers[0].all.size(), static_cast<size_t>(kChain));
  size_t entries = 0;
  int deepest = 0;
  for (const Container& c : containers) {
    deepest = std::max(deepest, c.depth);
    entries += c.all.size();
    if (c.id.empty()) continue;
    // c<k> is at depth k % 256 + 1; each 256th is moved to the top level.
    const int k = std::stoi(c.id.substr(1));
    EXPECT_EQ(c.depth, k % kMax + 1) << c.id;
    EXPECT_EQ(c.parent, k % kMax == 0 ? "" : "c" + std::to_string(k - 1)) << c.id;
  }
  EXPECT_EQ(deepest, kMax);
  EXPECT_LE(entries, static_cast<size_t>(kChain) * (kMaxContainerDepth + 1));
  // c0 holds the nodes c1..c256: c256 is in c255, whose chain reaches c0.
  EXPECT_EQ(containers[1].id, "c0");
  EXPECT_EQ(containers[1].all.size(), kMaxContainerDepth);
}

}  // namespace
}  // namespace cookgraph
