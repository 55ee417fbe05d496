#include "metrics/spikes.h"

#include <gtest/gtest.h>

#include <vector>

namespace cookgraph {
namespace {

struct Fixture {
  Samples samples;
  FrameSummary frames;
  std::vector<NodeStats> stats;
};

Fixture MakeFixture(std::vector<std::vector<double>> cook_ms, double budget_ms) {
  Fixture f{.samples = Samples(cook_ms.size())};
  std::vector<int64_t> index(cook_ms.front().size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<int64_t>(100 + i);
  f.samples.SetFrameIndex(std::move(index));
  for (NodeIndex n = 0; n < cook_ms.size(); ++n) {
    f.samples.SetSeries(n, Metric::kCookMs, std::move(cook_ms[n]));
  }
  f.frames = SummariseFrames(f.samples, budget_ms);
  for (NodeIndex n = 0; n < f.samples.node_count(); ++n) {
    f.stats.push_back(ComputeNodeStats(f.samples, n, f.frames.mean_ms));
  }
  return f;
}

TEST(Spikes, PlantedSpikeIsAttributedToItsNode) {
  // Frame sums [6, 6, 6, 13, 6]; budget 10: frame 3 (engine frame 103) is over by 3.
  Fixture f = MakeFixture({{2, 2, 2, 8, 2},   // median 2: excess 6 in frame 3
                    {3, 3, 3, 3, 3},   // median 3: no excess
                    {1, 1, 1, 2, 1}},  // median 1: excess 1
                   10);
  ASSERT_EQ(f.frames.over_budget, std::vector<size_t>{3});
  std::vector<Spike> spikes = AttributeSpikes(f.samples, f.frames, f.stats, 10);
  ASSERT_EQ(spikes.size(), 2u);
  EXPECT_EQ(spikes[0].node, 0u);
  EXPECT_EQ(spikes[0].median_ms, 2.0);
  EXPECT_EQ(spikes[0].frames, 1u);
  EXPECT_DOUBLE_EQ(spikes[0].excess_ms, 6.0);
  EXPECT_DOUBLE_EQ(spikes[0].max_excess_ms, 6.0);
  EXPECT_EQ(spikes[0].worst_frame, 103);
  EXPECT_DOUBLE_EQ(spikes[0].share_of_overrun, 2.0);  // 6 / 3: others may shrink
  EXPECT_EQ(spikes[1].node, 2u);
  EXPECT_DOUBLE_EQ(spikes[1].excess_ms, 1.0);
  EXPECT_DOUBLE_EQ(spikes[1].share_of_overrun, 1.0 / 3.0);
}

TEST(Spikes, ExcessAddsUpOverOverBudgetFramesOnly) {
  // a = [1, 4, 1, 3, 1] (median 1), b = 2 every frame (median 2).
  // Sums [3, 6, 3, 5, 3]; budget 4: frames 1 (+2) and 3 (+1); overrun 3.
  Fixture f = MakeFixture({{1, 4, 1, 3, 1}, {2, 2, 2, 2, 2}}, 4);
  std::vector<Spike> spikes = AttributeSpikes(f.samples, f.frames, f.stats, 10);
  ASSERT_EQ(spikes.size(), 1u);  // b never exceeds its median
  const Spike& a = spikes[0];
  EXPECT_EQ(a.node, 0u);
  EXPECT_EQ(a.frames, 2u);
  EXPECT_DOUBLE_EQ(a.excess_ms, 5.0);  // (4 - 1) + (3 - 1)
  EXPECT_DOUBLE_EQ(a.max_excess_ms, 3.0);
  EXPECT_EQ(a.worst_frame, 101);
  EXPECT_DOUBLE_EQ(a.share_of_overrun, 5.0 / 3.0);
}

TEST(Spikes, LimitKeepsTheLargest) {
  Fixture f = MakeFixture({{1, 1, 1, 2, 1}, {2, 2, 2, 8, 2}, {3, 3, 3, 3, 3}}, 10);
  std::vector<Spike> spikes = AttributeSpikes(f.samples, f.frames, f.stats, 1);
  ASSERT_EQ(spikes.size(), 1u);
  EXPECT_EQ(spikes[0].node, 1u);
  EXPECT_TRUE(AttributeSpikes(f.samples, f.frames, f.stats, 0).empty());
}

TEST(Spikes, TiesGoToTheSmallerIndex) {
  Fixture f = MakeFixture({{1, 1, 1, 5}, {1, 1, 1, 5}}, 5);  // both excess 4 in frame 3
  std::vector<Spike> spikes = AttributeSpikes(f.samples, f.frames, f.stats, 10);
  ASSERT_EQ(spikes.size(), 2u);
  EXPECT_EQ(spikes[0].node, 0u);
  EXPECT_EQ(spikes[1].node, 1u);
}

TEST(Spikes, MissingCookInTheSpikeFrameIsNoExcess) {
  Fixture f = MakeFixture({{1, 1, 1, kMissing}, {2, 2, 2, 20}}, 10);
  std::vector<Spike> spikes = AttributeSpikes(f.samples, f.frames, f.stats, 10);
  ASSERT_EQ(spikes.size(), 1u);
  EXPECT_EQ(spikes[0].node, 1u);
}

TEST(Spikes, NoFrameOverBudgetGivesNoSpikes) {
  Fixture f = MakeFixture({{2, 2, 2, 8, 2}}, 100);
  EXPECT_TRUE(AttributeSpikes(f.samples, f.frames, f.stats, 10).empty());
}

}  // namespace
}  // namespace cookgraph
