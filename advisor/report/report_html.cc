// The HTML report: one self-contained page. Inline CSS (light and dark), inline
// SVG charts, no JavaScript and no URL of any kind, so it opens offline and a
// node id cannot run or load anything: every input string goes through
// EscapeHtml(), and the LLM's answer through cmark (report_advice.h).

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>

#include "advisor/report/report_advice.h"
#include "advisor/report/report_model.h"
#include "advisor/report/report_renderers.h"
#include "advisor/report/report_style.h"
#include "advisor/report/report_svg.h"
#include "advisor/report/report_timeline.h"
#include "base/text.h"
#include "writers/diff_formats.h"

namespace cookgraph {
namespace {

using namespace report_internal;  // NOLINT: one file's use of its own internals

// Names in tables are cut to kCellWidth columns, in lists to kListWidth.
constexpr size_t kCellWidth = 48, kListWidth = 96;

// A name of any length (a C++ kernel's signature runs to hundreds of
// characters) cut in the middle, the full text on hover.
std::string Elided(const std::string& name, size_t width) {
  const std::string shown = TruncateMiddle(name, width);
  if (shown == name) return EscapeHtml(name);
  return fmt::format("<span title=\"{}\">{}</span>", EscapeHtml(name), EscapeHtml(shown));
}

void Row(std::string& out, std::string_view head, const std::string& value_html) {
  out += fmt::format("<tr><th scope=\"row\">{}</th><td>{}</td></tr>\n", head, value_html);
}

std::string IdList(const Snapshot& snapshot, const std::vector<NodeIndex>& nodes,
                   std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < kListLimit; ++i) {
    if (i) out += separator;
    out += "<span class=\"id\">" + Elided(Id(snapshot, nodes[i]), kListWidth) + "</span>";
  }
  if (nodes.size() > kListLimit) out += fmt::format(" … and {} more", nodes.size() - kListLimit);
  return out;
}

void Summary(const ReportInput& in, std::string& out) {
  const SnapshotInfo& info = in.snapshot.info;
  const FrameSummary& f = in.analysis.frames;
  out += "<section id=\"summary\"><h2>Summary</h2>\n<table class=\"summary\">\n";
  Row(out, "file", "<span class=\"id\">" + EscapeHtml(in.file) + "</span>");
  Row(out, "engine", EscapeHtml(info.engine.empty() ? "(not given)" : info.engine));
  Row(out, "name", EscapeHtml(info.name.empty() ? "(not given)" : info.name));
  if (!info.captured.empty()) Row(out, "captured", EscapeHtml(info.captured));
  Row(out, "nodes",
      fmt::format("{} ({} cooked), {}", in.snapshot.network.size(), CookedCount(in.analysis),
                  Counted(in.snapshot.network.edges().size(), "edge")));
  const std::string_view unit = info.frame_word();
  Row(out, fmt::format("{}s", unit), std::to_string(f.frame_ms.size()));
  Row(out, "fps", info.fps ? Number(*info.fps) : "(not given)");
  if (!in.analysis.has_budget) {
    // Steps (docs/architecture.md#steps-are-not-frames): no budget to be over.
    Row(out, "budget", "none (steps of a trace; --budget-ms sets one)");
    Row(out, "step time", fmt::format("mean {} ms, p95 {} ms, max {} ms", Ms(f.mean_ms),
                                      Ms(f.p95_ms), Ms(f.max_ms)));
    Row(out, "findings", std::to_string(in.findings.size()));
    out += "</table></section>\n";
    return;
  }
  Row(out, "budget", Ms(in.analysis.budget_ms) + " ms");
  Row(out, fmt::format("{} time", unit),
      fmt::format("mean {} ms, p95 {} ms, max {} ms ({})", Ms(f.mean_ms), Ms(f.p95_ms),
                  Ms(f.max_ms), f.measured ? "measured" : "sum of the nodes' cook times"));
  const double over_share =
      f.counted == 0 ? 0 : static_cast<double>(f.over_budget.size()) / f.counted;
  Row(out, "over budget",
      fmt::format("<span class=\"{}\">{} of {} ({})</span>",
                  f.over_budget.empty() ? "ok" : "bad", f.over_budget.size(),
                  Counted(f.counted, unit),
                  Percent(over_share)));
  Row(out, "findings", std::to_string(in.findings.size()));
  out += "</table></section>\n";
}

void Comparison(const ReportInput& in, std::string& out) {
  if (in.comparison == nullptr) return;
  const SnapshotDiff& diff = *in.comparison;
  out +=
      "<section id=\"comparison\"><h2>Comparison with the baseline</h2>\n<table "
      "class=\"summary\">\n";
  Row(out, "baseline", "<span class=\"id\">" + EscapeHtml(in.baseline_file) + "</span>");
  const std::string_view unit = in.snapshot.info.frame_word();
  Row(out, fmt::format("{} time", unit),
      diff.frames.regression
          ? "<span class=\"bad\">" + EscapeHtml(FrameChangeText(diff.frames)) + "</span>"
          : EscapeHtml(FrameChangeText(diff.frames)));
  Row(out, "nodes",
      fmt::format("{} matched, <span class=\"{}\">{} regressed</span>, {} improved, {} added, {} "
                  "removed",
                  diff.nodes.size(), diff.regressions > 0 ? "bad" : "ok", diff.regressions,
                  diff.improvements, diff.added.size(), diff.removed.size()));
  Row(out, "test",
      fmt::format("Welch's t-test on the per-{} cook times, one-sided, alpha {}; a change must "
                  "exceed {}% of avg ms",
                  unit, Number(diff.options.alpha), Number(diff.options.min_change_pct)));
  out += "</table>\n";
  const std::vector<const NodeDiff*> rows = ComparisonRows(diff, in.top);
  if (!rows.empty()) {
    out += fmt::format(
        "<table><thead><tr><th>id</th><th class=\"n\">avg before</th><th class=\"n\">avg "
        "after</th><th class=\"n\">avg</th><th class=\"n\">p95</th><th class=\"n\">per-{}"
        "</th><th class=\"n\">score</th><th class=\"n\">p</th><th>verdict</th></tr></thead>"
        "<tbody>\n",
        unit);
    for (const NodeDiff* d : rows) {
      auto avg = [](const NodeStats& s) { return s.cooked_frames > 0 ? Ms(s.avg_ms) : "-"; };
      out += fmt::format(
          "<tr><td class=\"id\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
          "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
          "<td class=\"n\">{}</td><td class=\"n\">{}</td><td{}>{}</td></tr>\n",
          Elided(d->id, kCellWidth), avg(d->before_stats), avg(d->after_stats), ChangeText(d->avg_pct),
          ChangeText(d->p95_pct), ChangeText(d->per_frame_pct), ChangeText(d->score_pct),
          PValueText(d->p_value()), d->regression ? " class=\"bad\"" : "", EscapeHtml(Verdict(*d)));
    }
    out += "</tbody></table>\n";
    if (rows.size() < diff.nodes.size()) {
      out += fmt::format("<p class=\"muted\">… and {}.</p>\n",
                         Counted(diff.nodes.size() - rows.size(), "more matched node"));
    }
  }
  auto ids = [&](const char* title, const std::vector<std::string>& list) {
    if (list.empty()) return;
    out += fmt::format("<p>{} ({}): ", title, list.size());
    for (size_t i = 0; i < list.size() && i < kListLimit; ++i) {
      out += std::string(i ? ", " : "") + "<span class=\"id\">" + Elided(list[i], kListWidth) +
             "</span>";
    }
    if (list.size() > kListLimit) out += fmt::format(" … and {} more", list.size() - kListLimit);
    out += "</p>\n";
  };
  ids("Added", diff.added);
  ids("Removed", diff.removed);
  for (const std::string& w : diff.warnings) {
    out += "<p class=\"muted\">Warning: " + EscapeHtml(w) + "</p>\n";
  }
  out += "</section>\n";
}

void TopNodes(const ReportInput& in, const std::vector<TopRow>& rows, std::string& out) {
  // Traces have steps, not frames (docs/architecture.md#engine-words).
  const std::string_view unit = in.snapshot.info.frame_word();
  out += fmt::format(
      "<section id=\"top-nodes\"><h2>Top nodes</h2>\n<p class=\"muted\">{} of {} by score (avg × (1 + std)); times in ms; per-{unit} = the node's cook time "
      "summed over its {unit}s / all {unit}s; share = per-{unit} / mean {unit} time. Bars: per-{unit} "
      "ms, orange when the node is on "
      "the critical path.</p>\n",
      Costliest(rows.size()), Counted(CookedCount(in.analysis), "cooked node"),
      fmt::arg("unit", unit));
  if (rows.empty()) {
    out += fmt::format("<p>No node cooked in any {}.</p></section>\n", unit);
    return;
  }
  out += TopNodesChart(in.snapshot, in.analysis, rows);
  out += fmt::format(
      "<table><thead><tr><th class=\"n\">rank</th><th>id</th><th>type</th><th class=\"n\">score"
      "</th><th class=\"n\">avg</th><th class=\"n\">p95</th><th class=\"n\">max</th>"
      "<th class=\"n\">per-{}</th><th class=\"n\">share</th>",
      unit);
  const bool gpu = HasGpu(in.analysis);
  if (gpu) {
    out += fmt::format("<th class=\"n\">gpu per-{}</th><th class=\"n\">gpu share</th>", unit);
  }
  const bool gains = !in.analysis.gain_ms.empty();
  if (gains) out += fmt::format("<th class=\"n\" title=\"{}\">gain</th>", GainTitle(unit));
  out += "<th>flags</th></tr></thead><tbody>\n";
  for (const TopRow& r : rows) {
    const NodeStats& s = in.analysis.stats[r.node];
    const Node& node = in.snapshot.network.node(r.node);
    std::string gpu_cells;
    if (gpu) {
      for (const std::string& cell : GpuCells(in.analysis, r.node)) {
        gpu_cells += "<td class=\"n\">" + cell + "</td>";
      }
    }
    out += fmt::format(
        "<tr><td class=\"n\">{}</td><td class=\"id\">{}</td><td class=\"name\">{}</td>"
        "<td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td>{}{}<td>{}</td></tr>\n",
        r.rank, Elided(node.id, kCellWidth), node.type == node.id ? "" : Elided(node.type, 32),
        Ms(s.score), Ms(s.avg_ms), Ms(s.p95_ms), Ms(s.max_ms), Ms(s.per_frame_ms), Percent(s.share),
        gpu_cells, gains ? "<td class=\"n\">" + GainCell(in.analysis, r.node) + "</td>" : "",
        Flags(in.analysis, r.node));
  }
  out += "</tbody></table></section>\n";
}

// What pays to fix (docs/commands.md#cookgraph-report): the nodes whose
// halving saves the most, halved and removed, and the frames without the first.
void WhatPays(const ReportInput& in, std::string& out) {
  if (in.whatif == nullptr || in.gains == nullptr) return;
  const WhatIf& w = *in.whatif;
  const std::vector<PredictedGain>& rows = in.gains->rows;
  out += fmt::format(
      "<section id=\"what-pays\"><h2>What pays to fix</h2>\n<p class=\"muted\">{}</p>\n",
      WhatPaysLine(w, in.snapshot.info.frame_word(), in.gains->frames_first));
  if (rows.empty()) {
    out += "<p>No node is predicted to save time.</p></section>\n";
    return;
  }
  // Steps without a budget have no over-budget column.
  const bool budget = w.has_budget();
  const std::string group = fmt::format("<th colspan=\"{}\">", budget ? 3 : 2);
  const std::string head = std::string("<th class=\"n\">mean ms</th><th class=\"n\">p95 ms</th>") +
                           (budget ? "<th class=\"n\">fewer over budget</th>" : "");
  out += "<table><thead><tr><th rowspan=\"2\">id</th>" + group + "halved</th>" + group +
         "removed</th></tr><tr>" + head + head + "</tr></thead><tbody>\n";
  for (size_t i = 0; i < rows.size() && i < kGainRows; ++i) {
    const PredictedGain& r = rows[i];
    out += "<tr><td class=\"id\">" + Elided(Id(in.snapshot, r.nodes.front()), kCellWidth) + "</td>";
    for (const std::optional<Saving>& s : {std::optional<Saving>(r.halved), r.fixed}) {
      for (const std::string& cell : SavingCells(s, budget))
        out += "<td class=\"n\">" + cell + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
  // The first node removed: the measured frames against the predicted ones.
  const NodeIndex first = rows.front().nodes.front();
  const WhatIfChange without{.node = first, .factor = 0};
  const WhatIfPrediction p = w.Predict(std::span(&without, 1));
  out += fmt::format(
      "<p>Without <span class=\"id\">{}</span>: mean {} → {} ms, p95 {} → {} ms{}. Dashed: as "
      "measured; solid: predicted.</p>\n",
      Elided(Id(in.snapshot, first), kListWidth), Ms(w.before().mean_ms), Ms(p.after.mean_ms),
      Ms(w.before().p95_ms), Ms(p.after.p95_ms),
      w.has_budget() ? fmt::format(", {} → {} over budget", w.before().over_budget,
                                   Counted(p.after.over_budget, in.snapshot.info.frame_word()))
                     : "");
  out +=
      WhatIfChart(in.snapshot, in.analysis, w.frame_ms(), p.frame_ms,
                  fmt::format("{} time per {} (ms) as measured and predicted without {}",
                              Capitalised(in.snapshot.info.frame_word()),
                              in.snapshot.info.frame_word(), Id(in.snapshot, first)));
  out += "</section>\n";
}

void Families(const ReportInput& in, std::string& out) {
  out += fmt::format(
      "<section id=\"families\"><h2>Per-family breakdown</h2>\n<table><thead><tr><th>family</th>"
      "<th class=\"n\">nodes</th><th class=\"n\">cooked</th><th class=\"n\">per-{} ms</th>"
      "<th class=\"n\">share</th></tr></thead><tbody>\n",
      in.snapshot.info.frame_word());
  for (const FamilyRow& f : FamilyRows(in.snapshot, in.analysis)) {
    out += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td></tr>\n",
        EscapeHtml(f.family.empty() ? "(none)" : f.family), f.nodes, f.cooked_nodes, Ms(f.per_frame_ms),
        Percent(f.share));
  }
  out += "</tbody></table></section>\n";
}

void Loops(const ReportInput& in, std::string& out) {
  const double mean = in.analysis.frames.mean_ms;
  out += "<section id=\"loops\"><h2>Feedback loops</h2>\n";
  if (in.analysis.loops.empty()) {
    out += "<p>No feedback loops.</p></section>\n";
    return;
  }
  out += fmt::format(
      "<table><thead><tr><th>kind</th><th class=\"n\">per-{} ms</th><th class=\"n\">share</th>"
      "<th>nodes</th></tr></thead><tbody>\n",
      in.snapshot.info.frame_word());
  for (size_t i = 0; i < in.analysis.loops.size() && i < kListLimit; ++i) {
    const LoopReport& l = in.analysis.loops[i];
    std::string nodes = IdList(in.snapshot, l.loop.nodes, " → ");
    if (l.loop.kind == LoopKind::kFeedback) {
      nodes += "<br><span class=\"muted\">closed by the feedback edge </span><span class=\"id\">" +
               Elided(Id(in.snapshot, l.loop.feedback_from), kListWidth) +
               "</span> → <span class=\"id\">" + Elided(Id(in.snapshot, l.loop.feedback_to), kListWidth) +
               "</span>";
    }
    out += fmt::format(
        "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
        LoopKindName(l.loop.kind), Ms(l.per_frame_ms),
        Percent(mean > 0 ? l.per_frame_ms / mean : 0), nodes);
  }
  out += "</tbody></table>\n";
  if (in.analysis.loops.size() > kListLimit) {
    out += fmt::format("<p class=\"muted\">… and {}.</p>\n",
                       Counted(in.analysis.loops.size() - kListLimit, "more loop"));
  }
  out += "</section>\n";
}

void CriticalPathSection(const ReportInput& in, std::string& out) {
  const Path& path = in.analysis.critical_path;
  const double mean = in.analysis.frames.mean_ms;
  out += "<section id=\"critical-path\"><h2>Critical path</h2>\n";
  if (in.analysis.trace) {
    if (!in.analysis.trace->path) {
      out += "<p>No event critical path (see the warnings).</p></section>\n";
      return;
    }
    const StepPath& p = *in.analysis.trace->path;
    out += "<p>" + EscapeHtml(EventPathHeadline(p)) + "</p>\n<ol>\n";
    for (size_t i = 0; i < p.per_node_ms.size() && i < kListLimit; ++i) {
      out += fmt::format("<li><span class=\"id\">{}</span> <span class=\"muted\">{} ms</span></li>\n",
                         Elided(Id(in.snapshot, p.per_node_ms[i].first), kListWidth),
                         Ms(p.per_node_ms[i].second));
    }
    out += "</ol></section>\n";
    return;
  }
  if (path.nodes.empty()) {
    out += "<p>No critical path: nothing cooked.</p></section>\n";
    return;
  }
  out += fmt::format(
      "<p>{}, {} ms per {unit} ({} of the mean {unit} time), source to sink:</p>\n<ol>\n",
      Counted(path.nodes.size(), "node"), Ms(path.weight), Percent(mean > 0 ? path.weight / mean : 0),
      fmt::arg("unit", in.snapshot.info.frame_word()));
  for (size_t i = 0; i < path.nodes.size() && i < kListLimit; ++i) {
    const NodeIndex n = path.nodes[i];
    out += fmt::format("<li><span class=\"id\">{}</span> <span class=\"muted\">{} ms</span></li>\n",
                       Elided(Id(in.snapshot, n), kListWidth), Ms(in.analysis.stats[n].per_frame_ms));
  }
  out += "</ol>\n";
  if (path.nodes.size() > kListLimit) {
    out += fmt::format("<p class=\"muted\">… and {}.</p>\n",
                       Counted(path.nodes.size() - kListLimit, "more node"));
  }
  out += "</section>\n";
}

// The heatmap's box, as CSS (docs/commands.md#cookgraph-report): the whole
// picture, scaled down to the section's width and to 80% of the window's
// height, never enlarged; its shorter side never under kMinSide px (or its own
// size), so that a long chain (pytorch_model.json draws 53,219 × 22,557 pt)
// stays visible and the box scrolls. --full is its own size, for the toggle.
constexpr double kMinSide = 240;
std::string FitStyle(const Heatmap& heatmap) {
  const double w = heatmap.width_pt * 4 / 3, h = heatmap.height_pt * 4 / 3;  // CSS px: 96 per 72 pt
  const double ratio = w / h;
  return fmt::format(
      "--fit: max(min(100%, {0:.0f}px, {1:.2f}vh), {2:.0f}px); --full: {0:.0f}px; "
      "aspect-ratio: {0:.0f} / {3:.0f}",
      w, 80 * ratio, std::min(w, kMinSide * std::max(1.0, ratio)), h);
}

// The heatmap drawn by Graphviz, inline. Graphviz's SVG escapes every label
// and tooltip as XML text; InlineSvg drops the prolog and namespace URLs.
void HeatmapSection(const ReportInput& in, std::string& out) {
  out += "<section id=\"heatmap\"><h2>Network heatmap</h2>\n";
  if (in.heatmap == nullptr) {
    out += "<p class=\"muted\">" + EscapeHtml(in.heatmap_note.empty() ? "Not drawn." : in.heatmap_note) +
           "</p></section>\n";
    return;
  }
  const HeatmapSelection& s = in.heatmap->selection;
  out += fmt::format(
      "<p class=\"muted\">Nodes filled by score on the viridis scale (log scale, legend in the "
      "picture; grey: did not cook), containers as boxes, the critical path in red; feedback "
      "edges dashed, references dotted. Showing {} of {}{}. Hover a node for its id and "
      "numbers; the whole network fits the box, and \"Show at full size\" shows it at its own "
      "size, to scroll through.</p>\n",
      s.nodes.size(), Counted(s.total, "node"),
      s.reduced() ? ": the costliest by score, the critical path and their neighbours" : "");
  if (!in.heatmap_note.empty()) out += "<p class=\"muted\">" + EscapeHtml(in.heatmap_note) + "</p>\n";
  const Heatmap& h = *in.heatmap;
  if (h.width_pt <= 0 || h.height_pt <= 0) {  // no size to scale by: as Graphviz drew it
    out += "<div class=\"heatmap\">" + InlineSvg(h.svg) + "</div>\n</section>\n";
    return;
  }
  // A <details> toggles the size with CSS alone: the page has no script.
  out += fmt::format(
      "<details class=\"heatmap-size\"><summary><span class=\"closed\">Show at full size ({} × {} "
      "pt)</span><span class=\"open\">Fit to the box</span></summary></details>\n"
      "<div class=\"heatmap\"><div class=\"heatmap-fit\" style=\"{}\">{}</div></div>\n</section>\n",
      Thousands(static_cast<uint64_t>(std::lround(h.width_pt))),
      Thousands(static_cast<uint64_t>(std::lround(h.height_pt))), FitStyle(h), InlineSvg(h.svg));
}

// GStreamer: the streaming threads and the pipeline's latency.
void StreamingSection(const ReportInput& in, std::string& out) {
  if (!in.snapshot.streaming) return;
  const Streaming& st = *in.snapshot.streaming;
  out += "<section id=\"threads\"><h2>Streaming threads</h2>\n<p>Each thread's work per buffer "
         "(queues and mixers wait, they do not work) against its buffer period from the "
         "caps.</p>\n<table><thead><tr><th>thread</th><th class=\"n\">work ms/buffer</th>"
         "<th class=\"n\">period ms</th><th class=\"n\">of period</th><th class=\"n\">CPU</th>"
         "<th class=\"n\">buffers</th><th>costliest</th><th>elements</th></tr></thead><tbody>\n";
  for (const ThreadRow& r : ThreadRows(st)) {
    std::string elements;
    for (size_t i = 0; i < r.elements.size(); ++i) {
      elements += (i ? " → " : "") + std::string("<span class=\"id\">") +
                  Elided(Id(in.snapshot, r.elements[i]), kListWidth) + "</span>" +
                  (r.work[i] ? "" : " (waits)");
    }
    out += fmt::format(
        "<tr><td class=\"id\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
        "<td class=\"id\">{}</td><td>{}</td></tr>\n",
        Elided(r.thread, kCellWidth), r.work_ms, r.period_ms, r.utilisation, r.cpu_load, r.buffers,
        r.costliest ? Elided(Id(in.snapshot, *r.costliest), kCellWidth) : "-", elements);
  }
  out += "</tbody></table>\n";
  if (st.process_cpu_load_pct) {
    out += fmt::format("<p>Process CPU: {} of one core.</p>\n",
                       Percent(*st.process_cpu_load_pct / 100));
  }
  const std::string latency = LatencyLine(st);
  out += "<p>Latency (source to sink, from the <code>latency</code> records; not the buffer time): " +
         (latency.empty() ? std::string("not recorded") : EscapeHtml(latency)) +
         ".</p>\n</section>\n";
}

// GPU time per rank and stream, and the timeline of the slowest step.
void TraceSections(const ReportInput& in, std::string& out) {
  const TraceSummary& t = *in.analysis.trace;
  if (!t.gpu.empty()) {
    out += "<section id=\"gpu-time\"><h2>GPU time</h2>\n";
    out += GpuBreakdownSvg(t);
    out += "<table><thead><tr><th class=\"n\">rank</th><th>stream</th><th class=\"n\">kernels"
           "</th><th class=\"n\">kernel ms</th><th class=\"n\">idle ms</th><th class=\"n\">host "
           "wait</th><th class=\"n\">kernel wait</th><th class=\"n\">other</th></tr></thead>"
           "<tbody>\n";
    for (const RankGpuTime& r : t.gpu.ranks) {
      for (const StreamTime& s : r.streams) {
        out += fmt::format(
            "<tr><td class=\"n\">{}</td><td class=\"name\">{}</td><td class=\"n\">{}</td>"
            "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
            "<td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
            r.rank, Elided(s.label, kCellWidth), s.kernels, Ms(s.kernel_ms), Ms(s.idle_ms),
            Ms(s.idle_host_wait_ms), Ms(s.idle_kernel_wait_ms), Ms(s.idle_other_ms));
      }
    }
    out += "</tbody></table>\n";
    const LaunchStats& l = t.gpu.launches;
    if (l.count > 0) {
      out += fmt::format(
          "<p>{}: delay mean {} ms, p50 {} ms, p95 {} ms, max {} ms; {} ms in launch "
          "calls; {} under 10 µs ({}).</p>\n",
          Counted(l.count, "launch", "launches"), Ms(l.delay_mean_ms), Ms(l.delay_p50_ms),
          Ms(l.delay_p95_ms), Ms(l.delay_max_ms), Ms(l.cpu_ms),
          Counted(l.kernels_under_10us, "kernel"),
          Percent(static_cast<double>(l.kernels_under_10us) / static_cast<double>(l.count)));
    }
    out += "</section>\n";
  }
  if (t.slowest) {
    const std::string svg = StepTimelineSvg(in.snapshot, t.slowest->frame);
    if (!svg.empty()) {
      out += fmt::format(
          "<section id=\"timeline\"><h2>Timeline of the slowest step</h2>\n<p class=\"muted\">"
          "Step {}: {} ms against a mean of {} ms; rank {}. Hover a box for its event.</p>\n",
          t.slowest->step, Ms(t.slowest->ms), Ms(t.slowest->mean_ms),
          in.snapshot.timelines.front().rank);
      out += svg;
      out += "</section>\n";
    }
  }
}

void Findings(const ReportInput& in, std::string& out) {
  out += "<section id=\"findings\"><h2>Findings</h2>\n";
  if (in.findings.empty()) out += "<p>No rule of the knowledge pack matched.</p>\n";
  for (const std::vector<size_t>& group : FoldFindings(in.findings)) {
    const Finding& f = in.findings[group.front()];
    const std::string_view severity = SeverityName(f.severity);
    out += fmt::format(
        "<div class=\"finding {}\"><p><span class=\"sev\">{}</span> <strong>{}</strong> "
        "<span class=\"muted\">({}{})</span></p>\n",
        severity, severity, EscapeHtml(FoldedTitle(in.findings, group)), EscapeHtml(f.rule),
        group.size() > 1 ? fmt::format(", {} findings shown as one", group.size()) : "");
    if (!f.nodes.empty()) out += "<p>Nodes: " + IdList(in.snapshot, f.nodes, ", ") + "</p>\n";
    if (!f.numbers.empty()) {
      out += "<p>Evidence: ";
      for (size_t i = 0; i < f.numbers.size(); ++i) {
        out += fmt::format("{}<code>{}</code> = {}", i ? ", " : "", EscapeHtml(f.numbers[i].first),
                           Number(f.numbers[i].second));
      }
      out += "</p>\n";
    }
    if (!f.suggestion.empty()) out += "<p>Suggestion: " + EscapeHtml(f.suggestion) + "</p>\n";
    if (!f.docs.empty()) out += "<p>The fix relies on: " + EscapeHtml(f.docs) + "</p>\n";
    if (group.size() > 1) {
      out += "<p>The same for: ";
      for (size_t i = 1; i < group.size(); ++i) {
        out += (i > 1 ? ", " : "") + EscapeHtml(FoldedMember(in.snapshot, in.findings[group[i]]));
      }
      out += "</p>\n";
    }
    out += "</div>\n";
  }
  out += "</section>\n";
}

// What to change first (docs/commands.md#cookgraph-report), as the Markdown
// report has it.
void FirstFixSection(const ReportInput& in, std::string& out) {
  const std::vector<FirstFix> fixes = FirstFixes(in, kFirstFixes);
  if (fixes.empty()) return;
  const std::string_view unit = in.snapshot.info.frame_word();
  out += "<section id=\"first-fix\"><h2>What to change first</h2>\n<ol>\n";
  for (const FirstFix& fix : fixes) {
    out += fmt::format("<li><p><span class=\"id\">{}</span>: {}.</p>",
                       EscapeHtml(Id(in.snapshot, fix.gain->nodes.front())),
                       EscapeHtml(FixSentence(*fix.gain, unit)));
    if (!fix.why.empty()) {
      out += "<ul>";
      for (const Finding* f : fix.why) {
        out += fmt::format("<li><span class=\"muted\">{}</span>: {}</li>", EscapeHtml(f->rule),
                           EscapeHtml(f->title));
      }
      if (fix.snippet != nullptr) {
        out += "<li>fix: <code>" + EscapeHtml(fix.snippet->snippet) + "</code></li>";
      }
      out += "</ul>";
    }
    out += "</li>\n";
  }
  out += "</ol></section>\n";
}

void Advice(const ReportInput& in, std::string& out) {
  out += "<section id=\"advice\"><h2>LLM advice</h2>\n";
  if (in.advice.empty()) {
    out += "<p class=\"muted\">" + EscapeHtml(in.advice_note) + "</p>\n";
  } else {
    // Markdown, defused and rendered by cmark in its safe mode (report_advice.h).
    out += "<div class=\"advice\">\n" + AdviceHtml(in.advice) + "</div>\n";
  }
  out += "</section>\n";
}

}  // namespace

std::string RenderReportHtml(const ReportInput& in) {
  const std::vector<TopRow> rows = TopRows(in.analysis, in.top);
  std::string out;
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>cookgraph report: " + EscapeHtml(Title(in)) + "</title>\n<style>";
  out += kReportStyle;
  out += "</style>\n</head>\n<body>\n<header><h1>cookgraph report: " + EscapeHtml(Title(in)) +
         "</h1>\n<p class=\"muted\">Made by cookgraph from <span class=\"id\">" + EscapeHtml(in.file) +
         "</span>. Times in milliseconds.</p></header>\n<main>\n";
  Summary(in, out);
  FirstFixSection(in, out);
  Comparison(in, out);
  out += fmt::format("<section id=\"frame-time\"><h2>{} time</h2>\n",
                     Capitalised(in.snapshot.info.frame_word()));
  out += FrameTimeChart(in.snapshot, in.analysis);
  out += "</section>\n";
  TopNodes(in, rows, out);
  WhatPays(in, out);
  Families(in, out);
  Loops(in, out);
  if (in.analysis.trace) TraceSections(in, out);
  StreamingSection(in, out);
  CriticalPathSection(in, out);
  HeatmapSection(in, out);
  Findings(in, out);
  Advice(in, out);
  if (!in.analysis.warnings.empty()) {
    out += "<section id=\"warnings\"><h2>Warnings</h2>\n<ul>\n";
    for (const std::string& w : in.analysis.warnings) out += "<li>" + EscapeHtml(w) + "</li>\n";
    out += "</ul></section>\n";
  }
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace cookgraph
