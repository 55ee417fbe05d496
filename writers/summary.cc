#include "writers/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/text.h"
#include "metrics/welch.h"
#include "writers/score_columns.h"

// One row per snapshot (docs/commands.md#one-row-per-snapshot). CSV cells are
// written by the score CSV's own cell writer and numbers by its number writer,
// so the two CSVs quote and round alike.

namespace cookgraph {

using score_internal::AppendCsvField;
using score_internal::AppendCsvValue;
using score_internal::Value;

SnapshotSummary Summarise(const std::string& file, const Snapshot& snapshot,
                          const Analysis& analysis) {
  SnapshotSummary s;
  s.file = file;
  s.name = snapshot.info.name;
  s.engine = snapshot.info.engine;
  const FrameSummary& f = analysis.frames;
  s.frames = f.counted;
  if (f.counted > 0) {
    s.frame_mean_ms = f.mean_ms;
    s.frame_p95_ms = f.p95_ms;
    s.frame_max_ms = f.max_ms;
  }
  if (f.counted > 1) s.frame_std_ms = std::sqrt(MomentsOf(f.frame_ms).variance);
  if (analysis.has_budget) {
    s.budget_ms = analysis.budget_ms;
    if (f.counted > 0) {
      s.over_budget_share =
          static_cast<double>(f.over_budget.size()) / static_cast<double>(f.counted);
    }
  }
  if (CookedCount(analysis) > 0) {
    const NodeIndex top = Rank(analysis, SortKey::kScore).front();
    s.top_node = snapshot.network.node(top).id;
    s.top_node_share = analysis.stats[top].share;
  }
  s.loops = analysis.loops.size();
  return s;
}

const std::vector<std::string>& SummaryColumns() {
  static const std::vector<std::string> columns = {
      "file",         "name",         "engine",   "frames",    "frame_mean_ms",
      "frame_p95_ms", "frame_max_ms", "budget_ms", "over_budget_share", "top_node",
      "top_node_share", "loops",      "critical", "warnings",  "info",
      "error"};
  return columns;
}

namespace {

// The values of SummaryColumns for `s`; text as string_view into `s`.
std::vector<Value> Values(const SnapshotSummary& s) {
  auto number = [](const std::optional<double>& v) { return v ? Value(*v) : Value(); };
  auto text = [](const std::string& v) { return v.empty() ? Value() : Value(std::string_view(v)); };
  const bool failed = !s.error.empty();
  auto count = [&](size_t v) { return failed ? Value() : Value(static_cast<uint64_t>(v)); };
  return {std::string_view(s.file), text(s.name),      text(s.engine),
          count(s.frames),          number(s.frame_mean_ms), number(s.frame_p95_ms),
          number(s.frame_max_ms),   number(s.budget_ms),     number(s.over_budget_share),
          text(s.top_node),         number(s.top_node_share), count(s.loops),
          count(s.critical),        count(s.warnings),       count(s.info),
          text(s.error)};
}

std::string Cell(const Value& v, int decimals) {
  if (const double* d = std::get_if<double>(&v)) return score_internal::Fixed(*d, decimals);
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return std::to_string(*u);
  if (const std::string_view* s = std::get_if<std::string_view>(&v)) return Printable(*s);
  return "-";
}

}  // namespace

std::string RenderSummaryHeader(SummaryFormat format, std::string_view extra) {
  switch (format) {
    case SummaryFormat::kCsv: {
      std::string out;
      for (const std::string& c : SummaryColumns()) {
        if (!out.empty()) out += ',';
        out += c;
      }
      return out + '\n';
    }
    case SummaryFormat::kJson:
      return fmt::format("{{\"cookgraph\":1,{}\"summary\":[", extra);
    case SummaryFormat::kTable:
      break;
  }
  return {};
}

std::string RenderSummaryRow(SummaryFormat format, const SnapshotSummary& row) {
  const std::vector<Value> values = Values(row);
  const std::vector<std::string>& columns = SummaryColumns();
  std::string out;
  if (format == SummaryFormat::kCsv) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += ',';
      AppendCsvValue(out, values[i]);
    }
    out += '\n';
    return out;
  }
  out = "\n{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, columns[i]);
    out += ':';
    if (const std::string_view* s = std::get_if<std::string_view>(&values[i])) {
      AppendJsonString(out, *s);
    } else if (const double* d = std::get_if<double>(&values[i])) {
      if (std::isfinite(*d)) score_internal::AppendNumber(out, *d);
      else out += "null";
    } else if (const uint64_t* u = std::get_if<uint64_t>(&values[i])) {
      score_internal::AppendNumber(out, *u);
    } else {
      out += "null";
    }
  }
  out += '}';
  return out;
}

std::string RenderSummaryFooter(SummaryFormat format) {
  return format == SummaryFormat::kJson ? "\n]}\n" : "";
}

std::string RenderSummaryTable(const std::vector<SnapshotSummary>& rows) {
  // Shown columns: the file (cut in the middle), frames, frame time, the
  // budget's share, the top node, loops and findings; an error replaces the rest.
  const std::vector<std::string> head = {"file",   "frames", "mean ms", "p95 ms",  "max ms",
                                         "budget", "over",   "top node", "share", "loops",
                                         "crit",   "warn",   "info"};
  std::vector<std::vector<std::string>> cells;
  for (const SnapshotSummary& s : rows) {
    const std::vector<Value> v = Values(s);
    std::vector<std::string>& line = cells.emplace_back();
    line.push_back(ClipMiddle(s.file, 48));
    if (!s.error.empty()) {
      line.push_back("error: " + Printable(s.error));
      continue;
    }
    line.push_back(Cell(v[3], 0));
    line.push_back(Cell(v[4], 3));
    line.push_back(Cell(v[5], 3));
    line.push_back(Cell(v[6], 3));
    line.push_back(s.budget_ms ? score_internal::Fixed(*s.budget_ms, 3) : "none");
    line.push_back(s.over_budget_share ? score_internal::Percent(*s.over_budget_share) : "-");
    line.push_back(s.top_node.empty() ? "-" : ClipMiddle(s.top_node, 32));
    line.push_back(s.top_node_share ? score_internal::Percent(*s.top_node_share) : "-");
    line.push_back(Cell(v[11], 0));
    line.push_back(Cell(v[12], 0));
    line.push_back(Cell(v[13], 0));
    line.push_back(Cell(v[14], 0));
  }
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) width[c] = head[c].size();
  for (const auto& line : cells) {
    if (line.size() != head.size()) {  // an error row only widens the file column
      width[0] = std::max(width[0], DisplayWidth(line[0]));
      continue;
    }
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], DisplayWidth(line[c]));
  }
  auto render = [&](const std::vector<std::string>& line) {
    std::string out;
    for (size_t c = 0; c < line.size(); ++c) {
      if (c > 0) out += "  ";
      const bool left = c == 0 || c == 7 || line.size() != head.size();
      const size_t shown = DisplayWidth(line[c]);
      const size_t pad = shown < width[c] ? width[c] - shown : 0;
      if (!left) out.append(pad, ' ');
      out += line[c];
      if (left && c + 1 < line.size()) out.append(pad, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + '\n';
  };
  std::string out = render(head);
  for (const auto& line : cells) out += render(line);
  return out;
}

}  // namespace cookgraph
