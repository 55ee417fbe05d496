#include "graph/suggest.h"

#include <gtest/gtest.h>

namespace cookgraph {
namespace {

Network WithIds(std::initializer_list<const char*> ids) {
  Network network;
  for (const char* id : ids) EXPECT_TRUE(network.AddNode({.id = id}));
  return network;
}

TEST(EditDistance, ClassicCases) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("abc", ""), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("abc", "abc"), 0u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("sitting", "kitten"), 3u);
  EXPECT_EQ(EditDistance("flaw", "lawn"), 2u);
  EXPECT_EQ(EditDistance("noise1", "nosie1"), 2u);  // a swap is two edits
}

TEST(ClosestId, SuggestsTheNearestTypo) {
  Network net = WithIds({"/project1/comp1", "/project1/noise2", "/project1/noise1"});
  EXPECT_EQ(ClosestId(net, "/project1/nosie1"), "/project1/noise1");
  EXPECT_EQ(ClosestId(net, "/project1/comp"), "/project1/comp1");
}

TEST(ClosestId, TiesGoToTheLowerIndex) {
  Network net = WithIds({"ab2", "ab1"});
  EXPECT_EQ(ClosestId(net, "ab3"), "ab2");
}

TEST(ClosestId, NothingWhenTooFarExactOrEmpty) {
  Network net = WithIds({"abc", "/project1/noise1"});
  EXPECT_EQ(ClosestId(net, "xyz"), std::nullopt);
  EXPECT_EQ(ClosestId(net, "abc"), std::nullopt);  // 0 edits is no typo
  EXPECT_EQ(ClosestId(net, "/project2/blur7"), std::nullopt);
  EXPECT_EQ(ClosestId(Network{}, "abc"), std::nullopt);
}

TEST(ClosestId, AThirdOfTheLongerStringIsTheLimit) {
  Network net = WithIds({"abcdef"});
  EXPECT_EQ(ClosestId(net, "abcdxy"), "abcdef");      // 2 of 6
  EXPECT_EQ(ClosestId(net, "abcxyz"), std::nullopt);  // 3 of 6
  EXPECT_EQ(ClosestId(net, "abcdefgh"), "abcdef");    // 2 of 8
}

}  // namespace
}  // namespace cookgraph
