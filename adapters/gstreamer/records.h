#ifndef COOKGRAPH_ADAPTERS_GSTREAMER_RECORDS_H_
#define COOKGRAPH_ADAPTERS_GSTREAMER_RECORDS_H_

// The middle stage of the GStreamer reader (adapters/gstreamer/gstreamer.h): plain
// records of what a .dot dump and a tracer log say, before they are joined into
// a Snapshot. Tests feed strings to these functions.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/byte_source.h"
#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph::gst {

using Params = std::vector<std::pair<std::string, std::string>>;

/// A pad: a node declared in the `_sink` or `_src` pad cluster of an element
/// cluster. A bin's ghost pads and their proxy pads sit in the bin's pad
/// clusters, so they belong to the bin.
struct DotPad {
  std::string id;    // the dot node id, e.g. "queue0_0x55d0_src_0x55e1"
  std::string name;  // the label's first line ("src_0"); else derived from the id
  int owner = -1;    // index into DotPipeline::elements
  bool src = false;  // declared in the `_src` pad cluster (else in `_sink`)
  std::string
      fill;  // fillcolor: #ffaaaa / #aaaaff real pads, #ffdddd / #ddddff ghost and proxy pads
};

/// An element or a bin: a `cluster_<name>_0x<ptr>` subgraph (newer GStreamer:
/// `cluster_node_<name>_0x<ptr>`).
struct DotElement {
  std::string cluster;        // the subgraph id without "cluster_"
  std::string pointer;        // "0x55d0..." in lower case, the id's last `_0x<hex>`; "" = none
  std::string type;           // GType: label line 1
  std::string name;           // label line 2: the real name ('-' and all)
  Params params;              // label lines `key=value` (non-default properties)
  std::string fill;           // fillcolor
  int parent = -1;            // the enclosing element cluster (a bin); -1 = the pipeline
  std::vector<int> children;  // element clusters directly inside, in file order
  std::vector<int> pads;      // indices into DotPipeline::pads, in file order
  bool bin = false;           // a container (GstBin and kin), not an element that processes buffers
  int64_t line = 0;           // of the subgraph statement
};

/// A solid edge (a pad link, src pad -> sink pad) or a dashed one (a ghost pad
/// and the proxy pad behind it). Invisible edges are not kept.
struct DotLink {
  std::string from, to;  // pad node ids
  bool ghost = false;    // style=dashed
  std::string caps;      // the raw label, or taillabel: the caps at `from`
  int64_t line = 0;
};

/// What a GStreamer .dot dump holds.
struct DotPipeline {
  std::string type;  // of the dumped pipeline, from the graph label "<GstPipeline>"
  std::string name;  // "pipeline0"
  Params params;
  std::vector<DotElement> elements;
  std::vector<DotPad> pads;
  std::vector<DotLink> links;
};

/// Parses a dump written by gst_debug_bin_to_dot_file (GStreamer 1.x, with or
/// without the `node_` id prefix). A file that is not DOT, or not complete, is
/// an Error with its line and column; so is one past the depth, nodes or
/// name-length limit.
Result<DotPipeline> ParseDot(std::string_view text, const std::string& file,
                             const InputLimits& limits = {});

/// The lines of a raw dot label: `\n`, `\l` and `\r` end lines; `\"`, `\\`,
/// `\t` and the octal escapes of g_strescape give their characters; trailing
/// empty lines are dropped.
std::vector<std::string> LabelLines(std::string_view raw);

/// A caps label as one line: "video/x-raw, format=I420, width=320".
std::string CompactCaps(std::string_view raw);

/// One src pad's element-latency samples, in log order (buffer order).
struct LogPad {
  std::string name;
  std::vector<double> ms;  // ms; NaN = this buffer's record was unreadable or negative
};

/// No thread: a record line without the debug log layout (`grep -o` output).
inline constexpr uint32_t kNoThread = UINT32_MAX;

/// One element-latency record of an element, in log order.
struct LogRecord {
  uint32_t pad = 0;            // index into LogElement::pads
  uint32_t thread = kNoThread;  // index into GstLog::threads
  double ms = 0;               // NaN = unreadable or negative
  int64_t entry_ns = -1;       // ts - time: when the buffer entered the element; -1 = unknown
  /// The element's own time in the record, its work: the CPU time its thread
  /// spent up to its last hook before the record's push, and all the time
  /// from there (see CpuWindows in cpu_windows.h); the rest is waiting. NaN =
  /// unknown (no thread-rusage records of the thread, or no entry time).
  double work_ms = NAN;
  int64_t line = 0;  // in the log
};

/// The element-latency records of one element (its pointer, as logged).
struct LogElement {
  std::string id;  // "0x55d0..." in lower case
  std::string name;
  std::vector<LogPad> pads;        // in order of first record
  std::vector<LogRecord> records;  // every record, all pads, in log order
};

/// How many of a thread's latest thread-rusage records the log reader holds
/// to measure the work in each element-latency record (LogRecord::work_ms).
inline constexpr size_t kRusageWindowPoints = 16384;

/// One `thread-rusage` or `proc-rusage` record.
struct RusagePoint {
  uint64_t ts_ns = 0;    // since the tracer started
  uint64_t time_ns = 0;  // CPU time of the thread (or process) so far
  uint32_t average = 0;  // average-cpuload, per mille
  uint32_t current = 0;  // current-cpuload, per mille
};

/// The rusage records of one thread (or the process), in log order, kept in
/// bounded memory (they are most of a log's volume): the first record, each
/// record whose ts first reaches the next 100 ms step after it, and the last.
/// Past an hour of steps the step doubles (and again each further 36000
/// points), so even hostile timestamps keep a few MB at most.
struct RusageSeries {
  static constexpr uint64_t kStepNs = 100'000'000;
  static constexpr size_t kPointsPerStep = 36'000;
  std::vector<RusagePoint> kept;  // the first, then one per step
  RusagePoint last;
  uint64_t step_ns = kStepNs;
  uint64_t next_ns = 0;  // the next step's ts
  bool past_end = false;  // the next step would pass 2^64 ns: keep no more
  size_t records = 0;

  void Add(const RusagePoint& p) {
    last = p;
    if (records++ > 0 && (past_end || p.ts_ns < next_ns)) return;
    kept.push_back(p);
    if (kept.size() % kPointsPerStep == 0 && step_ns <= UINT64_MAX / 2) step_ns *= 2;
    // The first step past p on the grid of steps from the first record
    // (p.ts_ns >= next_ns > the first's ts, so no difference underflows).
    const uint64_t from = kept.front().ts_ns;
    const uint64_t steps = (p.ts_ns - from) / step_ns + 1;
    if (steps > (UINT64_MAX - from) / step_ns) {
      past_end = true;
    } else {
      next_ns = from + steps * step_ns;
    }
  }
};

/// The `latency` records (source -> sink) that reached one sink pad, in log
/// order: the tracer logs at most one per buffer there, naming the source whose
/// probe reached the pad first (behind a mixer that is not always the same
/// source), so the k-th record is the pad's k-th buffer. src_* are those of the
/// first record.
struct LogPair {
  std::string src_id, src_name, sink_id, sink_name, sink_pad;
  std::vector<double> ms;  // ms; NaN = unreadable or negative
};

/// A bad line, counted by kind with its first example.
struct LogProblem {
  int64_t count = 0;
  int64_t first_line = 0;
  std::string first_text;  // the line, cut to 200 bytes
};

/// What a tracer log holds: only the samples, never its lines.
struct GstLog {
  std::vector<LogElement> elements;  // in order of first record
  std::vector<LogPair> pairs;        // one per sink pad, in order of first record
  /// Thread pointers (the third field of a log line, lower case) that logged
  /// element-latency records, in order of first record.
  std::vector<std::string> threads;
  /// thread-rusage records by thread id (the thread pointer's value), in
  /// order of first record; proc-rusage records of the process.
  std::vector<std::pair<uint64_t, RusageSeries>> thread_rusage;
  RusageSeries proc_rusage;
  int64_t lines = 0;
  int64_t element_records = 0;  // element-latency records read (malformed ones included)
  /// Records whose work was measured from their thread's CPU time, and those
  /// of them whose window began before the oldest thread-rusage record still
  /// held (kRusageWindowPoints per thread): their work is a lower bound.
  int64_t work_windows = 0;
  int64_t work_windows_cut = 0;
  int64_t latency_records = 0;
  LogProblem malformed;  // looked like a record, could not be read
  LogProblem negative;   // a time over 2^63 ns: GStreamer's signed clock difference went negative
  std::vector<std::string> notes;  // e.g. a record template unlike GStreamer 1.22's
};

/// Streams `source` line by line (a log of several GB is fine: only the
/// samples are kept). A read failure (corrupt gzip, I/O error, input-size) is
/// an Error at the line where it happened; so is a log without a single
/// element-latency or latency record, and a name past the name-length limit
/// or more elements than the nodes limit (the source's limits).
Result<GstLog> ReadLog(ByteSource& source);

/// `line` without ANSI colour sequences (ESC [ ... letter), which GStreamer
/// writes when GST_DEBUG_NO_COLOR is not set and the output was a terminal: the
/// line itself when it has none, else the stripped text, kept in `scratch`.
std::string_view StripColour(std::string_view line, std::string& scratch);

/// Joins a dump and (when `log` is not null) a log into a Snapshot; the
/// decisions are written down in adapters/gstreamer/gstreamer.h. `limits` bound the
/// nodes (dump and log together) and the samples (frames × sampled nodes).
Result<Snapshot> BuildSnapshot(const DotPipeline& dot, const GstLog* log,
                               const std::string& dot_file, const std::string& log_file,
                               const InputLimits& limits = {});

/// True when `type` is a GType whose time is waiting, not work: it contains
/// "queue" in any case (GstQueue, GstQueue2, GstMultiQueue), as the packs'
/// queue_types pattern `*queue*` says.
bool IsQueueType(std::string_view type);

}  // namespace cookgraph::gst

#endif  // COOKGRAPH_ADAPTERS_GSTREAMER_RECORDS_H_
