#include "store/history_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "base/json_writer.h"
#include "base/text.h"
#include "writers/diff_formats.h"
#include "writers/score_columns.h"  // the CSV cell and number writers of `score --format csv`

namespace cookgraph {
namespace {

using score_internal::Optional;

constexpr size_t kIdWidth = 48;

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

// `history --format json`: written as nlohmann::ordered_json wrote it before
// (docs/architecture.md#writing-json), keys in this order.
void WritePoint(JsonWriter& w, const HistoryPoint& p) {
  w.BeginObject();
  w.Field("mean_ms", Optional(p.mean_ms));
  w.Field("p95_ms", Optional(p.p95_ms));
  w.CountField("n", p.n);
  w.Field("before_run", p.before_run ? JsonValue(p.before_run) : JsonValue());
  w.Field("change_pct", Optional(p.change_pct));
  w.Field("p_value", Optional(p.test.p_slower));
  w.BoolField("flagged", p.flagged);
  w.EndObject();
}

void WriteStrings(JsonWriter& w, const std::vector<std::string>& list) {
  w.BeginArray();
  for (const std::string& s : list) w.String(s);
  w.EndArray();
}

void WriteRuns(JsonWriter& w, const History& h) {
  w.BeginArray();
  for (const HistoryRun& r : h.runs) {
    w.BeginObject();
    w.IntField("run", r.id);
    w.StringField("started_at", r.started_at);
    w.Field("finished_at", r.finished_at.empty() ? JsonValue() : JsonValue(r.finished_at));
    w.StringField("label", r.label);
    w.BoolField("complete", !r.finished_at.empty());
    w.CountField("snapshots", r.snapshots);
    w.EndObject();
  }
  w.EndArray();
}

void WriteSnapshots(JsonWriter& w, const History& h) {
  w.BeginArray();
  for (const SnapshotHistory& s : h.snapshots) {
    w.BeginObject();
    w.StringField("snapshot", s.key);
    w.Key("nodes");
    WriteStrings(w, s.nodes);
    w.CountField("top", s.top);
    w.Key("trend");
    w.BeginArray();
    for (const HistoryEntry& e : s.entries) {
      w.BeginObject();
      w.IntField("run", e.run);
      w.StringField("file", e.file);
      w.BoolField("complete", e.complete);
      w.Field("error", e.error.empty() ? JsonValue() : JsonValue(e.error));
      w.Key("frame");
      WritePoint(w, e.frame);
      w.Key("nodes");
      w.BeginArray();
      for (const HistoryPoint& p : e.nodes) WritePoint(w, p);
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void WriteFlags(JsonWriter& w, const History& h) {
  w.BeginArray();
  for (const HistoryFlag& f : h.flags) {
    const bool tested = f.test.status == WelchStatus::kTested;
    w.BeginObject();
    w.IntField("run", f.run);
    w.StringField("label", f.label);
    w.StringField("snapshot", f.snapshot);
    w.StringField("what", f.node.empty() ? "frame_time" : "node");
    w.Field("node", f.node.empty() ? JsonValue() : JsonValue(f.node));
    w.IntField("before_run", f.before_run);
    w.NumberField("before_ms", f.before_ms);
    w.NumberField("after_ms", f.after_ms);
    w.NumberField("change_pct", f.change_pct);
    w.NumberField("p_value", f.p_value);
    w.Field("t", tested ? JsonValue(f.test.t) : JsonValue());
    w.Field("df", tested ? JsonValue(f.test.df) : JsonValue());
    w.CountField("n_before", f.n_before);
    w.CountField("n_after", f.n_after);
    w.EndObject();
  }
  w.EndArray();
}

std::string RenderJson(const History& h, const std::string& store) {
  JsonWriter w(JsonStyle::kNlohmann);
  w.BeginObject();
  w.IntField("cookgraph", 1);
  w.StringField("store", store);
  w.NumberField("alpha", h.options.test.alpha);
  w.NumberField("min_change_pct", h.options.test.min_change_pct);
  w.StringField("test", "welch-one-sided");
  w.CountField("top", h.options.top);
  w.CountField("stored_runs", h.stored_runs);
  w.Key("runs");
  WriteRuns(w, h);
  w.Key("incomplete");
  w.BeginArray();
  for (int64_t run : h.incomplete) w.Int(run);
  w.EndArray();
  w.Key("snapshots");
  WriteSnapshots(w, h);
  w.Key("flags");
  WriteFlags(w, h);
  w.BoolField("latest_flagged", h.latest_flagged);
  w.Key("warnings");
  WriteStrings(w, h.warnings);
  w.EndObject();
  return w.Take() + "\n";
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
                                      ClipMiddle(run.label, 32),
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
    rows.push_back({std::to_string(f.run), ClipMiddle(f.label, 32),
                    ClipMiddle(f.snapshot, 32),
                    ClipMiddle(What(f), kIdWidth), std::to_string(f.before_run),
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
