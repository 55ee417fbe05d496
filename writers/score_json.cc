#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/parallel.h"
#include "metrics/rollup.h"
#include "writers/score_columns.h"
#include "writers/score_internal.h"
#include "writers/score_sections.h"

// `score --format json`: one object per snapshot in the "snapshots" array. JSON
// and CSV (score_csv.cc) fill the same columns (score_columns.h) with the same
// values; the JSON is written by base/json_writer.h in its shortest style, as the
// advisor's tools write theirs.

namespace cookgraph::score_internal {
void WriteIds(JsonWriter& w, const Network& network, const std::vector<NodeIndex>& nodes) {
  w.BeginArray();
  for (NodeIndex n : nodes) w.String(network.node(n).id);
  w.EndArray();
}

namespace {

// "profiler_ms": the profiler's own time per frame, written only when the
// input has it, so that snapshots without it keep their output.
void WriteProfiler(JsonWriter& w, const ProfilerOverhead& p) {
  w.Key("profiler_ms");
  w.BeginObject();
  w.NumberField("mean", p.ms.mean);
  w.NumberField("p95", p.ms.p95);
  w.NumberField("max", p.ms.max);
  w.CountField("frames", p.frames);
  w.Key("share_of_frame");
  w.Write(Optional(p.share_of_frame));
  w.EndObject();
}

}  // namespace

void WriteLaunches(JsonWriter& w, const LaunchStats& l) {
  w.BeginObject();
  w.CountField("count", l.count);
  w.Key("delay_ms");
  w.BeginObject();
  for (const auto& [key, value] :
       {std::pair{"mean", l.delay_mean_ms}, std::pair{"p50", l.delay_p50_ms},
        std::pair{"p95", l.delay_p95_ms}, std::pair{"max", l.delay_max_ms}}) {
    w.Key(key);
    w.Write(l.count > 0 ? Value(value) : Value());
  }
  w.EndObject();
  w.NumberField("cpu_ms", l.cpu_ms);
  w.CountField("kernels_under_10us", l.kernels_under_10us);
  w.CountField("unlaunched", l.unlaunched);
  w.EndObject();
}

void WriteStepGpuTime(JsonWriter& w, const StepGpuTime& s) {
  w.CountField("kernels", s.kernels);
  w.NumberField("kernel_span_ms", s.kernel_span_ms);
  w.NumberField("idle_ms", s.idle_ms);
  w.NumberField("compute_ms", s.compute_ms);
  w.NumberField("non_compute_ms", s.non_compute_ms);
}

void WritePeaks(JsonWriter& w, double allocated_mb, double reserved_mb) {
  w.NumberField("peak_allocated_mb", allocated_mb);
  w.NumberField("peak_reserved_mb", reserved_mb);
}

void WriteGrew(JsonWriter& w, const Network& net, const std::vector<NodeExcess>& nodes) {
  w.BeginArray();
  for (const NodeExcess& n : nodes) {
    if (n.node >= net.size()) continue;
    w.BeginObject();
    w.StringField("id", net.node(n.node).id);
    w.NumberField("excess_ms", n.ms);
    w.EndObject();
  }
  w.EndArray();
}

void WriteGpu(JsonWriter& w, const GpuTime& g, bool launches) {
  if (g.empty()) {
    w.Write(Value());
    return;
  }
  w.BeginObject();
  w.Key("ranks");
  w.BeginArray();
  for (const RankGpuTime& r : g.ranks) {
    w.BeginObject();
    w.CountField("rank", r.rank);
    w.CountField("kernels", r.kernels);
    w.NumberField("kernel_span_ms", r.kernel_span_ms);
    w.NumberField("idle_ms", r.idle_ms);
    w.NumberField("compute_ms", r.compute_ms);
    w.NumberField("non_compute_ms", r.non_compute_ms);
    w.NumberField("communication_ms", r.communication_ms);
    w.NumberField("memory_ms", r.memory_ms);
    w.Key("steps");
    w.BeginArray();
    for (const StepGpuTime& s : r.steps) {
      w.BeginObject();
      w.Key("step");
      w.Write(Value(int64_t{s.step}));
      WriteStepGpuTime(w, s);
      w.EndObject();
    }
    w.EndArray();
    w.Key("streams");
    w.BeginArray();
    for (const StreamTime& s : r.streams) {
      w.BeginObject();
      w.Key("stream");
      w.Write(Value(int64_t{s.stream}));
      w.StringField("label", s.label);
      w.CountField("kernels", s.kernels);
      w.NumberField("kernel_ms", s.kernel_ms);
      w.NumberField("idle_ms", s.idle_ms);
      w.NumberField("idle_host_wait_ms", s.idle_host_wait_ms);
      w.NumberField("idle_kernel_wait_ms", s.idle_kernel_wait_ms);
      w.NumberField("idle_other_ms", s.idle_other_ms);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  if (launches) {
    w.Key("launches");
    WriteLaunches(w, g.launches);
  }
  w.Key("overlap");
  w.BeginObject();
  w.NumberField("communication_ms", g.overlap.communication_ms);
  w.NumberField("overlapped_ms", g.overlap.overlapped_ms);
  w.EndObject();
  w.EndObject();
}

namespace {

// The trace's own analyses (docs/commands.md#trace-output): "steps", "gpu",
// "memory", "ranks".
void WriteTrace(JsonWriter& w, const Snapshot& snap, const TraceSummary& t) {
  if (t.slowest) {
    const SlowestStep& s = *t.slowest;
    w.Key("slowest_step");
    w.BeginObject();
    w.Key("step");
    w.Write(Value(int64_t{s.step}));
    w.NumberField("ms", s.ms);
    w.NumberField("mean_ms", s.mean_ms);
    w.Key("grew");
    WriteGrew(w, snap.network, s.nodes);
    w.EndObject();
  }
  if (t.outside) {
    const OutsideNodes& o = *t.outside;
    w.Key("outside_nodes");
    w.BeginObject();
    w.CountField("steps", o.steps);
    w.NumberField("mean_ms", o.mean_ms);
    w.NumberField("max_ms", o.max_ms);
    w.NumberField("share", o.share);
    w.CountField("node_threads", o.node_tracks);
    w.EndObject();
  }
  if (t.intra_op) {
    const IntraOp& p = *t.intra_op;
    w.Key("intra_op");
    w.BeginObject();
    w.Key("pools");
    w.BeginArray();
    for (const std::string& name : p.pools) w.Write(Value(name));
    w.EndArray();
    w.CountField("helpers", p.helpers);
    w.CountField("steps", p.steps);
    w.NumberField("run_ms", p.run_ms);
    w.NumberField("wait_ms", p.wait_ms);
    w.NumberField("distribution_ms", p.distribution_ms);
    w.NumberField("helper_runs", p.helper_runs);
    w.Key("nodes");
    w.BeginArray();
    for (const IntraOpNode& n : p.nodes) {
      w.BeginObject();
      w.StringField("id", snap.network.node(n.node).id);
      w.CountField("calls", n.calls);
      w.NumberField("node_ms", n.node_ms);
      w.NumberField("run_ms", n.run_ms);
      w.NumberField("wait_ms", n.wait_ms);
      w.NumberField("distribution_ms", n.distribution_ms);
      w.NumberField("parallel_sections", n.parallel_sections);
      w.Key("helper_runs");
      w.Write(n.helper_runs_known ? Value(n.helper_runs) : Value());
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.Key("gpu");
  WriteGpu(w, t.gpu);
  w.Key("memory");
  w.BeginObject();
  w.Key("devices");
  w.BeginArray();
  for (const MemoryPeak& m : t.memory) {
    w.BeginObject();
    w.CountField("rank", m.rank);
    w.StringField("device", m.device);
    WritePeaks(w, m.peak_allocated_mb, m.peak_reserved_mb);
    w.Key("total_mb");
    w.Write(m.total_mb > 0 ? Value(m.total_mb) : Value());
    w.Key("steps");
    w.BeginArray();
    for (const StepMemory& s : m.steps) {
      w.BeginObject();
      w.Key("step");
      w.Write(Value(int64_t{s.step}));
      WritePeaks(w, s.peak_allocated_mb, s.peak_reserved_mb);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("ranks");
  w.BeginArray();
  for (const RankSteps& r : t.ranks) {
    w.BeginObject();
    w.CountField("rank", r.rank);
    w.Key("steps");
    w.BeginArray();
    for (int64_t n : r.steps) w.Write(Value(n));
    w.EndArray();
    w.Key("step_ms");
    w.BeginArray();
    for (double ms : r.step_ms) w.Number(ms);
    w.EndArray();
    w.Key("straggler");
    if (!t.job()) {
      w.Write(Value());
    } else {
      w.BeginArray();
      for (const auto& s : r.straggler_ms) w.Write(Optional(s));
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

// A GStreamer recording's streaming threads, bottleneck and latency
// (docs/commands.md#gstreamer-output).
void WriteStreaming(JsonWriter& w, const Snapshot& snap, const Streaming& st) {
  const Network& net = snap.network;
  w.Key("threads");
  w.BeginArray();
  for (const StreamingThread& t : st.threads) {
    w.BeginObject();
    w.StringField("thread", t.thread);
    w.StringField("name", t.name);
    w.StringField("route", t.route);
    w.BoolField("sets_frame", t.sets_frame);
    w.Key("elements");
    WriteIds(w, net, t.elements);
    std::vector<NodeIndex> work;
    for (size_t i = 0; i < t.elements.size(); ++i) {
      if (t.work[i]) work.push_back(t.elements[i]);
    }
    w.Key("work_elements");
    WriteIds(w, net, work);
    w.CountField("buffers", t.buffers);
    w.NumberField("busy_ms_per_buffer", t.busy_ms_per_buffer);
    w.Key("buffer_period_ms");
    w.Write(Optional(t.buffer_period_ms));
    w.Key("utilisation");
    w.Write(Optional(t.utilisation()));
    w.Key("cpu_load_pct");
    w.Write(Optional(t.cpu_load_pct));
    w.Key("cpu_ms");
    w.Write(Optional(t.cpu_ms));
    w.Key("cpu_load_pct_over_time");
    w.BeginArray();
    for (const auto& [ms, pct] : t.cpu_load_over_time) {
      w.BeginArray();
      w.Number(ms);
      w.Number(pct);
      w.EndArray();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.Key("process_cpu_load_pct");
  w.Write(Optional(st.process_cpu_load_pct));
  w.Key("bottleneck_thread");
  if (st.bottleneck) {
    const StreamingThread& t = st.threads[*st.bottleneck];
    w.BeginObject();
    w.StringField("thread", t.thread);
    w.StringField("name", t.name);
    w.Key("element");
    if (auto e = t.costliest()) {
      w.String(net.node(*e).id);
    } else {
      w.Write(Value());
    }
    w.NumberField("busy_ms_per_buffer", t.busy_ms_per_buffer);
    w.Key("buffer_period_ms");
    w.Write(Optional(t.buffer_period_ms));
    w.Key("utilisation");
    w.Write(Optional(t.utilisation()));
    w.EndObject();
  } else {
    w.Write(Value());
  }
  w.Key("latency_ms");
  if (st.latency) {
    w.BeginObject();
    w.CountField("records", st.latency->records);
    w.NumberField("mean", st.latency->mean_ms);
    w.NumberField("p95", st.latency->p95_ms);
    w.NumberField("max", st.latency->max_ms);
    w.EndObject();
  } else {
    w.Write(Value());
  }
}

void WriteFrameSummary(JsonWriter& w, std::string_view file, const Snapshot& snap,
                       const Analysis& a) {
  w.Key("file");
  w.String(file);
  w.Key("name");
  w.String(snap.info.name);
  w.Key("engine");
  w.String(snap.info.engine);
  w.Key("frames");
  w.Count(snap.samples.frame_count());
  w.Key("frame_budget_ms");
  w.Write(a.has_budget ? Value(a.budget_ms) : Value());
  w.Key("frame_ms");
  w.BeginObject();
  w.Key("mean");
  w.Number(a.frames.mean_ms);
  w.Key("p95");
  w.Number(a.frames.p95_ms);
  w.Key("max");
  w.Number(a.frames.max_ms);
  w.Key("measured");
  w.Write(a.frames.measured);
  w.EndObject();
  w.Key("over_budget_frames");
  w.Write(a.has_budget ? Value(uint64_t{a.frames.over_budget.size()}) : Value());
}

void WriteNode(JsonWriter& w, const Snapshot& snap, const Analysis& a, NodeIndex n,
               std::optional<size_t> rank, bool gain) {
  std::vector<Value> values;
  NodeValues(snap, a, n, rank, values);
  w.BeginObject();
  for (size_t c = 0; c < kNodeColumns.size(); ++c) {
    w.Key(kNodeColumns[c]);
    w.Write(values[c]);
  }
  if (gain) {
    w.Key("gain_ms");
    w.Write(Value{ValueAt(a.gain_ms, n)});
  }
}

namespace {

// The baseline run beside the nodes (`score --baseline`): its frames, what
// changed, and the nodes added and removed.
void WriteBaseline(JsonWriter& w, const SnapshotDiff& diff, std::string_view file) {
  const FrameDiff& f = diff.frames;
  w.Key("baseline");
  w.BeginObject();
  w.Key("file");
  w.String(file);
  w.Key("frames");
  w.Count(f.frames_before);
  w.Key("frame_ms");
  w.BeginObject();
  w.Key("mean");
  w.Number(f.mean_before);
  w.Key("change_pct");
  w.Write(f.change_pct ? Value(*f.change_pct) : Value());
  w.Key("p_value");
  w.Write(f.p_value() ? Value(*f.p_value()) : Value());
  w.Key("regression");
  w.Write(f.regression);
  w.Key("improvement");
  w.Write(f.improvement);
  w.EndObject();
  w.Key("regressions");
  w.Count(diff.regressions);
  w.Key("improvements");
  w.Count(diff.improvements);
  w.Key("added");
  w.BeginArray();
  for (const std::string& id : diff.added) w.String(id);
  w.EndArray();
  w.Key("removed");
  w.BeginArray();
  for (const std::string& id : diff.removed) w.String(id);
  w.EndArray();
  w.Key("warnings");
  w.BeginArray();
  for (const std::string& warning : diff.warnings) w.String(warning);
  w.EndArray();
  w.EndObject();
}

// A node's "baseline" member: {"avg_ms", ..., "note"}, kBaselineColumns
// without the "baseline_" prefix, or null when the baseline does not have the
// node.
void WriteNodeBaseline(JsonWriter& out, const NodeDiff* d, std::vector<Value>& values) {
  out.Key("baseline");
  if (d == nullptr) {
    out.Write(Value());
    return;
  }
  BaselineValues(d, values);
  out.BeginObject();
  for (size_t c = 0; c < kBaselineColumns.size(); ++c) {
    std::string_view key = kBaselineColumns[c];
    if (key.starts_with("baseline_")) key.remove_prefix(9);
    out.Key(key);
    out.Write(values[c]);
  }
  out.EndObject();
}

// The nodes that spiked in some frames, each with its excess over its median.
void WriteSpikes(JsonWriter& w, const Network& net, const std::vector<Spike>& spikes) {
  w.Key("spikes");
  w.BeginArray();
  for (const Spike& s : spikes) {
    w.BeginObject();
    w.Key("id");
    w.String(net.node(s.node).id);
    w.Key("median_ms");
    w.Number(s.median_ms);
    w.Key("frames");
    w.Count(s.frames);
    w.Key("excess_ms");
    w.Number(s.excess_ms);
    w.Key("max_excess_ms");
    w.Number(s.max_excess_ms);
    w.Key("worst_frame");
    w.Write(Value(s.worst_frame));
    w.Key("share_of_overrun");
    w.Number(s.share_of_overrun);
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

TextPieces JsonFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Snapshot& snap = scored.snapshot;
  const Analysis& a = scored.analysis;
  const Network& net = snap.network;
  JsonWriter w;
  w.BeginObject();
  WriteFrameSummary(w, scored.file, snap, a);
  if (a.profiler) WriteProfiler(w, *a.profiler);
  if (a.trace) WriteTrace(w, snap, *a.trace);
  if (snap.streaming) WriteStreaming(w, snap, *snap.streaming);

  const Selection sel = SelectNodes(a, options);
  // Thousands of nodes (a 20k-node snapshot's: a sixth of its run) in two
  // halves, one per core, each kept as pieces of about a megabyte: grown as
  // two strings and joined, a 100k-node snapshot's 58 MB of nodes raised the
  // run's peak by 60 MiB (docs/performance.md#the-json-output-in-pieces).
  constexpr size_t kParallelNodes = 4096;
  constexpr size_t kPieceBytes = size_t{1} << 20;
  JsonWriter second;  // the second half's objects, after its '['
  second.BeginArray();
  TextPieces halves[2];
  auto write_nodes = [&](size_t from, size_t to, size_t half) {
    JsonWriter& out = half == 0 ? w : second;
    std::vector<Value> values;
    for (size_t i = from; i < to; ++i) {
      // gain_ms with --sort gain (metrics/whatif.h)
      WriteNode(out, snap, a, sel.order[i], RankAt(sel, i), !a.gain_ms.empty());
      if (scored.baseline != nullptr) {
        WriteNodeBaseline(out, BaselineOf(scored, sel.order[i]), values);
      }
      out.EndObject();
      if (out.text().size() >= kPieceBytes) halves[half].push_back(out.TakeSoFar());
    }
  };
  w.Key("nodes");
  w.BeginArray();
  RunHalvesIf(sel.shown >= kParallelNodes, sel.shown, write_nodes);
  TextPieces pieces = std::move(halves[0]);
  halves[1].push_back(second.Take());
  if (halves[1].size() > 1 || halves[1].front().size() > 1) {  // the second half wrote objects
    halves[1].front().erase(0, 1);                             // its '['
    pieces.push_back(w.TakeBeforeRaw());
    std::move(halves[1].begin(), halves[1].end(), std::back_inserter(pieces));
  }
  w.EndArray();

  if (const SnapshotDiff* diff = scored.baseline) WriteBaseline(w, *diff, options.baseline_file);

  if (options.group_by_container) {
    const std::vector<ContainerStats> containers = RollUp(snap, a);
    std::vector<Value> values;
    w.Key("containers");
    w.BeginArray();
    for (size_t i = 0; i < Shown(containers.size(), options.top); ++i) {
      ContainerValues(containers[i], values);
      w.BeginObject();
      for (size_t c = 0; c < kContainerColumns.size(); ++c) {
        w.Key(kContainerColumns[c]);
        w.Write(values[c]);
      }
      w.EndObject();
    }
    w.EndArray();
  }

  w.Key("loops");
  w.BeginArray();
  for (const LoopReport& loop : a.loops) {
    w.BeginObject();
    w.Key("kind");
    w.String(LoopKindName(loop.loop.kind));
    w.Key("nodes");
    WriteIds(w, net, loop.loop.nodes);
    w.Key("per_frame_ms");
    w.Number(loop.per_frame_ms);
    w.EndObject();
  }
  w.EndArray();

  w.Key("critical_path");
  w.BeginObject();
  w.Key("nodes");
  WriteIds(w, net, a.critical_path.nodes);
  w.Key("per_frame_ms");
  w.Number(a.critical_path.weight);
  w.EndObject();

  WriteSpikes(w, net, a.spikes);

  w.Key("warnings");
  w.BeginArray();
  for (const std::string& warning : a.warnings) w.String(warning);
  w.EndArray();
  w.EndObject();
  pieces.push_back(w.Take());
  return pieces;
}

}  // namespace cookgraph::score_internal
