// Who wrote the trace, what each slice is, and which frame it belongs to.
// Per-slice decisions are made once per distinct name or category (interned
// ids), so a regex runs once per distinct event name, not once per event.

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <numeric>
#include <optional>
#include <regex>
#include <unordered_map>
#include <unordered_set>

#include "adapters/chrome/build.h"
#include "base/text.h"
#include "graph/parallel.h"
#include "metrics/percentile.h"
#include "model/snapshot.h"

namespace cookgraph::chrome {
namespace {

// Categories only the PyTorch profiler writes (both schemas).
bool IsKinetoCategory(std::string_view cat) {
  static constexpr std::array<std::string_view, 9> kCats = {
      "cpu_op", "Operator",        "cuda_runtime", "Runtime",        "kernel",
      "Kernel", "python_function", "gpu_memcpy",   "user_annotation"};
  return std::find(kCats.begin(), kCats.end(), cat) != kCats.end();
}

// PyTorch's legacy export: no category on any slice, and the process named
// "CPU functions" (the only name it writes).
bool IsLegacyPyTorch(const TraceRecords& r) {
  bool cpu_functions = false;
  std::vector<int8_t> thread_seen(r.strings.size(), -1);
  for (const Slice& s : r.slices) {
    if (s.cat != kNone) return false;
    if (s.thread != kNone && thread_seen[s.thread] < 0) {
      thread_seen[s.thread] = r.strings.str(s.thread).starts_with("CPU functions\x1F");
      cpu_functions = cpu_functions || thread_seen[s.thread] > 0;
    }
  }
  return cpu_functions;
}

Producer DetectProducer(const TraceRecords& r) {
  if (r.kineto_keys) return Producer::kKineto;
  const uint32_t op = r.strings.Find("Op");
  const uint32_t node = r.strings.Find("Node");
  const uint32_t session = r.strings.Find("Session");
  const uint32_t model_run = r.strings.Find("model_run");
  bool tensorflow = false, kineto = false;
  std::vector<int8_t> kineto_cat(r.strings.size(), -1);
  for (uint32_t i = 0; i < r.slices.size(); ++i) {
    const Slice& s = r.slices[i];
    if ((s.cat == session && s.name == model_run && model_run != kNone) ||
        (s.cat == node && node != kNone && EndsWith(r.strings.str(s.name), "_kernel_time"))) {
      return Producer::kOnnxRuntime;
    }
    tensorflow = tensorflow || (s.cat == op && op != kNone && r.LabelOf(i) != kNone);
    if (s.cat != kNone) {
      if (kineto_cat[s.cat] < 0) kineto_cat[s.cat] = IsKinetoCategory(r.strings.str(s.cat));
      kineto = kineto || kineto_cat[s.cat] > 0;
    }
  }
  if (tensorflow) return Producer::kTensorFlow;
  if (kineto) return Producer::kKineto;
  return IsLegacyPyTorch(r) ? Producer::kPyTorchLegacy : Producer::kGeneric;
}

// An integer frame number from a regex capture, if it is one.
std::optional<int64_t> FrameNumber(const std::smatch& match) {
  if (match.size() < 2 || !match[1].matched) return std::nullopt;
  const std::string text = match[1].str();
  int64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return number;
}

// The median of the steps after the first (the mean of the middle two when
// even), or 0 when the first is no warm-up: it is one when there are three
// or more steps and it took at least 1.5 times that median
// (docs/formats.md#warm-up).
double WarmUpMedian(const std::vector<double>& frame_ms) {
  if (frame_ms.size() < 3) return 0;
  std::vector<double> others(frame_ms.begin() + 1, frame_ms.end());
  std::sort(others.begin(), others.end());
  const double median = Percentile(others, 50);
  return median > 0 && frame_ms.front() >= 1.5 * median ? median : 0;
}

// The whole number `text` starts with, or -1.
int64_t LeadingNumber(std::string_view text) {
  int64_t v = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end != text.data() && v >= 0 ? v : -1;
}

// TensorFlow 1's GPU tracer writes each GPU activity to a process named
// "DEVICE/stream:N Compute" and again to "DEVICE/stream:all Compute", and each
// copy a third time to "DEVICE/memcpy Compute" (DEVICE: "/device:GPU:0" or the
// older "/gpu:0"); the process names come from "M" process_name events. The
// per-stream slices get category `kernel` (`gpu_memcpy` when named MEMCPY...);
// where a device has per-stream processes its stream:all and memcpy slices are
// copies: true in the result, and counted in a warning. A device's memcpy
// slices are copies too where it has a stream:all process. What has no
// per-stream twin (stream:all alone, memcpy alone) is read as a stream.

std::vector<bool> ReadTensorFlowStreams(TraceRecords& r, Classified& c) {
  std::vector<bool> copy(r.slices.size(), false);
  if (r.process_names.empty()) return copy;
  const uint32_t kernel = r.strings.Intern("kernel"), memcpy = r.strings.Intern("gpu_memcpy");
  std::unordered_map<std::string_view, std::string_view> process;  // pid -> its name
  for (auto [pid, name] : r.process_names) process[r.strings.str(pid)] = r.strings.str(name);
  enum Kind : int8_t { kUnknown = -1, kHost, kStream, kAll, kMemcpy };
  struct Track {
    Kind kind = kUnknown;
    std::string device;
    int64_t stream = -1;
  };
  std::vector<Track> track(r.strings.size());
  std::unordered_set<std::string> has_streams, has_all;
  auto track_of = [&](uint32_t thread) -> Track& {
    Track& t = track[thread];
    if (t.kind != kUnknown) return t;
    t.kind = kHost;
    const std::string_view key = r.strings.str(thread);
    auto it = process.find(key.substr(0, key.find('\x1F')));
    if (it == process.end()) return t;
    std::string_view name = it->second;
    if (EndsWith(name, " Compute")) name.remove_suffix(8);
    if (const size_t at = name.rfind("/stream:"); at != std::string_view::npos) {
      const std::string_view stream = name.substr(at + 8);
      t.kind = stream == "all" ? kAll : kStream;
      t.device = name.substr(0, at);
      t.stream = LeadingNumber(stream);
      (t.kind == kStream ? has_streams : has_all).insert(t.device);
    } else if (EndsWith(name, "/memcpy")) {
      t.kind = kMemcpy;
      t.device = name.substr(0, name.size() - 7);
    }
    return t;
  };
  for (const Slice& s : r.slices) track_of(s.thread);
  Tally copies;
  for (uint32_t i = 0; i < r.slices.size(); ++i) {
    Slice& s = r.slices[i];
    const Track& t = track[s.thread];
    if (t.kind == kHost) continue;
    const bool streams = has_streams.count(t.device) > 0;
    if ((t.kind == kAll && streams) || (t.kind == kMemcpy && (streams || has_all.count(t.device)))) {
      copy[i] = true;
      copies.Add(fmt::format("'{}', traceEvents[{}]", r.strings.str(s.name), s.event));
      continue;
    }
    s.cat = r.strings.str(s.name).starts_with("MEMCPY") ? memcpy : kernel;
    if (!c.tf_streams.contains(s.thread)) {
      // "/device:GPU:0" or "/gpu:0": the number after the last colon.
      const size_t colon = t.device.rfind(':');
      const int64_t device =
          colon == std::string::npos ? -1 : LeadingNumber(std::string_view(t.device).substr(colon + 1));
      c.tf_streams[s.thread] = {device, t.stream};
    }
  }
  if (copies.count > 0) {
    c.warnings.push_back(fmt::format(
        "{} GPU event(s) on a stream:all or memcpy process repeat the per-stream events and "
        "were counted once (first: {})",
        copies.count, copies.first));
  }
  return copy;
}

// A slice of the warm-up step, while frames are assigned.
constexpr uint32_t kWarmUp = kNone - 1;

// Each node slice's frame in `of_slice`: its launcher's for launched GPU
// work, else the frame whose marker ([starts, ends) by start) holds its
// start, one less after a warm-up (whose slices get kWarmUp). Those in no
// frame are counted, the first in file order named. CPU slices first: GPU
// slices follow their launcher, always a CPU slice (Launchers). Each slice
// writes its own frame: a large trace's halves on two cores, each pass's,
// with a tally per pass and half, read in order.
Tally NumberSlices(const TraceRecords& r, const Classified& c,
                   const std::vector<uint32_t>& launcher, const std::vector<int64_t>& starts,
                   const std::vector<int64_t>& ends, bool warmup, std::vector<uint32_t>& of_slice) {
  const std::vector<Slice>& slices = r.slices;
  auto frame_at = [&](int64_t ts) -> uint32_t {
    auto after = std::upper_bound(starts.begin(), starts.end(), ts);
    if (after == starts.begin()) return kNone;
    const auto f = static_cast<size_t>(after - starts.begin() - 1);
    return ts < ends[f] ? static_cast<uint32_t>(f) : kNone;
  };
  std::array<Tally, 4> outside_of;
  for (int pass = 0; pass < 2; ++pass) {
    RunHalvesIf(slices.size() >= kParallelTraceItems, slices.size(),
                [&](size_t from, size_t to, size_t half) {
                  Tally& outside = outside_of[2 * static_cast<size_t>(pass) + half];
                  for (auto i = static_cast<uint32_t>(from); i < to; ++i) {
                    if (c.role[i] != Role::kNode || c.gpu[i] != (pass == 1)) continue;
                    uint32_t& f = of_slice[i];
                    if (launcher[i] != kNone) {
                      f = of_slice[launcher[i]];  // the launcher's, already numbered
                    } else {
                      f = frame_at(slices[i].start);
                      // The warm-up's slices are in no frame; the others move down one.
                      if (warmup && f != kNone) f = f == 0 ? kWarmUp : f - 1;
                    }
                    if (f != kNone) continue;
                    if (outside.count++ == 0) {
                      outside.first = fmt::format("'{}', traceEvents[{}]",
                                                  r.strings.str(slices[i].name), slices[i].event);
                    }
                  }
                });
  }
  Tally outside;
  for (const Tally& part : outside_of) {
    if (outside.count == 0) outside.first = part.first;
    outside.count += part.count;
  }
  return outside;
}

}  // namespace

std::string_view FrameWordOf(Producer producer) {
  SnapshotInfo info;
  info.engine = EngineName(producer);
  return info.frame_word();
}

std::string_view EngineName(Producer producer) {
  static constexpr std::array<std::string_view, 5> kNames = {"pytorch", "tensorflow", "onnxruntime",
                                                             "chrome-trace", "pytorch"};
  return kNames[static_cast<size_t>(producer)];
}

std::string FamilyOf(Producer producer, std::string_view cat) {
  if (producer == Producer::kTensorFlow) {  // the GPU tracer's, as ReadTensorFlowStreams sets them
    return cat == "kernel" || cat == "gpu_memcpy" ? std::string(cat) : "op";
  }
  if (producer == Producer::kOnnxRuntime) return cat.empty() ? "Node" : std::string(cat);
  // The legacy export says nothing of what an event is: every one is an
  // operator on the CPU (record_function's spans too).
  if (producer == Producer::kPyTorchLegacy) return "cpu_op";
  // Kineto's categories, with the 2021 schema's names mapped onto today's.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> k2021 = {{
      {"Operator", "cpu_op"},
      {"Runtime", "cuda_runtime"},
      {"Kernel", "kernel"},
      {"Memcpy", "gpu_memcpy"},
      {"Memset", "gpu_memset"},
  }};
  if (producer == Producer::kKineto) {
    for (const auto& [old_name, name] : k2021) {
      if (cat == old_name) return std::string(name);
    }
  }
  return cat.empty() ? "event" : std::string(cat);
}

bool IsGpuFamily(std::string_view family) {
  static constexpr std::array<std::string_view, 5> kGpu = {"kernel", "gpu_memcpy", "gpu_memset",
                                                           "gpu_user_annotation", "cuda_sync"};
  return std::find(kGpu.begin(), kGpu.end(), family) != kGpu.end();
}

bool IsGpuNonWork(std::string_view family) {
  return family == "gpu_user_annotation" || family == "cuda_sync";
}

Result<Classified> ClassifySlices(TraceRecords& r, const ChromeTraceOptions& options,
                                  const std::string& file) {
  Classified c;
  c.producer = DetectProducer(r);
  const size_t n = r.slices.size();
  c.role.assign(n, Role::kNode);
  c.gpu.assign(n, false);
  const std::vector<bool> copies = c.producer == Producer::kTensorFlow
                                       ? ReadTensorFlowStreams(r, c)
                                       : std::vector<bool>(n, false);

  // Per category: GPU-side, ignored.
  std::vector<int8_t> cat_gpu(r.strings.size(), -1);  // 0 CPU, 1 GPU work, 2 GPU not work
  auto gpu_class = [&](uint32_t cat) {
    if (cat == kNone) return 0;
    if (cat_gpu[cat] < 0) {
      const std::string family = FamilyOf(c.producer, r.strings.str(cat));
      cat_gpu[cat] = IsGpuNonWork(family) ? 2 : IsGpuFamily(family) ? 1 : 0;
    }
    return static_cast<int>(cat_gpu[cat]);
  };
  auto is_gpu = [&](uint32_t cat) { return gpu_class(cat) > 0; };
  const uint32_t trace_cat = r.strings.Find("Trace");
  const uint32_t session_cat = r.strings.Find("Session");
  auto ignored_by_producer = [&](const Slice& s) {
    if (c.producer == Producer::kKineto) return s.cat == trace_cat && s.cat != kNone;
    if (c.producer != Producer::kOnnxRuntime) return false;
    if (s.cat == session_cat && s.cat != kNone) return true;
    const std::string& name = r.strings.str(s.name);
    return EndsWith(name, "_fence_before") || EndsWith(name, "_fence_after");
  };

  // The marker regex: the user's, else ProfilerStep#N, else model_run.
  std::regex marker;
  bool ordinal = false;
  if (options.frame_marker) {
    try {
      marker = std::regex(*options.frame_marker, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Error{.file = file,
                   .message = fmt::format("frame marker '{}' is not a valid regular expression: {}",
                                          *options.frame_marker, e.what())};
    }
    c.marker_what = "'" + *options.frame_marker + "'";
    c.user_marker = true;
  }
  std::vector<int8_t> name_match(r.strings.size(), -1);
  std::vector<std::optional<int64_t>> name_number(r.strings.size());
  auto matches = [&](uint32_t name) {
    if (name_match[name] < 0) {
      std::smatch match;
      const std::string& text = r.strings.str(name);
      name_match[name] = std::regex_search(text, match, marker);
      if (name_match[name] > 0 && !ordinal) name_number[name] = FrameNumber(match);
    }
    return name_match[name] > 0;
  };
  auto any_cpu_match = [&] {
    for (uint32_t i = 0; i < n; ++i) {
      if (!is_gpu(r.slices[i].cat) && matches(r.slices[i].name)) return true;
    }
    return false;
  };
  if (!options.frame_marker) {
    marker = std::regex("^ProfilerStep#(\\d+)$");
    c.marker_what = "ProfilerStep#N";
    if (!any_cpu_match()) {
      marker = std::regex("^model_run$");
      c.marker_what = "model_run";
      ordinal = true;
      std::fill(name_match.begin(), name_match.end(), int8_t{-1});
      if (!any_cpu_match()) c.marker_what.clear();
    }
  }

  for (uint32_t i = 0; i < n; ++i) {
    const Slice& s = r.slices[i];
    c.gpu[i] = is_gpu(s.cat);
    if (gpu_class(s.cat) == 2) c.role[i] = Role::kTimeline;  // annotations are not work
    if (ignored_by_producer(s) || copies[i]) c.role[i] = Role::kIgnored;
    if (c.marker_what.empty() || !matches(s.name)) continue;
    // A marker's copy on a GPU stream (Kineto's gpu_user_annotation) is
    // neither a frame nor a node.
    c.role[i] = c.gpu[i] ? Role::kTimeline : Role::kMarker;
    if (c.role[i] == Role::kMarker) {
      c.markers.push_back(i);
      c.marker_number.push_back(name_number[s.name]);
    }
  }
  return c;
}

void AddTensorFlowLaunches(const TraceRecords& r, const Classified& c,
                           std::vector<FlowLink>& links) {
  std::unordered_map<uint32_t, std::vector<uint32_t>> host;  // label -> host node slices by start
  for (uint32_t i = 0; i < r.slices.size(); ++i) {
    if (!c.gpu[i] && c.role[i] == Role::kNode && r.LabelOf(i) != kNone) {
      host[r.LabelOf(i)].push_back(i);
    }
  }
  for (auto& [label, slices] : host) {
    std::stable_sort(slices.begin(), slices.end(), [&](uint32_t a, uint32_t b) {
      return r.slices[a].start < r.slices[b].start;
    });
  }
  for (uint32_t i = 0; i < r.slices.size(); ++i) {
    const Slice& s = r.slices[i];
    if (!c.gpu[i] || c.role[i] != Role::kNode || r.LabelOf(i) == kNone) continue;
    auto it = host.find(r.LabelOf(i));
    if (it == host.end()) continue;
    const std::vector<uint32_t>& ops = it->second;
    auto after = std::upper_bound(ops.begin(), ops.end(), s.start,
                                  [&](int64_t ts, uint32_t op) { return ts < r.slices[op].start; });
    links.push_back(FlowLink{.from = after == ops.begin() ? ops.front() : *(after - 1), .to = i});
  }
}

std::vector<uint32_t> Launchers(const TraceRecords& r, const Classified& c,
                                const std::vector<FlowLink>& links) {
  const std::vector<Slice>& slices = r.slices;
  std::vector<uint32_t> launcher(slices.size(), kNone);
  // The CPU-side slices by correlation id: a table when the ids are dense (as
  // Kineto's are), else a map.
  uint32_t max_correlation = 0;
  size_t cpu_correlated = 0;
  for (uint32_t i = 0; i < slices.size(); ++i) {
    if (slices[i].correlation == kNone || c.gpu[i] || c.role[i] != Role::kNode) continue;
    max_correlation = std::max(max_correlation, slices[i].correlation);
    ++cpu_correlated;
  }
  if (cpu_correlated > 0) {
    const bool dense = max_correlation < 8 * slices.size() + 1024;
    std::vector<uint32_t> table(dense ? size_t{max_correlation} + 1 : 0, kNone);
    std::unordered_map<uint32_t, uint32_t> map;
    for (uint32_t i = 0; i < slices.size(); ++i) {
      const uint32_t corr = slices[i].correlation;
      if (corr == kNone || c.gpu[i] || c.role[i] != Role::kNode) continue;
      // As HTA, the last one in file order holds the id (trace.py
      // transform_correlation_to_index).
      uint32_t& slot = dense ? table[corr] : map.try_emplace(corr, kNone).first->second;
      if (slot == kNone || slices[i].event >= slices[slot].event) slot = i;
    }
    for (uint32_t i = 0; i < slices.size(); ++i) {
      const uint32_t corr = slices[i].correlation;
      if (corr == kNone || !c.gpu[i]) continue;
      if (dense) {
        if (corr < table.size()) launcher[i] = table[corr];
      } else if (auto it = map.find(corr); it != map.end()) {
        launcher[i] = it->second;
      }
    }
  }
  for (const FlowLink& link : links) {
    if (c.gpu[link.to] && !c.gpu[link.from] && launcher[link.to] == kNone) {
      launcher[link.to] = link.from;
    }
  }
  return launcher;
}

Frames AssignFrames(const TraceRecords& r, const Classified& c,
                    const std::vector<uint32_t>& launcher, bool keep_warmup) {
  const std::vector<Slice>& slices = r.slices;
  Frames frames;
  frames.of_slice.assign(slices.size(), kNone);
  auto is_node = [&](uint32_t i) { return c.role[i] == Role::kNode; };

  if (c.markers.empty()) {
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    for (uint32_t i = 0; i < slices.size(); ++i) {
      if (!is_node(i)) continue;
      frames.of_slice[i] = 0;
      first = std::min(first, slices[i].start);
      last = std::max(last, slices[i].end);
    }
    frames.index = {0};
    frames.frame_ms = {first <= last ? static_cast<double>(last - first) / 1e6 : 0.0};
    frames.start_ns = {first <= last ? first : 0};
    const std::string_view word = FrameWordOf(c.producer);
    frames.warnings.push_back(
        c.user_marker
            ? fmt::format("no event name matches --frame-marker {}: the whole trace is one {}",
                          c.marker_what, word)
            : fmt::format("no {} marker in the trace (ProfilerStep#N or model_run): the whole "
                          "trace is one {}",
                          word, word));
    return frames;
  }

  // Markers in time order; one that starts inside the previous one is dropped.
  std::vector<size_t> order(c.markers.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Slice& x = slices[c.markers[a]];
    const Slice& y = slices[c.markers[b]];
    if (x.start != y.start) return x.start < y.start;
    if (x.end != y.end) return x.end > y.end;
    return x.event < y.event;
  });
  std::vector<int64_t> starts, ends;
  std::vector<std::optional<int64_t>> numbers;
  Tally overlapping;
  for (size_t k : order) {
    const Slice& m = slices[c.markers[k]];
    if (!ends.empty() && m.start < ends.back()) {
      overlapping.Add(fmt::format("'{}', traceEvents[{}]", r.strings.str(m.name), m.event));
      continue;
    }
    starts.push_back(m.start);
    ends.push_back(m.end);
    numbers.push_back(c.marker_number[k]);
    frames.frame_ms.push_back(static_cast<double>(m.end - m.start) / 1e6);
    frames.start_ns.push_back(m.start);
  }
  if (overlapping.count > 0) {
    frames.warnings.push_back(
        fmt::format("{} {} marker(s) start inside an earlier one and were ignored (first: {})",
                    overlapping.count, FrameWordOf(c.producer), overlapping.first));
  }
  // The markers' own numbers, unless one lacks a number or two share one.
  std::unordered_set<int64_t> seen;
  bool numbered = true;
  for (const auto& number : numbers) numbered = numbered && number && seen.insert(*number).second;
  if (!numbered && std::any_of(numbers.begin(), numbers.end(), [](auto& v) { return v.has_value(); })) {
    frames.warnings.push_back(fmt::format(
        "the {} markers {} do not all have distinct numbers: {}s are numbered 0, 1, ...",
        FrameWordOf(c.producer), c.marker_what, FrameWordOf(c.producer)));
  }
  for (size_t f = 0; f < numbers.size(); ++f) {
    frames.index.push_back(numbered ? *numbers[f] : static_cast<int64_t>(f));
  }

  // Training steps and inference runs warm up; a generic trace's frames are
  // whatever the user marked (cookgraph trace's, a game's): left as they are.
  const double warm_median =  // 0: no warm-up
      keep_warmup || c.producer == Producer::kGeneric ? 0 : WarmUpMedian(frames.frame_ms);
  const bool warmup = warm_median > 0;
  const Tally outside = NumberSlices(r, c, launcher, starts, ends, warmup, frames.of_slice);
  if (outside.count > 0) {
    frames.warnings.push_back(
        fmt::format("{} slice(s) lie outside every {} ({}) and were left out (first: {})",
                    outside.count, FrameWordOf(c.producer), c.marker_what, outside.first));
  }
  if (warmup) {
    for (uint32_t& f : frames.of_slice) f = f == kWarmUp ? kNone : f;
    frames.warnings.push_back(fmt::format(
        "step {} is a warm-up ({:.3f} ms, {:.1f}x the median {:.3f} ms of the other steps): left "
        "out of the step statistics (--keep-warmup keeps it)",
        frames.index.front(), frames.frame_ms.front(), frames.frame_ms.front() / warm_median,
        warm_median));
    frames.index.erase(frames.index.begin());
    frames.frame_ms.erase(frames.frame_ms.begin());
    frames.start_ns.erase(frames.start_ns.begin());
  }
  return frames;
}

}  // namespace cookgraph::chrome
