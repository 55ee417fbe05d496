#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "metrics/analysis.h"

namespace cookgraph {
namespace {

using ::testing::ElementsAre;

// Rank reads only stats, upstream_ms and order, so these Analyses are made by hand.
NodeStats Cooked(double score, double per_frame_ms) {
  return {.cooked_frames = 1, .avg_ms = score, .score = score, .per_frame_ms = per_frame_ms};
}

TEST(Rank, NeverCookedNodesComeLastInTopologicalOrder) {
  Analysis a;
  a.stats = {NodeStats{}, Cooked(1, 1), NodeStats{}, Cooked(5, 0.5), NodeStats{}};
  a.order = {4, 3, 2, 1, 0};
  a.upstream_ms.assign(5, 0.0);
  // Cooked by score: 3 (5), 1 (1); then never cooked in the order 4, 2, 0.
  EXPECT_THAT(Rank(a, SortKey::kScore), ElementsAre(3u, 1u, 4u, 2u, 0u));
  EXPECT_THAT(Rank(a, SortKey::kPerFrame), ElementsAre(1u, 3u, 4u, 2u, 0u));
  EXPECT_EQ(CookedCount(a), 2u);
}

TEST(Rank, TiesGoToScoreThenToIndex) {
  Analysis a;
  a.stats = {Cooked(1, 2), Cooked(3, 2), Cooked(1, 2), Cooked(2, 1)};
  a.order = {0, 1, 2, 3};
  a.upstream_ms.assign(4, 0.0);
  // per_frame ties among 0, 1, 2: score 3 first, then 0 before 2.
  EXPECT_THAT(Rank(a, SortKey::kPerFrame), ElementsAre(1u, 0u, 2u, 3u));
}

TEST(Rank, EachKeySortsLargestFirst) {
  Analysis a;
  a.stats.resize(3);
  for (auto& s : a.stats) s.cooked_frames = 4;
  a.stats[0].avg_ms = 1, a.stats[1].avg_ms = 3, a.stats[2].avg_ms = 2;
  a.stats[0].p95_ms = 3, a.stats[1].p95_ms = 1, a.stats[2].p95_ms = 2;
  a.stats[0].max_ms = 2, a.stats[1].max_ms = 1, a.stats[2].max_ms = 3;
  a.stats[1].gpu_avg_ms = 0.5;  // node 0 and 2 have no GPU time: counted as 0
  a.upstream_ms = {7, 9, 8};
  a.order = {0, 1, 2};
  EXPECT_THAT(Rank(a, SortKey::kAvg), ElementsAre(1u, 2u, 0u));
  EXPECT_THAT(Rank(a, SortKey::kP95), ElementsAre(0u, 2u, 1u));
  EXPECT_THAT(Rank(a, SortKey::kMax), ElementsAre(2u, 0u, 1u));
  EXPECT_THAT(Rank(a, SortKey::kGpu), ElementsAre(1u, 0u, 2u));
  EXPECT_THAT(Rank(a, SortKey::kUpstream), ElementsAre(1u, 2u, 0u));
  EXPECT_EQ(CookedCount(a), 3u);
}

TEST(Rank, AnalysedNetworkRanksByEveryKey) {
  // a -> b -> out, c -> out; d never cooks. Frames: 2.
  Snapshot s;
  for (const char* id : {"a", "b", "out", "c", "d"}) {
    ASSERT_TRUE(s.network.AddNode({.id = id, .output = std::string(id) == "out"}));
  }
  s.network.AddEdge(0, 1, EdgeKind::kData);
  s.network.AddEdge(1, 2, EdgeKind::kData);
  s.network.AddEdge(3, 2, EdgeKind::kData);
  s.network.AddEdge(4, 0, EdgeKind::kData);
  s.samples = Samples(5);
  s.samples.SetFrameIndex({0, 1});
  s.samples.SetSeries(0, Metric::kCookMs, {4, 4});          // per_frame 4, score 4
  s.samples.SetSeries(1, Metric::kCookMs, {1, 3});          // per_frame 2, std 1: score 4
  s.samples.SetSeries(2, Metric::kCookMs, {0.5, 0.5});      // per_frame 0.5
  s.samples.SetSeries(3, Metric::kCookMs, {10, kMissing});  // per_frame 5, score 10
  Analysis a = Analyse(s);
  // score: c 10; a and b tie at 4 (tie on score too) -> index; out 0.5; d last.
  EXPECT_THAT(Rank(a, SortKey::kScore), ElementsAre(3u, 0u, 1u, 2u, 4u));
  EXPECT_THAT(Rank(a, SortKey::kPerFrame), ElementsAre(3u, 0u, 1u, 2u, 4u));
  // upstream: out 4 + 2 + 5 + 0.5 = 11.5, b 6, c 5, a 4.
  EXPECT_THAT(Rank(a, SortKey::kUpstream), ElementsAre(2u, 1u, 3u, 0u, 4u));
  EXPECT_THAT(Rank(a, SortKey::kMax), ElementsAre(3u, 0u, 1u, 2u, 4u));
  EXPECT_EQ(CookedCount(a), 4u);
}

}  // namespace
}  // namespace cookgraph
