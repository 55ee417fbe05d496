#ifndef COOKGRAPH_PIPELINE_BATCH_H_
#define COOKGRAPH_PIPELINE_BATCH_H_

// The batch pool (docs/architecture.md#data-flow, "Batches"): many inputs
// worked on by -j threads, their results taken in input order, the same for
// every number of threads. `cookgraph score` and cookgraph.score() in Python
// run their inputs through it; the page runs it on one thread.

#include <cstddef>
#include <functional>

namespace cookgraph::pipeline {

struct BatchOptions {
  /// Worker threads; 0 = one per core. With one (or one item), everything
  /// runs on the calling thread.
  unsigned jobs = 0;
  /// Once the work of some item failed, start no item after it and take
  /// none after it (cookgraph.score(errors='raise') raises the first error
  /// in input order and does no more work than it must).
  bool stop_at_failure = false;
};

/// Runs work(i) for i = 0 … n-1 on the options' threads, and take(i) on the
/// calling thread in order of i, each as soon as work(i) and every take before
/// it are done (so output can start before the last item is worked on).
/// work(i) returns true when item i failed; it must not throw. What work(i)
/// writes (into a slot of the caller's for item i) is visible to take(i).
void RunInOrder(size_t n, const BatchOptions& options, const std::function<bool(size_t)>& work,
                const std::function<void(size_t)>& take);

}  // namespace cookgraph::pipeline

#endif  // COOKGRAPH_PIPELINE_BATCH_H_
