#include "model/samples.h"

#include <gtest/gtest.h>

#include "model/series_store.h"
#include "model/snapshot.h"

namespace cookgraph {
namespace {

TEST(Samples, MetricNamesRoundTrip) {
  for (int i = 0; i < kMetricCount; ++i) {
    auto metric = static_cast<Metric>(i);
    EXPECT_EQ(ParseMetric(MetricName(metric)), metric);
  }
  EXPECT_EQ(MetricName(Metric::kCookMs), "cook_ms");
  EXPECT_EQ(MetricName(Metric::kGpuMs), "gpu_ms");
  EXPECT_EQ(MetricName(Metric::kCpuMemMb), "cpu_mem_mb");
  EXPECT_EQ(MetricName(Metric::kGpuMemMb), "gpu_mem_mb");
  EXPECT_EQ(MetricName(Metric::kCooks), "cooks");
  EXPECT_EQ(ParseMetric("cook-ms"), std::nullopt);
  EXPECT_EQ(ParseMetric(""), std::nullopt);
}

TEST(Samples, ConstructorMakesRoomWithoutSeries) {
  Samples samples(3);
  EXPECT_EQ(samples.node_count(), 3u);
  EXPECT_EQ(samples.frame_count(), 0u);
  EXPECT_FALSE(samples.has_frame_ms());
  for (int m = 0; m < kMetricCount; ++m) {
    EXPECT_FALSE(samples.any_series(static_cast<Metric>(m)));
    for (NodeIndex n = 0; n < 3; ++n) EXPECT_FALSE(samples.has_series(n, static_cast<Metric>(m)));
  }
  EXPECT_EQ(Samples().node_count(), 0u);
}

TEST(Samples, SetSeriesStoresAndReplaces) {
  Samples samples(2);
  samples.SetFrameIndex({10, 11, 12});
  samples.SetSeries(1, Metric::kGpuMs, {1.0, kMissing, 3.0});
  EXPECT_TRUE(samples.has_series(1, Metric::kGpuMs));
  EXPECT_FALSE(samples.has_series(0, Metric::kGpuMs));
  EXPECT_FALSE(samples.has_series(1, Metric::kCookMs));
  EXPECT_TRUE(samples.any_series(Metric::kGpuMs));
  EXPECT_FALSE(samples.any_series(Metric::kCookMs));
  auto series = samples.series(1, Metric::kGpuMs);
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0], 1.0);
  EXPECT_TRUE(IsMissing(series[1]));
  EXPECT_EQ(series[2], 3.0);

  samples.SetSeries(1, Metric::kGpuMs, {4.0, 5.0, 6.0});
  EXPECT_EQ(samples.series(1, Metric::kGpuMs)[0], 4.0);
  samples.SetSeries(1, Metric::kGpuMs, {});
  EXPECT_FALSE(samples.any_series(Metric::kGpuMs));
}

TEST(Samples, SeriesForANodeWithoutRoomIsIgnored) {
  Samples samples(1);
  samples.SetFrameIndex({0});
  samples.SetSeries(5, Metric::kCookMs, {1.0});
  EXPECT_EQ(samples.node_count(), 1u);
  EXPECT_FALSE(samples.any_series(Metric::kCookMs));
}

// diff's --frames: every series, vector-held or in a store, and the frame
// columns cut alike; a node without a series stays without.
TEST(Samples, KeepFramesCutsEverySeriesAlike) {
  auto store = std::make_shared<SeriesStore>();
  store->Open(4);
  for (double v : {0.1, 0.2, kMissing, 0.4}) store->Push(v);
  const std::span<const double> held = store->Close();
  Samples samples(3);
  samples.SetFrameIndex({10, 11, 12, 13});
  samples.SetFrameMs({16.0, 17.0, 18.0, 19.0});
  samples.SetSeries(0, Metric::kCookMs, {1.0, 2.0, 3.0, 4.0});
  samples.Hold(std::move(store));
  samples.SetHeldSeries(2, Metric::kGpuMs, held);
  const std::vector<size_t> keep = {1, 2};
  const Samples cut = samples.KeepFrames(keep);
  EXPECT_EQ(cut.frame_index(), (std::vector<int64_t>{11, 12}));
  EXPECT_EQ(std::vector<double>(cut.frame_ms().begin(), cut.frame_ms().end()),
            (std::vector<double>{17.0, 18.0}));
  EXPECT_EQ(std::vector<double>(cut.series(0, Metric::kCookMs).begin(),
                                cut.series(0, Metric::kCookMs).end()),
            (std::vector<double>{2.0, 3.0}));
  ASSERT_EQ(cut.series(2, Metric::kGpuMs).size(), 2u);
  EXPECT_EQ(cut.series(2, Metric::kGpuMs)[0], 0.2);
  EXPECT_TRUE(IsMissing(cut.series(2, Metric::kGpuMs)[1]));
  EXPECT_FALSE(cut.has_series(1, Metric::kCookMs));
  EXPECT_FALSE(cut.has_profiler_ms());
}

TEST(Samples, FrameIndexAndFrameMs) {
  Samples samples(0);
  samples.SetFrameIndex({1200, 1201});
  samples.SetFrameMs({16.1, kMissing});
  EXPECT_EQ(samples.frame_count(), 2u);
  EXPECT_EQ(samples.frame_index()[1], 1201);
  EXPECT_TRUE(samples.has_frame_ms());
  EXPECT_EQ(samples.frame_ms()[0], 16.1);
  EXPECT_TRUE(IsMissing(samples.frame_ms()[1]));
}

TEST(SnapshotInfo, BudgetPrefersFrameBudgetThenFpsThenDefault) {
  SnapshotInfo info;
  EXPECT_DOUBLE_EQ(info.budget_ms(), kDefaultBudgetMs);
  EXPECT_DOUBLE_EQ(info.budget_ms(), 16.667);
  info.fps = 50;
  EXPECT_DOUBLE_EQ(info.budget_ms(), 20.0);  // 1000 / 50
  info.frame_budget_ms = 33.3;
  EXPECT_DOUBLE_EQ(info.budget_ms(), 33.3);
}

TEST(SnapshotInfo, NonsensicalBudgetOrFpsFallsThrough) {
  SnapshotInfo info;
  info.fps = 0;
  EXPECT_DOUBLE_EQ(info.budget_ms(), kDefaultBudgetMs);
  info.fps = 25;
  info.frame_budget_ms = -1;
  EXPECT_DOUBLE_EQ(info.budget_ms(), 40.0);
}

}  // namespace
}  // namespace cookgraph
