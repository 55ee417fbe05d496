#ifndef COOKGRAPH_ADAPTERS_GSTREAMER_GSTREAMER_H_
#define COOKGRAPH_ADAPTERS_GSTREAMER_GSTREAMER_H_

// Reads a GStreamer pipeline into a Snapshot (docs/formats.md#gstreamer): the
// graph from a .dot dump (GST_DEBUG_DUMP_DOT_DIR), the numbers from the
// tracers' log (GST_TRACERS="latency(flags=element+pipeline);rusage"
// GST_DEBUG="GST_TRACER:7" GST_DEBUG_FILE=trace.log; the rusage tracer is
// optional and gives each streaming thread's CPU load).
//
// Three stages, as every adapter: bytes (ByteSource: plain or gzip), records
// (adapters/gstreamer/records.h: the dump parsed whole, it is small; the log
// streamed line by line, only its samples kept, so a log of several GB is
// fine), then the build.
//
// What becomes what:
// - Nodes. The dumped pipeline is a node "/<name>" (type GstPipeline, family
//   "bin"); every element and bin under it is "/<pipeline>/<bin>/.../<name>",
//   with the real name from the cluster's label ('-' kept, where the dot id
//   has '_'), since names are unique only within a bin. `parent` is the bin's
//   id. type = the GType (label line 1); params = the non-default properties
//   of the label (values with g_strescape's escapes resolved), plus
//   `<srcpad>::caps` (the negotiated caps of each linked src pad, one line).
//   Nodes come in the order the pipeline added them (the dump lists a bin's
//   newest child first).
// - Families: "bin" for containers (clusters holding elements or ghost pads);
//   "queue" for elements whose time is waiting, not work (GType containing
//   "queue": GstQueue, GstQueue2, GstMultiQueue, as the packs' queue_types
//   `*queue*` say); "mixer" for an element with two or more linked sink pads
//   and a src pad (compositor, audiomixer, muxers), whose time holds the wait
//   for its other inputs; "element" for the others. Queues and mixers keep
//   their numbers but are waiting (IsWaitingFamily, model/snapshot.h): the
//   advisor's back-pressure rule names the costliest element downstream of a
//   queue as the cause (advisor/rules.cc).
// - Outputs: leaf elements with sink pads and no src pads (sinks), and every
//   element that ends `latency` records.
// - Edges: `data` between elements, from each src pad through ghost pads and
//   their proxy pads (dashed edges in the dump) across any number of bins to
//   the element pads they reach; one edge per pair of elements.
// - Join: a record's element-id is the element's pointer, the `_0x<hex>`
//   suffix of its cluster id (ids are split on `_0x<hex>` boundaries, with or
//   without newer GStreamer's `node_` prefix, so request pads like src_0 and
//   names with '_' are safe). A pointer the dump lacks falls back to the name
//   when one element of the dump has it (a warning says the files seem to come
//   from different runs); elements the dump lacks entirely are added at the
//   top level without links (warning).
// - Cooks: every element-latency record of an element, on all its src pads,
//   in log order; consecutive records with one entry time (ts - time, when the
//   buffer entered the element) are one input buffer, one cook, with the
//   smallest time: a tee logs once per src pad per buffer, pushing its pads in
//   turn, so a later pad's time also holds the pushes before it. A demuxer or
//   multiqueue pushes different buffers on its pads: every record is a cook.
//   Each pad's numbers are params when there are several: `<pad>::avg_ms`,
//   `<pad>::max_ms`, `<pad>::buffers`, `<pad>::peer` (the element it feeds).
// - Work and waiting: an element that works (not a queue or mixer) is scored
//   (cook_ms) on the work in each cook, the time its thread waited downstream
//   taken out with the rusage tracer's CPU times (LogRecord::work_ms); the
//   tracer's own time is the latency_ms series
//   (docs/architecture.md#work-and-waiting-in-a-gstreamer-pipeline).
// - Frames: frame k is each element's k-th cook (rate changers, decoders and
//   muxers change the count; a warning lists elements with fewer). frame_ms of
//   frame k is the slowest streaming thread's k-th buffer: the largest, over
//   the threads at the bottleneck thread's rate (StreamingThread::sets_frame),
//   of the sum of the thread's working elements' k-th cooks in it; a
//   buffer index no thread worked on is left out of the frame statistics
//   (Samples::unmeasured_frames_idle). The `latency` records are never frame
//   time: Snapshot::streaming holds their statistics. fps: the framerate of
//   the caps feeding the outputs, else the fastest video anywhere, else raw
//   audio's buffers per second.
// - Threads (Snapshot::streaming, model/gstreamer_threads.h): the third field of a
//   log line is the thread that logged it; a thread's elements, work per
//   buffer, buffer period (from the caps), bottleneck, and CPU load from
//   `thread-rusage` / `proc-rusage` records (docs/formats.md#threads-work-and-latency).
// - Mixers (aggregators such as compositor and audiomixer) log one record per
//   output buffer, on their src pad. The tracer times from the push of the
//   first input buffer to reach the mixer since its previous output (on
//   whichever sink pad) to the push of the output, so a mixer's time holds its
//   wait for the other inputs and the hand-over to its thread as well as the
//   mixing. `latency` records through a mixer name one source per output
//   buffer (the tracer keeps the first probe to reach the sink's pad), so they
//   are grouped by sink pad, not by source -> sink pair.
// - SnapshotInfo: engine "gstreamer", name = the pipeline's name, source = the
//   dump's and the log's paths.
//
// Bad input: a dump that is not DOT, or is cut short, and a log that cannot be
// read (corrupt gzip) or holds not one latency record, are an Error with the
// file and line. Malformed record lines, negative times (GStreamer's signed
// clock difference), unjoinable elements and links to pads the dump lacks are
// counted in snapshot.warnings with their first example; a malformed line
// whose element can be read keeps its buffer's place as a missing sample.

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
