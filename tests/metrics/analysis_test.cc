#include "metrics/analysis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "metrics/node_stats.h"

namespace cookgraph {
namespace {

using ::testing::ElementsAre;

NodeIndex Add(Snapshot& s, std::string id, bool output = false) {
  auto index = s.network.AddNode({.id = std::move(id), .output = output});
  EXPECT_TRUE(index.ok());
  return *index;
}

// A small TouchDesigner-like patch over 4 frames (engine frames 200..203):
//
//   src(0) --> fb(1) --> comp(2) --> out(3, output)
//     |  \________________^  |
//     |    comp -> fb is a feedback edge (previous frame)
//     +--> dead(4)     (cooks, feeds no output)
//     +--> idle(5)     (never cooks)
//
// cook_ms           per_frame_ms   score
//   src  [1,1,1,1]    1            1 * (1 + 0) = 1
//   fb   [.5 x4]      0.5          0.5
//   comp [2,2,2,6]    3            avg 3, deviations -1,-1,-1,3 -> var 12/4 = 3, 3 * (1 + sqrt 3)
//   out  [.1 x4]      0.1          0.1
//   dead [1,-,1,-]    0.5          1
//   idle  -           0            0
//
// Frame times (summed) [4.6, 3.6, 4.6, 7.6], mean 5.1; fps 200 -> budget 5:
// frame 3 is over by 2.6, all of it comp's spike (6 against its median 2).
Snapshot FeedbackPatch() {
  Snapshot s;
  s.info.fps = 200;
  const NodeIndex src = Add(s, "/p/src");
  const NodeIndex fb = Add(s, "/p/fb");
  const NodeIndex comp = Add(s, "/p/comp");
  const NodeIndex out = Add(s, "/p/out", /*output=*/true);
  const NodeIndex dead = Add(s, "/p/dead");
  const NodeIndex idle = Add(s, "/p/idle");
  s.network.AddEdge(src, fb, EdgeKind::kData);
  s.network.AddEdge(fb, comp, EdgeKind::kData);
  s.network.AddEdge(src, comp, EdgeKind::kData);
  s.network.AddEdge(comp, fb, EdgeKind::kFeedback);
  s.network.AddEdge(comp, out, EdgeKind::kData);
  s.network.AddEdge(src, dead, EdgeKind::kData);
  s.network.AddEdge(src, idle, EdgeKind::kRef);
  s.samples = Samples(s.network.size());
  s.samples.SetFrameIndex({200, 201, 202, 203});
  s.samples.SetSeries(src, Metric::kCookMs, {1, 1, 1, 1});
  s.samples.SetSeries(fb, Metric::kCookMs, {0.5, 0.5, 0.5, 0.5});
  s.samples.SetSeries(comp, Metric::kCookMs, {2, 2, 2, 6});
  s.samples.SetSeries(out, Metric::kCookMs, {0.1, 0.1, 0.1, 0.1});
  s.samples.SetSeries(dead, Metric::kCookMs, {1, kMissing, 1, kMissing});
  s.warnings.push_back("unknown key 'colour' ignored");
  return s;
}

TEST(Analysis, FeedbackPatchStatisticsAndBudget) {
  Analysis a = Analyse(FeedbackPatch());
  EXPECT_DOUBLE_EQ(a.budget_ms, 5.0);  // 1000 / 200 fps
  EXPECT_FALSE(a.frames.measured);
  EXPECT_DOUBLE_EQ(a.frames.mean_ms, 5.1);
  EXPECT_THAT(a.frames.over_budget, ElementsAre(3u));
  ASSERT_EQ(a.stats.size(), 6u);
  EXPECT_DOUBLE_EQ(a.stats[2].per_frame_ms, 3.0);
  EXPECT_DOUBLE_EQ(a.stats[2].score, 3 * (1 + std::sqrt(3.0)));
  EXPECT_DOUBLE_EQ(a.stats[2].share, 3.0 / 5.1);
  EXPECT_DOUBLE_EQ(a.stats[4].per_frame_ms, 0.5);
  EXPECT_EQ(a.stats[5].cooked_frames, 0u);
  EXPECT_THAT(a.warnings, ElementsAre("unknown key 'colour' ignored"));
}

TEST(Analysis, ProfilerMsIsSummarisedAndChangesNothingElse) {
  Snapshot with = FeedbackPatch();
  // 10 ms a frame would put every frame over the 5 ms budget if it were counted.
  with.samples.SetProfilerMs({10, 10, kMissing, 10});
  const Analysis a = Analyse(with);
  const Analysis b = Analyse(FeedbackPatch());
  EXPECT_FALSE(b.profiler.has_value());
  ASSERT_TRUE(a.profiler.has_value());
  EXPECT_EQ(a.profiler->frames, 3u);
  EXPECT_EQ(a.profiler->ms.mean, 10.0);
  EXPECT_FALSE(a.profiler->share_of_frame.has_value());  // frame_ms is not measured here
  EXPECT_EQ(a.frames.frame_ms, b.frames.frame_ms);
  EXPECT_EQ(a.frames.mean_ms, b.frames.mean_ms);
  EXPECT_EQ(a.frames.over_budget, b.frames.over_budget);
  ASSERT_EQ(a.stats.size(), b.stats.size());
  for (size_t n = 0; n < a.stats.size(); ++n) {
    EXPECT_EQ(a.stats[n].per_frame_ms, b.stats[n].per_frame_ms) << n;
    EXPECT_EQ(a.stats[n].share, b.stats[n].share) << n;
    EXPECT_EQ(a.stats[n].score, b.stats[n].score) << n;
  }
  EXPECT_EQ(a.spikes.size(), b.spikes.size());
  EXPECT_EQ(a.warnings, b.warnings);
}

TEST(Analysis, BudgetOptionOverridesTheSnapshot) {
  Analysis a = Analyse(FeedbackPatch(), {.budget_ms = 4.0});
  EXPECT_EQ(a.budget_ms, 4.0);
  EXPECT_EQ(a.frames.budget_ms, 4.0);
  EXPECT_THAT(a.frames.over_budget, ElementsAre(0u, 2u, 3u));  // 4.6, 4.6, 7.6 > 4
}

TEST(Analysis, FeedbackLoopIsFoundAndItsMembersMarked) {
  Analysis a = Analyse(FeedbackPatch());
  ASSERT_EQ(a.loops.size(), 1u);
  EXPECT_EQ(a.loops[0].loop.kind, LoopKind::kFeedback);
  EXPECT_THAT(a.loops[0].loop.nodes, ElementsAre(1u, 2u));  // fb, comp
  EXPECT_EQ(a.loops[0].loop.feedback_from, 2u);
  EXPECT_EQ(a.loops[0].loop.feedback_to, 1u);
  EXPECT_DOUBLE_EQ(a.loops[0].per_frame_ms, 3.5);  // 0.5 + 3
  EXPECT_THAT(a.in_loop, ElementsAre(false, true, true, false, false, false));
}

TEST(Analysis, FeedbackEdgeDoesNotBreakTopologicalOrder) {
  Analysis a = Analyse(FeedbackPatch());
  EXPECT_THAT(a.order, ElementsAre(0u, 1u, 2u, 3u, 4u, 5u));
}

TEST(Analysis, CriticalPathAndUpstreamCostUsePerFrameTime) {
  Analysis a = Analyse(FeedbackPatch());
  // src -> fb -> comp -> out: 1 + 0.5 + 3 + 0.1.
  EXPECT_THAT(a.critical_path.nodes, ElementsAre(0u, 1u, 2u, 3u));
  EXPECT_DOUBLE_EQ(a.critical_path.weight, 4.6);
  EXPECT_THAT(a.on_critical_path, ElementsAre(true, true, true, true, false, false));
  ASSERT_EQ(a.upstream_ms.size(), 6u);
  EXPECT_DOUBLE_EQ(a.upstream_ms[0], 1.0);
  EXPECT_DOUBLE_EQ(a.upstream_ms[1], 1.5);  // fb + src; comp is upstream only via feedback
  EXPECT_DOUBLE_EQ(a.upstream_ms[2], 4.5);  // comp + fb + src, src counted once
  EXPECT_DOUBLE_EQ(a.upstream_ms[3], 4.6);
  EXPECT_DOUBLE_EQ(a.upstream_ms[4], 1.5);
  EXPECT_DOUBLE_EQ(a.upstream_ms[5], 1.0);
}

TEST(Analysis, DeadCookIsACookedNodeThatReachesNoOutput) {
  Analysis a = Analyse(FeedbackPatch());
  // idle reaches no output either, but it never cooked: nothing is wasted.
  EXPECT_THAT(a.dead, ElementsAre(false, false, false, false, true, false));
}

TEST(Analysis, WithoutOutputsNoNodeIsDeadAndAWarningSaysWhy) {
  Snapshot s;
  const NodeIndex x = Add(s, "x");
  const NodeIndex y = Add(s, "y");
  s.network.AddEdge(x, y, EdgeKind::kData);
  s.samples = Samples(2);
  s.samples.SetFrameIndex({0, 1});
  s.samples.SetSeries(x, Metric::kCookMs, {1, 1});
  s.samples.SetSeries(y, Metric::kCookMs, {1, 1});
  Analysis a = Analyse(s);
  EXPECT_THAT(a.dead, ElementsAre(false, false));
  EXPECT_THAT(a.warnings,
              ElementsAre("no node is marked as an output: dead cooks are not computed"));
}

TEST(Analysis, SpikeInTheOverBudgetFrameIsAttributed) {
  Analysis a = Analyse(FeedbackPatch());
  ASSERT_EQ(a.spikes.size(), 1u);
  EXPECT_EQ(a.spikes[0].node, 2u);
  EXPECT_DOUBLE_EQ(a.spikes[0].median_ms, 2.0);
  EXPECT_DOUBLE_EQ(a.spikes[0].excess_ms, 4.0);
  EXPECT_EQ(a.spikes[0].worst_frame, 203);
  EXPECT_NEAR(a.spikes[0].share_of_overrun, 4.0 / 2.6, 1e-12);
  EXPECT_TRUE(Analyse(FeedbackPatch(), {.spike_limit = 0}).spikes.empty());
}

TEST(Analysis, NoFramesIsAWarningAndEveryStatisticIsZero) {
  Snapshot s;
  Add(s, "a", /*output=*/true);
  s.samples = Samples(1);
  Analysis a = Analyse(s);
  EXPECT_THAT(a.warnings, ElementsAre("no frames"));
  EXPECT_EQ(a.stats[0].cooked_frames, 0u);
  EXPECT_EQ(a.frames.mean_ms, 0.0);
  EXPECT_EQ(CookedCount(a), 0u);
  EXPECT_THAT(Rank(a, SortKey::kScore), ElementsAre(0u));
}

TEST(Analysis, LoopsAreSortedCostliestFirst) {
  // A cycle a <-> b (cheap) is found before the feedback loop c -> d ~> c
  // (costly), but the report puts the costly one first.
  Snapshot s;
  const NodeIndex a = Add(s, "a", true);
  const NodeIndex b = Add(s, "b");
  const NodeIndex c = Add(s, "c", true);
  const NodeIndex d = Add(s, "d");
  s.network.AddEdge(a, b, EdgeKind::kData);
  s.network.AddEdge(b, a, EdgeKind::kRef);
  s.network.AddEdge(c, d, EdgeKind::kData);
  s.network.AddEdge(d, c, EdgeKind::kFeedback);
  s.samples = Samples(4);
  s.samples.SetFrameIndex({0});
  s.samples.SetSeries(a, Metric::kCookMs, {0.1});
  s.samples.SetSeries(b, Metric::kCookMs, {0.1});
  s.samples.SetSeries(c, Metric::kCookMs, {1});
  s.samples.SetSeries(d, Metric::kCookMs, {1});
  Analysis r = Analyse(s);
  ASSERT_EQ(r.loops.size(), 2u);
  EXPECT_EQ(r.loops[0].loop.kind, LoopKind::kFeedback);
  EXPECT_DOUBLE_EQ(r.loops[0].per_frame_ms, 2.0);
  EXPECT_EQ(r.loops[1].loop.kind, LoopKind::kCycle);
  EXPECT_DOUBLE_EQ(r.loops[1].per_frame_ms, 0.2);

  // Equal cost: the kind decides (cycle before feedback).
  s.samples.SetSeries(c, Metric::kCookMs, {0.1});
  s.samples.SetSeries(d, Metric::kCookMs, {0.1});
  r = Analyse(s);
  ASSERT_EQ(r.loops.size(), 2u);
  EXPECT_EQ(r.loops[0].loop.kind, LoopKind::kCycle);
  EXPECT_EQ(r.loops[1].loop.kind, LoopKind::kFeedback);
}

TEST(Analysis, EqualLoopsOfOneKindAreOrderedByTheirFirstNode) {
  // Two feedback loops of equal cost; the one on e, f is declared first, yet
  // the one starting at c (a smaller index) is reported first.
  Snapshot s;
  for (const char* id : {"a", "b", "c", "d", "e", "f"}) Add(s, id, true);
  s.network.AddEdge(5, 4, EdgeKind::kFeedback);  // f ~> e
  s.network.AddEdge(3, 2, EdgeKind::kFeedback);  // d ~> c
  s.network.AddEdge(2, 3, EdgeKind::kData);
  s.network.AddEdge(4, 5, EdgeKind::kData);
  s.samples = Samples(6);
  s.samples.SetFrameIndex({0});
  for (NodeIndex n = 2; n < 6; ++n) s.samples.SetSeries(n, Metric::kCookMs, {1});
  Analysis r = Analyse(s);
  ASSERT_EQ(r.loops.size(), 2u);
  EXPECT_THAT(r.loops[0].loop.nodes, ElementsAre(2u, 3u));
  EXPECT_THAT(r.loops[1].loop.nodes, ElementsAre(4u, 5u));
}

TEST(Analysis, EmptySnapshot) {
  Analysis a = Analyse(Snapshot{});
  EXPECT_TRUE(a.stats.empty());
  EXPECT_TRUE(a.order.empty());
  EXPECT_TRUE(a.critical_path.nodes.empty());
  EXPECT_TRUE(Rank(a, SortKey::kScore).empty());
}

TEST(SortKey, NamesRoundTrip) {
  const std::vector<std::string> names = {"score",     "avg", "p95",      "max",
                                          "per-frame", "gpu", "upstream", "gain"};
  for (size_t i = 0; i < names.size(); ++i) {
    auto key = static_cast<SortKey>(i);
    EXPECT_EQ(SortKeyName(key), names[i]);
    EXPECT_EQ(ParseSortKey(names[i]), key);
  }
  EXPECT_EQ(ParseSortKey("per_frame"), std::nullopt);
  EXPECT_EQ(ParseSortKey("Score"), std::nullopt);
}

// Past a million samples the statistics are computed on two threads, one per
// half of the nodes: the result must be each node's own, as on one thread.
TEST(Analyse, LargeSnapshotsGiveEveryNodeItsOwnStatistics) {
  Snapshot s;
  const size_t nodes = 2001, frames = 600;  // 1.2M samples, an odd count of nodes
  for (size_t i = 0; i < nodes; ++i) Add(s, "n" + std::to_string(i), i == nodes - 1);
  s.samples = Samples(nodes);
  std::vector<int64_t> index(frames);
  for (size_t f = 0; f < frames; ++f) index[f] = static_cast<int64_t>(f);
  s.samples.SetFrameIndex(std::move(index));
  std::mt19937 rng(11);
  for (NodeIndex n = 0; n < nodes; ++n) {
    std::vector<double> values(frames);
    for (double& v : values) v = rng() % 9 == 0 ? kMissing : static_cast<double>(rng() % 1000) / 97;
    s.samples.SetSeries(n, Metric::kCookMs, std::move(values));
  }
  const Analysis analysis = Analyse(s);
  ASSERT_EQ(analysis.stats.size(), nodes);
  for (NodeIndex n = 0; n < nodes; ++n) {
    const NodeStats expected = ComputeNodeStats(s.samples, n, analysis.frames.mean_ms);
    ASSERT_EQ(analysis.stats[n].score, expected.score) << n;
    ASSERT_EQ(analysis.stats[n].p95_ms, expected.p95_ms) << n;
    ASSERT_EQ(analysis.stats[n].cooked_frames, expected.cooked_frames) << n;
  }
}

}  // namespace
}  // namespace cookgraph
