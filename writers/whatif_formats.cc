#include "writers/whatif_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include "base/json_writer.h"
#include "base/text.h"

namespace cookgraph {
namespace {

// "x0.5" style names of a factor: "halved", "removed", else "x0.25".
std::string FactorName(double factor) {
  if (factor == 0.5) return "halved";
  if (factor == 0) return "removed";
  return fmt::format("x{:g}", factor);
}

// One node at both factors, for the table.
struct Row {
  NodeIndex node = 0;
  NodeGain halved, removed;
};

// Every node that cooked and works, halved and removed, ranked by the saving
// when removed (then over-budget frames, then p95; ties by NodeIndex).
std::vector<Row> Rows(const WhatIf& whatif) {
  std::vector<NodeGain> halved = whatif.Gains(0.5);
  std::vector<NodeGain> removed = whatif.Gains(0.0);
  std::vector<Row> rows;
  rows.reserve(removed.size());
  std::sort(halved.begin(), halved.end(),
            [](const NodeGain& a, const NodeGain& b) { return a.node < b.node; });
  for (const NodeGain& r : removed) {
    auto h = std::lower_bound(halved.begin(), halved.end(), r.node,
                              [](const NodeGain& g, NodeIndex n) { return g.node < n; });
    rows.push_back(Row{.node = r.node, .halved = *h, .removed = r});
  }
  return rows;  // Gains' order: by saved_ms, frames_saved, saved_p95_ms, then NodeIndex
}

// The headline facts: which fix saves the most over-budget frames and which
// the most mean time (both when removed).
struct TopGains {
  std::optional<Row> most_frames, largest_mean;
};

TopGains TopGainsOf(const std::vector<Row>& rows) {
  TopGains h;
  for (const Row& r : rows) {
    if (r.removed.frames_saved > 0 &&
        (!h.most_frames || r.removed.frames_saved > h.most_frames->removed.frames_saved)) {
      h.most_frames = r;
    }
  }
  if (!rows.empty() && rows.front().removed.saved_ms > 0) h.largest_mean = rows.front();
  return h;
}

std::string ChangesText(const Snapshot& snapshot, std::span<const WhatIfChange> changes) {
  std::string out;
  for (const WhatIfChange& c : changes) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", snapshot.network.node(c.node).id,
                       FactorName(c.factor));
  }
  return out;
}

std::string BeforeLine(const std::string& file, const Snapshot& snapshot, const WhatIf& whatif) {
  const WhatIfFrames& b = whatif.before();
  const std::string_view word = whatif.frame_word();
  std::string budget = whatif.has_budget()
                           ? fmt::format(", budget {:.3f} ms · {} over budget", whatif.budget_ms(),
                                         b.over_budget)
                           : std::string(", no budget");
  size_t counted = 0;
  for (double v : whatif.frame_ms()) counted += IsMissing(v) ? 0 : 1;
  return fmt::format("{} · {} · what-if by {} · {} {}{} · {} time mean {:.3f} / p95 {:.3f} ms{}",
                     Printable(file), Printable(snapshot.info.engine),
                     WhatIfModelName(whatif.model()), counted, word, counted == 1 ? "" : "s", word,
                     b.mean_ms, b.p95_ms, budget);
}

std::string SavedText(const WhatIf& whatif, double saved_ms, double saved_p95_ms,
                      int64_t frames_saved) {
  std::string out = fmt::format("mean {:.3f} ms, p95 {:.3f} ms", saved_ms, saved_p95_ms);
  if (whatif.has_budget()) {
    out += fmt::format(", {} of {} over-budget {}s", frames_saved, whatif.before().over_budget,
                       whatif.frame_word());
  }
  return out;
}

// ---- JSON ---------------------------------------------------------------------

void WriteFrames(JsonWriter& w, std::string_view key, const WhatIfFrames& f) {
  w.Key(key);
  w.BeginObject();
  w.Key("frame_ms");
  w.BeginObject();
  w.NumberField("mean", f.mean_ms);
  w.NumberField("p95", f.p95_ms);
  w.EndObject();
  w.CountField("over_budget_frames", f.over_budget);
  w.EndObject();
}

void WriteGain(JsonWriter& w, const Snapshot& snapshot, const NodeGain& g) {
  w.BeginObject();
  w.StringField("id", snapshot.network.node(g.node).id);
  w.NumberField("factor", g.factor);
  w.NumberField("saved_ms", g.saved_ms);
  w.NumberField("saved_p95_ms", g.saved_p95_ms);
  w.IntField("frames_saved", g.frames_saved);
  w.EndObject();
}

void WriteSeries(JsonWriter& w, std::string_view key, const std::vector<double>& values) {
  w.Key(key);
  w.BeginArray();
  for (double v : values) {
    if (IsMissing(v)) {
      w.Null();
    } else {
      w.Number(v);
    }
  }
  w.EndArray();
}

NodeGain Alone(const WhatIf& whatif, const WhatIfChange& c) {
  const WhatIfPrediction p = whatif.Predict(std::span(&c, 1));
  return NodeGain{.node = c.node,
                  .factor = c.factor,
                  .saved_ms = p.saved_ms,
                  .saved_p95_ms = p.saved_p95_ms,
                  .frames_saved = p.frames_saved};
}

}  // namespace

void WriteWhatIf(JsonWriter& w, const std::string& file, const Snapshot& snapshot,
                 const WhatIf& whatif, std::span<const WhatIfChange> changes, size_t top,
                 bool series) {
  w.BeginObject();
  w.StringField("input", file);
  w.StringField("engine", snapshot.info.engine);
  w.StringField("model", WhatIfModelName(whatif.model()));
  w.Field("budget_ms", whatif.has_budget() ? JsonValue(whatif.budget_ms()) : JsonValue());
  size_t counted = 0;
  for (double v : whatif.frame_ms()) counted += IsMissing(v) ? 0 : 1;
  w.CountField("frames", counted);
  WriteFrames(w, "before", whatif.before());
  std::vector<NodeGain> gains;
  std::vector<WhatIfChange> applied(changes.begin(), changes.end());
  if (changes.empty()) {
    gains = whatif.Gains(0.5);
    std::vector<NodeGain> removed = whatif.Gains(0.0);
    gains.insert(gains.end(), removed.begin(), removed.end());
    std::stable_sort(gains.begin(), gains.end(), [](const NodeGain& a, const NodeGain& b) {
      if (a.saved_ms != b.saved_ms) return a.saved_ms > b.saved_ms;
      if (a.frames_saved != b.frames_saved) return a.frames_saved > b.frames_saved;
      if (a.saved_p95_ms != b.saved_p95_ms) return a.saved_p95_ms > b.saved_p95_ms;
      return a.node != b.node ? a.node < b.node : a.factor > b.factor;
    });
    if (top > 0 && gains.size() > top) gains.resize(top);
    if (!gains.empty()) {
      applied = {WhatIfChange{.node = gains.front().node, .factor = gains.front().factor}};
    }
  } else {
    for (const WhatIfChange& c : changes) gains.push_back(Alone(whatif, c));
  }
  w.Key("changes");
  w.BeginArray();
  for (const WhatIfChange& c : applied) {
    w.BeginObject();
    w.StringField("id", snapshot.network.node(c.node).id);
    w.NumberField("factor", c.factor);
    w.EndObject();
  }
  w.EndArray();
  const WhatIfPrediction after = whatif.Predict(applied);
  WriteFrames(w, "after", after.after);
  w.Key("nodes");
  w.BeginArray();
  for (const NodeGain& g : gains) WriteGain(w, snapshot, g);
  w.EndArray();
  if (series && !changes.empty()) {
    w.Key("series");
    w.BeginObject();
    WriteSeries(w, "before", whatif.frame_ms());
    WriteSeries(w, "after", after.frame_ms);
    w.EndObject();
  }
  w.Key("warnings");
  w.BeginArray();
  for (const std::string& warning : whatif.warnings()) w.String(warning);
  w.EndArray();
  w.EndObject();
}

namespace {

std::string JsonDocument(const std::string& file, const Snapshot& snapshot, const WhatIf& whatif,
                         std::span<const WhatIfChange> changes, size_t top) {
  // nlohmann's spelling and its dump(2) layout, as when it was built with it.
  JsonWriter w(JsonStyle::kNlohmann, 2);
  WriteWhatIf(w, file, snapshot, whatif, changes, top);
  std::string out = w.Take();
  out += '\n';
  return out;
}

// ---- Table and Markdown ----------------------------------------------------------

std::string GainCells(const NodeGain& g, bool budget) {
  return budget ? fmt::format("{:9.3f} {:7.3f} {:7d}", g.saved_ms, g.saved_p95_ms, g.frames_saved)
                : fmt::format("{:9.3f} {:7.3f} {:>7}", g.saved_ms, g.saved_p95_ms, "-");
}

std::string Text(bool markdown, const std::string& file, const Snapshot& snapshot,
                 const WhatIf& whatif, std::span<const WhatIfChange> changes, size_t top) {
  const Network& net = snapshot.network;
  const bool budget = whatif.has_budget();
  const std::string_view word = whatif.frame_word();
  auto id_text = [&](NodeIndex n) {
    return markdown ? "`" + MarkdownText(net.node(n).id) + "`" : Printable(net.node(n).id);
  };
  std::string out = (markdown ? "## What if: " : "") + BeforeLine(file, snapshot, whatif) + "\n";
  for (const std::string& w : whatif.warnings()) out += "note: " + Printable(w) + "\n";
  out += "\n";
  if (!changes.empty()) {
    const WhatIfPrediction p = whatif.Predict(changes);
    out += fmt::format("after {}: {} time mean {:.3f} / p95 {:.3f} ms", ChangesText(snapshot, changes),
                       word, p.after.mean_ms, p.after.p95_ms);
    if (budget) out += fmt::format(" · {} over budget", p.after.over_budget);
    out += "\nsaved: " + SavedText(whatif, p.saved_ms, p.saved_p95_ms, p.frames_saved) + "\n";
    if (changes.size() > 1) {
      out += "each alone:\n";
      for (const WhatIfChange& c : changes) {
        const NodeGain g = Alone(whatif, c);
        out += fmt::format("  {} {}: {}\n", id_text(c.node), FactorName(c.factor),
                           SavedText(whatif, g.saved_ms, g.saved_p95_ms, g.frames_saved));
      }
    }
    return out;
  }
  const std::vector<Row> rows = Rows(whatif);
  const TopGains h = TopGainsOf(rows);
  if (h.most_frames) {
    out += fmt::format("{}most over-budget {}s saved: {} removed: {} of {} (halved: {})\n",
                       markdown ? "- " : "", word, id_text(h.most_frames->node),
                       h.most_frames->removed.frames_saved, whatif.before().over_budget,
                       h.most_frames->halved.frames_saved);
  }
  if (h.largest_mean) {
    out += fmt::format("{}largest mean saving: {} removed: {:.3f} ms per {} (halved: {:.3f} ms)\n",
                       markdown ? "- " : "", id_text(h.largest_mean->node),
                       h.largest_mean->removed.saved_ms, word, h.largest_mean->halved.saved_ms);
  }
  if (h.most_frames || h.largest_mean) out += "\n";
  const size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  if (markdown) {
    out += "| # | node | type | halved: saved ms | p95 ms | " + std::string(word) +
           "s | removed: saved ms | p95 ms | " + std::string(word) + "s |\n";
    out += "|---:|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (size_t i = 0; i < shown; ++i) {
      const Row& r = rows[i];
      auto frames = [&](int64_t v) { return budget ? std::to_string(v) : std::string("-"); };
      out += fmt::format("| {} | {} | {} | {:.3f} | {:.3f} | {} | {:.3f} | {:.3f} | {} |\n", i + 1,
                         id_text(r.node), MarkdownText(net.node(r.node).type), r.halved.saved_ms,
                         r.halved.saved_p95_ms, frames(r.halved.frames_saved), r.removed.saved_ms,
                         r.removed.saved_p95_ms, frames(r.removed.frames_saved));
    }
  } else {
    size_t id_width = 4, type_width = 4;
    for (size_t i = 0; i < shown; ++i) {
      id_width = std::max(id_width, std::min<size_t>(48, DisplayWidth(Printable(net.node(rows[i].node).id))));
      type_width = std::max(type_width, std::min<size_t>(24, DisplayWidth(Printable(net.node(rows[i].node).type))));
    }
    auto pad = [](const std::string& s, size_t w) {
      std::string t = TruncateMiddle(s, w);
      return t + std::string(w - std::min(w, DisplayWidth(t)), ' ');
    };
    const std::string frames_head = fmt::format("{:>7}", std::string(word) + "s");
    out += fmt::format("{:>3}  {}  {}  {:^25}   {:^25}", "", pad("", id_width), pad("", type_width),
                       "------ halved ------", "------ removed ------");
    while (out.back() == ' ') out.pop_back();
    out += "\n";
    out += fmt::format("{:>3}  {}  {}  {:>9} {:>7} {}   {:>9} {:>7} {}\n", "#", pad("node", id_width),
                       pad("type", type_width), "saved ms", "p95 ms", frames_head, "saved ms",
                       "p95 ms", frames_head);
    // Ids cut alike are told apart (TruncateApart), then padded.
    std::vector<std::string> ids;
    for (size_t i = 0; i < shown; ++i) ids.push_back(Printable(net.node(rows[i].node).id));
    ids = TruncateApart(ids, id_width);
    for (size_t i = 0; i < shown; ++i) {
      const Row& r = rows[i];
      out += fmt::format("{:>3}  {}  {}  {}   {}\n", i + 1, pad(ids[i], id_width),
                         pad(Printable(net.node(r.node).type), type_width), GainCells(r.halved, budget),
                         GainCells(r.removed, budget));
    }
  }
  if (shown < rows.size()) {
    out += fmt::format("{}… {} more nodes (--top 0 shows all)\n", markdown ? "\n" : "",
                       rows.size() - shown);
  }
  return out;
}

}  // namespace

std::string RenderWhatIf(WhatIfFormat format, const std::string& file, const Snapshot& snapshot,
                         const WhatIf& whatif, std::span<const WhatIfChange> changes, size_t top) {
  switch (format) {
    case WhatIfFormat::kJson:
      return JsonDocument(file, snapshot, whatif, changes, top);
    case WhatIfFormat::kMarkdown:
      return Text(true, file, snapshot, whatif, changes, top);
    case WhatIfFormat::kTable:
      break;
  }
  return Text(false, file, snapshot, whatif, changes, top);
}

}  // namespace cookgraph
