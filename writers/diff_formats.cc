#include "writers/diff_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "base/json_writer.h"
#include "base/text.h"
#include "writers/score_columns.h"

namespace cookgraph {
namespace {

using score_internal::Ms;
using score_internal::Optional;


// How many added or removed ids the table and Markdown list before "… N more".
constexpr size_t kIdListLimit = 10;
constexpr size_t kIdWidth = 48;


// `diff --format json`: written as nlohmann::ordered_json wrote it before
// (docs/architecture.md#writing-json), keys in this order.
void WriteSide(JsonWriter& w, const NodeStats& s) {
  const bool cooked = s.cooked_frames > 0;
  auto stat = [cooked](double v) { return cooked ? JsonValue(v) : JsonValue(); };
  w.BeginObject();
  w.CountField("cooked_frames", s.cooked_frames);
  w.Field("avg_ms", stat(s.avg_ms));
  w.Field("p95_ms", stat(s.p95_ms));
  w.NumberField("per_frame_ms", s.per_frame_ms);
  w.NumberField("cooks_per_frame", s.cooks_per_frame);
  w.Field("score", stat(s.score));
  w.EndObject();
}

// "p_value", "t" and "df" (null unless the t distribution gave the p-value),
// "regression", "improvement" and "note".
template <typename D>
void WriteVerdict(JsonWriter& w, const D& d) {
  const bool tested = d.test.status == WelchStatus::kTested;
  w.Field("p_value", Optional(d.p_value()));
  w.Field("t", tested ? JsonValue(d.test.t) : JsonValue());
  w.Field("df", tested ? JsonValue(d.test.df) : JsonValue());
  w.BoolField("regression", d.regression);
  w.BoolField("improvement", d.improvement);
  w.Field("note", d.note.empty() ? JsonValue() : JsonValue(d.note));
}

void WriteSnapshot(JsonWriter& w, const std::string& file, const Snapshot& s) {
  w.BeginObject();
  w.StringField("file", file);
  w.StringField("name", s.info.name);
  w.StringField("engine", s.info.engine);
  w.CountField("nodes", s.network.size());
  w.CountField("frames", s.samples.frame_count());
  w.EndObject();
}

void WriteNodeDiff(JsonWriter& w, const NodeDiff& d) {
  w.BeginObject();
  w.StringField("id", d.id);
  w.Key("before");
  WriteSide(w, d.before_stats);
  w.Key("after");
  WriteSide(w, d.after_stats);
  w.Field("change_pct", Optional(d.avg_pct));
  w.Key("changes");
  w.BeginObject();
  w.Field("avg_pct", Optional(d.avg_pct));
  w.Field("p95_pct", Optional(d.p95_pct));
  w.Field("per_frame_pct", Optional(d.per_frame_pct));
  w.Field("score_pct", Optional(d.score_pct));
  w.EndObject();
  WriteVerdict(w, d);
  w.EndObject();
}

void WriteFrameDiff(JsonWriter& w, const FrameDiff& f) {
  auto side = [&w](size_t frames, double mean, double p95, bool measured) {
    w.BeginObject();
    w.CountField("frames", frames);
    w.NumberField("mean", mean);
    w.NumberField("p95", p95);
    w.BoolField("measured", measured);
    w.EndObject();
  };
  w.BeginObject();
  w.Key("before");
  side(f.frames_before, f.mean_before, f.p95_before, f.measured_before);
  w.Key("after");
  side(f.frames_after, f.mean_after, f.p95_after, f.measured_after);
  w.NumberField("change_ms", f.mean_after - f.mean_before);
  w.Field("change_pct", Optional(f.change_pct));
  WriteVerdict(w, f);
  w.EndObject();
}

void WriteIds(JsonWriter& w, const std::vector<std::string>& ids) {
  w.BeginArray();
  for (const std::string& id : ids) w.String(id);
  w.EndArray();
}

std::string RenderJson(const DiffInput& in) {
  const SnapshotDiff& diff = in.diff;
  JsonWriter w(JsonStyle::kNlohmann);
  w.BeginObject();
  w.IntField("cookgraph", 1);
  w.Key("before");
  WriteSnapshot(w, in.before_file, in.before);
  w.Key("after");
  WriteSnapshot(w, in.after_file, in.after);
  w.NumberField("alpha", diff.options.alpha);
  w.NumberField("min_change_pct", diff.options.min_change_pct);
  w.StringField("test", "welch-one-sided");
  w.Key("nodes");
  w.BeginArray();
  for (const NodeDiff& d : diff.nodes) WriteNodeDiff(w, d);
  w.EndArray();
  w.Key("added");
  WriteIds(w, diff.added);
  w.Key("removed");
  WriteIds(w, diff.removed);
  w.Key("frame_ms");
  WriteFrameDiff(w, diff.frames);
  w.CountField("regressions", diff.regressions);
  w.CountField("improvements", diff.improvements);
  w.BoolField("regressed", diff.regressed());
  w.Key("warnings");
  WriteIds(w, diff.warnings);
  w.EndObject();
  // A name that is not UTF-8 (a file's) becomes U+FFFD, as in the other JSON documents.
  return w.Take() + "\n";
}

size_t ShownRows(const SnapshotDiff& diff, size_t top) {
  const size_t total = diff.nodes.size();
  const size_t must = diff.regressions + diff.improvements;
  if (top == 0) return total;
  return std::min(total, std::max(top, must));
}

struct Table {
  std::vector<std::string> titles;
  std::vector<bool> right;
  std::vector<std::vector<std::string>> rows;
};

// `word`: the engine's word for a frame (SnapshotInfo::frame_word).
Table NodeRows(const SnapshotDiff& diff, size_t shown, std::string_view word) {
  Table t;
  t.titles = {"node",
              "avg before",
              "avg after",
              "avg",
              "p95",
              fmt::format("ms/{}", word),
              "score",
              word == "frame" ? std::string("calls/f") : fmt::format("calls/{}", word),
              "p",
              "verdict"};
  t.right = {false, true, true, true, true, true, true, true, true, false};
  for (size_t i = 0; i < shown; ++i) {
    const NodeDiff& d = diff.nodes[i];
    auto avg = [](const NodeStats& s) { return s.cooked_frames > 0 ? Ms(s.avg_ms) : "-"; };
    // Calls per frame, and where they changed, before → after (HTA's TraceDiff counts them).
    const double c0 = d.before_stats.cooks_per_frame, c1 = d.after_stats.cooks_per_frame;
    const std::string calls = std::fabs(c0 - c1) < 0.005
                                  ? fmt::format("{:.2f}", c1)
                                  : fmt::format("{:.2f} → {:.2f}", c0, c1);
    t.rows.push_back({d.id, avg(d.before_stats), avg(d.after_stats), ChangeText(d.avg_pct),
                      ChangeText(d.p95_pct), ChangeText(d.per_frame_pct), ChangeText(d.score_pct),
                      calls, PValueText(d.p_value()), Verdict(d)});
  }
  return t;
}

std::string IdList(const std::vector<std::string>& ids, const auto& text) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < kIdListLimit; ++i) out += (i ? ", " : "") + text(ids[i]);
  if (ids.size() > kIdListLimit) out += fmt::format(", … {} more", ids.size() - kIdListLimit);
  return out;
}

std::string Headline(const DiffInput& in, const auto& text) {
  const FrameDiff& f = in.diff.frames;
  return fmt::format("{} ({} {}s) → {} ({} {}s)", text(in.before_file), f.frames_before,
                     in.before.info.frame_word(), text(in.after_file), f.frames_after,
                     in.after.info.frame_word());
}

std::string Counts(const SnapshotDiff& diff) {
  return fmt::format(
      "{} matched nodes: {} regressed, {} improved; {} added, {} removed (Welch's t-test, "
      "one-sided, alpha {}; a change must exceed {}% of avg ms)",
      diff.nodes.size(), diff.regressions, diff.improvements, diff.added.size(),
      diff.removed.size(), diff.options.alpha, diff.options.min_change_pct);
}

std::string RenderTable(const DiffInput& in, const DiffRenderOptions& options) {
  auto text = [](std::string_view s) { return Printable(s); };
  const SnapshotDiff& diff = in.diff;
  std::string out = "diff · " + Headline(in, text) + "\n";
  out += fmt::format("{} time: {}\n", in.after.info.frame_word(), FrameChangeText(diff.frames));
  out += Counts(diff) + "\n\n";
  const size_t shown = ShownRows(diff, options.top);
  Table t = NodeRows(diff, shown, in.after.info.frame_word());
  std::vector<size_t> width(t.titles.size());
  for (size_t c = 0; c < t.titles.size(); ++c) width[c] = DisplayWidth(t.titles[c]);
  std::vector<std::string> ids;  // cut alike, told apart (TruncateApart)
  for (const auto& row : t.rows) ids.push_back(Printable(row[0]));
  ids = TruncateApart(ids, kIdWidth);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    auto& row = t.rows[r];
    row[0] = std::move(ids[r]);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string row;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) row += "  ";
      const size_t pad = width[c] - std::min(width[c], DisplayWidth(cells[c]));
      if (t.right[c]) row.append(pad, ' ');
      row += cells[c];
      if (!t.right[c]) row.append(pad, ' ');
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row + "\n";
  };
  if (!t.rows.empty()) {
    line(t.titles);
    for (const auto& row : t.rows) line(row);
  }
  if (shown < diff.nodes.size()) {
    out += fmt::format("… {} more nodes (--top 0 shows all)\n", diff.nodes.size() - shown);
  }
  if (!diff.added.empty()) {
    out += fmt::format("\nadded ({}): {}\n", diff.added.size(), IdList(diff.added, text));
  }
  if (!diff.removed.empty()) {
    out += fmt::format("\nremoved ({}): {}\n", diff.removed.size(), IdList(diff.removed, text));
  }
  if (!diff.warnings.empty()) {
    out += "\nwarnings:\n";
    for (const std::string& w : diff.warnings) out += "  " + w + "\n";
  }
  return out;
}

std::string RenderMarkdown(const DiffInput& in, const DiffRenderOptions& options) {
  auto text = [](std::string_view s) { return MarkdownText(s); };
  const SnapshotDiff& diff = in.diff;
  std::string out = "### diff: " + Headline(in, text) + "\n\n";
  out += fmt::format("- {} time: {}\n", in.after.info.frame_word(), FrameChangeText(diff.frames));
  out += "- " + Counts(diff) + "\n\n";
  const size_t shown = ShownRows(diff, options.top);
  const Table t = NodeRows(diff, shown, in.after.info.frame_word());
  if (!t.rows.empty()) {
    out += '|';
    for (const std::string& title : t.titles) out += " " + title + " |";
    out += "\n|";
    for (bool right : t.right) out += right ? " ---: |" : " :--- |";
    out += '\n';
    for (const auto& row : t.rows) {
      out += '|';
      for (const std::string& cell : row) out += " " + MarkdownText(cell) + " |";
      out += '\n';
    }
  }
  if (shown < diff.nodes.size()) {
    out += fmt::format("\n… {} more nodes (--top 0 shows all)\n", diff.nodes.size() - shown);
  }
  if (!diff.added.empty()) {
    out += fmt::format("\n**added ({})**: {}\n", diff.added.size(), IdList(diff.added, text));
  }
  if (!diff.removed.empty()) {
    out += fmt::format("\n**removed ({})**: {}\n", diff.removed.size(), IdList(diff.removed, text));
  }
  if (!diff.warnings.empty()) {
    out += "\n**warnings**\n\n";
    for (const std::string& w : diff.warnings) out += "- " + MarkdownText(w) + "\n";
  }
  return out;
}

// The columns of DiffRows: a node's id and status, each side's statistics
// (as JSON's "before" and "after"), the changes (as score --baseline names
// them), the test and the verdict.
constexpr std::array<std::string_view, 22> kDiffColumns = {"id",
                                                           "status",
                                                           "before_cooked_frames",
                                                           "before_avg_ms",
                                                           "before_p95_ms",
                                                           "before_per_frame_ms",
                                                           "before_score",
                                                           "after_cooked_frames",
                                                           "after_avg_ms",
                                                           "after_p95_ms",
                                                           "after_per_frame_ms",
                                                           "after_score",
                                                           "avg_change_pct",
                                                           "p95_change_pct",
                                                           "per_frame_change_pct",
                                                           "score_change_pct",
                                                           "p_value",
                                                           "t",
                                                           "df",
                                                           "regression",
                                                           "improvement",
                                                           "note"};
constexpr size_t kRegressionColumn = 19, kImprovementColumn = 20;

ScoreValue Cell(std::optional<double> v) {
  return v && std::isfinite(*v) ? ScoreValue(*v) : ScoreValue();
}

void AppendSide(const NodeStats& s, std::vector<ScoreValue>& row) {
  const bool cooked = s.cooked_frames > 0;
  auto stat = [cooked](double v) { return cooked ? Cell(v) : ScoreValue(); };
  row.emplace_back(uint64_t{s.cooked_frames});
  row.push_back(stat(s.avg_ms));
  row.push_back(stat(s.p95_ms));
  row.push_back(Cell(s.per_frame_ms));
  row.push_back(stat(s.score));
}

// RFC 4180 rows, text cells quoted as score's CSV quotes them (score_csv.cc).
std::string RenderCsv(const DiffInput& in) {
  const ScoreTable table = DiffRows(in);
  std::string out;
  for (size_t c = 0; c < table.columns.size(); ++c) out += (c ? "," : "") + table.columns[c];
  out += '\n';
  for (const std::vector<ScoreValue>& row : table.rows) {
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ',';
      std::visit(
          [&out](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, std::string>) {
              score_internal::AppendCsvValue(out, std::string_view(x));
            } else {
              score_internal::AppendCsvValue(out, x);
            }
          },
          row[c]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace

ScoreTable DiffRows(const DiffInput& in) {
  ScoreTable table;
  table.columns.assign(kDiffColumns.begin(), kDiffColumns.end());
  const SnapshotDiff& diff = in.diff;
  for (const NodeDiff& d : diff.nodes) {
    std::vector<ScoreValue>& row = table.rows.emplace_back();
    row.reserve(table.columns.size());
    row.emplace_back(d.id);
    row.emplace_back(std::string("matched"));
    AppendSide(d.before_stats, row);
    AppendSide(d.after_stats, row);
    for (const std::optional<double>& pct : {d.avg_pct, d.p95_pct, d.per_frame_pct, d.score_pct}) {
      row.push_back(Cell(pct));
    }
    row.push_back(Cell(d.p_value()));
    const bool tested = d.test.status == WelchStatus::kTested;
    row.push_back(tested ? Cell(d.test.t) : ScoreValue());
    row.push_back(tested ? Cell(d.test.df) : ScoreValue());
    row.emplace_back(d.regression);
    row.emplace_back(d.improvement);
    row.push_back(d.note.empty() ? ScoreValue() : ScoreValue(d.note));
  }
  // Nodes on one side only: no statistics, neither a regression nor an improvement.
  auto one_side = [&](const std::vector<std::string>& ids, const char* status) {
    for (const std::string& id : ids) {
      std::vector<ScoreValue>& row = table.rows.emplace_back(table.columns.size());
      row[0] = id;
      row[1] = std::string(status);
      row[kRegressionColumn] = false;
      row[kImprovementColumn] = false;
    }
  };
  one_side(diff.added, "added");
  one_side(diff.removed, "removed");
  return table;
}

std::string RenderDiff(DiffFormat format, const DiffInput& input,
                       const DiffRenderOptions& options) {
  switch (format) {
    case DiffFormat::kJson:
      return RenderJson(input);
    case DiffFormat::kMarkdown:
      return RenderMarkdown(input, options);
    case DiffFormat::kCsv:
      return RenderCsv(input);
    case DiffFormat::kTable:
      break;
  }
  return RenderTable(input, options);
}

std::string ChangeText(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "-";
  std::string s = fmt::format("{:+.1f}%", *pct);
  return s == "-0.0%" ? "+0.0%" : s;
}

std::string PValueText(std::optional<double> p) {
  if (!p || !std::isfinite(*p)) return "-";
  if (*p == 0) return "0";
  if (*p >= 0.0001) return fmt::format("{:.4f}", *p);
  return fmt::format("{:.1e}", *p);
}

std::string Verdict(const NodeDiff& d) {
  if (d.regression) return "regression";
  if (d.improvement) return "improvement";
  return d.note;
}

std::string FrameChangeText(const FrameDiff& f) {
  std::string out =
      fmt::format("mean {} → {} ms ({}), p95 {} → {} ms", Ms(f.mean_before), Ms(f.mean_after),
                  ChangeText(f.change_pct), Ms(f.p95_before), Ms(f.p95_after));
  if (f.p_value()) {
    out += "; p = " + PValueText(f.p_value());
  } else if (!f.note.empty()) {
    out += "; " + f.note;
  }
  if (f.regression) out += "; regression";
  if (f.improvement) out += "; improvement";
  return out;
}

}  // namespace cookgraph
