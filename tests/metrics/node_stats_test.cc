#include "metrics/node_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cookgraph {
namespace {

// One node over `frames` frames with the given cook_ms series.
Samples OneNode(std::vector<double> cook_ms) {
  Samples samples(1);
  std::vector<int64_t> index(cook_ms.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<int64_t>(100 + i);
  samples.SetFrameIndex(std::move(index));
  samples.SetSeries(0, Metric::kCookMs, std::move(cook_ms));
  return samples;
}

TEST(NodeStats, MissingValuesAreNotZero) {
  // cook_ms = [1, 2, NaN, 5] over 4 frames: C = {1, 2, 5}.
  Samples samples = OneNode({1, 2, kMissing, 5});
  NodeStats s = ComputeNodeStats(samples, 0, /*mean_frame_ms=*/10);
  EXPECT_EQ(s.cooked_frames, 3u);
  // avg = (1 + 2 + 5) / 3 = 8/3 (a zero for the NaN frame would give 2).
  EXPECT_DOUBLE_EQ(s.avg_ms, 8.0 / 3.0);
  // deviations -5/3, -2/3, 7/3; squares 25/9 + 4/9 + 49/9 = 78/9; / 3 -> 26/9.
  EXPECT_DOUBLE_EQ(s.std_ms, std::sqrt(26.0) / 3.0);
  EXPECT_DOUBLE_EQ(s.score, 8.0 / 3.0 * (1 + std::sqrt(26.0) / 3.0));
  // sorted [1, 2, 5]: p50 h = 1 -> 2; p95 h = 1.9 -> 2 + 0.9 * 3; p99 h = 1.98 -> 2 + 0.98 * 3.
  EXPECT_DOUBLE_EQ(s.p50_ms, 2.0);
  EXPECT_DOUBLE_EQ(s.p95_ms, 4.7);
  EXPECT_DOUBLE_EQ(s.p99_ms, 4.94);
  EXPECT_EQ(s.max_ms, 5.0);
  EXPECT_DOUBLE_EQ(s.per_frame_ms, 2.0);      // 8 / 4 frames
  EXPECT_DOUBLE_EQ(s.share, 0.2);             // 2 / 10
  EXPECT_DOUBLE_EQ(s.cooks_per_frame, 0.75);  // no cooks series: |C| / |F| = 3 / 4
  EXPECT_EQ(s.gpu_avg_ms, std::nullopt);
  EXPECT_EQ(s.cpu_mem_mb, std::nullopt);
  EXPECT_EQ(s.gpu_mem_mb, std::nullopt);
}

TEST(NodeStats, ShareIsZeroWhenMeanFrameTimeIsZero) {
  Samples samples = OneNode({1, 2, kMissing, 5});
  EXPECT_EQ(ComputeNodeStats(samples, 0, 0).share, 0.0);
}

TEST(NodeStats, CooksSeriesIsSummedOverAllFrames) {
  Samples samples = OneNode({1, 2, kMissing, 5});
  // A NaN count is a frame without cooks: (1 + 2 + 0 + 3) / 4.
  samples.SetSeries(0, Metric::kCooks, {1, 2, kMissing, 3});
  EXPECT_DOUBLE_EQ(ComputeNodeStats(samples, 0, 10).cooks_per_frame, 1.5);
}

TEST(NodeStats, GpuAndMemoryAreMeansOverFramesWithAValue) {
  Samples samples = OneNode({1, 2, kMissing, 5});
  samples.SetSeries(0, Metric::kGpuMs, {0.5, kMissing, kMissing, 1.5});  // (0.5 + 1.5) / 2
  samples.SetSeries(0, Metric::kCpuMemMb, {kMissing, kMissing, kMissing, kMissing});
  samples.SetSeries(0, Metric::kGpuMemMb, {8, 8, 9, 9});  // also frames without a cook
  NodeStats s = ComputeNodeStats(samples, 0, 10);
  ASSERT_TRUE(s.gpu_avg_ms.has_value());
  EXPECT_DOUBLE_EQ(*s.gpu_avg_ms, 1.0);
  EXPECT_EQ(s.cpu_mem_mb, std::nullopt);  // a series of NaN has no value
  ASSERT_TRUE(s.gpu_mem_mb.has_value());
  EXPECT_DOUBLE_EQ(*s.gpu_mem_mb, 8.5);
  // Per frame as per_frame_ms: (0.5 + 1.5) over all 4 frames; its share of
  // the 10 ms mean frame.
  ASSERT_TRUE(s.gpu_per_frame_ms && s.gpu_share);
  EXPECT_DOUBLE_EQ(*s.gpu_per_frame_ms, 0.5);
  EXPECT_DOUBLE_EQ(*s.gpu_share, 0.05);
  EXPECT_FALSE(ComputeNodeStats(OneNode({1, 2}), 0, 10).gpu_per_frame_ms);  // no gpu_ms series
}

TEST(NodeStats, NeverCookedNodeHasZeroStatistics) {
  Samples samples = OneNode({kMissing, kMissing});
  NodeStats s = ComputeNodeStats(samples, 0, 10);
  EXPECT_EQ(s.cooked_frames, 0u);
  EXPECT_EQ(s.avg_ms, 0.0);
  EXPECT_EQ(s.std_ms, 0.0);
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.p50_ms, 0.0);
  EXPECT_EQ(s.p95_ms, 0.0);
  EXPECT_EQ(s.p99_ms, 0.0);
  EXPECT_EQ(s.max_ms, 0.0);
  EXPECT_EQ(s.per_frame_ms, 0.0);
  EXPECT_EQ(s.share, 0.0);
  EXPECT_EQ(s.cooks_per_frame, 0.0);
}

TEST(NodeStats, NodeWithoutSeriesHasZeroStatistics) {
  Samples samples(2);
  samples.SetFrameIndex({1, 2, 3});
  NodeStats s = ComputeNodeStats(samples, 1, 10);
  EXPECT_EQ(s.cooked_frames, 0u);
  EXPECT_EQ(s.score, 0.0);
  EXPECT_EQ(s.cooks_per_frame, 0.0);
}

TEST(NodeStats, NoFramesGivesAllZero) {
  Samples samples(1);
  NodeStats s = ComputeNodeStats(samples, 0, 0);
  EXPECT_EQ(s.cooked_frames, 0u);
  EXPECT_EQ(s.per_frame_ms, 0.0);
  EXPECT_EQ(s.cooks_per_frame, 0.0);
  EXPECT_EQ(s.gpu_avg_ms, std::nullopt);
}

TEST(NodeStats, NodeOutsideTheSamplesIsNeverCooked) {
  Samples samples = OneNode({1, 2});
  EXPECT_EQ(ComputeNodeStats(samples, 7, 10).cooked_frames, 0u);
}

TEST(NodeStats, ShortSeriesReadsAsMissingAndLongSeriesIsCut) {
  Samples samples(2);
  samples.SetFrameIndex({1, 2, 3, 4});
  samples.SetSeries(0, Metric::kCookMs, {2, 4});             // frames 3 and 4: not cooked
  samples.SetSeries(1, Metric::kCookMs, {1, 1, 1, 1, 100});  // the 5th value is not a frame
  NodeStats short_one = ComputeNodeStats(samples, 0, 0);
  EXPECT_EQ(short_one.cooked_frames, 2u);
  EXPECT_DOUBLE_EQ(short_one.avg_ms, 3.0);
  EXPECT_DOUBLE_EQ(short_one.per_frame_ms, 1.5);  // 6 / 4
  NodeStats long_one = ComputeNodeStats(samples, 1, 0);
  EXPECT_EQ(long_one.cooked_frames, 4u);
  EXPECT_EQ(long_one.max_ms, 1.0);
}

TEST(NodeStats, StandardDeviationStaysAccurateForLargeCloseValues) {
  // 1e8 + {1, 2, 3, 4}: mean 1e8 + 2.5, deviations +-0.5 and +-1.5,
  // population variance (0.25 + 2.25) * 2 / 4 = 1.25. A one-pass sum of
  // squares loses every digit of this at 1e16.
  Samples samples = OneNode({1e8 + 1, 1e8 + 2, 1e8 + 3, 1e8 + 4});
  NodeStats s = ComputeNodeStats(samples, 0, 0);
  EXPECT_DOUBLE_EQ(s.avg_ms, 1e8 + 2.5);
  EXPECT_NEAR(s.std_ms, std::sqrt(1.25), 1e-9 * std::sqrt(1.25));
}

TEST(NodeStats, ConstantSeriesHasZeroDeviation) {
  Samples samples = OneNode({0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1});
  NodeStats s = ComputeNodeStats(samples, 0, 0);
  EXPECT_EQ(s.std_ms, 0.0);
  EXPECT_DOUBLE_EQ(s.score, s.avg_ms);
}

TEST(NodeStats, MatchesAnIndependentComputationOnManyFrames) {
  // A deterministic pseudo-random series with holes, checked against sums in
  // long double done here.
  std::vector<double> cook(600);
  uint64_t state = 12345;
  for (double& v : cook) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
    v = u < 0.1 ? kMissing : 0.2 + 3 * u * u;
  }
  long double sum = 0, count = 0;
  for (double v : cook) {
    if (std::isnan(v)) continue;
    sum += v;
    count += 1;
  }
  const long double mean = sum / count;
  long double squares = 0;
  for (double v : cook) {
    if (!std::isnan(v)) squares += (v - mean) * (v - mean);
  }
  const double expected_std = static_cast<double>(std::sqrt(squares / count));

  Samples samples = OneNode(cook);
  NodeStats s = ComputeNodeStats(samples, 0, 0);
  EXPECT_EQ(s.cooked_frames, static_cast<size_t>(count));
  EXPECT_NEAR(s.avg_ms, static_cast<double>(mean), 1e-9 * static_cast<double>(mean));
  EXPECT_NEAR(s.std_ms, expected_std, 1e-9 * expected_std);
  EXPECT_NEAR(s.per_frame_ms, static_cast<double>(sum / 600), 1e-9 * s.per_frame_ms);
}

}  // namespace
}  // namespace cookgraph
