#ifndef COOKGRAPH_WRITERS_SCORE_SECTIONS_H_
#define COOKGRAPH_WRITERS_SCORE_SECTIONS_H_

// Sections of `score --format json` (docs/commands.md#cookgraph-score) that the
// tools over an analysis (advisor/tools.h: `ask`'s functions and `cookgraph mcp`)
// return as they are, so that a node, a GPU breakdown or a thread is the same
// bytes wherever it is read. Written with json_out.h.

#include <cstddef>
#include <optional>
#include <string_view>

#include "metrics/analysis.h"
#include "model/snapshot.h"
#include "writers/json_out.h"

namespace cookgraph::score_internal {

/// The members "file" to "over_budget_frames" of a snapshot's object, into
/// the object `w` has open.
void WriteFrameSummary(JsonOut& w, std::string_view file, const Snapshot& snap, const Analysis& a);

/// Opens node `n`'s object of "nodes" and writes kNodeColumns, then
/// "gain_ms" when `gain` (score writes it with `--sort gain`); the caller adds
/// its own members and closes it. `rank` as RankAt gives it.
void WriteNode(JsonOut& w, const Snapshot& snap, const Analysis& a, NodeIndex n,
               std::optional<size_t> rank, bool gain);

/// A trace's "gpu" object (HTA's temporal breakdown per rank, step and stream,
/// kernel launches and overlap; without "launches" when `launches` is false),
/// or null without GPU kernels.
void WriteGpu(JsonOut& w, const GpuTime& gpu, bool launches = true);

/// The "launches" object of WriteGpu.
void WriteLaunches(JsonOut& w, const LaunchStats& l);

/// A GStreamer recording's members "threads" to "latency_ms", into the object
/// `w` has open.
void WriteStreaming(JsonOut& w, const Snapshot& snap, const Streaming& st);

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_WRITERS_SCORE_SECTIONS_H_
