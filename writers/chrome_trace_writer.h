#ifndef COOKGRAPH_WRITERS_CHROME_TRACE_WRITER_H_
#define COOKGRAPH_WRITERS_CHROME_TRACE_WRITER_H_

// `cookgraph trace`: a snapshot as a Chrome trace (Trace Event Format, JSON
// object form) that Perfetto and chrome://tracing open.
//
// Layout. Process 1 is the network. Thread 0 holds the frames: one complete
// ("X") event per frame named "ProfilerStep#<frame number>", the name PyTorch
// uses, so that any tool (and cookgraph's own Chrome reader) sees the frames.
// Thread 1 + i holds the i-th node in topological order, named by the node's
// id, sorted in that order. In each frame a node's cooks are laid out as soon
// as every node it depends on (non-feedback edges, earlier in the order) has
// finished: one "X" event per cook (the frame's cook_ms split evenly over its
// `cooks`, at least one), back to back, so the picture shows the dependency
// schedule, and a node's events never overlap on its thread. A frame lasts its
// measured frame time or, when longer, until its last cook ends (plus 1 µs);
// frames follow one another. Inputs with recorded timing (Chrome traces:
// Snapshot::timing) keep it: each frame starts where its marker did and lasts
// as long, and a node's cooks start where its first recorded slice did (moved
// inside its frame when a launched kernel ran after it); cooks that would
// overlap on one track (a node busy on several threads at once) go on extra
// tracks named "<id> (2)" and so on. The critical path is drawn in every frame
// as flow events from each node's first cook to the next one's. Timestamps and
// durations are µs with three decimals (whole nanoseconds; cooks laid back to
// back touch and never overlap).
//
// Reading the output back with the Chrome reader gives the same nodes (the
// event names are the node ids) and the same per-frame cook_ms and cooks.

#include <string>

#include "base/error.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

/// Writes the trace to `path` atomically ("-" = standard output).
Status WriteTraceFile(const Snapshot& snapshot, const Analysis& analysis, const std::string& path);

/// The trace as a string (tests, small networks).
std::string RenderTrace(const Snapshot& snapshot, const Analysis& analysis);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_CHROME_TRACE_WRITER_H_
