#ifndef COOKGRAPH_METRICS_ROLLUP_H_
#define COOKGRAPH_METRICS_ROLLUP_H_

// Roll-up of node statistics by container (`--group-by container`).

#include <string>
#include <vector>

#include "metrics/analysis.h"

namespace cookgraph {

struct ContainerStats {
  std::string id;      // container id ("" = top level)
  int depth = 0;
  size_t nodes = 0;          // nodes anywhere beneath it
  size_t cooked_nodes = 0;   // of those, nodes that cooked
  double per_frame_ms = 0;   // sum of per_frame_ms of all nodes beneath it
  double self_per_frame_ms = 0;  // sum over its direct children only
  double share = 0;          // per_frame_ms / mean frame time
  double max_ms = 0;         // the largest max_ms beneath it
  std::string costliest;     // id of the node beneath it with the largest per_frame_ms
};

/// One entry per container, by per_frame_ms (largest first; ties by id).
std::vector<ContainerStats> RollUp(const Snapshot& snapshot, const Analysis& analysis);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_ROLLUP_H_
