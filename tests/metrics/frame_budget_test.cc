#include "metrics/frame_budget.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace cookgraph {
namespace {

using ::testing::ElementsAre;

// Two nodes over three frames:
//   a = [1, 2, NaN], b = [3, NaN, NaN]  ->  summed frame times [4, 2, 0].
Samples TwoNodes() {
  Samples samples(2);
  samples.SetFrameIndex({10, 11, 12});
  samples.SetSeries(0, Metric::kCookMs, {1, 2, kMissing});
  samples.SetSeries(1, Metric::kCookMs, {3, kMissing, kMissing});
  return samples;
}

TEST(Frames, FrameTimeIsTheSumOfCooksWhenNotMeasured) {
  FrameSummary f = SummariseFrames(TwoNodes(), /*budget_ms=*/3);
  EXPECT_FALSE(f.measured);
  EXPECT_THAT(f.frame_ms, ElementsAre(4.0, 2.0, 0.0));
  EXPECT_DOUBLE_EQ(f.mean_ms, 2.0);
  EXPECT_DOUBLE_EQ(f.p95_ms, 3.8);  // sorted [0, 2, 4], h = 1.9: 2 + 0.9 * 2
  EXPECT_EQ(f.max_ms, 4.0);
  EXPECT_EQ(f.budget_ms, 3.0);
  EXPECT_THAT(f.over_budget, ElementsAre(0u));
}

TEST(Frames, MeasuredFrameTimeWinsAndMissingFramesFallBackToTheSum) {
  Samples samples = TwoNodes();
  samples.SetFrameMs({16, kMissing, 20});
  FrameSummary f = SummariseFrames(samples, /*budget_ms=*/16);
  EXPECT_TRUE(f.measured);
  EXPECT_THAT(f.frame_ms, ElementsAre(16.0, 2.0, 20.0));
  EXPECT_DOUBLE_EQ(f.mean_ms, 38.0 / 3.0);
  EXPECT_EQ(f.max_ms, 20.0);
  // 16 is not over a 16 ms budget: over means strictly greater.
  EXPECT_THAT(f.over_budget, ElementsAre(2u));
}

TEST(Frames, EveryFrameOverBudget) {
  FrameSummary f = SummariseFrames(TwoNodes(), /*budget_ms=*/-1);
  EXPECT_THAT(f.over_budget, ElementsAre(0u, 1u, 2u));
}

TEST(Frames, NoFramesGivesZeros) {
  Samples samples(3);
  FrameSummary f = SummariseFrames(samples, 16.667);
  EXPECT_TRUE(f.frame_ms.empty());
  EXPECT_FALSE(f.measured);
  EXPECT_EQ(f.mean_ms, 0.0);
  EXPECT_EQ(f.p95_ms, 0.0);
  EXPECT_EQ(f.max_ms, 0.0);
  EXPECT_EQ(f.budget_ms, 16.667);
  EXPECT_TRUE(f.over_budget.empty());
}

TEST(Frames, ShortFrameMsCountsAsUnmeasuredForTheRest) {
  Samples samples = TwoNodes();
  samples.SetFrameMs({9});  // only the first frame was measured
  FrameSummary f = SummariseFrames(samples, 100);
  EXPECT_THAT(f.frame_ms, ElementsAre(9.0, 2.0, 0.0));
}

}  // namespace
}  // namespace cookgraph
