#include "store/history_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "base/text.h"
#include "writers/diff_formats.h"
#include "writers/score_columns.h"  // the CSV cell and number writers of `score --format csv`

namespace cookgraph {
namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kIdWidth = 48;

Json Number(std::optional<double> v) { return v && std::isfinite(*v) ? Json(*v) : Json(); }

std::string Ms(std::optional<double> v) {
  return v && std::isfinite(*v) ? fmt::format("{:.3f}", *v) : "-";
}

// "2026-11-27T09:30:00.125Z" -> "2026-11-27 09:30:00".
std::string When(const std::string& iso) {
  if (iso.size() < 19) return Printable(iso);
  std::string out = iso.substr(0, 19);
  out[10] = ' ';
  return Printable(out);
}

std::string What(const HistoryFlag& f) { return f.node.empty() ? "frame time" : f.node; }

std::string RunList(const std::vector<int64_t>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size() && i < 20; ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > 20) out += fmt::format(", … {} more", ids.size() - 20);
  return out;
}

Json PointJson(const HistoryPoint& p) {
  return Json{{"mean_ms", Number(p.mean_ms)},
              {"p95_ms", Number(p.p95_ms)},
              {"n", p.n},
              {"before_run", p.before_run ? Json(p.before_run) : Json()},
              {"change_pct", Number(p.change_pct)},
              {"p_value", Number(p.test.p_slower)},
              {"flagged", p.flagged}};
}

std::string RenderJson(const History& h, const std::string& store) {
  Json doc;
  doc["cookgraph"] = 1;
  doc["store"] = store;
  doc["alpha"] = h.options.test.alpha;
  doc["min_change_pct"] = h.options.test.min_change_pct;
  doc["test"] = "welch-one-sided";
  doc["top"] = h.options.top;
  doc["stored_runs"] = h.stored_runs;
  Json runs = Json::array();
  for (const HistoryRun& r : h.runs) {
    runs.push_back(Json{{"run", r.id},
                        {"started_at", r.started_at},
                        {"finished_at", r.finished_at.empty() ? Json() : Json(r.finished_at)},
                        {"label", r.label},
                        {"complete", !r.finished_at.empty()},
                        {"snapshots", r.snapshots}});
  }
  doc["runs"] = std::move(runs);
  doc["incomplete"] = h.incomplete;
  Json snapshots = Json::array();
  for (const SnapshotHistory& s : h.snapshots) {
    Json trend = Json::array();
    for (const HistoryEntry& e : s.entries) {
      Json nodes = Json::array();
      for (const HistoryPoint& p : e.nodes) nodes.push_back(PointJson(p));
      trend.push_back(Json{{"run", e.run},
                           {"file", e.file},
                           {"complete", e.complete},
                           {"error", e.error.empty() ? Json() : Json(e.error)},
                           {"frame", PointJson(e.frame)},
                           {"nodes", std::move(nodes)}});
    }
    snapshots.push_back(
        Json{{"snapshot", s.key}, {"nodes", s.nodes}, {"top", s.top}, {"trend", std::move(trend)}});
  }
  doc["snapshots"] = std::move(snapshots);
  Json flags = Json::array();
  for (const HistoryFlag& f : h.flags) {
    const bool tested = f.test.status == WelchStatus::kTested;
    flags.push_back(Json{{"run", f.run},
                         {"label", f.label},
                         {"snapshot", f.snapshot},
                         {"what", f.node.empty() ? "frame_time" : "node"},
                         {"node", f.node.empty() ? Json() : Json(f.node)},
                         {"before_run", f.before_run},
                         {"before_ms", f.before_ms},
                         {"after_ms", f.after_ms},
                         {"change_pct", f.change_pct},
                         {"p_value", f.p_value},
                         {"t", tested ? Json(f.test.t) : Json()},
                         {"df", tested ? Json(f.test.df) : Json()},
                         {"n_before", f.n_before},
                         {"n_after", f.n_after}});
  }
  doc["flags"] = std::move(flags);
  doc["latest_flagged"] = h.latest_flagged;
  doc["warnings"] = h.warnings;
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string RenderCsv(const History& h) {
  using score_internal::AppendCsvField;
  using score_internal::AppendNumber;
  std::string out =
      "run,started_at,finished_at,label,complete,snapshot,file,what,node,mean_ms,p95_ms,n,"
      "before_run,change_pct,p_value,flagged,error\n";
  std::map<int64_t, const HistoryRun*> run_of;
  for (const HistoryRun& r : h.runs) run_of[r.id] = &r;
  auto number = [&](std::optional<double> v) {
    out += ',';
    if (v && std::isfinite(*v)) AppendNumber(out, *v);
  };
  for (const SnapshotHistory& s : h.snapshots) {
    for (const HistoryEntry& e : s.entries) {
      const HistoryRun& run = *run_of.at(e.run);
      auto row = [&](std::string_view what, std::string_view node, const HistoryPoint& p) {
        AppendNumber(out, run.id);
        out += ',';
        AppendCsvField(out, run.started_at);
        out += ',';
        AppendCsvField(out, run.finished_at);
        out += ',';
        AppendCsvField(out, run.label);
        out += e.complete ? ",true," : ",false,";
        AppendCsvField(out, s.key);
        out += ',';
        AppendCsvField(out, e.file);
        out += ',';
        out += what;
        out += ',';
        AppendCsvField(out, node);
        number(p.mean_ms);
        number(p.p95_ms);
        out += ',';
        AppendNumber(out, static_cast<uint64_t>(p.n));
        out += ',';
        if (p.before_run) AppendNumber(out, p.before_run);
        number(p.change_pct);
        number(p.test.p_slower);
        out += p.flagged ? ",true," : ",false,";
        AppendCsvField(out, e.error);
        out += '\n';
      };
      row("frame_time", "", e.frame);
      for (size_t i = 0; i < s.nodes.size(); ++i) row("node", s.nodes[i], e.nodes[i]);
    }
  }
  return out;
}

// An aligned table; columns where `right` is true are aligned to the right.
std::string Aligned(const std::vector<std::vector<std::string>>& rows,
                    const std::vector<bool>& right) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], DisplayWidth(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      const size_t pad = width[c] - DisplayWidth(row[c]);
      const bool to_right = c < right.size() && right[c];
      if (to_right) line.append(pad, ' ');
      line += row[c];
      if (!to_right) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string RenderTable(const History& h, const std::string& store) {
  std::string out = fmt::format("history · {} · {} run{} shown of {}", Printable(store),
                                h.runs.size(), h.runs.size() == 1 ? "" : "s", h.stored_runs);
  out += fmt::format(
      "\na run is flagged when the frame time or a node got worse than in the run before: "
      "Welch's t-test, one-sided, alpha {}, and a rise of more than {}%\n",
      h.options.test.alpha, h.options.test.min_change_pct);
  if (!h.incomplete.empty()) {
    out += fmt::format(
        "incomplete (never finished: interrupted, or still storing; shown, not judged): run{} {}\n",
        h.incomplete.size() == 1 ? "" : "s", RunList(h.incomplete));
  }
  std::map<int64_t, const HistoryRun*> run_of;
  for (const HistoryRun& r : h.runs) run_of[r.id] = &r;
  for (const SnapshotHistory& s : h.snapshots) {
    out += fmt::format("\nsnapshot \"{}\" · {} run{}\n", Printable(s.key), s.entries.size(),
                       s.entries.size() == 1 ? "" : "s");
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> title = {"run",    "started",    "label",
                                      "frames", "frame mean", "frame p95"};
    for (size_t i = 0; i < s.nodes.size(); ++i) title.push_back(fmt::format("[{}] avg", i + 1));
    title.push_back("note");
    rows.push_back(title);
    for (const HistoryEntry& e : s.entries) {
      const HistoryRun& run = *run_of.at(e.run);
      auto mark = [](const HistoryPoint& p, std::string text) {
        return p.flagged ? text + " !" : text + "  ";
      };
      std::vector<std::string> row = {std::to_string(e.run),
                                      When(run.started_at),
                                      TruncateMiddle(Printable(run.label), 32),
                                      std::to_string(e.frame.n),
                                      mark(e.frame, Ms(e.frame.mean_ms)),
                                      Ms(e.frame.p95_ms) + "  "};
      for (const HistoryPoint& p : e.nodes) row.push_back(mark(p, Ms(p.mean_ms)));
      std::string note;
      if (!e.complete) note = "incomplete run";
      if (!e.error.empty())
        note += (note.empty() ? "" : "; ") + ("not scored: " + Printable(e.error));
      row.push_back(note);
      rows.push_back(std::move(row));
    }
    std::vector<bool> right(title.size(), true);
    right[1] = right[2] = right.back() = false;
    out += Aligned(rows, right);
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      out += fmt::format("[{}] {}{}\n", i + 1, Printable(s.nodes[i]),
                         i < s.top ? "" : " (flagged; not a top node)");
    }
    if (s.top > 0 && h.options.node.empty()) {
      out += fmt::format(
          "top {} by score in the latest run; ! = significantly worse than the run before\n",
          s.top);
    }
  }
  for (const std::string& w : h.warnings) out += "\nwarning: " + Printable(w) + "\n";
  if (h.flags.empty()) {
    out += h.warnings.empty()
               ? "\nflags: none; no run got significantly worse than the run before\n"
               : "\nflags: none, as no series has two runs to compare\n";
    return out;
  }
  out += fmt::format("\nflags ({}):\n", h.flags.size());
  std::vector<std::vector<std::string>> rows = {
      {"run", "label", "snapshot", "what", "before run", "before ms", "after ms", "change", "p"}};
  for (const HistoryFlag& f : h.flags) {
    rows.push_back({std::to_string(f.run), TruncateMiddle(Printable(f.label), 32),
                    TruncateMiddle(Printable(f.snapshot), 32),
                    TruncateMiddle(Printable(What(f)), kIdWidth), std::to_string(f.before_run),
                    Ms(f.before_ms), Ms(f.after_ms), ChangeText(f.change_pct),
                    PValueText(f.p_value)});
  }
  out += Aligned(rows, {true, false, false, false, true, true, true, true, true});
  return out;
}

}  // namespace

std::string RenderHistory(HistoryFormat format, const History& history, const std::string& store) {
  switch (format) {
    case HistoryFormat::kJson:
      return RenderJson(history, store);
    case HistoryFormat::kCsv:
      return RenderCsv(history);
    case HistoryFormat::kTable:
      break;
  }
  return RenderTable(history, store);
}

}  // namespace cookgraph
