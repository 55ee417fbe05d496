// ParallelStableSort (graph/parallel.h): the order std::stable_sort gives,
// whatever the size, equal elements in the order they came. ForEachIndexIf:
// every index once, on two threads when asked for, in order when not.

#include "graph/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
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

TEST(ForEachIndexIf, CallsEveryIndexOnceOnTwoThreadsWhenLarge) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{5000}}) {
    std::vector<std::atomic<int>> calls(n);
    std::vector<std::thread::id> by(n);
    // The calling thread waits at its first item until the other thread has
    // done one, so that both take part however the two are scheduled (on a
    // loaded machine the new thread may start after the caller could have
    // finished every item). Items of very different costs: the cheap ones
    // are taken while a costly one runs.
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<bool> other_ran{false};
    bool caller_waited = false;
    ForEachIndexIf(true, n, [&](size_t i) {
      if (std::this_thread::get_id() != caller) {
        other_ran = true;
      } else if (!caller_waited && n >= 5000) {
        caller_waited = true;
        for (int k = 0; k < 10000 && !other_ran; ++k) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
      volatile uint64_t spin = 0;
      for (size_t k = 0; k < (i % 97 == 0 ? 200000 : 10); ++k) spin = spin + k;
      calls[i].fetch_add(1);
      by[i] = std::this_thread::get_id();
    });
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(calls[i].load(), 1) << "n = " << n << ", i = " << i;
    if (n >= 5000 && HaveSecondCore()) {
      EXPECT_EQ(std::set<std::thread::id>(by.begin(), by.end()).size(), 2u);
    }
  }
}

TEST(ForEachIndexIf, RunsInOrderOnTheCallingThreadWhenNotLarge) {
  std::vector<size_t> seen;
  const std::thread::id caller = std::this_thread::get_id();
  ForEachIndexIf(false, 100, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    seen.push_back(i);
  });
  ASSERT_EQ(seen.size(), 100u);
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i);
}

TEST(ForEachIndexIf, AnExceptionOnTheSecondThreadStopsBothAndReachesTheCaller) {
  if (!HaveSecondCore()) GTEST_SKIP() << "one core: no second thread";
  // The calling thread's first item waits until the other thread has taken
  // one, which throws: the exception must come from that thread, and the
  // items left must not be worked through. Each of the caller's items takes
  // a millisecond: the exception takes some microseconds to unwind to where
  // it stops the other thread, and cheap items would be worked through
  // meanwhile (19 of 300 runs did more than 10, with other work on the
  // machine). Without the stop the caller would do all 999 others.
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> other_started{false};
  std::atomic<size_t> done{0};
  std::string caught;
  try {
    ForEachIndexIf(true, 1000, [&](size_t) {
      if (std::this_thread::get_id() != caller) {
        other_started = true;
        throw std::runtime_error("from the second thread");
      }
      for (int k = 0; k < 10000 && !other_started; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      done.fetch_add(1);
    });
  } catch (const std::runtime_error& e) {
    caught = e.what();
  }
  EXPECT_EQ(caught, "from the second thread");
  EXPECT_LT(done.load(), 500u);
}

}  // namespace
}  // namespace cookgraph
