#include "writers/chrome_trace_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "base/text.h"
#include "writers/atomic_file.h"

namespace cookgraph {
namespace {

// µs with three decimals: whole nanoseconds.
std::string Us(double ms) { return fmt::format("{:.3f}", std::round(ms * 1e6) / 1e3); }

// Whole ns as µs with three decimals, exactly.
std::string NsAsUs(int64_t ns) {
  return fmt::format("{}{}.{:03}", ns < 0 ? "-" : "", std::llabs(ns) / 1000, std::llabs(ns) % 1000);
}

// The trace's opening: its metadata, the process's name and the frames thread.
void AppendHeader(std::string& out, const Snapshot& snapshot) {
  const std::string title = snapshot.info.name.empty() ? "network" : snapshot.info.name;
  out += "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"cookgraph\",\"engine\":";
  AppendJsonString(out, snapshot.info.engine);
  out += ",\"name\":";
  AppendJsonString(out, title);
  out += "},\"traceEvents\":[\n";
  out += "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":";
  AppendJsonString(out, "cookgraph: " + title);
  out += "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_name\",\"args\":{\"name\":"
         "\"frames\"}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"thread_sort_index\","
         "\"args\":{\"sort_index\":0}}";
}

// Names and sorts a thread for each node; returns the thread of each node.
std::vector<uint32_t> AppendNodeThreads(std::string& out, const Network& network,
                                        const Analysis& analysis, const auto& flush) {
  // Thread of each node: 1 + its position in the topological order.
  std::vector<uint32_t> thread(network.size(), 0);
  for (size_t i = 0; i < analysis.order.size(); ++i) {
    const NodeIndex n = analysis.order[i];
    thread[n] = static_cast<uint32_t>(i + 1);
    const Node& node = network.node(n);
    out += fmt::format(",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":", i + 1);
    AppendJsonString(out, node.id);
    out += fmt::format("}}}},\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_sort_index\",\"args\":{{\"sort_index\":{}}}}}", i + 1, i + 1);
    flush(false);
  }
  return thread;
}

// Names the thread of a node's extra lane (0-based `lane`, shown 1-based).
void AppendLaneName(std::string& out, size_t tid, const std::string& id, size_t lane) {
  out += fmt::format(",\n{{\"ph\":\"M\",\"pid\":1,\"tid\":{},\"name\":\"thread_name\",\"args\":{{\"name\":",
                     tid);
  AppendJsonString(out, id + " (" + std::to_string(lane + 1) + ")");
  out += "}}";
}

// The critical path in frame `f`: a flow from each node's first cook to the
// next one's, numbered on from `flow_id`.
void AppendPathFlows(std::string& out, const Samples& samples, const std::vector<NodeIndex>& path,
                     size_t f, const std::vector<uint32_t>& first_tid,
                     const std::vector<double>& first_ts, uint64_t& flow_id, const auto& flush) {
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const NodeIndex a = path[i], b = path[i + 1];
    const std::span<const double> ca = samples.series(a, Metric::kCookMs);
    const std::span<const double> cb = samples.series(b, Metric::kCookMs);
    if (ca.empty() || cb.empty() || IsMissing(ca[f]) || IsMissing(cb[f])) continue;
    ++flow_id;
    out += fmt::format(
        ",\n{{\"ph\":\"s\",\"pid\":1,\"tid\":{},\"ts\":{},\"id\":{},\"cat\":\"critical_path\","
        "\"name\":\"critical path\"}},\n{{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":{},"
        "\"ts\":{},\"id\":{},\"cat\":\"critical_path\",\"name\":\"critical path\"}}",
        first_tid[a], Us(first_ts[a]), flow_id, first_tid[b], Us(first_ts[b]), flow_id);
    flush(false);
  }
}

// Renders the trace piece by piece into `emit`, so that a large one is never
// held whole.
void Render(const Snapshot& snapshot, const Analysis& analysis,
            const std::function<void(std::string_view)>& emit) {
  const Network& network = snapshot.network;
  const Samples& samples = snapshot.samples;
  const size_t frames = samples.frame_count();
  std::string out;
  out.reserve(1 << 16);
  auto flush = [&](bool force) {
    if (force || out.size() > (1 << 16) - 512) {
      emit(out);
      out.clear();
    }
  };
  std::string name;
  AppendHeader(out, snapshot);

  const std::vector<uint32_t> thread = AppendNodeThreads(out, network, analysis, flush);

  const Adjacency adjacency(network);
  const RecordedTiming* timing = snapshot.timing && snapshot.timing->frame_start_ms.size() == frames
                                     ? &*snapshot.timing
                                     : nullptr;
  const size_t tracks = analysis.order.size() + 1;  // lane l of a node: its thread + l * tracks
  std::vector<double> start(network.size()), end(network.size()), first_ts(network.size());
  std::vector<uint32_t> first_tid(network.size());
  std::vector<bool> done(network.size());
  std::vector<std::vector<double>> busy(network.size());  // per node and lane: busy until (ms)
  const std::vector<NodeIndex>& path = analysis.critical_path.nodes;
  double frame_start = 0;
  uint64_t flow_id = 0;
  for (size_t f = 0; f < frames; ++f) {
    const double measured = f < analysis.frames.frame_ms.size() ? analysis.frames.frame_ms[f] : 0;
    const double measured_ms = std::isfinite(measured) ? measured : 0.0;
    if (timing != nullptr) frame_start = timing->frame_start_ms[f];
    const double frame_end = frame_start + measured_ms;  // for recorded timing
    std::fill(done.begin(), done.end(), false);
    double makespan = 0;
    for (const NodeIndex n : analysis.order) {
      double ready = 0;
      for (const NodeIndex p : adjacency.in(n)) {
        if (done[p]) ready = std::max(ready, end[p]);
      }
      start[n] = ready;
      end[n] = ready;
      done[n] = true;
      const std::span<const double> cook = samples.series(n, Metric::kCookMs);
      if (cook.empty() || IsMissing(cook[f])) continue;
      const std::span<const double> cooks = samples.series(n, Metric::kCooks);
      const double count_value = cooks.empty() || IsMissing(cooks[f]) ? 1 : std::round(cooks[f]);
      const size_t count = static_cast<size_t>(std::clamp(count_value, 1.0, 1e6));
      const double each = cook[f] / static_cast<double>(count);
      // Where the node's cooks begin (absolute ms): the recorded start of its
      // first cook, kept inside the frame so that its cooks belong to it; else
      // when the nodes it depends on have finished.
      double begin = frame_start + ready;
      const bool recorded = timing != nullptr && !timing->first_start_ms[n].empty() &&
                            !IsMissing(timing->first_start_ms[n][f]);
      if (recorded) {
        begin = std::clamp(timing->first_start_ms[n][f], frame_start,
                           std::max(frame_start, frame_end - 1e-6));
      }
      name.clear();
      AppendJsonString(name, network.node(n).id);
      const std::string& family = network.node(n).family;
      double cursor = begin;
      for (size_t c = 0; c < count; ++c) {
        // Recorded timing: a cook must start inside its frame and must not
        // overlap another cook of the node on one track (it would nest), so
        // an overflowing cook starts again at `begin` on another lane.
        if (recorded && cursor > frame_end - 1e-6 && c > 0) cursor = begin;
        size_t lane = 0;
        while (lane < busy[n].size() && busy[n][lane] > cursor + 1e-9) ++lane;
        if (lane == busy[n].size()) {
          busy[n].push_back(0);
          if (lane > 0) AppendLaneName(out, thread[n] + lane * tracks, network.node(n).id, lane);
        }
        const uint32_t tid = static_cast<uint32_t>(thread[n] + lane * tracks);
        if (c == 0) {
          first_ts[n] = cursor;
          first_tid[n] = tid;
        }
        // Ends in whole ns, so that cooks laid back to back touch, never overlap.
        const int64_t from_ns = std::llround(cursor * 1e6);
        const int64_t to_ns = std::llround((cursor + each) * 1e6);
        out += fmt::format(",\n{{\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{},\"dur\":{},\"name\":{}",
                           tid, NsAsUs(from_ns), NsAsUs(to_ns - from_ns), name);
        if (!family.empty()) {
          out += ",\"cat\":";
          AppendJsonString(out, family);
        }
        out += '}';
        busy[n][lane] = cursor + each;
        cursor += each;
        flush(false);
      }
      // A waiting node (a queue between two streaming threads) is drawn with
      // its wait, but the work after it does not wait for it to end, and it
      // does not lengthen the frame (docs/architecture.md#waiting-nodes).
      const bool waits = n < analysis.waiting.size() && analysis.waiting[n];
      end[n] = waits ? ready : ready + cook[f];
      if (!waits) makespan = std::max(makespan, recorded ? cursor - frame_start : end[n]);
    }
    AppendPathFlows(out, samples, path, f, first_tid, first_ts, flow_id, flush);
    const double length =
        timing != nullptr ? measured_ms : std::max(measured_ms, makespan) + 0.001;
    out += fmt::format(
        ",\n{{\"ph\":\"X\",\"pid\":1,\"tid\":0,\"ts\":{},\"dur\":{},\"name\":\"ProfilerStep#{}\","
        "\"cat\":\"frame\"}}",
        Us(frame_start), Us(length), samples.frame_index()[f]);
    frame_start += length;
    flush(false);
  }
  out += "\n]}\n";
  flush(true);
}

}  // namespace

std::string RenderTrace(const Snapshot& snapshot, const Analysis& analysis) {
  std::string text;
  Render(snapshot, analysis, [&text](std::string_view piece) { text += piece; });
  return text;
}

Status WriteTraceFile(const Snapshot& snapshot, const Analysis& analysis,
                      const std::string& path) {
  if (path == "-") {
    bool ok = true;
    Render(snapshot, analysis, [&ok](std::string_view piece) {
      ok = ok && std::fwrite(piece.data(), 1, piece.size(), stdout) == piece.size();
    });
    if (!ok || std::fflush(stdout) != 0) {
      return Error{.file = "-", .message = "cannot write the trace to standard output"};
    }
    return {};
  }
  return WriteFileAtomically(path, [&](std::FILE* file) {
    bool ok = true;
    Render(snapshot, analysis, [&](std::string_view piece) {
      ok = ok && std::fwrite(piece.data(), 1, piece.size(), file) == piece.size();
    });
    return ok;
  });
}

}  // namespace cookgraph
