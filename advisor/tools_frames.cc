#include "advisor/tool_run.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

// The tools over frames: frames (with a trace's step) and whatif
// (docs/architecture.md#tools-the-model-can-call).

namespace cookgraph::tools_internal {

// A frame chosen by 'index' or by number ('frame', or 'step'): its
// position, or the problem as a message. Neither given: nullopt and no
// problem.
std::optional<size_t> ToolRun::ChosenFrame(Arguments& args, std::string_view tool, std::string& problem) const {
  const size_t frames = snap_.samples.frame_count();
  const int64_t last = static_cast<int64_t>(frames) - 1;
  const std::optional<int64_t> index_value =
      args.Integer("index", 0, std::max<int64_t>(last, 0), fmt::format("an integer from 0 to {}", last));
  const std::string_view number_key = args.Has("step") ? "step" : "frame";
  const std::optional<int64_t> number_value =
      args.Integer(number_key, std::numeric_limits<int64_t>::min(),
                   std::numeric_limits<int64_t>::max(), "an integer");
  if (!args.ok()) {
    problem = args.problem();
    return std::nullopt;
  }
  if ((index_value && number_value) || (args.Has("step") && args.Has("frame"))) {
    problem = fmt::format("{}: give 'index' (0-based position) or '{}' (the engine's {} "
                          "number), not both", tool, tool == "frames" ? "frame" : "step",
                          tool == "frames" ? "frame or step" : "step");
    return std::nullopt;
  }
  if (!index_value && !number_value) return std::nullopt;
  if (frames == 0) {
    problem = fmt::format("{}: {} has no frames", tool, t_.file_);
    return std::nullopt;
  }
  if (index_value) return static_cast<size_t>(*index_value);
  const std::vector<int64_t>& numbers = snap_.samples.frame_index();
  auto it = std::find(numbers.begin(), numbers.end(), *number_value);
  if (it == numbers.end()) {
    problem = fmt::format("{}: no {} numbered {} in {}; its {}s are numbered {} to {}", tool,
                          snap_.info.frame_word(), *number_value, t_.file_, snap_.info.frame_word(),
                          numbers.front(), numbers.back());
    return std::nullopt;
  }
  return static_cast<size_t>(it - numbers.begin());
}

ToolResult ToolRun::Frames(std::string_view text) {
  Arguments args("frames", text, {"index", "frame", "step", "over_budget", "limit"});
  if (!args.ok()) return Fail(args.problem());
  std::string problem;
  const std::optional<size_t> chosen = ChosenFrame(args, "frames", problem);
  const bool only_over = args.Bool("over_budget").value_or(false);
  const size_t limit = args.Limit(20);
  if (!args.ok()) return Fail(args.problem());
  if (!problem.empty()) return Fail(problem);
  if (chosen && args.Has("over_budget")) {
    return Fail("frames: 'over_budget' chooses among the slowest frames; it does not go with a frame");
  }
  if (!chosen) return SlowestFrameList(only_over, limit);
  return OneFrame(*chosen, limit);
}

// The slowest frames (only those over budget with `only_over`), slowest first.
ToolResult ToolRun::SlowestFrameList(bool only_over, size_t limit) const {
  const bool steps = snap_.info.steps();
  const std::vector<int64_t>& numbers = snap_.samples.frame_index();
  std::vector<size_t> order;
  for (size_t f = 0; f < a_.frames.frame_ms.size() && f < numbers.size(); ++f) {
    if (IsMissing(a_.frames.frame_ms[f])) continue;  // a frame without work is not counted
    if (only_over && !std::binary_search(a_.frames.over_budget.begin(), a_.frames.over_budget.end(), f)) continue;
    order.push_back(f);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return a_.frames.frame_ms[x] > a_.frames.frame_ms[y];
  });
  JsonWriter head;
  head.BeginObject();
  head.StringField("frame_word", snap_.info.frame_word());
  head.Field("budget_ms", a_.has_budget ? Value(a_.budget_ms) : Value());
  head.NumberField("mean_ms", a_.frames.mean_ms);
  head.NumberField("p95_ms", a_.frames.p95_ms);
  head.BoolField("measured", a_.frames.measured);
  if (a_.has_budget) head.CountField("over_budget_frames", a_.frames.over_budget.size());
  const std::string prefix = Members(head);
  const size_t rows = std::min(order.size(), limit);
  std::vector<std::string> lines;
  for (size_t i = 0; i < rows; ++i) {
    const size_t f = order[i];
    JsonWriter w;
    w.BeginObject();
    w.CountField("index", f);
    w.IntField(steps ? "step" : "frame", numbers[f]);
    w.NumberField("ms", a_.frames.frame_ms[f]);
    if (a_.has_budget) {
      w.BoolField("over_budget", std::binary_search(a_.frames.over_budget.begin(),
                                                    a_.frames.over_budget.end(), f));
    }
    w.EndObject();
    lines.push_back(w.Take());
  }
  auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc(prefix, "frames", lines, k, order.size()); });
  if (!fit) return TooLarge();
  return ToolResult{.content = std::move(fit->second)};
}

ToolResult ToolRun::OneFrame(size_t f, size_t limit) const {
  const std::vector<int64_t>& numbers = snap_.samples.frame_index();
  const bool steps = snap_.info.steps();
  const double ms = f < a_.frames.frame_ms.size() ? a_.frames.frame_ms[f] : kMissing;

  JsonWriter head;
  head.BeginObject();
  head.CountField("index", f);
  head.IntField(steps ? "step" : "frame", numbers[f]);
  head.NumberField("ms", ms);  // null: a frame without work, not counted
  head.BoolField("measured", a_.frames.measured);
  head.Field("budget_ms", a_.has_budget ? Value(a_.budget_ms) : Value());
  if (a_.has_budget) {
    head.BoolField("over_budget", std::binary_search(a_.frames.over_budget.begin(),
                                                     a_.frames.over_budget.end(), f));
  }
  head.NumberField("mean_ms", a_.frames.mean_ms);
  head.NumberField("p95_ms", a_.frames.p95_ms);
  if (snap_.samples.has_profiler_ms()) head.NumberField("profiler_ms", snap_.samples.profiler_ms()[f]);
  if (a_.trace) TraceStep(head, *a_.trace, numbers[f], f);

  // The nodes that cooked in it, slowest first (ties by NodeIndex).
  std::vector<std::pair<double, NodeIndex>> cooked;
  for (NodeIndex n = 0; n < net_.size(); ++n) {
    std::span<const double> series = snap_.samples.series(n, Metric::kCookMs);
    if (f < series.size() && !IsMissing(series[f])) cooked.emplace_back(series[f], n);
  }
  std::sort(cooked.begin(), cooked.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first > y.first : x.second < y.second;
  });
  head.CountField("cooked", cooked.size());
  const std::string prefix = Members(head);
  const size_t rows = std::min(cooked.size(), limit);
  std::vector<std::string> lines;
  std::vector<NodeIndex> shown;
  for (size_t i = 0; i < rows; ++i) {
    const NodeIndex n = cooked[i].second;
    JsonWriter w;
    w.BeginObject();
    w.StringField("id", net_.node(n).id);
    w.NumberField("ms", cooked[i].first);
    w.NumberField("p50_ms", a_.stats[n].p50_ms);  // its usual cook, to see a spike
    std::span<const double> gpu = snap_.samples.series(n, Metric::kGpuMs);
    if (f < gpu.size() && !IsMissing(gpu[f])) w.NumberField("gpu_ms", gpu[f]);
    if (Waits(n)) w.BoolField("waiting", true);
    w.EndObject();
    lines.push_back(w.Take());
    shown.push_back(n);
  }
  auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc(prefix, "nodes", lines, k, cooked.size()); });
  if (!fit) return TooLarge();
  return Listed(std::move(fit->second), std::span(shown).first(fit->first));
}

// A trace's numbers for one step (docs/architecture.md#traces-steps-ranks-and-memory):
// each rank's step time and straggling, GPU time, memory peaks, and what
// grew when it is the slowest step. Short lists, cut at fixed lengths.
void ToolRun::TraceStep(JsonWriter& w, const TraceSummary& t, int64_t step, size_t f) const {
  constexpr size_t kRows = 8;
  w.Key("ranks");
  w.BeginArray();
  size_t shown = 0;
  for (const RankSteps& r : t.ranks) {
    auto it = std::find(r.steps.begin(), r.steps.end(), step);
    if (it == r.steps.end() || shown == kRows) continue;
    const size_t j = static_cast<size_t>(it - r.steps.begin());
    w.BeginObject();
    w.CountField("rank", r.rank);
    w.NumberField("step_ms", j < r.step_ms.size() ? r.step_ms[j] : kMissing);
    if (t.job() && j < r.straggler_ms.size() && r.straggler_ms[j]) {
      w.NumberField("straggler_ms", *r.straggler_ms[j]);
    }
    w.EndObject();
    ++shown;
  }
  w.EndArray();
  if (!t.gpu.empty()) {
    w.Key("gpu");
    w.BeginArray();
    shown = 0;
    for (const RankGpuTime& r : t.gpu.ranks) {
      for (const StepGpuTime& s : r.steps) {
        if (s.step != step || shown == kRows) continue;
        w.BeginObject();
        w.CountField("rank", r.rank);
        score_internal::WriteStepGpuTime(w, s);
        w.EndObject();
        ++shown;
      }
    }
    w.EndArray();
  }
  shown = 0;
  bool memory = false;
  for (const MemoryPeak& m : t.memory) {
    for (const StepMemory& s : m.steps) {
      if (s.step != step || shown == kRows) continue;
      if (!memory) {
        w.Key("memory");
        w.BeginArray();
        memory = true;
      }
      w.BeginObject();
      w.CountField("rank", m.rank);
      w.StringField("device", m.device);
      score_internal::WritePeaks(w, s.peak_allocated_mb, s.peak_reserved_mb);
      w.EndObject();
      ++shown;
    }
  }
  if (memory) w.EndArray();
  if (t.slowest && t.slowest->frame == f) {
    w.Key("slowest_step");
    w.BeginObject();
    w.NumberField("mean_ms", t.slowest->mean_ms);
    w.Key("grew");
    score_internal::WriteGrew(w, net_, t.slowest->nodes);
    w.EndObject();
  }
}

ToolResult ToolRun::RunWhatIf(std::string_view text) {
  Arguments args("whatif", text, {"id", "factor", "changes", "top"});
  const std::optional<std::string> id_value = args.String("id");
  const std::optional<double> factor_value = args.Number("factor", "a finite number >= 0");
  const auto top = args.Integer("top", 1, std::numeric_limits<int64_t>::max(), "an integer >= 1");
  if (!args.ok()) return Fail(args.problem());
  std::vector<WhatIfChange> changes;
  if (id_value) {
    const std::optional<NodeIndex> n = net_.Find(*id_value);
    if (!n) return Fail(UnknownId("whatif", *id_value));
    changes.push_back({.node = *n, .factor = factor_value.value_or(0.5)});
  } else if (factor_value) {
    return Fail("whatif: 'factor' goes with 'id' (or each of 'changes')");
  }
  if (top && (id_value || args.Has("changes"))) {
    return Fail("whatif: 'top' is for the largest savings, without 'id' or 'changes'");
  }
  const nlohmann::json& listed = args.Raw("changes");
  if (!listed.is_null()) {
    if (!listed.is_array() || listed.size() > 64) {
      return Fail("whatif: argument 'changes' must be an array of at most 64 {\"id\", \"factor\"}");
    }
    for (const nlohmann::json& c : listed) {
      auto id = c.is_object() ? c.find("id") : c.end();
      auto factor = c.is_object() ? c.find("factor") : c.end();
      const bool factor_ok = !c.is_object() || factor == c.end() ||
                             (factor->is_number() && std::isfinite(factor->get<double>()) &&
                              factor->get<double>() >= 0);
      if (!c.is_object() || id == c.end() || !id->is_string() || !factor_ok || c.size() > 2) {
        return Fail("whatif: each of 'changes' must be {\"id\": a node id, \"factor\": a number "
                    ">= 0 (default 0.5)}");
      }
      const std::optional<NodeIndex> n = net_.Find(id->get<std::string>());
      if (!n) return Fail(UnknownId("whatif", id->get<std::string>()));
      changes.push_back({.node = *n, .factor = factor == c.end() ? 0.5 : factor->get<double>()});
    }
  }
  // As `cookgraph whatif INPUT --node ID=F... --format json` (writers/whatif_formats.cc).
  const size_t rows = std::min<size_t>(top ? static_cast<size_t>(*top) : 10, AnalysisTools::kMaxLimit);
  auto render = [&](bool series) {
    JsonWriter w(JsonStyle::kNlohmann);
    WriteWhatIf(w, t_.file_, snap_, t_.whatif(), changes, rows, series);
    return w.Take();
  };
  std::string content = render(true);
  // The per-frame series (two numbers a frame) are the detail left out
  // first: with them a change on a few hundred frames never fits `ask`'s
  // budget of a result.
  if (!Fits(content) && !changes.empty()) content = render(false);
  if (!Fits(content)) return TooLarge();
  ToolResult r{.content = std::move(content)};
  for (const WhatIfChange& c : changes) r.nodes.push_back(net_.node(c.node).id);
  return r;
}

}  // namespace cookgraph::tools_internal
