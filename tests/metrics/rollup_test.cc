#include "metrics/rollup.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace cookgraph {
namespace {

// Nested containers over two frames:
//
//   /p                 a      [1, 1]      per_frame 1
//   /p/sub             b      [2, 2]      per_frame 2
//                      c       -          never cooks
//   /p/sub/deep        d      [2, 4]      per_frame 3, max 4
//   /q                 e      [0.5, -]    per_frame 0.25
//
// Frame times [5.5, 7], mean 6.25.
Snapshot Nested() {
  Snapshot s;
  for (const char* id : {"/p/a", "/p/sub/b", "/p/sub/c", "/p/sub/deep/d", "/q/e"}) {
    EXPECT_TRUE(s.network.AddNode({.id = id, .output = true}));
  }
  s.samples = Samples(5);
  s.samples.SetFrameIndex({0, 1});
  s.samples.SetSeries(0, Metric::kCookMs, {1, 1});
  s.samples.SetSeries(1, Metric::kCookMs, {2, 2});
  s.samples.SetSeries(3, Metric::kCookMs, {2, 4});
  s.samples.SetSeries(4, Metric::kCookMs, {0.5, kMissing});
  return s;
}

TEST(RollUp, NestedContainersSumEverythingBeneathThem) {
  Snapshot s = Nested();
  Analysis a = Analyse(s);
  ASSERT_DOUBLE_EQ(a.frames.mean_ms, 6.25);
  std::vector<ContainerStats> r = RollUp(s, a);
  ASSERT_EQ(r.size(), 4u);  // no node sits at the top level, so "" is not a container

  EXPECT_EQ(r[0].id, "/p");
  EXPECT_EQ(r[0].depth, 1);
  EXPECT_EQ(r[0].nodes, 4u);
  EXPECT_EQ(r[0].cooked_nodes, 3u);
  EXPECT_DOUBLE_EQ(r[0].per_frame_ms, 6.0);       // 1 + 2 + 0 + 3
  EXPECT_DOUBLE_EQ(r[0].self_per_frame_ms, 1.0);  // a only
  EXPECT_DOUBLE_EQ(r[0].share, 6.0 / 6.25);
  EXPECT_EQ(r[0].max_ms, 4.0);
  EXPECT_EQ(r[0].costliest, "/p/sub/deep/d");

  EXPECT_EQ(r[1].id, "/p/sub");
  EXPECT_EQ(r[1].depth, 2);
  EXPECT_EQ(r[1].nodes, 3u);
  EXPECT_EQ(r[1].cooked_nodes, 2u);
  EXPECT_DOUBLE_EQ(r[1].per_frame_ms, 5.0);       // 2 + 0 + 3
  EXPECT_DOUBLE_EQ(r[1].self_per_frame_ms, 2.0);  // b and c
  EXPECT_EQ(r[1].costliest, "/p/sub/deep/d");

  EXPECT_EQ(r[2].id, "/p/sub/deep");
  EXPECT_EQ(r[2].depth, 3);
  EXPECT_EQ(r[2].nodes, 1u);
  EXPECT_DOUBLE_EQ(r[2].per_frame_ms, 3.0);
  EXPECT_DOUBLE_EQ(r[2].self_per_frame_ms, 3.0);

  EXPECT_EQ(r[3].id, "/q");
  EXPECT_EQ(r[3].depth, 1);
  EXPECT_DOUBLE_EQ(r[3].per_frame_ms, 0.25);
  EXPECT_EQ(r[3].max_ms, 0.5);
  EXPECT_EQ(r[3].costliest, "/q/e");
}

TEST(RollUp, EqualCostContainersAreOrderedById) {
  Snapshot s;
  ASSERT_TRUE(s.network.AddNode({.id = "/x/n1", .output = true}));
  ASSERT_TRUE(s.network.AddNode({.id = "/w/n2", .output = true}));
  s.samples = Samples(2);
  s.samples.SetFrameIndex({0});
  s.samples.SetSeries(0, Metric::kCookMs, {1});
  s.samples.SetSeries(1, Metric::kCookMs, {1});
  std::vector<ContainerStats> r = RollUp(s, Analyse(s));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].id, "/w");
  EXPECT_EQ(r[1].id, "/x");
  EXPECT_DOUBLE_EQ(r[0].share, 0.5);  // 1 of a 2 ms frame
}

TEST(RollUp, TopLevelNodesMakeTheTopLevelContainer) {
  Snapshot s;
  ASSERT_TRUE(s.network.AddNode({.id = "conv1", .output = true}));
  ASSERT_TRUE(s.network.AddNode({.id = "relu1", .output = true}));
  s.samples = Samples(2);
  s.samples.SetFrameIndex({0, 1});
  s.samples.SetSeries(0, Metric::kCookMs, {1, 3});
  s.samples.SetSeries(1, Metric::kCookMs, {2, 2});
  std::vector<ContainerStats> r = RollUp(s, Analyse(s));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, "");
  EXPECT_EQ(r[0].depth, 0);
  EXPECT_EQ(r[0].nodes, 2u);
  EXPECT_DOUBLE_EQ(r[0].per_frame_ms, 4.0);
  EXPECT_DOUBLE_EQ(r[0].self_per_frame_ms, 4.0);
  EXPECT_DOUBLE_EQ(r[0].share, 1.0);
  EXPECT_EQ(r[0].max_ms, 3.0);
  EXPECT_EQ(r[0].costliest, "conv1");  // per_frame 2 each: the first node wins the tie
}

}  // namespace
}  // namespace cookgraph
