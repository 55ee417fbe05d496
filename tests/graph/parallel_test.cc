// ParallelStableSort (graph/parallel.h): the order std::stable_sort gives,
// whatever the size, equal elements in the order they came.

#include "graph/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace cookgraph {
namespace {

struct Key {
  uint32_t thread;
  int64_t start;
  uint32_t index;  // where it came: equal keys keep this order
};

// Not a total order: many keys tie, and only stability decides their order.
bool Less(const Key& x, const Key& y) {
  if (x.thread != y.thread) return x.thread < y.thread;
  return x.start < y.start;
}

TEST(ParallelStableSort, GivesStdStableSortsOrderAtEverySize) {
  std::mt19937_64 rng(11);
  // Below the two-core threshold, at it, and well above it (odd sizes split
  // unevenly); few distinct threads and starts, so that ties are many.
  for (size_t n : {size_t{0}, size_t{1}, size_t{1000}, kParallelTraceItems - 1, kParallelTraceItems,
                   kParallelTraceItems + 1, size_t{300001}}) {
    std::vector<Key> keys(n);
    for (uint32_t i = 0; i < n; ++i) {
      keys[i] = {static_cast<uint32_t>(rng() % 5), static_cast<int64_t>(rng() % 1000), i};
    }
    std::shuffle(keys.begin(), keys.end(), rng);
    std::vector<Key> expected = keys;
    std::stable_sort(expected.begin(), expected.end(), Less);
    ParallelStableSort(keys, Less);
    ASSERT_EQ(keys.size(), expected.size());
    for (size_t i = 0; i < n; ++i) {
      ASSERT_EQ(keys[i].index, expected[i].index) << "n = " << n << ", position " << i;
    }
  }
}

TEST(ParallelStableSort, SortsAlreadySortedAndReversedInput) {
  std::vector<uint64_t> up(200000), down(200000);
  for (uint64_t i = 0; i < up.size(); ++i) {
    up[i] = i;
    down[i] = up.size() - i;
  }
  ParallelStableSort(up, [](uint64_t a, uint64_t b) { return a < b; });
  ParallelStableSort(down, [](uint64_t a, uint64_t b) { return a < b; });
  EXPECT_TRUE(std::is_sorted(up.begin(), up.end()));
  EXPECT_TRUE(std::is_sorted(down.begin(), down.end()));
  EXPECT_EQ(down.front(), 1u);
  EXPECT_EQ(down.back(), 200000u);
}

}  // namespace
}  // namespace cookgraph
