#ifndef COOKGRAPH_METRICS_OUTSIDE_NODES_H_
#define COOKGRAPH_METRICS_OUTSIDE_NODES_H_

// The time of a step in which no node ran: for ONNX Runtime, the part of each
// model_run that no node's kernel covers (docs/architecture.md#time-outside-nodes).
// The sequential executor leaves little of it (fences, the run's own set-up);
// the parallel executor hands nodes to its inter-op threads and waits for them,
// and on small models most of a run is that hand-off.

#include <cstddef>
#include <optional>
#include <vector>

#include "model/timeline.h"

namespace cookgraph {

struct OutsideNodes {
  size_t steps = 0;        // the steps measured (those with a marker), over every rank
  double mean_ms = 0;      // per step: its span less the union of its nodes' events in it
  double share = 0;        // the sum of those over the sum of the steps' spans, 0..1
  double max_ms = 0;       // the largest step's
  size_t node_tracks = 0;  // tracks that ran nodes other than the one holding the markers
};

/// Over every step marker of `timelines` (one per rank): the union of the
/// events that count for a node (Timeline::events with a node), clipped to
/// the marker's span, and what of the span it leaves. nullopt without steps.
std::optional<OutsideNodes> TimeOutsideNodes(const std::vector<Timeline>& timelines);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_OUTSIDE_NODES_H_
