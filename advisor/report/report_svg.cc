#include "advisor/report/report_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/text.h"

namespace cookgraph::report_internal {
namespace {

// A "nice" step (1, 2 or 5 times a power of ten) for about `ticks` ticks up to `max`.
double NiceStep(double max, int ticks) {
  const double raw = max / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

}  // namespace

namespace {

// The frame-time chart of `ms` (FrameTimeChart), or, with `after`, the same
// frames predicted by a what-if (WhatIfChart): then the measured line is
// muted, the predicted one drawn over it, and the over-budget marks are the
// prediction's. `id` names the title element (unique in the page).
std::string FramesChart(const Snapshot& snapshot, const Analysis& analysis,
                        const std::vector<double>& ms, const std::vector<double>* after,
                        std::string_view id, const std::string& title) {
  constexpr double kWidth = 960, kHeight = 280;
  constexpr double kLeft = 56, kRight = 16, kTop = 16, kBottom = 40;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-labelledby=\"{}\">\n"
      "<title id=\"{}\">{}</title>\n",
      kWidth, kHeight, id, id, EscapeHtml(title));
  const std::string_view unit = snapshot.info.frame_word();
  if (ms.empty()) {
    out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\">no {}s</text>\n</svg>\n", kLeft,
                       kTop + plot_h / 2, unit);
    return out;
  }
  double top = analysis.budget_ms;
  for (const std::vector<double>* series : {&ms, after}) {
    if (series == nullptr) continue;
    for (double v : *series) {
      if (std::isfinite(v)) top = std::max(top, v);
    }
  }
  top = top > 0 ? top * 1.08 : 1;
  const double step = NiceStep(top, 5);
  auto y = [&](double v) { return kTop + plot_h - std::clamp(v / top, 0.0, 1.0) * plot_h; };

  // Grid and the ms axis.
  for (double t = 0; t <= top + 1e-9; t += step) {
    out += fmt::format(
        "<line class=\"grid\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
        kLeft, SvgNumber(y(t)), kLeft + plot_w, SvgNumber(y(t)), kLeft - 6, SvgNumber(y(t) + 4),
        Number(t));
  }
  // Columns: one per frame, or the maximum of a run of frames for long captures.
  const size_t columns = std::min(ms.size(), kMaxChartColumns);
  auto column_max = [&](const std::vector<double>& series) {
    std::vector<double> value(columns, 0);
    for (size_t f = 0; f < ms.size() && f < series.size(); ++f) {
      const size_t c = f * columns / ms.size();
      if (std::isfinite(series[f])) value[c] = std::max(value[c], series[f]);
    }
    return value;
  };
  auto x = [&](size_t c) {
    return columns == 1 ? kLeft + plot_w / 2 : kLeft + plot_w * c / (columns - 1);
  };
  auto polyline = [&](const char* cls, const std::vector<double>& value) {
    out += fmt::format("<polyline class=\"{}\" points=\"", cls);
    for (size_t c = 0; c < columns; ++c) {
      if (c) out += ' ';
      out += SvgNumber(x(c)) + "," + SvgNumber(y(value[c]));
    }
    out += "\"/>\n";
  };
  polyline(after ? "series before" : "series", column_max(ms));
  const std::vector<double> value = column_max(after ? *after : ms);
  if (after) polyline("series after", value);
  std::vector<bool> over(columns, false);
  if (after) {
    for (size_t f = 0; f < after->size() && f < ms.size(); ++f) {
      if (analysis.has_budget && std::isfinite((*after)[f]) && (*after)[f] > analysis.budget_ms) {
        over[f * columns / ms.size()] = true;
      }
    }
  } else {
    for (size_t f : analysis.frames.over_budget) {
      if (f < ms.size()) over[f * columns / ms.size()] = true;
    }
  }
  if (analysis.has_budget)
    out += fmt::format(
        "<line class=\"budget\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"label budget-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">budget {} "
        "ms</text>\n",
        kLeft, SvgNumber(y(analysis.budget_ms)), kLeft + plot_w, SvgNumber(y(analysis.budget_ms)),
        kLeft + plot_w, SvgNumber(y(analysis.budget_ms) - 5), Ms(analysis.budget_ms));
  const std::vector<int64_t>& index = snapshot.samples.frame_index();
  for (size_t c = 0; c < columns; ++c) {
    if (!over[c]) continue;
    const size_t f = c * ms.size() / columns;
    out += fmt::format(
        "<circle class=\"over\" cx=\"{}\" cy=\"{}\" r=\"3.5\"><title>{} {}: {} ms</title>"
        "</circle>\n",
        SvgNumber(x(c)), SvgNumber(y(value[c])), unit,
        f < index.size() ? index[f] : static_cast<int64_t>(f), Ms(value[c]));
  }
  // The frame axis: first and last frame numbers.
  auto frame_label = [&](size_t f) {
    return f < index.size() ? std::to_string(index[f]) : std::to_string(f);
  };
  out += fmt::format(
      "<text class=\"label\" x=\"{}\" y=\"{}\">{unit} {}</text>"
      "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{unit} {}</text>\n"
      "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{unit}s ({} shown as "
      "{}{})</text>\n</svg>\n",
      kLeft, kHeight - 22, frame_label(0), kLeft + plot_w, kHeight - 22, frame_label(ms.size() - 1),
      kLeft + plot_w / 2, kHeight - 6, ms.size(), Counted(columns, "column"),
      columns < ms.size() ? fmt::format(", each the maximum of its {}s", unit) : "",
      fmt::arg("unit", unit));
  return out;
}

}  // namespace

std::string FrameTimeChart(const Snapshot& snapshot, const Analysis& analysis) {
  const FrameSummary& frames = analysis.frames;
  const std::string_view unit = snapshot.info.frame_word();
  const std::string title =
      analysis.has_budget
          ? fmt::format(
                "{} time per {} (ms) against the budget of {} ms; {} of {} "
                "over budget",
                Capitalised(unit), unit, Ms(analysis.budget_ms), frames.over_budget.size(),
                Counted(frames.counted, unit))
          : fmt::format("{} time per {} (ms), {}, no budget", Capitalised(unit), unit,
                        Counted(frames.frame_ms.size(), unit));
  return FramesChart(snapshot, analysis, frames.frame_ms, nullptr, "frame-chart-title", title);
}

std::string WhatIfChart(const Snapshot& snapshot, const Analysis& analysis,
                        const std::vector<double>& before_ms, const std::vector<double>& after_ms,
                        const std::string& title) {
  return FramesChart(snapshot, analysis, before_ms, &after_ms, "whatif-chart-title", title);
}

std::string TopNodesChart(const Snapshot& snapshot, const Analysis& analysis,
                          const std::vector<TopRow>& rows) {
  constexpr double kWidth = 960, kBar = 18, kGap = 6, kLabel = 360, kTop = 8, kValue = 90;
  const double height = kTop * 2 + rows.size() * (kBar + kGap);
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-labelledby=\"top-chart-title\">\n"
      "<title id=\"top-chart-title\">Per-{} cost (ms) of the top {}</title>\n",
      kWidth, SvgNumber(height), snapshot.info.frame_word(), Counted(rows.size(), "node"));
  double max = 0;
  for (const TopRow& r : rows) max = std::max(max, analysis.stats[r.node].per_frame_ms);
  if (max <= 0) max = 1;
  const double plot_w = kWidth - kLabel - kValue;
  // Ids are cut in the middle: their container and their name tell them
  // apart, and two cut alike get " #1", " #2"; the bar's title has the id whole.
  std::vector<std::string> labels;
  for (const TopRow& r : rows) labels.push_back(Printable(Id(snapshot, r.node)));
  labels = TruncateApart(labels, 52);
  for (size_t i = 0; i < rows.size(); ++i) {
    const NodeIndex n = rows[i].node;
    const std::string& id = Id(snapshot, n);
    const double v = analysis.stats[n].per_frame_ms;
    const double y = kTop + i * (kBar + kGap);
    const std::string& shown = labels[i];
    const char* tone = Flags(analysis, n).find("critical") != std::string::npos ? " critical" : "";
    out += fmt::format(
        "<g><title>{} — {} ms per {}</title>"
        "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"bar{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
        "<text class=\"label\" x=\"{}\" y=\"{}\">{}</text></g>\n",
        EscapeHtml(id), Ms(v), snapshot.info.frame_word(), kLabel - 8, SvgNumber(y + kBar - 5), EscapeHtml(shown), tone, kLabel,
        SvgNumber(y), SvgNumber(std::max(1.0, plot_w * v / max)), kBar,
        SvgNumber(kLabel + plot_w * v / max + 6), SvgNumber(y + kBar - 5), Ms(v));
  }
  out += "</svg>\n";
  return out;
}

std::string SvgNumber(double v) { return fmt::format("{:.1f}", v); }

}  // namespace cookgraph::report_internal
