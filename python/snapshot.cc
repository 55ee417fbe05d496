#include "python/snapshot.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>

#include "adapters/input_files.h"
#include "graph/suggest.h"
#include "metrics/trace_summary.h"
#include "pipeline/pipeline.h"
#include "python/columns.h"
#include "python/errors.h"
#include "python/options.h"
#include "writers/score.h"

namespace cookgraph::python {
namespace {

py::object Number(std::optional<double> v) {
  return v && std::isfinite(*v) ? py::object(py::float_(*v)) : py::object(py::none());
}

// The profiler's own time per frame, as `score --format json` writes it; None
// when the input has no profiler_ms.
py::object ProfilerMs(const std::optional<ProfilerOverhead>& profiler) {
  if (!profiler) return py::none();
  py::dict d;
  d["mean"] = Number(profiler->ms.mean);
  d["p95"] = Number(profiler->ms.p95);
  d["max"] = Number(profiler->ms.max);
  d["frames"] = profiler->frames;
  d["share_of_frame"] = Number(profiler->share_of_frame);
  return d;
}

py::list TextList(const std::vector<std::string>& texts) {
  py::list list;
  for (const std::string& t : texts) list.append(Text(t));
  return list;
}

std::shared_ptr<LoadedSnapshot> Load(const std::vector<std::string>& paths,
                                     std::optional<double> budget_ms,
                                     const std::optional<std::string>& frame_marker,
                                     const std::optional<std::string>& format_in,
                                     const std::optional<py::dict>& limits) {
  const ReadOptions options = MakeReadOptions(format_in, frame_marker, limits);
  budget_ms = CheckBudget(budget_ms);
  auto loaded = std::make_shared<LoadedSnapshot>();
  {
    py::gil_scoped_release released;
    // The paths become one input as `cookgraph score` makes them (a folder
    // holding a recording or a job, a dump and its log in either order), so
    // that the input's name and its errors are score's.
    InputList list = ExpandInputs(paths);
    if (!list.errors.empty()) throw RaisedError{ErrorKind::kInput, list.errors.front()};
    if (list.inputs.size() != 1) {
      throw RaisedError{
          ErrorKind::kInput,
          Error{.file = Input{paths}.name(),
                .message = "holds " + std::to_string(list.inputs.size()) +
                           " inputs; load() reads one: use cookgraph.score() for many"}};
    }
    const Input& input = list.inputs.front();
    loaded->file = input.name();
    // With the gains, as `report` and `ask`: findings ordered by what pays and
    // the prompt's predicted gains (docs/architecture.md#advice-ordered-by-impact).
    Status read = pipeline::ReadAndAnalyse(
        input, options, AnalysisOptions{.budget_ms = budget_ms, .gains = true}, loaded->judged);
    if (!read) throw RaisedError{ErrorKind::kInput, read.error()};
    Analysis& analysis = loaded->judged.analysis;
    for (const Error& w : list.warnings)
      analysis.warnings.insert(analysis.warnings.begin(), w.Format());
  }
  return loaded;
}

py::dict Info(const LoadedSnapshot& s) {
  const Snapshot& snap = s.judged.snapshot;
  const Analysis& a = s.judged.analysis;
  py::dict info;
  info["file"] = FileName(s.file);
  info["engine"] = Text(snap.info.engine);
  info["name"] = Text(snap.info.name);
  info["source"] = TextList(snap.info.source);
  info["captured"] = snap.info.captured.empty() ? py::object(py::none()) : Text(snap.info.captured);
  info["fps"] = Number(snap.info.fps);
  info["frame_budget_ms"] = Number(snap.info.frame_budget_ms);
  info["budget_ms"] = a.has_budget ? Number(a.budget_ms) : py::object(py::none());
  info["nodes"] = snap.network.size();
  info["edges"] = snap.network.edges().size();
  info["frames"] = snap.samples.frame_count();
  info["counted_frames"] = a.frames.counted;
  py::dict frame_ms;
  frame_ms["mean"] = a.frames.mean_ms;
  frame_ms["p95"] = a.frames.p95_ms;
  frame_ms["max"] = a.frames.max_ms;
  frame_ms["measured"] = a.frames.measured;
  info["frame_ms"] = frame_ms;
  info["profiler_ms"] = ProfilerMs(a.profiler);
  info["over_budget_frames"] =
      a.has_budget ? py::object(py::int_(a.frames.over_budget.size())) : py::object(py::none());
  return info;
}

// EventKind as Python sees it.
std::string_view KindName(EventKind kind) {
  static constexpr std::array<std::string_view, 10> kNames = {
      "cpu_op", "runtime", "annotation", "marker", "kernel",
      "memcpy", "memset", "gpu_annotation", "gpu_sync", "other"};
  return kNames[static_cast<size_t>(kind)];
}

// A step number's event of Timeline `t`, or nullopt: none, or not a step.
std::optional<int64_t> StepOf(const Timeline& t, const TimelineEvent& e) {
  if (e.frame == kNoIndex || e.frame >= t.steps.size()) return std::nullopt;
  return t.steps[e.frame];
}

py::object OrNone(std::optional<int64_t> v) { return v ? py::object(py::int_(*v)) : py::none(); }

// The id of node `node` of `snap`, or None for an event of no node.
py::object NodeIdOrNone(const Snapshot& snap, uint32_t node) {
  return node != kNoIndex && node < snap.network.size()
             ? py::object(Text(snap.network.node(node).id))
             : py::object(py::none());
}

// Every event of every rank's timeline, or those of one step: the columns of
// Snapshot.timeline() (docs/python.md#traces).
py::dict TimelineColumns(const LoadedSnapshot& s, std::optional<int64_t> step) {
  const Snapshot& snap = s.judged.snapshot;
  py::list rank, track, gpu, name, node, kind, ts, dur, steps, correlation, counted;
  const GpuTime* analysed = s.judged.analysis.trace ? &s.judged.analysis.trace->gpu : nullptr;
  for (size_t ti = 0; ti < snap.timelines.size(); ++ti) {
    const Timeline& t = snap.timelines[ti];
    std::vector<bool> in_stats(t.events.size(), false);
    if (analysed != nullptr && ti < analysed->counted.size()) {
      for (uint32_t i : analysed->counted[ti]) in_stats[i] = true;
    }
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      const TimelineEvent& e = t.events[i];
      const std::optional<int64_t> at = StepOf(t, e);
      if (step && at != step) continue;
      counted.append(static_cast<bool>(in_stats[i]));
      rank.append(t.rank);
      track.append(Text(t.tracks[e.track].label));
      gpu.append(t.tracks[e.track].gpu);
      name.append(Text(t.name(e)));
      node.append(NodeIdOrNone(snap, e.node));
      kind.append(Text(KindName(e.kind)));
      ts.append(static_cast<double>(e.start_ns) / 1e3);
      dur.append(static_cast<double>(e.dur_ns) / 1e3);
      steps.append(OrNone(at));
      correlation.append(e.correlation == kNoIndex ? py::object(py::none())
                                                   : py::object(py::int_(e.correlation)));
    }
  }
  py::dict out;
  out["rank"] = rank;
  out["track"] = track;
  out["gpu"] = gpu;
  out["name"] = name;
  out["node"] = node;
  out["kind"] = kind;
  out["ts_us"] = ts;
  out["dur_us"] = dur;
  out["step"] = steps;
  out["correlation"] = correlation;
  out["gpu_counted"] = counted;
  return out;
}

// The launches of the launch statistics (GpuTime::launches.list), one row each.
py::dict LaunchColumns(const LoadedSnapshot& s) {
  const Snapshot& snap = s.judged.snapshot;
  py::list rank, kernel, stream, call, call_ts, call_dur, kernel_ts, kernel_dur, delay, steps;
  if (s.judged.analysis.trace) {
    for (const LaunchStats::Launch& l : s.judged.analysis.trace->gpu.launches.list) {
      const Timeline& t = snap.timelines[l.timeline];
      const TimelineEvent& k = t.events[l.kernel];
      const TimelineEvent& c = t.events[l.call];
      rank.append(t.rank);
      kernel.append(Text(t.name(k)));
      stream.append(Text(t.tracks[k.track].label));
      call.append(Text(t.name(c)));
      call_ts.append(static_cast<double>(c.start_ns) / 1e3);
      call_dur.append(static_cast<double>(c.dur_ns) / 1e3);
      kernel_ts.append(static_cast<double>(k.start_ns) / 1e3);
      kernel_dur.append(static_cast<double>(k.dur_ns) / 1e3);
      delay.append(static_cast<double>(l.delay_ns) / 1e3);
      steps.append(OrNone(StepOf(t, k)));
    }
  }
  py::dict out;
  out["rank"] = rank;
  out["kernel"] = kernel;
  out["stream"] = stream;
  out["launch_call"] = call;
  out["call_ts_us"] = call_ts;
  out["call_dur_us"] = call_dur;
  out["kernel_ts_us"] = kernel_ts;
  out["kernel_dur_us"] = kernel_dur;
  out["launch_delay_us"] = delay;
  out["step"] = steps;
  return out;
}

// The events on the event critical path of step `step` (the step score
// reports when none), in path order; an empty table without one.
py::dict CriticalPathColumns(const LoadedSnapshot& s, std::optional<int64_t> step) {
  const Snapshot& snap = s.judged.snapshot;
  std::optional<StepPath> path;
  if (!step) {
    if (s.judged.analysis.trace) path = s.judged.analysis.trace->path;
  } else {
    const std::vector<int64_t>& index = snap.samples.frame_index();
    auto at = std::find(index.begin(), index.end(), *step);
    if (at == index.end()) {
      Throw(PyExc_ValueError, "step " + std::to_string(*step) + ": no such step in " + s.file);
    }
    std::string warning;
    py::gil_scoped_release released;
    path = StepCriticalPath(snap.timelines, static_cast<size_t>(at - index.begin()), warning);
  }
  py::list rank, steps, name, node, track, gpu, ts, dur;
  if (path) {
    const Timeline* t = nullptr;
    for (const Timeline& candidate : snap.timelines) {
      if (candidate.rank == path->rank) t = &candidate;
    }
    for (const StepPath::Event& e : path->events) {
      rank.append(path->rank);
      steps.append(OrNone(path->step));
      name.append(Text(e.name));
      const uint32_t n = t != nullptr && e.event < t->events.size() ? t->events[e.event].node : kNoIndex;
      node.append(NodeIdOrNone(snap, n));
      track.append(Text(e.track));
      gpu.append(e.gpu);
      ts.append(e.ts_us);
      dur.append(e.dur_us);
    }
  }
  py::dict out;
  out["rank"] = rank;
  out["step"] = steps;
  out["name"] = name;
  out["node"] = node;
  out["track"] = track;
  out["gpu"] = gpu;
  out["ts_us"] = ts;
  out["dur_us"] = dur;
  return out;
}

py::dict Frames(const LoadedSnapshot& s) {
  const std::vector<int64_t>& index = s.judged.snapshot.samples.frame_index();
  const FrameSummary& f = s.judged.analysis.frames;
  const auto n = static_cast<py::ssize_t>(index.size());
  py::array_t<int64_t> frame(n);
  py::array_t<double> frame_ms(n);
  py::array_t<bool> over(n), counted(n);
  auto fr = frame.mutable_unchecked<1>();
  auto ms = frame_ms.mutable_unchecked<1>();
  auto ov = over.mutable_unchecked<1>();
  auto co = counted.mutable_unchecked<1>();
  for (py::ssize_t i = 0; i < n; ++i) {
    fr(i) = index[static_cast<size_t>(i)];
    // NaN: a frame without work, left out of the statistics (frame_budget.h).
    ms(i) = static_cast<size_t>(i) < f.frame_ms.size() ? f.frame_ms[static_cast<size_t>(i)] : NAN;
    ov(i) = false;
    co(i) = !std::isnan(ms(i));
  }
  for (size_t position : f.over_budget) ov(static_cast<py::ssize_t>(position)) = true;
  py::dict frames;
  frames["frame"] = frame;
  frames["frame_ms"] = frame_ms;
  frames["over_budget"] = over;
  frames["counted"] = counted;
  return frames;
}

py::array_t<double> Series(const LoadedSnapshot& s, const std::string& id,
                           const std::string& metric_name) {
  const Snapshot& snap = s.judged.snapshot;
  const std::optional<Metric> metric = ParseMetric(metric_name);
  if (!metric) {
    throw py::value_error(
        "metric: expected cook_ms, gpu_ms, cpu_mem_mb, gpu_mem_mb, cooks, latency_ms or "
        "inclusive_ms, got '" +
        metric_name.substr(0, 40) + "'");
  }
  const std::optional<NodeIndex> node = snap.network.Find(id);
  if (!node) {
    std::string message = "no node '" + id + "' in " + s.file;
    if (auto close = ClosestId(snap.network, id)) message += "; did you mean '" + *close + "'?";
    Throw(PyExc_KeyError, message);
  }
  const size_t frames = snap.samples.frame_count();
  std::span<const double> values = snap.samples.series(*node, *metric);
  py::array_t<double> out(static_cast<py::ssize_t>(frames));
  auto o = out.mutable_unchecked<1>();
  // No series of that metric: every frame missing (NaN = did not cook).
  for (size_t f = 0; f < frames; ++f)
    o(static_cast<py::ssize_t>(f)) = f < values.size() ? values[f] : NAN;
  return out;
}

py::dict Nodes(const LoadedSnapshot& s, const std::string& sort, std::optional<size_t> top,
               const std::optional<std::string>& group_by) {
  const ScoreOptions options = MakeScoreOptions(sort, top, group_by, std::nullopt);
  ScoreTable table;
  {
    py::gil_scoped_release released;
    table = ScoreRows({s.file, s.judged.snapshot, s.judged.analysis}, options);
  }
  return Columns(table);
}

std::string ScoreJson(const LoadedSnapshot& s) {
  // One node row is enough: the caller wants what surrounds the rows.
  ScoreOptions options;
  options.top = 1;
  py::gil_scoped_release released;
  return RenderScoreSnapshot(ScoreFormat::kJson, {s.file, s.judged.snapshot, s.judged.analysis},
                             options);
}

py::list Findings(LoadedSnapshot& s, const std::string& pack) {
  std::vector<Finding> findings;
  {
    // pack_mutex is taken only without the GIL (docs/python.md#threads): its
    // holder may wait for the GIL (ask's on_token).
    py::gil_scoped_release released;
    std::lock_guard lock(s.pack_mutex);
    if (Status applied = ApplyPack(s.judged, pack); !applied) {
      // A user's pack is input; a built-in one that fails to load is cookgraph's fault.
      throw RaisedError{pack.empty() ? ErrorKind::kInternal : ErrorKind::kInput, applied.error()};
    }
    findings = s.judged.findings;
  }
  const Network& net = s.judged.snapshot.network;
  py::list rows;
  for (const Finding& f : findings) {
    py::dict row;
    row["rule"] = Text(f.rule);
    row["severity"] = Text(SeverityName(f.severity));
    row["title"] = Text(f.title);
    py::list nodes;
    for (NodeIndex n : f.nodes) nodes.append(Text(net.node(n).id));
    row["nodes"] = nodes;
    py::dict numbers;
    for (const auto& [name, value] : f.numbers) numbers[Text(name)] = value;
    row["numbers"] = numbers;
    row["suggestion"] = Text(f.suggestion);
    rows.append(row);
  }
  return rows;
}

}  // namespace

SnapshotClass BindSnapshot(py::module_& m) {
  SnapshotClass cls(
      m, "Snapshot",
      "One input read and analysed (cookgraph.Snapshot wraps it; see docs/python.md).");
  cls.def_property_readonly(
         "file", [](const LoadedSnapshot& s) { return FileName(s.file); },
         "The input as given: its path, or the paths joined by ' + '.")
      .def("info", &Info, "The snapshot's metadata and frame-time summary, as a dict.")
      .def_property_readonly(
          "warnings", [](const LoadedSnapshot& s) { return TextList(s.judged.analysis.warnings); },
          "What the reader kept going past and what the analysis noticed, one line each.")
      .def("nodes", &Nodes, py::arg("sort") = "score", py::arg("top") = py::none(),
           py::arg("group_by") = py::none(),
           "The columns of `score --format csv` for this snapshot, as {name: values}.")
      .def("frames", &Frames,
           "Per frame: the engine's frame number, frame_ms, over_budget and counted.")
      .def("series", &Series, py::arg("node_id"), py::arg("metric") = "cook_ms",
           "One node's per-frame values of `metric` (NaN where it did not cook).")
      .def("score_json", &ScoreJson,
           "The snapshot's object of `score --format json`, with one node row.")
      .def("timeline", &TimelineColumns, py::arg("step") = py::none(),
           "Every event of a trace's timelines (or of one step) as {column: values}.")
      .def("launches", &LaunchColumns,
           "The launches of the launch statistics, one row each, as {column: values}.")
      .def("critical_path_events", &CriticalPathColumns, py::arg("step") = py::none(),
           "The events on a step's event critical path, in path order, as {column: values}.")
      .def("findings", &Findings, py::arg("pack") = "",
           "The findings of the knowledge pack at `pack` ('' = the engine's built-in one).");
  m.def("load", &Load, py::arg("paths"), py::kw_only(), py::arg("budget_ms") = py::none(),
        py::arg("frame_marker") = py::none(), py::arg("format_in") = py::none(),
        py::arg("limits") = py::none(),
        "Reads and analyses one input without holding the GIL; raises InputError.");
  return cls;
}

}  // namespace cookgraph::python
