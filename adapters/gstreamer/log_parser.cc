// The log stage of the GStreamer reader: the latency tracer's records, read
// line by line from a GST_DEBUG log into per-element sample series.
//
// A record is found by its text wherever it sits in the line, after the usual
// "0:00:00.035057452 10671 0x55ad108f4c60 TRACE GST_TRACER :0:: " prefix:
//   element-latency, element-id=(string)0x55.., element=(string)NAME, src=(string)PAD,
//       time=(guint64)NS, ts=(guint64)NS;
//   latency, src-element-id=(string)0x55.., src-element=(string)NAME, src=(string)PAD,
//       sink-element-id=(string)0x55.., sink-element=(string)NAME, sink=(string)PAD,
//       time=(guint64)NS, ts=(guint64)NS;
//   thread-rusage, thread-id=(guint64)N, ts=(guint64)NS, average-cpuload=(uint)PERMILLE,
//       current-cpuload=(uint)PERMILLE, time=(guint64)CPU_NS;   (and proc-rusage, process-id=...)
// The tracer writes the strings with printf's %s, unquoted, so names are cut
// on the field markers, the numbers from the right. The third field of a line
// in the debug log layout is the thread that logged it: for an element-latency
// record, the streaming thread that ran the element; a thread-rusage record's
// thread-id is that pointer's value.

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>

#include "adapters/gstreamer/cpu_windows.h"
#include "adapters/gstreamer/records.h"
#include "base/text.h"

namespace cookgraph::gst {
namespace {

constexpr std::string_view kElementMarker = "element-latency, element-id=(string)";
constexpr std::string_view kLatencyMarker = "latency, src-element-id=(string)";
constexpr std::string_view kThreadRusageMarker = "thread-rusage, thread-id=(guint64)";
constexpr std::string_view kProcRusageMarker = "proc-rusage, process-id=(guint64)";
// The templates GStreamer 1.22 announces ("new format string: ...").
constexpr std::string_view kElementTemplate =
    "%s, element=(string)%s, src=(string)%s, time=(guint64)%lu, ts=(guint64)%lu;";
constexpr std::string_view kLatencyTemplate =
    "%s, src-element=(string)%s, src=(string)%s, sink-element-id=(string)%s, "
    "sink-element=(string)%s, sink=(string)%s, time=(guint64)%lu, ts=(guint64)%lu;";
// Lines longer than this are cut: records are far shorter, and a log without
// newlines must not be held whole.
constexpr size_t kMaxLine = 1 << 20;
constexpr size_t kExampleBytes = 200;
constexpr double kNsPerMs = 1e6;

using Index = StringMap<size_t>;

// The text of `s` up to `marker`, moving `s` past the marker; nullopt when
// `marker` is not in `s`.
std::optional<std::string_view> Until(std::string_view& s, std::string_view marker) {
  const size_t at = s.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view head = s.substr(0, at);
  s.remove_prefix(at + marker.size());
  return head;
}

std::optional<uint64_t> Number(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

struct TimeTs {
  uint64_t time = 0, ts = 0;  // ns
};

// `time=(guint64)N, ts=(guint64)M;` at the end of a record (after the time's
// marker): both numbers, or nullopt when the tail is not that.
std::optional<TimeTs> TimeAndTs(std::string_view tail) {
  while (!tail.empty() && (tail.back() == ' ' || tail.back() == '\t')) tail.remove_suffix(1);
  if (tail.empty() || tail.back() != ';') return std::nullopt;
  tail.remove_suffix(1);
  const size_t at = tail.rfind(", ts=(guint64)");
  if (at == std::string_view::npos) return std::nullopt;
  const auto ts = Number(tail.substr(at + 14));
  const auto time = Number(tail.substr(0, at));
  if (!ts || !time) return std::nullopt;
  return TimeTs{.time = *time, .ts = *ts};
}

// The thread pointer of a line in the debug log layout ("0:00:00.039 18768
// 0x5594 TRACE ..."): its third field, when the first holds ':' and the third
// is "0x" and hex digits (a pointer, so nothing else reaches the output); ""
// otherwise.
std::string_view ThreadField(std::string_view line) {
  std::string_view fields[3];
  size_t i = 0;
  for (std::string_view& f : fields) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    f = line.substr(start, i - start);
  }
  const std::string_view t = fields[2];
  if (fields[0].find(':') == std::string_view::npos || t.size() < 3 || t.substr(0, 2) != "0x") {
    return {};
  }
  for (char c : t.substr(2)) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
  }
  return t;
}

// The number after `key` in `s` ("ts=(guint64)" -> 123 in "ts=(guint64)123,"),
// up to ',' or ';'; nullopt when missing or not a number.
std::optional<uint64_t> Field(std::string_view s, std::string_view key) {
  const size_t at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = s.substr(at + key.size());
  const size_t end = rest.find_first_of(",;");
  if (end == std::string_view::npos) return std::nullopt;
  return Number(rest.substr(0, end));
}

class LogReader {
 public:
  LogReader(GstLog& out, const ByteSource& source) : out_(out), source_(source) {}

  // False once a record passed a limit: error() says which.
  bool Line(std::string_view raw, int64_t number) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string_view line = StripColour(raw, scratch_);
    if (const size_t at = line.find(kElementMarker); at != std::string_view::npos) {
      Element(line, at, number);
    } else if (const size_t at2 = line.find(kLatencyMarker);
               at2 != std::string_view::npos && (at2 == 0 || !IsNameChar(line[at2 - 1]))) {
      Latency(line, at2, number);
    } else if (const size_t at3 = line.find(kThreadRusageMarker); at3 != std::string_view::npos) {
      Rusage(line, line.substr(at3 + kThreadRusageMarker.size()), true, number);
    } else if (const size_t at4 = line.find(kProcRusageMarker); at4 != std::string_view::npos) {
      Rusage(line, line.substr(at4 + kProcRusageMarker.size()), false, number);
    }
    return !error_;
  }

  const std::optional<Error>& error() const { return error_; }

  // Records still waiting for their thread's next rusage record, measured
  // with the last (CpuWindows::Finish).
  void Finish() { cpu_.Finish(out_); }

 private:
  static bool IsNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
  }

  // False (with error_) when one of `names` (field, text) of the record on
  // line `number` is longer than the name-length limit.
  bool NamesFit(std::initializer_list<std::pair<std::string_view, std::string_view>> names,
                int64_t number) {
    for (const auto& [field, text] : names) {
      if (text.size() <= source_.limits().name_length) continue;
      error_ = Error{
          .file = source_.name(),
          .line = number,
          .message = NameTooLong(source_.limits(), fmt::format("a record's {}", field),
                                 text.size())};
      return false;
    }
    return true;
  }

  void Element(std::string_view line, size_t at, int64_t number) {
    std::string_view s = line.substr(at + kElementMarker.size());
    if (s.substr(0, 2) == "%s") {  // the template, not a record
      Template(s, kElementTemplate, "element-latency");
      return;
    }
    ++out_.element_records;
    const auto id = Until(s, ", element=(string)");
    const size_t time_at = s.rfind(", time=(guint64)");
    const size_t pad_at =
        time_at == std::string_view::npos ? time_at : s.rfind(", src=(string)", time_at);
    if (!id || id->empty() || pad_at == std::string_view::npos || pad_at == 0) {
      Problem(out_.malformed, line, number);
      return;
    }
    const std::string_view name = s.substr(0, pad_at);
    const std::string_view pad = s.substr(pad_at + 14, time_at - pad_at - 14);
    if (!NamesFit({{"element-id", *id}, {"element", name}, {"src", pad}}, number)) return;
    LogElement* element = ElementOf(*id, name, number);
    if (element == nullptr) return;
    // Each record becomes a sample: one element alone past the samples limit
    // is refused here, before it is held.
    if (element->records.size() >= source_.limits().samples) {
      error_ = Error{.file = source_.name(),
                     .line = number,
                     .message = LimitMessage(source_.limits(), &InputLimits::samples,
                                             "one element has more records than")};
      return;
    }
    const uint32_t pad_index = PadOf(*element, pad);
    const auto time_ts = TimeAndTs(s.substr(time_at + 16));
    const auto thread = ThreadOf(ThreadField(line), number);
    if (!thread) return;
    LogRecord record{.pad = pad_index,
                     .thread = *thread,
                     .ms = Ms(time_ts, line, number),
                     .line = number};
    if (!IsMissing(record.ms) && time_ts->ts >= time_ts->time) {
      record.entry_ns = static_cast<int64_t>(time_ts->ts - time_ts->time);
    }
    element->pads[pad_index].ms.push_back(record.ms);
    element->records.push_back(record);
    if (*thread != kNoThread && record.entry_ns >= 0) {
      cpu_.Record(thread_ids_[*thread], static_cast<size_t>(element - out_.elements.data()),
                  element->records.size() - 1, time_ts->ts, out_);
    }
  }

  // A thread-rusage (`thread`) or proc-rusage record; `s` starts after the id's
  // marker. Templates ("%lu") are passed over; a record without its four
  // numbers is malformed.
  void Rusage(std::string_view line, std::string_view s, bool thread, int64_t number) {
    if (s.substr(0, 1) == "%") return;
    const size_t comma = s.find(',');
    // Assigned, not chosen by a ?: with nullopt: g++ 12 at -O2 then takes the
    // checked value for uninitialised where it is looked up (-Wmaybe-uninitialized).
    std::optional<uint64_t> id;
    if (comma != std::string_view::npos) id = Number(s.substr(0, comma));
    const auto ts = Field(s, "ts=(guint64)");
    const auto average = Field(s, "average-cpuload=(uint)");
    const auto current = Field(s, "current-cpuload=(uint)");
    const auto time = Field(s, " time=(guint64)");
    if (!id || !ts || !average || !current || !time) {
      Problem(out_.malformed, line, number);
      return;
    }
    const RusagePoint point{.ts_ns = *ts,
                            .time_ns = *time,
                            .average = static_cast<uint32_t>(std::min<uint64_t>(*average, 1000)),
                            .current = static_cast<uint32_t>(std::min<uint64_t>(*current, 1000))};
    if (!thread) {
      out_.proc_rusage.Add(point);
      return;
    }
    auto it = rusage_.find(*id);
    if (it == rusage_.end()) {
      if (!ThreadsFit(out_.thread_rusage.size(), "thread-rusage records of more threads than",
                      number)) {
        return;
      }
      it = rusage_.emplace(*id, out_.thread_rusage.size()).first;
      out_.thread_rusage.emplace_back(*id, RusageSeries{});
    }
    out_.thread_rusage[it->second].second.Add(point);
    cpu_.Add(*id, *ts, *time, out_);
  }

  // The index of thread `pointer` in out_.threads (added on its first
  // record); kNoThread for a line without one; nullopt (with error_) past the
  // name-length or nodes limit.
  std::optional<uint32_t> ThreadOf(std::string_view pointer, int64_t number) {
    if (pointer.empty()) return kNoThread;
    if (!NamesFit({{"thread", pointer}}, number)) return std::nullopt;
    std::string key = AsciiLower(pointer);
    auto it = threads_.find(key);
    if (it == threads_.end()) {
      if (!ThreadsFit(out_.threads.size(), "records of more threads than", number)) {
        return std::nullopt;
      }
      thread_ids_.push_back(ThreadId(key));
      it = threads_.emplace(key, out_.threads.size()).first;
      out_.threads.push_back(std::move(key));
    }
    return static_cast<uint32_t>(it->second);
  }

  // The value of a thread pointer ("0x55d0..."): the thread-id of the
  // thread's thread-rusage records; UINT64_MAX when it does not fit.
  static uint64_t ThreadId(std::string_view pointer) {
    uint64_t value = 0;
    const char* end = pointer.data() + pointer.size();
    const auto [at, ec] = std::from_chars(pointer.data() + 2, end, value, 16);
    return ec == std::errc() && at == end ? value : UINT64_MAX;
  }

  // False (with error_) when `count` threads already reach the nodes limit:
  // a thread is one more thing the snapshot keeps, like an element.
  bool ThreadsFit(size_t count, std::string_view what, int64_t number) {
    if (count < source_.limits().nodes) return true;
    error_ = Error{.file = source_.name(),
                   .line = number,
                   .message = LimitMessage(source_.limits(), &InputLimits::nodes,
                                           "the log has " + std::string(what))};
    return false;
  }

  void Latency(std::string_view line, size_t at, int64_t number) {
    std::string_view s = line.substr(at + kLatencyMarker.size());
    if (s.substr(0, 2) == "%s") {
      Template(s, kLatencyTemplate, "latency");
      return;
    }
    ++out_.latency_records;
    const auto src_id = Until(s, ", src-element=(string)");
    const auto src_name = src_id ? Until(s, ", src=(string)") : std::nullopt;
    const auto src_pad = src_name ? Until(s, ", sink-element-id=(string)") : std::nullopt;
    const auto sink_id = src_pad ? Until(s, ", sink-element=(string)") : std::nullopt;
    const auto sink_name = sink_id ? Until(s, ", sink=(string)") : std::nullopt;
    const auto sink_pad = sink_name ? Until(s, ", time=(guint64)") : std::nullopt;
    if (!sink_pad || src_id->empty() || sink_id->empty()) {
      Problem(out_.malformed, line, number);
      return;
    }
    if (!NamesFit({{"src-element-id", *src_id},
                   {"src-element", *src_name},
                   {"src", *src_pad},
                   {"sink-element-id", *sink_id},
                   {"sink-element", *sink_name},
                   {"sink", *sink_pad}},
                  number)) {
      return;
    }
    // By sink pad, not by source: see LogPair.
    std::string key = AsciiLower(*sink_id) + ' ' + std::string(*sink_pad);
    auto [it, added] = pairs_.try_emplace(std::move(key), out_.pairs.size());
    if (added) {
      out_.pairs.push_back(LogPair{.src_id = AsciiLower(*src_id),
                                   .src_name = std::string(*src_name),
                                   .sink_id = AsciiLower(*sink_id),
                                   .sink_name = std::string(*sink_name),
                                   .sink_pad = std::string(*sink_pad)});
    }
    out_.pairs[it->second].ms.push_back(Ms(TimeAndTs(s), line, number));
  }

  // Element `id`, created on its first record; nullptr (with error_) when a
  // new element would pass the nodes limit.
  LogElement* ElementOf(std::string_view id, std::string_view name, int64_t number) {
    auto it = elements_.find(id);
    if (it == elements_.end()) {
      // Pointers are printed by %p: lower case on glibc, but compare without case.
      std::string key = AsciiLower(id);
      it = elements_.find(key);
      if (it == elements_.end()) {
        if (out_.elements.size() >= source_.limits().nodes) {
          error_ = Error{.file = source_.name(),
                         .line = number,
                         .message = LimitMessage(source_.limits(), &InputLimits::nodes,
                                                 "the log has records of more elements than")};
          return nullptr;
        }
        it = elements_.emplace(std::string(id), out_.elements.size()).first;
        if (key != id) elements_.emplace(key, out_.elements.size());
        out_.elements.push_back(LogElement{.id = key, .name = std::string(name)});
      }
    }
    return &out_.elements[it->second];
  }

  // The index of `pad` among `e`'s pads, added on its first record.
  static uint32_t PadOf(LogElement& e, std::string_view pad) {
    for (size_t i = 0; i < e.pads.size(); ++i) {
      if (e.pads[i].name == pad) return static_cast<uint32_t>(i);
    }
    e.pads.push_back(LogPad{.name = std::string(pad)});
    return static_cast<uint32_t>(e.pads.size() - 1);
  }

  // ms from a record's time; NaN (counted) when it could not be read or is
  // negative, so the buffer keeps its place in the element's order.
  double Ms(const std::optional<TimeTs>& record, std::string_view line, int64_t number) {
    if (!record) {
      Problem(out_.malformed, line, number);
      return kMissing;
    }
    if (record->time > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      Problem(out_.negative, line, number);
      return kMissing;
    }
    return static_cast<double>(record->time) / kNsPerMs;
  }

  void Template(std::string_view s, std::string_view expected, std::string_view record) {
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    if (s == expected) return;
    const std::string note = "the " + std::string(record) +
                             " record template differs from GStreamer 1.22's (fields are read by "
                             "name; check the numbers): " +
                             std::string(s.substr(0, kExampleBytes));
    for (const std::string& n : out_.notes) {
      if (n == note) return;
    }
    out_.notes.push_back(note);
  }

  static void Problem(LogProblem& p, std::string_view line, int64_t number) {
    if (p.count++ == 0) {
      p.first_line = number;
      p.first_text = std::string(line.substr(0, kExampleBytes));
    }
  }

  GstLog& out_;
  const ByteSource& source_;
  std::optional<Error> error_;
  Index elements_;  // id as logged (and in lower case) -> index into out_.elements
  Index pairs_;     // "sink_id sink_pad" -> index into out_.pairs
  Index threads_;   // thread pointer (lower case) -> index into out_.threads
  std::unordered_map<uint64_t, size_t> rusage_;  // thread id -> index into out_.thread_rusage
  std::vector<uint64_t> thread_ids_;  // per out_.threads: the pointer's value
  CpuWindows cpu_;
  std::string scratch_;
};

}  // namespace

std::string_view StripColour(std::string_view line, std::string& scratch) {
  if (line.find('\x1b') == std::string_view::npos) return line;
  scratch.clear();
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
      i += 2;
      while (i < line.size() && !std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
      continue;
    }
    scratch += line[i];
  }
  return scratch;
}

Result<GstLog> ReadLog(ByteSource& source) {
  GstLog out;
  LogReader reader(out, source);
  std::vector<char> buffer(1 << 16);
  std::string carry;  // the start of a line that continues in the next chunk
  bool cut = false;   // the current line passed kMaxLine; the rest is skipped
  int64_t line = 1;
  while (true) {
    const size_t n = source.Read(buffer.data(), buffer.size());
    if (n == 0) break;
    const char* data = buffer.data();
    size_t start = 0;
    while (start < n) {
      const void* nl = std::memchr(data + start, '\n', n - start);
      const size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - data) : n;
      const std::string_view piece(data + start, end - start);
      if (!nl) {
        if (!cut) carry.append(piece.substr(0, kMaxLine - std::min(kMaxLine, carry.size())));
        cut = cut || carry.size() >= kMaxLine;
        break;
      }
      bool ok = true;
      if (carry.empty() && !cut) {
        ok = reader.Line(piece, line);
      } else {
        if (!cut) carry.append(piece.substr(0, kMaxLine - std::min(kMaxLine, carry.size())));
        ok = reader.Line(carry, line);
        carry.clear();
        cut = false;
      }
      if (!ok) return *reader.error();
      ++line;
      start = end + 1;
    }
  }
  if (!carry.empty() && !reader.Line(carry, line)) return *reader.error();
  reader.Finish();
  out.lines = carry.empty() ? line - 1 : line;
  if (source.failed()) {
    return Error{.file = source.name(), .line = line, .message = source.error()};
  }
  if (out.element_records == 0 && out.latency_records == 0) {
    return Error{.file = source.name(),
                 .message = "no element-latency or latency records in " +
                            std::to_string(out.lines) +
                            " lines: record the log with GST_TRACERS=\"latency(flags=element+"
                            "pipeline)\" GST_DEBUG=\"GST_TRACER:7\" GST_DEBUG_FILE=trace.log"};
  }
  return out;
}

}  // namespace cookgraph::gst
