#ifndef COOKGRAPH_WRITERS_SCORE_SECTIONS_H_
#define COOKGRAPH_WRITERS_SCORE_SECTIONS_H_

// Sections of `score --format json` (docs/commands.md#cookgraph-score) that the
// tools over an analysis (advisor/tools.h: `ask`'s functions and `cookgraph mcp`)
// return as they are, so that a node, a GPU breakdown or a thread is the same
// bytes wherever it is read. Written with base/json_writer.h (JsonStyle::kShortest).

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "metrics/analysis.h"
#include "base/json_writer.h"
#include "model/snapshot.h"

namespace cookgraph::score_internal {

/// The members "file" to "over_budget_frames" of a snapshot's object, into
/// the object `w` has open.
void WriteFrameSummary(JsonWriter& w, std::string_view file, const Snapshot& snap, const Analysis& a);

/// Opens node `n`'s object of "nodes" and writes kNodeColumns, then
/// "gain_ms" when `gain` (score writes it with `--sort gain`); the caller adds
/// its own members and closes it. `rank` as RankAt gives it.
void WriteNode(JsonWriter& w, const Snapshot& snap, const Analysis& a, NodeIndex n,
               std::optional<size_t> rank, bool gain);

/// A trace's "gpu" object (HTA's temporal breakdown per rank, step and stream,
/// kernel launches and overlap; without "launches" when `launches` is false),
/// or null without GPU kernels.
void WriteGpu(JsonWriter& w, const GpuTime& gpu, bool launches = true);

/// An array of the nodes' ids.
void WriteIds(JsonWriter& w, const Network& network, const std::vector<NodeIndex>& nodes);

/// One rank's GPU time in one step, the members "kernels" to
/// "non_compute_ms" (docs/architecture.md#traces-steps-ranks-and-memory), into
/// the object `w` has open: score's "gpu" steps and the tools' trace step.
void WriteStepGpuTime(JsonWriter& w, const StepGpuTime& s);

/// The members "peak_allocated_mb" and "peak_reserved_mb" of a device's or a
/// step's memory, into the object `w` has open.
void WritePeaks(JsonWriter& w, double allocated_mb, double reserved_mb);

/// The slowest step's "grew" array: each node's id and "excess_ms"; nodes
/// outside `net` are left out.
void WriteGrew(JsonWriter& w, const Network& net, const std::vector<NodeExcess>& nodes);

/// The "launches" object of WriteGpu.
void WriteLaunches(JsonWriter& w, const LaunchStats& l);

/// A GStreamer recording's members "threads" to "latency_ms", into the object
/// `w` has open.
void WriteStreaming(JsonWriter& w, const Snapshot& snap, const Streaming& st);

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_WRITERS_SCORE_SECTIONS_H_
