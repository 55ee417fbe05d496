#include "metrics/profiler_overhead.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cookgraph {
namespace {

// One node over four frames, cook_ms [1, 1, 1, 1] (the frame time when
// frame_ms is not measured).
Samples FourFrames() {
  Samples samples(1);
  samples.SetFrameIndex({10, 11, 12, 13});
  samples.SetSeries(0, Metric::kCookMs, {1, 1, 1, 1});
  return samples;
}

ProfilerOverhead Summarise(const Samples& samples) {
  auto p = SummariseProfiler(samples, SummariseFrames(samples, /*budget_ms=*/16));
  EXPECT_TRUE(p.has_value());
  return p.value_or(ProfilerOverhead{});
}

TEST(ProfilerOverhead, NoneWithoutProfilerMs) {
  Samples samples = FourFrames();
  samples.SetFrameMs({4, 4, 4, 4});
  EXPECT_FALSE(SummariseProfiler(samples, SummariseFrames(samples, 16)).has_value());
}

TEST(ProfilerOverhead, MeanP95MaxOverTheMeasuredFramesAndShareOfTheMeanFrameTime) {
  Samples samples = FourFrames();
  samples.SetFrameMs({4, 8, 4, 4});  // mean 5
  samples.SetProfilerMs({0.5, 0.25, kMissing, 0.75});
  const ProfilerOverhead p = Summarise(samples);
  EXPECT_EQ(p.frames, 3u);
  EXPECT_DOUBLE_EQ(p.ms.mean, 0.5);
  EXPECT_DOUBLE_EQ(p.ms.p95, 0.725);  // sorted [0.25, 0.5, 0.75], h = 1.9: 0.5 + 0.9 * 0.25
  EXPECT_EQ(p.ms.max, 0.75);
  ASSERT_TRUE(p.share_of_frame.has_value());
  EXPECT_DOUBLE_EQ(*p.share_of_frame, 0.1);  // 0.5 / 5
}

TEST(ProfilerOverhead, NoShareWhenTheFrameTimeIsNotMeasured) {
  Samples samples = FourFrames();
  samples.SetProfilerMs({0.5, 0.5, 0.5, 0.5});
  const ProfilerOverhead p = Summarise(samples);
  EXPECT_EQ(p.frames, 4u);
  EXPECT_EQ(p.ms.mean, 0.5);
  EXPECT_FALSE(p.share_of_frame.has_value());
}

TEST(ProfilerOverhead, NoFrameMeasuredHasNoStatistics) {
  Samples samples = FourFrames();
  samples.SetFrameMs({4, 4, 4, 4});
  samples.SetProfilerMs({kMissing, kMissing, kMissing, kMissing});
  const ProfilerOverhead p = Summarise(samples);
  EXPECT_EQ(p.frames, 0u);
  EXPECT_TRUE(std::isnan(p.ms.mean));
  EXPECT_TRUE(std::isnan(p.ms.p95));
  EXPECT_TRUE(std::isnan(p.ms.max));
  EXPECT_FALSE(p.share_of_frame.has_value());
}

TEST(ProfilerOverhead, ValuesPastTheLastFrameBelongToNoFrame) {
  Samples samples = FourFrames();
  samples.SetProfilerMs({1, 1, 1, 1, 100});
  const ProfilerOverhead p = Summarise(samples);
  EXPECT_EQ(p.frames, 4u);
  EXPECT_EQ(p.ms.max, 1.0);
}

}  // namespace
}  // namespace cookgraph
