#ifndef COOKGRAPH_GRAPH_PARALLEL_H_
#define COOKGRAPH_GRAPH_PARALLEL_H_

// Two pieces of work at once, for the hot paths that split evenly in two
// (issue 5: the target machine has two cores). Results must not depend on the
// split: callers give each piece its own output and combine them in a fixed
// order.

#include <exception>
#include <thread>

namespace cookgraph {

/// True when a second thread can run at the same time as this one.
inline bool HaveSecondCore() { return std::thread::hardware_concurrency() >= 2; }

/// Runs `first` on the calling thread and `second` on a new one, and returns
/// when both are done. An exception from either is rethrown here, `first`'s
/// before `second`'s, only once both have finished.
template <typename First, typename Second>
void RunBoth(First&& first, Second&& second) {
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
}

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_PARALLEL_H_
