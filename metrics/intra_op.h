#ifndef COOKGRAPH_METRICS_INTRA_OP_H_
#define COOKGRAPH_METRICS_INTRA_OP_H_

// ONNX Runtime's intra-op threads per node (docs/architecture.md#intra-op-threads):
// what each node's thread_scheduling_stats say about the parallel sections it
// ran, over the steps counted. A node's own thread runs its share of each
// section (Run), hands the rest out (Distribution) and waits for the pool's
// helper threads to finish theirs (Wait): a node whose time is mostly outside
// parallel sections gains nothing from more threads, and one that waits long
// has helpers too slow or too busy.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/timeline.h"

namespace cookgraph {

struct IntraOpNode {
  uint32_t node = kNoIndex;
  size_t calls = 0;              // its events in the steps counted
  double node_ms = 0;            // per step: its events' time
  double run_ms = 0;             // per step: its own thread running its share of parallel sections
  double wait_ms = 0;            // per step: ... waiting for the helpers (Wait + WaitRevoke)
  double distribution_ms = 0;    // per step: ... handing work out (Distribution + DistributionEnqueue)
  double parallel_sections = 0;  // per step
  /// Per step: the work items the helper threads ran during its events; known
  /// only when none of its events overlapped another node's (ONNX Runtime
  /// counts them per pool, not per node).
  bool helper_runs_known = false;
  double helper_runs = 0;
};

struct IntraOp {
  std::vector<std::string> pools;  // the pools' names, as the profile gives them
  uint32_t helpers = 0;            // the helper threads of the largest pool
  size_t steps = 0;                // the steps counted, over every rank
  // Per step, over every node:
  double run_ms = 0, wait_ms = 0, distribution_ms = 0;
  double helper_runs = 0;  // work items the helpers ran
  /// Every node with the stats, the most time in parallel sections first.
  std::vector<IntraOpNode> nodes;
};

/// Over the step markers of `timelines` (one per rank): each event with pool
/// stats (Timeline::pools) that starts inside a step counts for that step.
/// nullopt when no event of a counted step has them (no intra-op pool: one
/// thread, or not ONNX Runtime).
std::optional<IntraOp> IntraOpThreads(const std::vector<Timeline>& timelines);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_INTRA_OP_H_
