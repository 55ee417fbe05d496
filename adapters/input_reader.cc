#include "adapters/input_reader.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <utility>

#include "adapters/byte_source.h"
#include "adapters/chrome/chrome_trace.h"
#include "adapters/chrome/job.h"
#include "adapters/input_files.h"
#include "adapters/gstreamer/gstreamer.h"
#include "adapters/native/snapshot_reader.h"

namespace cookgraph {
namespace {

constexpr std::array<std::pair<std::string_view, InputFormat>, 8> kNames = {{
    {"native", InputFormat::kNative},
    {"snapshot", InputFormat::kNative},
    {"chrome", InputFormat::kChromeTrace},
    {"chrome-trace", InputFormat::kChromeTrace},
    {"perfetto", InputFormat::kChromeTrace},
    {"pytorch", InputFormat::kChromeTrace},
    {"gstreamer", InputFormat::kGstreamer},
    {"gst", InputFormat::kGstreamer},
}};

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A native snapshot's version key: `"cookgraph"` then ':' (JSON), or a line
// starting `cookgraph:` (YAML).
bool HasNativeKey(std::string_view head) {
  for (size_t at = head.find("cookgraph"); at != std::string_view::npos;
       at = head.find("cookgraph", at + 1)) {
    size_t after = at + 9;
    const bool quoted = at > 0 && head[at - 1] == '"' && after < head.size() && head[after] == '"';
    const bool line_start = at == 0 || head[at - 1] == '\n';
    if (!quoted && !line_start) continue;
    if (quoted) ++after;
    while (after < head.size() && (head[after] == ' ' || head[after] == '\t')) ++after;
    if (after < head.size() && head[after] == ':') return true;
  }
  return false;
}

Result<Snapshot> ReadGstreamerInput(const std::vector<std::string>& paths,
                                    const InputLimits& limits) {
  for (const std::string& path : paths) {
    if (path == "-") {
      return Error{.file = "-",
                   .message = "a GStreamer recording cannot come from standard input: give its "
                              ".dot dump and tracer log, or the folder holding them"};
    }
  }
  return ReadGstreamer(paths, limits);
}

// The ranks of one job (GroupJobs): the paths given, or the traces directly
// in the folder given. nullopt when they are not one job (a GStreamer
// recording, say).
std::optional<Result<Snapshot>> ReadJob(const std::vector<std::string>& paths, bool folder,
                                        const ReadOptions& options) {
  if (options.format && *options.format != InputFormat::kChromeTrace) return std::nullopt;
  std::vector<std::string> files = paths;
  std::string name = paths[0];
  std::optional<Error> passed_over;  // the first trace-named entry that is not a file
  if (folder) {
    files.clear();
    std::error_code ec;
    for (std::filesystem::directory_iterator it(paths[0], ec), end; !ec && it != end;
         it.increment(ec)) {
      std::error_code type;
      if (it->is_regular_file(type)) {
        files.push_back(it->path().string());
      } else if (const std::string file = it->path().string(); HasSnapshotExtension(file)) {
        const std::string why = NotAFileReason(file);
        if (!why.empty() && why != "a folder" && (!passed_over || file < passed_over->file)) {
          passed_over = Error{.file = file, .message = "passed over: " + why};
        }
      }
    }
    std::sort(files.begin(), files.end());
    while (name.size() > 1 && name.back() == '/') name.pop_back();
  }
  const std::vector<std::vector<std::string>> jobs = GroupJobs(files);
  if (jobs.size() != 1 || (!folder && jobs[0].size() != paths.size())) return std::nullopt;
  // A rank whose file is a dangling link would leave the job without it, unseen.
  if (passed_over) return Result<Snapshot>(*passed_over);
  if (!folder) name = std::filesystem::path(paths[0]).parent_path().filename().string();
  if (name.empty()) name = "job";
  std::vector<Snapshot> ranks;
  for (const std::string& file : jobs[0]) {
    auto rank = ReadChromeTraceFile(file, ChromeTraceOptions{.frame_marker = options.frame_marker, .keep_warmup = options.keep_warmup, .hta_rounding = options.hta_rounding},
                                    options.limits);
    if (!rank) return Result<Snapshot>(rank.error());
    ranks.push_back(std::move(*rank));
  }
  return MergeRanks(std::move(ranks), std::filesystem::path(name).filename().string());
}

}  // namespace

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kNative: return "native";
    case InputFormat::kChromeTrace: return "chrome";
    case InputFormat::kGstreamer: return "gstreamer";
  }
  return "native";
}

std::optional<InputFormat> ParseInputFormat(std::string_view name) {
  for (const auto& [text, format] : kNames) {
    if (text == name) return format;
  }
  return std::nullopt;
}

std::string_view ReadableFormats() {
  return "cookgraph reads a cookgraph snapshot (JSON or YAML with \"cookgraph\": 1), a Chrome "
         "trace (PyTorch profiler, TensorFlow timeline, ONNX Runtime, Perfetto JSON), or a "
         "GStreamer .dot dump with its latency tracer log (plain or gzip each)";
}

std::optional<InputFormat> DetectFormat(std::string_view head) {
  // What Head() gives of a file: a string source (a gzip file inflated whole,
  // say) gives all of it, and a trace of tens of megabytes was searched to
  // its end for a native snapshot's key. The same bytes are read the same
  // way however they came.
  constexpr size_t kHeadBytes = size_t{1} << 18;
  head = head.substr(0, kHeadBytes);
  size_t first = 0;
  if (head.starts_with("\xEF\xBB\xBF")) first = 3;  // UTF-8 byte-order mark
  while (first < head.size() && IsBlank(head[first])) ++first;
  if (first == head.size()) return InputFormat::kNative;
  if (HasNativeKey(head)) return InputFormat::kNative;
  if (LooksLikeChromeTrace(head)) return InputFormat::kChromeTrace;
  if (LooksLikeGstreamerDot(head) || LooksLikeGstreamerLog(head)) return InputFormat::kGstreamer;
  return std::nullopt;
}

Result<Snapshot> ReadInput(const std::vector<std::string>& paths, const ReadOptions& options) {
  if (paths.empty()) return Error{.message = "no input given"};
  std::error_code ec;
  const bool folder = paths.size() == 1 && paths[0] != "-" &&
                      std::filesystem::is_directory(paths[0], ec);
  if (paths.size() > 1 || folder) {
    if (auto job = ReadJob(paths, folder, options)) return std::move(*job);
    if (options.format && *options.format != InputFormat::kGstreamer) {
      return Error{.file = paths[0],
                   .message = std::string("--format-in ") +
                              std::string(InputFormatName(*options.format)) +
                              " reads one file; two paths or a folder are a GStreamer recording"};
    }
    return ReadGstreamerInput(paths, options.limits);
  }
  // A large gzip file inflates on a thread of its own while a trace is read
  // (GzipRead::kWholeInBackground); other formats wait for it (Settle()).
  auto opened = ByteSource::Open(paths[0], options.limits, GzipRead::kWholeInBackground);
  if (!opened) return opened.error();
  ByteSource& source = **opened;
  const std::string_view head = source.Head();
  if (source.failed()) return Error{.file = paths[0], .message = source.error()};
  std::optional<InputFormat> format = options.format ? options.format : DetectFormat(head);
  if (format != InputFormat::kChromeTrace) source.Settle();  // nothing read yet: it cannot fail
  if (!format) {
    // Head() holds what inflated before a gzip stream broke off: the stream's
    // error ("unexpected end of file") says more than "not a format".
    std::string skip(std::min<size_t>(head.size() + 1, size_t{1} << 16), '\0');
    for (size_t read = 0; read <= head.size() && !source.failed();) {
      const size_t n = source.Read(skip.data(), skip.size());
      if (n == 0) break;
      read += n;
    }
    if (source.failed()) return Error{.file = paths[0], .message = source.error()};
    return Error{.file = paths[0],
                 .message = "not a format cookgraph reads: " + std::string(ReadableFormats())};
  }
  switch (*format) {
    case InputFormat::kNative:
      return ReadSnapshotSource(source);
    case InputFormat::kChromeTrace:
      return ReadChromeTrace(source, ChromeTraceOptions{.frame_marker = options.frame_marker, .keep_warmup = options.keep_warmup, .hta_rounding = options.hta_rounding});
    case InputFormat::kGstreamer:
      return ReadGstreamerInput(paths, options.limits);
  }
  return Error{.file = paths[0], .message = "unknown input format"};
}

}  // namespace cookgraph
