// The Markdown report: the HTML report's sections as GitHub-flavoured Markdown
// tables and lists. Every input string goes through MarkdownText(), so an id can
// neither end a table cell nor become markup or a link.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "advisor/report/report_advice.h"
#include "advisor/report/report_model.h"
#include "advisor/report/report_renderers.h"
#include "base/text.h"
#include "writers/diff_formats.h"

namespace cookgraph {
namespace {

using namespace report_internal;  // NOLINT: one file's use of its own internals

constexpr size_t kSparkColumns = 60;

void TableRow(std::string& out, const std::vector<std::string>& cells) {
  out += '|';
  for (const std::string& c : cells) out += " " + c + " |";
  out += '\n';
}

// The header row and the alignment row; a column whose name starts with '>' is
// right-aligned (numbers).
void TableHead(std::string& out, std::vector<std::string> columns) {
  std::string rule = "|";
  for (std::string& c : columns) {
    const bool right = c.front() == '>';
    if (right) c.erase(0, 1);
    rule += right ? " ---: |" : " --- |";
  }
  TableRow(out, columns);
  out += rule + '\n';
}

std::string IdList(const Snapshot& snapshot, const std::vector<NodeIndex>& nodes,
                   std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < kListLimit; ++i) {
    if (i) out += separator;
    out += MarkdownText(Id(snapshot, nodes[i]));
  }
  if (nodes.size() > kListLimit) out += fmt::format(" … and {} more", nodes.size() - kListLimit);
  return out;
}

// Frame time as one line of block characters, each the maximum of its frames,
// scaled to `top` ms.
std::string Sparkline(const std::vector<double>& ms, double top) {
  if (ms.empty()) return "";
  const size_t columns = std::min(ms.size(), kSparkColumns);
  std::vector<double> value(columns, 0);
  for (size_t i = 0; i < ms.size(); ++i) {
    if (std::isfinite(ms[i]))
      value[i * columns / ms.size()] = std::max(value[i * columns / ms.size()], ms[i]);
  }
  static constexpr std::string_view kBlocks[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  std::string line;
  for (double v : value) {
    size_t level = top > 0 ? static_cast<size_t>(std::clamp(v / top, 0.0, 1.0) * 7.999) : 0;
    line += kBlocks[level];
  }
  return line;
}

void Summary(const ReportInput& in, std::string& out) {
  const SnapshotInfo& info = in.snapshot.info;
  const FrameSummary& f = in.analysis.frames;
  const double over_share =
      f.counted == 0 ? 0 : static_cast<double>(f.over_budget.size()) / f.counted;
  out += "## Summary\n\n";
  TableHead(out, {"field", "value"});
  TableRow(out, {"file", MarkdownText(in.file)});
  TableRow(out, {"engine", info.engine.empty() ? "(not given)" : MarkdownText(info.engine)});
  TableRow(out, {"name", info.name.empty() ? "(not given)" : MarkdownText(info.name)});
  if (!info.captured.empty()) TableRow(out, {"captured", MarkdownText(info.captured)});
  TableRow(out,
           {"nodes", fmt::format("{} ({} cooked), {}", in.snapshot.network.size(),
                                 CookedCount(in.analysis),
                                 Counted(in.snapshot.network.edges().size(), "edge"))});
  TableRow(out, {fmt::format("{}s", info.frame_word()), std::to_string(f.frame_ms.size())});
  TableRow(out, {"fps", info.fps ? Number(*info.fps) : "(not given)"});
  if (!in.analysis.has_budget) {
    // Steps (docs/architecture.md#steps-are-not-frames): no budget to be over.
    TableRow(out, {"budget", "none (steps of a trace; --budget-ms sets one)"});
    TableRow(out, {"step time", fmt::format("mean {} ms, p95 {} ms, max {} ms", Ms(f.mean_ms),
                                            Ms(f.p95_ms), Ms(f.max_ms))});
    TableRow(out, {"findings", std::to_string(in.findings.size())});
    out += '\n';
    return;
  }
  const std::string_view unit = in.snapshot.info.frame_word();
  TableRow(out, {"budget", Ms(in.analysis.budget_ms) + " ms"});
  TableRow(out,
           {fmt::format("{} time", unit),
            fmt::format("mean {} ms, p95 {} ms, max {} ms ({})", Ms(f.mean_ms), Ms(f.p95_ms),
                        Ms(f.max_ms), f.measured ? "measured" : "sum of the nodes' cook times")});
  TableRow(out, {"over budget", fmt::format("{} of {} ({})", f.over_budget.size(),
                                            Counted(f.counted, unit), Percent(over_share))});
  TableRow(out, {"findings", std::to_string(in.findings.size())});
  out += '\n';
}

void Comparison(const ReportInput& in, std::string& out) {
  if (in.comparison == nullptr) return;
  const SnapshotDiff& diff = *in.comparison;
  out += "## Comparison with the baseline\n\n";
  out += "- baseline: " + MarkdownText(in.baseline_file) + "\n";
  const std::string_view unit = in.snapshot.info.frame_word();
  out += fmt::format("- {} time: {}\n", unit, MarkdownText(FrameChangeText(diff.frames)));
  out += fmt::format(
      "- nodes: {} matched, **{} regressed**, {} improved, {} added, {} removed (Welch's t-test, "
      "one-sided, alpha {}; a change must exceed {}% of avg ms)\n\n",
      diff.nodes.size(), diff.regressions, diff.improvements, diff.added.size(),
      diff.removed.size(), diff.options.alpha, diff.options.min_change_pct);
  const std::vector<const NodeDiff*> rows = ComparisonRows(diff, in.top);
  if (!rows.empty()) {
    TableHead(out, {"id", ">avg before", ">avg after", ">avg", ">p95", fmt::format(">per-{}", unit), ">score", ">p",
                    "verdict"});
    for (const NodeDiff* d : rows) {
      auto avg = [](const NodeStats& s) { return s.cooked_frames > 0 ? Ms(s.avg_ms) : "-"; };
      const std::string verdict = Verdict(*d);
      TableRow(out, {MarkdownText(d->id), avg(d->before_stats), avg(d->after_stats),
                     ChangeText(d->avg_pct), ChangeText(d->p95_pct), ChangeText(d->per_frame_pct),
                     ChangeText(d->score_pct), PValueText(d->p_value()),
                     d->regression ? "**regression**" : MarkdownText(verdict)});
    }
    if (rows.size() < diff.nodes.size()) {
      out += fmt::format("\n… and {}.\n", Counted(diff.nodes.size() - rows.size(), "more matched node"));
    }
    out += '\n';
  }
  auto ids = [&](const char* title, const std::vector<std::string>& list) {
    if (list.empty()) return;
    out += fmt::format("{} ({}): ", title, list.size());
    for (size_t i = 0; i < list.size() && i < kListLimit; ++i) {
      out += (i ? ", " : "") + MarkdownText(list[i]);
    }
    if (list.size() > kListLimit) out += fmt::format(" … and {} more", list.size() - kListLimit);
    out += "\n\n";
  };
  ids("Added", diff.added);
  ids("Removed", diff.removed);
  for (const std::string& w : diff.warnings) out += "- warning: " + MarkdownText(w) + "\n";
  if (!diff.warnings.empty()) out += '\n';
}

void FrameTime(const ReportInput& in, std::string& out) {
  const FrameSummary& f = in.analysis.frames;
  const std::string_view unit = in.snapshot.info.frame_word();
  out += fmt::format("## {} time\n\n", Capitalised(unit));
  if (f.frame_ms.empty()) {
    out += fmt::format("No {}s.\n\n", unit);
    return;
  }
  const double top = std::max(f.max_ms, f.budget_ms);
  out += in.analysis.has_budget
             ? fmt::format("{} time per {}, scaled to {} ms (the larger of the maximum and "
                           "the budget of {} ms):\n\n```text\n{}\n```\n\n",
                           Capitalised(unit), unit, Ms(top), Ms(in.analysis.budget_ms),
                           Sparkline(f.frame_ms, top))
             : fmt::format("{} time per {}, scaled to the slowest ({} ms):\n\n```text\n{}\n```\n\n",
                           Capitalised(unit), unit, Ms(f.max_ms), Sparkline(f.frame_ms, top));
  if (!f.over_budget.empty()) {
    const std::vector<int64_t>& index = in.snapshot.samples.frame_index();
    out += fmt::format("Over-budget {}s:", unit);
    for (size_t i = 0; i < f.over_budget.size() && i < kListLimit; ++i) {
      const size_t p = f.over_budget[i];
      out += fmt::format("{} {} ({} ms)", i ? "," : "",
                         p < index.size() ? index[p] : static_cast<int64_t>(p), Ms(f.frame_ms[p]));
    }
    if (f.over_budget.size() > kListLimit)
      out += fmt::format(" … and {} more", f.over_budget.size() - kListLimit);
    out += ".\n\n";
  }
}

void TopNodes(const ReportInput& in, std::string& out) {
  const std::vector<TopRow> rows = TopRows(in.analysis, in.top);
  // Traces have steps, not frames (docs/architecture.md#engine-words).
  const std::string_view unit = in.snapshot.info.frame_word();
  out += fmt::format(
      "## Top nodes\n\n{} of {} by score (avg × (1 + std)); times in "
      "ms; per-{unit} = cook time summed over the node's {unit}s / all {unit}s; share = per-{unit} / "
      "mean {unit} time.\n\n",
      Costliest(rows.size()), Counted(CookedCount(in.analysis), "cooked node"),
      fmt::arg("unit", unit));
  if (rows.empty()) {
    out += fmt::format("No node cooked in any {}.\n\n", unit);
    return;
  }
  // gain: the mean frame ms saved if the node cooked twice as fast (GainTitle).
  const bool gains = !in.analysis.gain_ms.empty();
  std::vector<std::string> head = {">rank", "id",   "type", ">score", ">avg",
                                   ">p95",  ">max", fmt::format(">per-{}", unit), ">share"};
  const bool gpu = HasGpu(in.analysis);
  if (gpu) {
    head.push_back(fmt::format(">gpu per-{}", unit));
    head.push_back(">gpu share");
  }
  if (gains) head.push_back(">gain");
  head.push_back("flags");
  TableHead(out, head);
  for (const TopRow& r : rows) {
    const NodeStats& s = in.analysis.stats[r.node];
    const Node& node = in.snapshot.network.node(r.node);
    std::vector<std::string> cells = {std::to_string(r.rank),
                                      MarkdownText(node.id),
                                      MarkdownText(node.type),
                                      Ms(s.score),
                                      Ms(s.avg_ms),
                                      Ms(s.p95_ms),
                                      Ms(s.max_ms),
                                      Ms(s.per_frame_ms),
                                      Percent(s.share)};
    if (gpu) {
      for (std::string& cell : GpuCells(in.analysis, r.node)) cells.push_back(std::move(cell));
    }
    if (gains) cells.push_back(GainCell(in.analysis, r.node));
    cells.push_back(Flags(in.analysis, r.node));
    TableRow(out, cells);
  }
  if (gains) out += "\ngain = the " + GainTitle(unit) + ".\n";
  out += '\n';
}

// What pays to fix (docs/commands.md#cookgraph-report), as the HTML report
// has it; the frames without the first node as a second sparkline.
void WhatPays(const ReportInput& in, std::string& out) {
  if (in.whatif == nullptr || in.gains == nullptr) return;
  const WhatIf& w = *in.whatif;
  const std::vector<PredictedGain>& rows = in.gains->rows;
  const std::string_view unit = in.snapshot.info.frame_word();
  out += "## What pays to fix\n\n" + WhatPaysLine(w, unit, in.gains->frames_first) + "\n\n";
  if (rows.empty()) {
    out += "No node is predicted to save time.\n\n";
    return;
  }
  // Steps without a budget have no over-budget column.
  const bool budget = w.has_budget();
  std::vector<std::string> head = {"id"};
  for (const char* change : {"halved", "removed"}) {
    head.push_back(fmt::format(">{}: mean ms", change));
    head.push_back(fmt::format(">{}: p95 ms", change));
    if (budget) head.push_back(fmt::format(">{}: fewer over budget", change));
  }
  TableHead(out, head);
  for (size_t i = 0; i < rows.size() && i < kGainRows; ++i) {
    const PredictedGain& r = rows[i];
    std::vector<std::string> cells = {MarkdownText(Id(in.snapshot, r.nodes.front()))};
    for (const std::optional<Saving>& s : {std::optional<Saving>(r.halved), r.fixed}) {
      for (std::string& cell : SavingCells(s, budget)) cells.push_back(std::move(cell));
    }
    TableRow(out, cells);
  }
  const NodeIndex first = rows.front().nodes.front();
  const WhatIfChange without{.node = first, .factor = 0};
  const WhatIfPrediction p = w.Predict(std::span(&without, 1));
  const double top = std::max(in.analysis.frames.max_ms, in.analysis.budget_ms);
  out += fmt::format(
      "\nWithout {}: mean {} → {} ms, p95 {} → {} ms{}. Per {}, as measured and as predicted "
      "(scaled to {} ms):\n\n```text\n{}\n{}\n```\n\n",
      MarkdownText(Id(in.snapshot, first)), Ms(w.before().mean_ms), Ms(p.after.mean_ms),
      Ms(w.before().p95_ms), Ms(p.after.p95_ms),
      w.has_budget() ? fmt::format(", {} → {} over budget", w.before().over_budget,
                                   Counted(p.after.over_budget, unit))
                     : "",
      unit, Ms(top), Sparkline(w.frame_ms(), top), Sparkline(p.frame_ms, top));
}

void Families(const ReportInput& in, std::string& out) {
  out += "## Per-family breakdown\n\n";
  TableHead(out, {"family", ">nodes", ">cooked",
                  fmt::format(">per-{} ms", in.snapshot.info.frame_word()), ">share"});
  for (const FamilyRow& f : FamilyRows(in.snapshot, in.analysis)) {
    TableRow(out, {f.family.empty() ? "(none)" : MarkdownText(f.family), std::to_string(f.nodes),
                   std::to_string(f.cooked_nodes), Ms(f.per_frame_ms), Percent(f.share)});
  }
  out += '\n';
}

void Loops(const ReportInput& in, std::string& out) {
  const double mean = in.analysis.frames.mean_ms;
  out += "## Feedback loops\n\n";
  if (in.analysis.loops.empty()) {
    out += "No feedback loops.\n\n";
    return;
  }
  TableHead(out, {"kind", fmt::format(">per-{} ms", in.snapshot.info.frame_word()), ">share",
                  "nodes"});
  for (size_t i = 0; i < in.analysis.loops.size() && i < kListLimit; ++i) {
    const LoopReport& l = in.analysis.loops[i];
    std::string nodes = IdList(in.snapshot, l.loop.nodes, " → ");
    if (l.loop.kind == LoopKind::kFeedback) {
      nodes += " (closed by the feedback edge " +
               MarkdownText(Id(in.snapshot, l.loop.feedback_from)) + " → " +
               MarkdownText(Id(in.snapshot, l.loop.feedback_to)) + ")";
    }
    TableRow(out, {std::string(LoopKindName(l.loop.kind)), Ms(l.per_frame_ms),
                   Percent(mean > 0 ? l.per_frame_ms / mean : 0), nodes});
  }
  if (in.analysis.loops.size() > kListLimit) {
    out += fmt::format("\n… and {}.\n", Counted(in.analysis.loops.size() - kListLimit, "more loop"));
  }
  out += '\n';
}

// GStreamer: the streaming threads and the pipeline's latency.
void StreamingSection(const ReportInput& in, std::string& out) {
  if (!in.snapshot.streaming) return;
  const Streaming& st = *in.snapshot.streaming;
  out += "## Streaming threads\n\n";
  out += "Each thread's work per buffer (queues and mixers wait, they do not work) against its "
         "buffer period from the caps.\n\n";
  TableHead(out, {"thread", ">work ms/buffer", ">period ms", ">of period", ">CPU", ">buffers",
                  "costliest", "elements"});
  for (const ThreadRow& r : ThreadRows(st)) {
    std::string elements;
    for (size_t i = 0; i < r.elements.size() && i < kListLimit; ++i) {
      elements += (i ? " → " : "") + MarkdownText(Id(in.snapshot, r.elements[i])) +
                  (r.work[i] ? "" : " (waits)");
    }
    TableRow(out, {MarkdownText(r.thread), r.work_ms, r.period_ms, r.utilisation, r.cpu_load,
                   r.buffers, r.costliest ? MarkdownText(Id(in.snapshot, *r.costliest)) : "-",
                   elements});
  }
  if (st.process_cpu_load_pct) {
    out += fmt::format("\nProcess CPU: {} of one core.\n",
                       Percent(*st.process_cpu_load_pct / 100));
  }
  const std::string latency = LatencyLine(st);
  out += "\nLatency (source to sink, from the `latency` records; not the buffer time): " +
         (latency.empty() ? std::string("not recorded") : latency) + ".\n\n";
}

void CriticalPathSection(const ReportInput& in, std::string& out) {
  const Path& path = in.analysis.critical_path;
  const double mean = in.analysis.frames.mean_ms;
  out += "## Critical path\n\n";
  if (in.analysis.trace) {
    if (!in.analysis.trace->path) {
      out += "No event critical path (see the warnings).\n\n";
      return;
    }
    const StepPath& p = *in.analysis.trace->path;
    out += MarkdownText(EventPathHeadline(p)) + "\n\n";
    for (size_t i = 0; i < p.per_node_ms.size() && i < kListLimit; ++i) {
      out += fmt::format("{}. {} ({} ms)\n", i + 1, MarkdownText(Id(in.snapshot, p.per_node_ms[i].first)),
                         Ms(p.per_node_ms[i].second));
    }
    out += '\n';
    return;
  }
  if (path.nodes.empty()) {
    out += "No critical path: nothing cooked.\n\n";
    return;
  }
  out +=
      fmt::format("{}, {} ms per {unit} ({} of the mean {unit} time), source to sink:\n\n",
                  Counted(path.nodes.size(), "node"), Ms(path.weight),
                  Percent(mean > 0 ? path.weight / mean : 0),
                  fmt::arg("unit", in.snapshot.info.frame_word()));
  for (size_t i = 0; i < path.nodes.size() && i < kListLimit; ++i) {
    const NodeIndex n = path.nodes[i];
    out += fmt::format("{}. {} ({} ms)\n", i + 1, MarkdownText(Id(in.snapshot, n)),
                       Ms(in.analysis.stats[n].per_frame_ms));
  }
  if (path.nodes.size() > kListLimit) {
    out += fmt::format("\n… and {}.\n", Counted(path.nodes.size() - kListLimit, "more node"));
  }
  out += '\n';
}

void Findings(const ReportInput& in, std::string& out) {
  out += "## Findings\n\n";
  if (in.findings.empty()) out += "No rule of the knowledge pack matched.\n\n";
  for (const std::vector<size_t>& group : FoldFindings(in.findings)) {
    const Finding& f = in.findings[group.front()];
    out += fmt::format("### {}: {}\n\n", SeverityName(f.severity),
                       MarkdownText(FoldedTitle(in.findings, group)));
    out += "- rule: " + MarkdownText(f.rule) +
           (group.size() > 1 ? fmt::format(" ({} findings, shown as one)", group.size()) : "") +
           "\n";
    if (!f.nodes.empty()) out += "- nodes: " + IdList(in.snapshot, f.nodes, ", ") + "\n";
    if (!f.numbers.empty()) {
      out += "- evidence: ";
      for (size_t i = 0; i < f.numbers.size(); ++i) {
        out += fmt::format("{}{} = {}", i ? ", " : "", MarkdownText(f.numbers[i].first),
                           Number(f.numbers[i].second));
      }
      out += "\n";
    }
    if (!f.suggestion.empty()) out += "- suggestion: " + MarkdownText(f.suggestion) + "\n";
    if (!f.docs.empty()) out += "- the fix relies on: " + MarkdownText(f.docs) + "\n";
    if (group.size() > 1) {
      out += "- the same for: ";
      for (size_t i = 1; i < group.size(); ++i) {
        out += (i > 1 ? ", " : "") + MarkdownText(FoldedMember(in.snapshot, in.findings[group[i]]));
      }
      out += "\n";
    }
    out += '\n';
  }
}

// What to change first (docs/commands.md#cookgraph-report): the first rows of
// the top gains, over-budget frames first, each with the findings on its node.
void FirstFixSection(const ReportInput& in, std::string& out) {
  const std::vector<FirstFix> fixes = FirstFixes(in, kFirstFixes);
  if (fixes.empty()) return;
  const std::string_view unit = in.snapshot.info.frame_word();
  out += "## What to change first\n\n";
  for (size_t i = 0; i < fixes.size(); ++i) {
    const FirstFix& fix = fixes[i];
    out += fmt::format("{}. **{}**: {}.\n", i + 1,
                       MarkdownText(Id(in.snapshot, fix.gain->nodes.front())),
                       MarkdownText(FixSentence(*fix.gain, unit)));
    for (const Finding* f : fix.why) {
      out += fmt::format("   - {}: {}\n", MarkdownText(f->rule), MarkdownText(f->title));
    }
    if (fix.snippet != nullptr) out += "   - fix: " + MarkdownText(fix.snippet->snippet) + "\n";
  }
  out += '\n';
}

void Advice(const ReportInput& in, std::string& out) {
  out += "## LLM advice\n\n";
  if (in.advice.empty()) {
    out += MarkdownText(in.advice_note) + "\n";
    return;
  }
  // Markdown, defused (report_advice.h): control characters but line breaks and
  // tabs become '?', so the answer cannot drive the terminal of someone who
  // reads the file there, and raw HTML is text, so it cannot run where the
  // file is rendered.
  out += AdviceMarkdown(in.advice);
}

}  // namespace

std::string RenderReportMarkdown(const ReportInput& in) {
  std::string out = "# cookgraph report: " + MarkdownText(Title(in)) + "\n\n";
  Summary(in, out);
  FirstFixSection(in, out);
  Comparison(in, out);
  FrameTime(in, out);
  TopNodes(in, out);
  WhatPays(in, out);
  Families(in, out);
  Loops(in, out);
  StreamingSection(in, out);
  CriticalPathSection(in, out);
  Findings(in, out);
  Advice(in, out);
  if (!in.analysis.warnings.empty()) {
    out += "\n## Warnings\n\n";
    for (const std::string& w : in.analysis.warnings) out += "- " + MarkdownText(w) + "\n";
  }
  return out;
}

}  // namespace cookgraph
