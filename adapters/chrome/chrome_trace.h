#ifndef COOKGRAPH_ADAPTERS_CHROME_CHROME_TRACE_H_
#define COOKGRAPH_ADAPTERS_CHROME_CHROME_TRACE_H_

// Reads a Chrome Trace Event file (PyTorch/Kineto, TensorFlow 1.x timeline,
// ONNX Runtime profile, Perfetto or Chrome JSON) into a Snapshot
// (docs/formats.md#chrome-traces).
//
// Three stages, as every adapter: bytes (ByteSource: plain or gzip), then
// cookgraph's streaming JSON reader (adapters/json_tokenizer.cc) and the
// tokenizer (tokenizer.h) into compact records (records.h:
// interned names, exact ns timestamps, about 40 bytes a slice; never a document
// tree, never a json object per event: traces of several GB are normal), then
// the build below.
//
// What becomes what:
// - Slices are X events and B/E pairs (paired per thread (pid, tid), the E
//   closing the latest open B; unmatched ones are counted in warnings). ts and
//   dur are µs whatever displayTimeUnit says. pid and tid may be numbers or
//   strings: 7 and "7" are the same thread; a missing tid is the pid.
// - Node identity depends on the producer (SnapshotInfo.engine):
//   "pytorch" (Kineto): the event name; family from `cat` (cpu_op, user_annotation,
//   python_function, cuda_runtime, cuda_driver, kernel, gpu_memcpy, gpu_memset,
//   cuda_sync, gpu_user_annotation; the 2021 names Operator, Runtime, Kernel,
//   Memcpy, Memset map onto them); the profiler's own `Trace` span is ignored.
//   "tensorflow": `args.name` is the node, the event name its type, family "op",
//   `args.inputN` become data edges (`^x` control input and `x:1` output index
//   both name node x). "onnxruntime": the event name without `_kernel_time`,
//   type `args.op_name`, family the category ("Node"); `_fence_before` /
//   `_fence_after` and the Session phases are ignored. "chrome-trace"
//   (anything else): the event name, family the category.
//   When two families share a name, the one seen later gets the id "name [family]".
// - GPU-side families (kernel, gpu_memcpy, gpu_memset, gpu_user_annotation,
//   cuda_sync) run on a device stream: their self time is both cook_ms and
//   gpu_ms, so a heavy kernel ranks among the heavy ops, and frame_ms (the
//   marker's span) keeps CPU and GPU time from being added up as frame time.
// - Nesting on one thread (by ts/dur containment) gives `call` edges (parent op
//   -> child op; a node nested in itself adds no edge) and self time: a slice's
//   duration minus the part its direct children cover. A slice that starts
//   inside another and ends after it is counted as a warning and subtracted
//   only where it overlaps. PyTorch's forward thread, waiting in the backward
//   pass its autograd thread runs, does no work there: that part of its
//   slices' own time is not self time (docs/formats.md#backward-thread).
// - Flows: v1 `s`/`t`/`f` keyed by category and id (`s` and `t` bind to the
//   enclosing slice, `f` to the next slice starting at or after it, or with
//   "bp":"e" to the enclosing one) and v2 `bind_id` + `flow_out`/`flow_in` on
//   slices. An edge from a CPU-side slice to a GPU-side one is `launch` (Kineto
//   ac2g), any other is `flow`; a flow between two nodes already joined by a
//   data edge adds nothing. Flow ends without a start are normal and ignored.
// - Frames: markers are the events named `ProfilerStep#N` (index N), else
//   ONNX Runtime's `model_run` (index 0, 1, ...), or those whose name the
//   frame_marker regex finds (index: its first capture group when that is an
//   integer, else 0, 1, ...). Markers are frames, not nodes; their copies on
//   a GPU stream (Kineto's gpu_user_annotation) are dropped, and a marker that
//   starts inside an earlier one is ignored with a warning. Each slice belongs
//   to the frame whose span [start, end) holds its start; a GPU slice launched
//   by a CPU slice belongs to the launcher's frame. Slices outside every frame
//   are left out (a warning counts them). Without markers the whole trace is
//   one frame (index 0), and a warning says so. frame_ms is the marker's span
//   (without markers: first start to last end).
// - Per frame and node: cook_ms = sum of self time (ms), cooks = number of
//   slices (0 in frames without one), gpu_ms as above.
// - Outputs: a trace shows only work that ran, so no cook in it is really dead;
//   the outputs are chosen so that LiveNodes (graph/reachability.h) agrees. A
//   node is an output when one of its slices is top-level (no enclosing node
//   slice on its thread, markers aside) and was not launched by a flow, and no
//   data or flow edge leaves it: the top-level ops of each step whose results
//   the trace shows feeding nothing else (TensorFlow: the graph's sinks, such
//   as a training step's GradientDescent). Their callees and launched kernels
//   are live through call and launch edges, their producers through data and
//   flow edges.
// - Node params: from the first event of the node that has them, the args
//   "Input Dims" (as input_dims), "Input type" (input_types), grid, block,
//   "registers per thread", "shared memory", stream, bytes, provider,
//   input_type_shape and output_type_shape, arrays written as JSON text.
// - SnapshotInfo: engine as above, source = the file's name, name = the file's
//   name without .gz / .json, captured = the first slice's start as ISO 8601 UTC
//   when the clock is wall time (Kineto's baseTimeNanoseconds plus the relative
//   ts, or a ts that is µs since 1970 between 2000 and 2100), else "".
//
// Errors a user can cause (not JSON, a top level that is neither an array of
// events nor an object with "traceEvents", input cut inside an event, a ts or
// dur that is not a number, a dur over 1e12 µs, a ts past any clock, a limit
// of adapters/input_limits.h passed) come back as one Error with the file,
// line and column (or the event's index). An array whose closing bracket
// is missing is complete, as the format allows.

#include <optional>
#include <string>
#include <string_view>

#include "adapters/byte_source.h"
#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

/// How to read a Chrome trace.
struct ChromeTraceOptions {
  /// ECMAScript regex searched in event names to pick the frame markers; unset
  /// = ProfilerStep#N, else model_run, else the whole trace is one frame.
  std::optional<std::string> frame_marker;
  /// Keep a warm-up first step in the frames (docs/formats.md#warm-up); by
  /// default it is named in a warning and left out of them.
  bool keep_warmup = false;
  /// Round times as Holistic Trace Analysis does before it measures: when a
  /// `ts` is fractional, each start up and each end down to a whole µs
  /// (docs/architecture.md#rounding). Off: nanoseconds as the file gives them.
  bool hta_rounding = false;
};

/// Reads a Chrome trace from `source` (plain or gzip), within the source's limits.
Result<Snapshot> ReadChromeTrace(ByteSource& source, const ChromeTraceOptions& options);

/// Reads the Chrome trace at `path` ("-" = standard input).
Result<Snapshot> ReadChromeTraceFile(const std::string& path, const ChromeTraceOptions& options,
                                     const InputLimits& limits = {});

/// Parses `text`; `file` is the name used in errors and SnapshotInfo.source.
Result<Snapshot> ParseChromeTrace(std::string_view text, const ChromeTraceOptions& options,
                                  const std::string& file, const InputLimits& limits = {});

/// True when `first_bytes` (the start of the decompressed input, a few KB) look
/// like a Chrome trace: an array whose first element is an object with a "ph"
/// key, or an object with a "traceEvents" array, or Kineto's "schemaVersion"
/// before it. A cookgraph snapshot ({"cookgraph": 1, ...}) is not one.
bool LooksLikeChromeTrace(std::string_view first_bytes);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_CHROME_CHROME_TRACE_H_
