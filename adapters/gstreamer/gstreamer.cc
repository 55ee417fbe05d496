#include "adapters/gstreamer/gstreamer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>

#include "adapters/byte_source.h"
#include "adapters/gstreamer/records.h"

// The entry points of the GStreamer reader: finding the dump and the log among
// the inputs, and content sniffing. The stages are in dot_parser.cc,
// log_parser.cc and build.cc.

namespace cookgraph {
namespace {

namespace fs = std::filesystem;

constexpr size_t kSniffBytes = 8192;
constexpr std::string_view kElementRecord = "element-latency, element-id=(string)";
constexpr std::string_view kLatencyRecord = "latency, src-element-id=(string)";

std::string_view SkipBom(std::string_view s) {
  if (s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  return s;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `n` digits at s[i] (n = 0: one or more); moves i past them.
bool Digits(std::string_view s, size_t& i, size_t n) {
  const size_t start = i;
  while (i < s.size() && IsDigit(s[i]) && (n == 0 || i - start < n)) ++i;
  return n == 0 ? i > start : i - start == n;
}

bool Blanks(std::string_view s, size_t& i) {
  const size_t start = i;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i > start;
}

// A line in GStreamer's debug log layout:
// "0:00:00.009417111 10671 0x55ad10869550 DEBUG   GST_TRACER ...".
bool IsDebugLine(std::string_view s) {
  size_t i = 0;
  if (!Digits(s, i, 0) || i >= s.size() || s[i++] != ':' || !Digits(s, i, 2) || i >= s.size() ||
      s[i++] != ':' || !Digits(s, i, 2) || i >= s.size() || s[i++] != '.' || !Digits(s, i, 9) ||
      !Blanks(s, i) || !Digits(s, i, 0) || !Blanks(s, i)) {
    return false;
  }
  const size_t thread = i;
  while (i < s.size() && (std::isxdigit(static_cast<unsigned char>(s[i])) || s[i] == 'x')) ++i;
  if (i == thread || !Blanks(s, i)) return false;
  for (std::string_view level :
       {"ERROR", "WARN", "FIXME", "INFO", "DEBUG", "LOG", "TRACE", "MEMDUMP"}) {
    if (s.substr(i, level.size()) == level &&
        (i + level.size() == s.size() || s[i + level.size()] == ' ')) {
      return true;
    }
  }
  return false;
}

// The start of a file, decompressed; nullopt (with `error`) when it cannot be
// opened or read.
std::optional<std::string> Head(const std::string& path, Error& error) {
  auto opened = ByteSource::Open(path);
  if (!opened) {
    error = opened.error();
    return std::nullopt;
  }
  std::string head(kSniffBytes, '\0');
  head.resize((*opened)->Read(head.data(), head.size()));
  if ((*opened)->failed()) {
    error = Error{.file = path, .message = (*opened)->error()};
    return std::nullopt;
  }
  return head;
}

enum class Kind { kNeither, kDot, kLog };

Kind Classify(std::string_view head) {
  if (LooksLikeGstreamerDot(head)) return Kind::kDot;
  if (LooksLikeGstreamerLog(head)) return Kind::kLog;
  return Kind::kNeither;
}

// ns since the start of the run, from a dump's name
// "0.00.01.234567890-gst-launch.PAUSED_PLAYING.dot"; nullopt without one.
std::optional<int64_t> NameTime(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  size_t i = 0;
  int64_t parts[4] = {};
  for (int k = 0; k < 4; ++k) {
    const size_t start = i;
    if (!Digits(name, i, 0) || i - start > 12) return std::nullopt;
    parts[k] = std::stoll(name.substr(start, i - start));
    if (i >= name.size() || name[i++] != (k < 3 ? '.' : '-')) return std::nullopt;
  }
  return ((parts[0] * 60 + parts[1]) * 60 + parts[2]) * 1'000'000'000 + parts[3];
}

struct Dump {
  std::string path;
  bool playing = false;         // a PAUSED_PLAYING dump
  std::optional<int64_t> time;  // from the name
  fs::file_time_type modified;
};

// True when `a` is a better choice than `b`.
bool Better(const Dump& a, const Dump& b) {
  if (a.playing != b.playing) return a.playing;
  if (a.time && b.time && *a.time != *b.time) return *a.time > *b.time;
  if (a.time.has_value() != b.time.has_value()) return a.time.has_value();
  if (a.modified != b.modified) return a.modified > b.modified;
  return a.path > b.path;
}

// A .dot dump, read whole (the parser works on the text): refused past the
// dot-size limit before more of it is held.
Result<std::string> ReadDump(const std::string& path, const InputLimits& limits) {
  auto opened = ByteSource::Open(path, limits);
  if (!opened) return opened.error();
  std::string text;
  std::string chunk(1 << 16, '\0');
  while (size_t n = (*opened)->Read(chunk.data(), chunk.size())) {
    if (text.size() + n > limits.dot_size) {
      return Error{.file = path,
                   .message = fmt::format("at byte {}: {}", limits.dot_size,
                                          LimitMessage(limits, &InputLimits::dot_size,
                                                       "the .dot dump (decompressed) is larger "
                                                       "than"))};
    }
    text.append(chunk, 0, n);
  }
  if ((*opened)->failed()) {
    return Error{.file = path, .line = (*opened)->line(), .message = (*opened)->error()};
  }
  return text;
}

Result<Snapshot> Build(std::string_view dot_text, const std::string& dot_name, ByteSource* log,
                       const InputLimits& limits) {
  auto dot = gst::ParseDot(dot_text, dot_name, limits);
  if (!dot) return dot.error();
  if (!log) return gst::BuildSnapshot(*dot, nullptr, dot_name, "", limits);
  auto records = gst::ReadLog(*log);
  if (!records) return records.error();
  return gst::BuildSnapshot(*dot, &*records, dot_name, log->name(), limits);
}

}  // namespace

Result<GstreamerInputs> FindGstreamerInputs(const std::vector<std::string>& paths) {
  std::vector<Dump> dumps;
  std::vector<std::string> logs;
  auto add = [&](const std::string& path, Kind kind) {
    if (kind == Kind::kLog) logs.push_back(path);
    if (kind != Kind::kDot) return;
    std::error_code ec;
    Dump d{.path = path,
           .playing = path.find("PAUSED_PLAYING") != std::string::npos,
           .time = NameTime(path),
           .modified = fs::last_write_time(path, ec)};
    dumps.push_back(std::move(d));
  };
  for (const std::string& path : paths) {
    if (path == "-") {
      return Error{.file = path,
                   .message =
                       "a GStreamer recording is two files (a .dot dump and a "
                       "tracer log): give their paths or their directory"};
    }
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      return Error{.file = path, .message = "no such file or directory"};
    }
    if (fs::is_directory(status)) {
      std::vector<std::string> files;
      std::vector<Error> passed_over;
      for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type;
        if (it->symlink_status(type).type() == fs::file_type::directory) continue;
        const std::string file = it->path().string();
        const std::string why = NotAFileReason(file);
        if (why.empty()) {
          files.push_back(file);
        } else if (why != "a folder") {
          // It could be the dump or the log: the recording would lose it unseen.
          passed_over.push_back(Error{
              .file = file,
              .message = "cannot be read: " + why +
                         "; every file of a recording's folder is read, so give the .dot "
                         "dump and the tracer log by name instead"});
        }
      }
      if (ec) return Error{.file = path, .message = "cannot list the directory: " + ec.message()};
      if (!passed_over.empty()) {
        return *std::min_element(passed_over.begin(), passed_over.end(),
                                 [](const Error& a, const Error& b) { return a.file < b.file; });
      }
      std::sort(files.begin(), files.end());
      for (const std::string& file : files) {
        // A file that cannot be read (a corrupt trace.log.gz) is an error,
        // not passed over: the recording would silently lose its samples.
        Error error;
        auto head = Head(file, error);
        if (!head) return error;
        add(file, Classify(*head));
      }
      continue;
    }
    Error error;
    auto head = Head(path, error);
    if (!head) return error;
    const Kind kind = Classify(*head);
    if (kind == Kind::kNeither) {
      return Error{.file = path,
                   .message =
                       "neither a GStreamer .dot dump (`digraph pipeline {`, written under "
                       "GST_DEBUG_DUMP_DOT_DIR) nor a GStreamer debug log with latency "
                       "tracer records"};
    }
    add(path, kind);
  }
  std::sort(logs.begin(), logs.end());
  logs.erase(std::unique(logs.begin(), logs.end()), logs.end());
  if (dumps.empty()) {
    std::string where;
    for (const std::string& p : paths) where += (where.empty() ? "" : ", ") + p;
    return Error{.file = where,
                 .message =
                     "no GStreamer .dot dump found: run with GST_DEBUG_DUMP_DOT_DIR=DIR and "
                     "give the DIR/*PAUSED_PLAYING.dot file (or DIR)"};
  }
  if (logs.size() > 1) {
    std::string list;
    for (const std::string& l : logs) list += (list.empty() ? "" : ", ") + l;
    return Error{
        .file = logs[0],
        .message = "more than one tracer log (" + list + "): give the path of the one to read"};
  }
  GstreamerInputs out;
  out.dot = std::max_element(dumps.begin(), dumps.end(), [](const Dump& a, const Dump& b) {
              return Better(b, a);
            })->path;
  if (!logs.empty()) out.log = logs[0];
  return out;
}

Result<Snapshot> ReadGstreamer(const std::vector<std::string>& paths, const InputLimits& limits) {
  auto inputs = FindGstreamerInputs(paths);
  if (!inputs) return inputs.error();
  auto dot = ReadDump(inputs->dot, limits);
  if (!dot) return dot.error();
  if (inputs->log.empty()) return Build(*dot, inputs->dot, nullptr, limits);
  auto log = ByteSource::Open(inputs->log, limits);
  if (!log) return log.error();
  return Build(*dot, inputs->dot, log->get(), limits);
}

Result<Snapshot> ParseGstreamer(std::string_view dot, std::string_view log,
                                const std::string& dot_name, const std::string& log_name,
                                const InputLimits& limits) {
  if (dot.size() > limits.dot_size) {
    return Error{.file = dot_name,
                 .message = LimitMessage(limits, &InputLimits::dot_size, "the .dot dump is larger than")};
  }
  if (log.empty()) return Build(dot, dot_name, nullptr, limits);
  auto source = ByteSource::FromString(log, log_name, limits);
  return Build(dot, dot_name, source.get(), limits);
}

bool LooksLikeGstreamerDot(std::string_view first_bytes) {
  std::string_view s = SkipBom(first_bytes);
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  if (s.substr(0, 16) != "digraph pipeline") return false;
  return s.find("Element-States") != std::string_view::npos ||
         s.find("subgraph cluster_") != std::string_view::npos ||
         s.find("label=\"<") != std::string_view::npos;
}

bool LooksLikeGstreamerLog(std::string_view first_bytes) {
  std::string_view s = SkipBom(first_bytes);
  bool first = true;
  std::string scratch;  // a coloured line without its colour sequences
  while (!s.empty()) {
    const size_t nl = s.find('\n');
    std::string_view line = gst::StripColour(s.substr(0, nl), scratch);
    s = nl == std::string_view::npos ? std::string_view() : s.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    // Only where a line starts: a text that quotes a log line mid-line (a
    // Markdown report in the recording's folder, "- `0:00:00.01 ... latency,
    // ...`") is not a log.
    if (line.starts_with(kElementRecord) || line.starts_with(kLatencyRecord)) return true;
    if (IsDebugLine(line) && (first || line.find("GST_TRACER") != std::string_view::npos ||
                              line.find(kElementRecord) != std::string_view::npos ||
                              line.find(kLatencyRecord) != std::string_view::npos)) {
      return true;
    }
    first = false;
  }
  return false;
}

}  // namespace cookgraph
