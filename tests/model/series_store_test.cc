#include "model/series_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <span>
#include <vector>

#include "model/samples.h"

namespace cookgraph {
namespace {

// Series of many lengths, each opened with a right, a short or no expected
// length, so that blocks fill, grow and move open series: every closed span
// still holds its values when all are written.
TEST(SeriesStore, ClosedSeriesKeepTheirValuesWhateverTheBlocksDo) {
  SeriesStore store;
  std::mt19937 random(7);
  std::vector<std::vector<double>> wanted;
  std::vector<std::span<const double>> got;
  double next = 0;
  for (int i = 0; i < 3000; ++i) {
    const size_t length = i % 500 == 0 ? random() % 300000 : random() % 2000;
    const size_t expected = i % 3 == 0 ? length : i % 3 == 1 ? length / 2 : 0;
    store.Open(expected);
    std::vector<double>& values = wanted.emplace_back();
    for (size_t k = 0; k < length; ++k) {
      values.push_back(next);
      store.Push(next++);
      ASSERT_EQ(store.open_size(), k + 1);
    }
    got.push_back(store.Close());
  }
  for (size_t i = 0; i < wanted.size(); ++i) {
    ASSERT_EQ(std::vector<double>(got[i].begin(), got[i].end()), wanted[i]) << "series " << i;
  }
}

TEST(SeriesStore, AnEmptySeriesIsAnEmptySpan) {
  SeriesStore store;
  store.Open(0);
  EXPECT_TRUE(store.Close().empty());
  store.Open(10);
  store.Push(1.5);
  const std::span<const double> one = store.Close();
  store.Open(10);
  EXPECT_TRUE(store.Close().empty());
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], 1.5);
}

// A copy of the samples holds what the original held: the store outlives
// both the original and the caller's pointer to it (AddressSanitizer fails
// this test if it does not).
TEST(SeriesStore, HeldSeriesLiveAsLongAsAnyCopyOfTheSamples) {
  auto store = std::make_shared<SeriesStore>();
  store->Open(3);
  for (double v : {1.0, kMissing, 3.0}) store->Push(v);
  const std::span<const double> values = store->Close();
  auto original = std::make_unique<Samples>(2);
  original->SetFrameIndex({0, 1, 2});
  original->Hold(std::move(store));
  original->SetHeldSeries(1, Metric::kCookMs, values);
  original->SetHeldSeries(9, Metric::kCookMs, values);  // no room: ignored, as SetSeries
  original->SetSeries(0, Metric::kGpuMs, {4.0, 5.0, 6.0});
  const Samples copy = *original;
  original.reset();
  ASSERT_EQ(copy.series(1, Metric::kCookMs).size(), 3u);
  EXPECT_EQ(copy.series(1, Metric::kCookMs)[2], 3.0);
  EXPECT_TRUE(IsMissing(copy.series(1, Metric::kCookMs)[1]));
  EXPECT_EQ(copy.series(0, Metric::kGpuMs)[1], 5.0);
  EXPECT_FALSE(copy.has_series(0, Metric::kCookMs));
}

}  // namespace
}  // namespace cookgraph
