#ifndef COOKGRAPH_ADAPTERS_GSTREAMER_GSTREAMER_H_
#define COOKGRAPH_ADAPTERS_GSTREAMER_GSTREAMER_H_

// Reads a GStreamer recording (a .dot dump and the tracers' log) into a
// Snapshot, in three stages: bytes (ByteSource), records (records.h: the dump
// parsed whole, the log streamed line by line), the build (build.cc). How to
// record, what becomes what, frames, threads and bad input:
// docs/formats.md#gstreamer and docs/formats.md#threads-work-and-latency.

#include <string>
#include <string_view>
#include <vector>

#include "adapters/input_limits.h"
#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

/// The files of one GStreamer recording.
struct GstreamerInputs {
  std::string dot;  // the chosen .dot dump
  std::string log;  // the tracer log; "" = none given or found
};

/// Picks the dump and the log among `paths`: files (recognised by content,
/// plain or gzip) and directories (their files, not recursively; files that
/// are neither are passed over). Of several dumps, the PAUSED_PLAYING one
/// wins, and among equals the latest by the time in its name
/// (`0.00.01.234567890-gst-launch.PAUSED_PLAYING.dot`), else by modification
/// time. Errors: a path that is missing, a file given by name that is neither,
/// a file in a folder that cannot be read (a corrupt gzip), no dump at all,
/// or more than one log.
Result<GstreamerInputs> FindGstreamerInputs(const std::vector<std::string>& paths);

/// Reads the recording at `paths` (see FindGstreamerInputs). Without a log the
/// snapshot is the graph alone, with a warning. The dump is read whole, so it
/// is bounded by the dot-size limit; the log is streamed.
Result<Snapshot> ReadGstreamer(const std::vector<std::string>& paths,
                               const InputLimits& limits = {});

/// Parses a dump and a log given as text (`log` empty = none); the names are
/// used in errors, warnings and SnapshotInfo.source.
Result<Snapshot> ParseGstreamer(std::string_view dot, std::string_view log,
                                const std::string& dot_name = "pipeline.dot",
                                const std::string& log_name = "trace.log",
                                const InputLimits& limits = {});

/// True when `first_bytes` (the start of the decompressed input) look like a
/// dump of gst_debug_bin_to_dot_file: `digraph pipeline {` with a GStreamer
/// label or cluster ahead.
bool LooksLikeGstreamerDot(std::string_view first_bytes);

/// True when `first_bytes` look like a GStreamer debug log: a line that starts
/// in the debug log layout (`0:00:00.009417111 10671 0x55ad10869550 DEBUG
/// ...`, timestamp first) and is the first line or names GST_TRACER or holds
/// an element-latency or latency record, or a line that starts with such a
/// record (`grep -o` output). A text that quotes a log line after something
/// else on its line (a Markdown report: "- `0:00:00.01 ... latency, ...`") is
/// not a log.
bool LooksLikeGstreamerLog(std::string_view first_bytes);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_GSTREAMER_GSTREAMER_H_
