#include "advisor/report/report_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "base/text.h"

namespace cookgraph::report_internal {

std::vector<TopRow> TopRows(const Analysis& analysis, size_t top) {
  std::vector<NodeIndex> ranked = Rank(analysis, SortKey::kScore);
  const size_t shown = std::min(top, CookedCount(analysis));
  std::vector<TopRow> rows;
  rows.reserve(shown);
  for (size_t i = 0; i < shown; ++i) rows.push_back({i + 1, ranked[i]});
  return rows;
}

std::vector<ThreadRow> ThreadRows(const Streaming& streaming) {
  std::vector<ThreadRow> rows;
  for (size_t i = 0; i < streaming.threads.size(); ++i) {
    const StreamingThread& t = streaming.threads[i];
    rows.push_back(ThreadRow{
        .thread = t.label() + (streaming.bottleneck == i ? " (bottleneck)" : ""),
        .elements = t.elements,
        .work = t.work,
        .work_ms = Ms(t.busy_ms_per_buffer),
        .period_ms = t.buffer_period_ms ? Ms(*t.buffer_period_ms) : "-",
        .utilisation = t.utilisation() ? Percent(*t.utilisation()) : "-",
        .cpu_load = t.cpu_load_pct ? Percent(*t.cpu_load_pct / 100) : "-",
        .buffers = std::to_string(t.buffers),
        .costliest = t.costliest()});
  }
  return rows;
}

std::string LatencyLine(const Streaming& streaming) {
  if (!streaming.latency) return "";
  const LatencyStats& l = *streaming.latency;
  return fmt::format("{}: mean {} ms, p95 {} ms, max {} ms", Counted(l.records, "record"), Ms(l.mean_ms),
                     Ms(l.p95_ms), Ms(l.max_ms));
}

std::vector<FamilyRow> FamilyRows(const Snapshot& snapshot, const Analysis& analysis) {
  std::map<std::string_view, FamilyRow> by_family;
  for (NodeIndex n = 0; n < snapshot.network.size(); ++n) {
    const std::string& family = snapshot.network.node(n).family;
    FamilyRow& row = by_family[family];
    row.family = family;
    ++row.nodes;
    if (n < analysis.stats.size()) {
      const NodeStats& s = analysis.stats[n];
      if (s.cooked_frames > 0) ++row.cooked_nodes;
      // Waiting (a queue, a mixer) is not work: its family costs nothing.
      if (n < analysis.waiting.size() && analysis.waiting[n]) continue;
      row.per_frame_ms += s.per_frame_ms;
      row.share += s.share;
    }
  }
  std::vector<FamilyRow> rows;
  rows.reserve(by_family.size());
  for (auto& [name, row] : by_family) rows.push_back(std::move(row));
  // std::map gave name order; a stable sort keeps it for ties.
  std::stable_sort(rows.begin(), rows.end(), [](const FamilyRow& a, const FamilyRow& b) {
    return a.per_frame_ms > b.per_frame_ms;
  });
  return rows;
}

std::vector<const NodeDiff*> ComparisonRows(const SnapshotDiff& diff, size_t top) {
  const size_t must = diff.regressions + diff.improvements;
  const size_t shown = std::min(diff.nodes.size(), std::max(top, must));
  std::vector<const NodeDiff*> rows;
  rows.reserve(shown);
  for (size_t i = 0; i < shown; ++i) rows.push_back(&diff.nodes[i]);
  return rows;
}

bool HasGpu(const Analysis& analysis) {
  return std::any_of(analysis.stats.begin(), analysis.stats.end(),
                     [](const NodeStats& s) { return s.gpu_per_frame_ms.has_value(); });
}

std::vector<std::string> GpuCells(const Analysis& analysis, NodeIndex n) {
  const NodeStats& s = analysis.stats[n];
  return {s.gpu_per_frame_ms ? Ms(*s.gpu_per_frame_ms) : "-",
          s.gpu_share ? Percent(*s.gpu_share) : "-"};
}

std::string GainCell(const Analysis& analysis, NodeIndex n) {
  return n < analysis.gain_ms.size() ? Ms(analysis.gain_ms[n]) : "-";
}

std::string GainTitle(std::string_view unit) {
  return fmt::format("predicted mean {} ms saved if this node cooked twice as fast", unit);
}

std::string WhatPaysLine(const WhatIf& whatif, std::string_view unit, bool frames_first) {
  return fmt::format(
      "Predicted by the {} model: what each node alone would save if it cooked twice as fast "
      "(halved) or not at all (removed), in mean and p95 {} ms{}; ranked by {}the gain column.",
      WhatIfModelName(whatif.model()), unit,
      whatif.has_budget() ? fmt::format(" and in {}s over the budget", unit) : "",
      frames_first ? fmt::format("the over-budget {}s removing it saves, then by ", unit)
                          : "");
}

std::vector<std::string> SavingCells(const std::optional<Saving>& saving, bool budget) {
  std::vector<std::string> cells = {saving ? Ms(saving->ms) : "-",
                                    saving ? Ms(saving->p95_ms) : "-"};
  if (budget) cells.push_back(saving ? std::to_string(saving->frames) : "-");
  return cells;
}

std::string Flags(const Analysis& analysis, NodeIndex n) {
  auto at = [n](const std::vector<bool>& flags) { return n < flags.size() && flags[n]; };
  std::string out;
  auto add = [&out](std::string_view flag) {
    if (!out.empty()) out += ", ";
    out += flag;
  };
  if (at(analysis.in_loop)) add("loop");
  if (at(analysis.on_critical_path)) add("critical");
  if (at(analysis.dead)) add("dead");
  if (at(analysis.waiting)) add("waiting");
  return out;
}

std::string Capitalised(std::string_view word) {
  std::string out(word);
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

std::string Counted(size_t n, std::string_view singular, std::string_view plural) {
  if (n == 1) return fmt::format("1 {}", singular);
  return plural.empty() ? fmt::format("{} {}s", n, singular) : fmt::format("{} {}", n, plural);
}

std::string Costliest(size_t shown) {
  return shown == 1 ? "The costliest" : fmt::format("The {} costliest", shown);
}

std::string Ms(double v) { return std::isfinite(v) ? fmt::format("{:.3f}", v) : "-"; }

std::string Percent(double fraction) {
  return std::isfinite(fraction) ? fmt::format("{:.1f}%", fraction * 100) : "-";
}

std::string Number(double v) {
  if (!std::isfinite(v)) return "-";
  std::string s = fmt::format("{:.3f}", v);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

std::string Title(const ReportInput& input) {
  const SnapshotInfo& info = input.snapshot.info;
  std::string name = info.name.empty() ? input.file : info.name;
  return info.engine.empty() ? name : info.engine + " snapshot " + name;
}

const std::string& Id(const Snapshot& snapshot, NodeIndex n) { return snapshot.network.node(n).id; }

std::string EventPathHeadline(const StepPath& p) {
  size_t gpu = 0;
  for (const StepPath::Event& e : p.events) gpu += e.gpu ? 1 : 0;
  return fmt::format(
      "The critical path of {} on rank {}, built from its events as Holistic Trace Analysis "
      "builds it: {} ms of the step's {} ms, {}, {} of them on the GPU. Its time by node:",
      PathWindowLabel(p), p.rank,
      Ms(p.length_ms), Ms(p.window_ms), Counted(p.events.size(), "event"), gpu);
}

std::vector<std::vector<size_t>> FoldFindings(const std::vector<Finding>& findings) {
  std::vector<std::vector<size_t>> groups;
  std::map<std::string_view, size_t> group_of;  // rule -> its group
  for (size_t i = 0; i < findings.size(); ++i) {
    auto [it, added] = group_of.try_emplace(findings[i].rule, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

std::string FoldedTitle(const std::vector<Finding>& findings, const std::vector<size_t>& group) {
  const std::string& first = findings[group.front()].title;
  if (group.size() == 1) return first;
  return fmt::format("{}, and {} more like it", first, group.size() - 1);
}

std::string FoldedMember(const Snapshot& snapshot, const Finding& f) {
  std::string out = f.nodes.empty() ? f.title : Id(snapshot, f.nodes.front());
  std::vector<std::string> said;
  for (const auto& [name, value] : f.numbers) {
    if (name == "per_frame_ms") {
      said.push_back(fmt::format("{} ms per {}", Ms(value), snapshot.info.frame_word()));
    }
  }
  if (f.gain) {
    said.push_back(fmt::format("its fix saves {}{}", ApproxMs(f.gain->ms()),
                               f.gain->frames() > 0
                                   ? fmt::format(" and {} of {} over-budget {}s",
                                                 f.gain->frames(), f.gain->over_budget,
                                                 snapshot.info.frame_word())
                                   : ""));
  }
  if (!said.empty()) out += fmt::format(" ({})", fmt::join(said, "; "));
  return out;
}

std::vector<FirstFix> FirstFixes(const ReportInput& in, size_t count) {
  std::vector<FirstFix> out;
  if (in.gains == nullptr) return out;
  for (const PredictedGain& g : in.gains->rows) {
    if (out.size() == count) break;
    FirstFix fix{.gain = &g, .why = {}, .snippet = nullptr};
    for (const Finding& f : in.findings) {
      if (!f.nodes.empty() && f.nodes.front() == g.nodes.front()) {
        fix.why.push_back(&f);
        if (fix.snippet == nullptr && !f.snippet.empty()) fix.snippet = &f;
      }
    }
    out.push_back(std::move(fix));
  }
  return out;
}

}  // namespace cookgraph::report_internal
