#ifndef COOKGRAPH_ADAPTERS_INPUT_READER_H_
#define COOKGRAPH_ADAPTERS_INPUT_READER_H_

// Reads one input in any format cookgraph knows, recognised from its content
// (docs/formats.md#recognising-the-input): a native snapshot (JSON, gzip-compressed JSON or YAML), a
// Chrome trace (PyTorch/Kineto, TensorFlow timeline, ONNX Runtime, Perfetto
// JSON; plain or gzip), or a GStreamer recording (a .dot dump and the latency
// tracer's log, as two paths or the folder holding them). `--format-in`
// overrides the recognition.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/input_limits.h"
#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class InputFormat : uint8_t { kNative, kChromeTrace, kGstreamer };

/// "native", "chrome", "gstreamer".
std::string_view InputFormatName(InputFormat format);
/// Also accepts "snapshot", "chrome-trace", "perfetto", "pytorch", "gst".
std::optional<InputFormat> ParseInputFormat(std::string_view name);

struct ReadOptions {
  std::optional<InputFormat> format;        // unset = recognise from the content
  std::optional<std::string> frame_marker;  // Chrome traces: the regex of frame markers
  bool keep_warmup = false;                 // Chrome traces: keep a warm-up first step
  bool hta_rounding = false;                // Chrome traces: whole µs as HTA rounds them
  InputLimits limits;                       // what one input may hold (`--limit`)
};

/// What cookgraph reads, for messages: one line.
std::string_view ReadableFormats();

/// The format of an input that starts with `head` (decompressed), or nullopt,
/// told from its first 256 KiB (what ByteSource::Head() holds of a file).
/// Blank input counts as native (whose reader then says the file is empty).
std::optional<InputFormat> DetectFormat(std::string_view head);

/// Reads one input: one path (a file, "-" for standard input, or a folder
/// holding a GStreamer recording), or a GStreamer dump and its log. Errors
/// name the file; an input in no known format says which formats there are.
Result<Snapshot> ReadInput(const std::vector<std::string>& paths, const ReadOptions& options = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_INPUT_READER_H_
