#include "advisor/tool_run.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

// The tools over the whole analysis: summary, findings, critical_path,
// gpu_breakdown, launches, threads (docs/architecture.md#tools-the-model-can-call).

namespace cookgraph::tools_internal {

ToolResult ToolRun::Summary(std::string_view text) {
  Arguments args("summary", text, {});
  if (!args.ok()) return Fail(args.problem());
  JsonWriter w;
  w.BeginObject();
  score_internal::WriteFrameSummary(w, t_.file_, snap_, a_);
  w.StringField("frame_word", snap_.info.frame_word());
  w.CountField("nodes", net_.size());
  w.CountField("cooked_nodes", t_.cooked_);
  w.CountField("edges", net_.edges().size());
  w.Key("findings");
  w.BeginObject();
  for (Severity severity : {Severity::kCritical, Severity::kWarning, Severity::kInfo}) {
    size_t count = 0;
    for (const Finding& f : t_.judged_.findings) count += f.severity == severity ? 1 : 0;
    w.CountField(SeverityName(severity), count);
  }
  w.EndObject();
  w.Key("top");
  w.BeginArray();
  for (size_t i = 0; i < t_.cooked_ && i < 5; ++i) w.String(net_.node(t_.ranked_[i]).id);
  w.EndArray();
  w.Key("critical_path");
  w.BeginObject();
  w.CountField("nodes", a_.critical_path.nodes.size());
  w.NumberField("per_frame_ms", a_.critical_path.weight);
  w.EndObject();
  w.CountField("loops", a_.loops.size());
  w.Key("tools");
  w.BeginArray();
  for (const ToolSpec& s : t_.specs()) w.String(s.name);
  w.EndArray();
  w.CountField("warnings", a_.warnings.size());
  w.EndObject();
  return Whole(w.Take());
}

ToolResult ToolRun::FindingsTool(std::string_view text) {
  Arguments args("findings", text, {"severity", "node", "limit"});
  const std::optional<std::string> severity_name = args.String("severity");
  const std::optional<std::string> node_id = args.String("node");
  const size_t limit = args.Limit(10);
  if (!args.ok()) return Fail(args.problem());
  Severity least = Severity::kInfo;
  if (severity_name) {
    bool known = false;
    for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kCritical}) {
      if (SeverityName(s) == *severity_name) least = s, known = true;
    }
    if (!known) {
      return Fail(fmt::format("findings: argument 'severity' must be info, warning or critical, not {}",
                              Echo(*severity_name)));
    }
  }
  std::optional<NodeIndex> node;
  if (node_id) {
    node = net_.Find(*node_id);
    if (!node) return Fail(UnknownId("findings", *node_id));
  }
  std::vector<size_t> chosen;
  for (size_t i = 0; i < t_.judged_.findings.size(); ++i) {
    const Finding& f = t_.judged_.findings[i];
    if (f.severity < least) continue;
    if (node && std::find(f.nodes.begin(), f.nodes.end(), *node) == f.nodes.end()) continue;
    chosen.push_back(i);
  }
  std::stable_sort(chosen.begin(), chosen.end(), [&](size_t x, size_t y) {
    return t_.judged_.findings[x].severity > t_.judged_.findings[y].severity;
  });
  const size_t rows = std::min(chosen.size(), limit);
  std::vector<std::string> lines;
  std::vector<NodeIndex> shown_nodes;
  for (size_t i = 0; i < rows; ++i) lines.push_back(FindingObject(t_.judged_.findings[chosen[i]]));
  auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc("", "findings", lines, k, chosen.size()); });
  if (!fit) return TooLarge();
  ToolResult r{.content = std::move(fit->second)};
  for (size_t i = 0; i < fit->first; ++i) {
    for (NodeIndex n : t_.judged_.findings[chosen[i]].nodes) {
      if (n < net_.size()) r.listed.push_back(net_.node(n).id);
    }
  }
  return r;
}

std::string ToolRun::FindingObject(const Finding& f) const {
  constexpr size_t kNodes = 8;
  JsonWriter w;
  w.BeginObject();
  w.StringField("rule", f.rule);
  w.StringField("severity", SeverityName(f.severity));
  w.StringField("title", f.title);
  w.Key("nodes");
  w.BeginArray();
  for (size_t i = 0; i < f.nodes.size() && i < kNodes; ++i) {
    if (f.nodes[i] < net_.size()) w.String(net_.node(f.nodes[i]).id);
  }
  w.EndArray();
  if (f.nodes.size() > kNodes) w.CountField("nodes_total", f.nodes.size());
  w.Key("numbers");
  w.BeginObject();
  for (const auto& [name, value] : f.numbers) w.NumberField(name, value);
  w.EndObject();
  w.StringField("suggestion", ClipBytes(f.suggestion, 1200));
  if (f.gain) {
    w.Key("gain");
    w.BeginObject();
    w.NumberField("saved_ms", f.gain->ms());
    w.IntField("frames_saved", f.gain->frames());
    w.CountField("over_budget_frames", f.gain->over_budget);
    w.EndObject();
  }
  if (!f.snippet.empty()) w.StringField("snippet", ClipBytes(f.snippet, 600));
  if (!f.docs.empty()) w.StringField("docs", f.docs);
  w.EndObject();
  return w.Take();
}

ToolResult ToolRun::CriticalPathTool(std::string_view text) {
  Arguments args("critical_path", text, {"step", "index"});
  if (!args.ok()) return Fail(args.problem());
  std::string problem;
  const std::optional<size_t> chosen = ChosenFrame(args, "critical_path", problem);
  if (!args.ok()) return Fail(args.problem());
  if (!problem.empty()) return Fail(problem);
  // As `cookgraph graph --format json` gives it, in its spelling (nlohmann's).
  Path nodes = a_.critical_path;
  std::optional<StepPath> path;
  const StepPath* events = a_.trace && a_.trace->path ? &*a_.trace->path : nullptr;
  if (chosen) {
    if (!a_.trace || snap_.timelines.empty()) {
      return Fail(fmt::format("critical_path: {}'s critical path is the network's, of the mean "
                              "frame; a step's is for traces", t_.file_));
    }
    std::string warning;
    path = StepCriticalPath(snap_.timelines, *chosen, warning);
    if (!path) {
      return Fail(fmt::format("critical_path: no path for that step{}",
                              warning.empty() ? "" : ": " + ClipBytes(warning, 160)));
    }
    nodes = Path{.weight = path->length_ms};
    for (NodeIndex n : path->nodes) {
      if (n < net_.size()) nodes.nodes.push_back(n);
    }
    events = &*path;
  }
  auto render = [&](std::optional<size_t> keep_events) {
    JsonWriter w(JsonStyle::kNlohmann);
    WriteCriticalPath(w, net_, nodes, events, keep_events);
    return w.Take();
  };
  // A trace's events can outgrow the budget: the first ones that fit, saying so.
  std::string whole = render(std::nullopt);
  if (events == nullptr || Fits(whole)) return Whole(std::move(whole));
  auto fit = FitRows(events->events.size(), 0, [&](size_t k) { return render(k); });
  if (!fit) return TooLarge();
  return ToolResult{.content = std::move(fit->second)};
}

ToolResult ToolRun::GpuBreakdown(std::string_view text) {
  Arguments args("gpu_breakdown", text, {});
  if (!args.ok()) return Fail(args.problem());
  JsonWriter w;  // score's "gpu" without its launches
  score_internal::WriteGpu(w, a_.trace->gpu, /*launches=*/false);
  return Whole(w.Take());
}

ToolResult ToolRun::Launches(std::string_view text) {
  Arguments args("launches", text, {});
  if (!args.ok()) return Fail(args.problem());
  JsonWriter w;
  score_internal::WriteLaunches(w, a_.trace->gpu.launches);
  return Whole(w.Take());
}

ToolResult ToolRun::Threads(std::string_view text) {
  Arguments args("threads", text, {});
  if (!args.ok()) return Fail(args.problem());
  JsonWriter w;
  w.BeginObject();
  score_internal::WriteStreaming(w, snap_, *snap_.streaming);
  w.EndObject();
  return Whole(w.Take());
}

}  // namespace cookgraph::tools_internal
