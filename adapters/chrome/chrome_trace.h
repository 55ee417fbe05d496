#ifndef COOKGRAPH_ADAPTERS_CHROME_CHROME_TRACE_H_
#define COOKGRAPH_ADAPTERS_CHROME_CHROME_TRACE_H_

// Reads a Chrome Trace Event file (PyTorch/Kineto, TensorFlow 1.x timeline,
// ONNX Runtime profile, Perfetto or Chrome JSON) into a Snapshot, in three
// stages: bytes (ByteSource), the JSON tokenizer (adapters/json_tokenizer.cc)
// and tokenizer.h into compact records (records.h, about 40 bytes a slice,
// never a document tree), then the build. What becomes what, per producer,
// and the errors: docs/formats.md#chrome-traces.

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
