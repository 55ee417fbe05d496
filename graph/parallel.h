#ifndef COOKGRAPH_GRAPH_PARALLEL_H_
#define COOKGRAPH_GRAPH_PARALLEL_H_

// Two pieces of work at once, for the hot paths that split evenly in two
// (issue 5: the target machine has two cores). Results must not depend on the
// split: callers give each piece its own output and combine them in a fixed
// order.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace cookgraph {

/// True when a second thread can run at the same time as this one: never in a
/// build without threads (COOKGRAPH_SINGLE_THREAD, the WebAssembly build:
/// a page opened from file:// has no SharedArrayBuffer).
inline bool HaveSecondCore() {
#ifdef COOKGRAPH_SINGLE_THREAD
  return false;
#else
  return std::thread::hardware_concurrency() >= 2;
#endif
}

/// Runs `first` on the calling thread and `second` on a new one, and returns
/// when both are done. An exception from either is rethrown here, `first`'s
/// before `second`'s, only once both have finished. A build without threads
/// runs `first`, then `second`, on the calling thread.
template <typename First, typename Second>
void RunBoth(First&& first, Second&& second) {
#ifdef COOKGRAPH_SINGLE_THREAD
  first();
  second();
#else
  std::exception_ptr failed_second;
  std::thread worker([&] {
    try {
      second();
    } catch (...) {
      failed_second = std::current_exception();
    }
  });
  try {
    first();
  } catch (...) {
    worker.join();
    throw;
  }
  worker.join();
  if (failed_second) std::rethrow_exception(failed_second);
#endif
}

/// RunBoth when `large` and a second core exists; else `first`, then `second`,
/// on the calling thread. For work worth a thread only past some size.
template <typename First, typename Second>
void RunBothIf(bool large, First&& first, Second&& second) {
  if (large && HaveSecondCore()) {
    RunBoth(first, second);
  } else {
    first();
    second();
  }
}

/// From this many slices, events or flows on, a trace's passes after the
/// parse run their two parts on two cores (RunBothIf, RunHalvesIf,
/// ParallelStableSort): a pass over 16k items takes about a millisecond, some
/// twenty times what starting a thread costs. ResNet-50's sample trace
/// (49k slices) gained 3-5 ms of its 65 from it
/// (docs/performance.md#both-cores-for-a-small-trace).
inline constexpr size_t kParallelTraceItems = size_t{1} << 14;

/// `part(from, to, half)` for [0, n / 2) as half 0 and [n / 2, n) as half 1:
/// RunBothIf(large, ...) of the two. For work on n items whose results depend
/// on each item alone (each half writes its own output, or its own items).
template <typename Part>
void RunHalvesIf(bool large, size_t n, Part&& part) {
  const size_t mid = n / 2;
  RunBothIf(large, [&] { part(size_t{0}, mid, size_t{0}); }, [&] { part(mid, n, size_t{1}); });
}

/// `each(i)` for every i in [0, n): when `large` and a second core exists, on
/// two threads, each taking the next i as it finishes one, for work whose
/// cost varies from item to item (RunHalvesIf would leave one core idle
/// while the other ends a costlier half); else in order on the calling
/// thread. For work on n items whose results depend on each item alone. An
/// exception from `each` leaves the items no thread has taken yet, and
/// reaches the caller as RunBoth's do.
template <typename Each>
void ForEachIndexIf(bool large, size_t n, Each&& each) {
  if (!large || n < 2 || !HaveSecondCore()) {
    for (size_t i = 0; i < n; ++i) each(i);
    return;
  }
  std::atomic<size_t> next{0};
  auto take = [&] {
    try {
      for (size_t i = next.fetch_add(1, std::memory_order_relaxed); i < n;
           i = next.fetch_add(1, std::memory_order_relaxed)) {
        each(i);
      }
    } catch (...) {
      next.store(n, std::memory_order_relaxed);  // the other thread stops at its next item
      throw;
    }
  };
  RunBoth(take, take);
}

/// Sorts `v` as std::stable_sort would, its two halves on two cores and then
/// merged (std::inplace_merge keeps the first half's equal elements first),
/// when it is large enough to gain from it.
template <typename T, typename Less>
void ParallelStableSort(std::vector<T>& v, Less less) {
  if (v.size() < kParallelTraceItems || !HaveSecondCore()) {
    std::stable_sort(v.begin(), v.end(), less);
    return;
  }
  const auto middle = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  RunBoth([&] { std::stable_sort(v.begin(), middle, less); },
          [&] { std::stable_sort(middle, v.end(), less); });
  std::inplace_merge(v.begin(), middle, v.end(), less);
}

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_PARALLEL_H_
