#include "adapters/score_writers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include "adapters/text.h"
#include "metrics/rollup.h"

// One file for the four formats on purpose: they share one list of columns
// (kNodeColumns) and one row model (TextTable), so that JSON, CSV, the table and
// Markdown cannot drift apart.

namespace cookgraph {
namespace {

// ---------------------------------------------------------------------------
// Columns and their values, shared by JSON and CSV.

constexpr std::array<std::string_view, 22> kNodeColumns = {
    "id",          "type",          "family",           "rank",       "score",      "avg_ms",
    "std_ms",      "p50_ms",        "p95_ms",           "p99_ms",     "max_ms",     "per_frame_ms",
    "share",       "cooked_frames", "cooks_per_frame",  "gpu_avg_ms", "cpu_mem_mb", "gpu_mem_mb",
    "upstream_ms", "loop",          "on_critical_path", "dead"};

// The JSON keys of a container; CSV calls the first one "container".
constexpr std::array<std::string_view, 9> kContainerColumns = {
    "id",    "depth",  "nodes",    "cooked_nodes", "per_frame_ms", "self_per_frame_ms",
    "share", "max_ms", "costliest"};

// monostate = null (JSON null, empty CSV cell). A non-finite double is null too.
using Value = std::variant<std::monostate, std::string_view, double, uint64_t, int64_t, bool>;

bool FlagAt(const std::vector<bool>& flags, NodeIndex n) { return n < flags.size() && flags[n]; }
double ValueAt(const std::vector<double>& values, NodeIndex n) {
  return n < values.size() ? values[n] : 0.0;
}
Value Optional(const std::optional<double>& v) { return v ? Value(*v) : Value(); }

/// The values of kNodeColumns for node `n`; `rank` is nullopt for a node that never cooked.
void NodeValues(const Snapshot& snapshot, const Analysis& analysis, NodeIndex n,
                std::optional<size_t> rank, std::vector<Value>& out) {
  const Node& node = snapshot.network.node(n);
  const NodeStats& s = analysis.stats[n];
  // A node that never cooked has no cook_ms statistics: null, not 0. per_frame_ms,
  // share and cooks_per_frame are means over all frames: 0 for such a node, and
  // null only when the snapshot has no frames at all.
  const bool cooked = s.cooked_frames > 0;
  const bool frames = snapshot.samples.frame_count() > 0;
  auto stat = [cooked](double v) { return cooked ? Value(v) : Value(); };
  auto per_frame = [frames](double v) { return frames ? Value(v) : Value(); };
  out.clear();
  out.emplace_back(std::string_view(node.id));
  out.emplace_back(std::string_view(node.type));
  out.emplace_back(std::string_view(node.family));
  out.push_back(rank ? Value(uint64_t{*rank}) : Value());
  out.push_back(stat(s.score));
  out.push_back(stat(s.avg_ms));
  out.push_back(stat(s.std_ms));
  out.push_back(stat(s.p50_ms));
  out.push_back(stat(s.p95_ms));
  out.push_back(stat(s.p99_ms));
  out.push_back(stat(s.max_ms));
  out.push_back(per_frame(s.per_frame_ms));
  out.push_back(per_frame(s.share));
  out.emplace_back(uint64_t{s.cooked_frames});
  out.push_back(per_frame(s.cooks_per_frame));
  out.push_back(Optional(s.gpu_avg_ms));
  out.push_back(Optional(s.cpu_mem_mb));
  out.push_back(Optional(s.gpu_mem_mb));
  out.emplace_back(ValueAt(analysis.upstream_ms, n));
  out.emplace_back(FlagAt(analysis.in_loop, n));
  out.emplace_back(FlagAt(analysis.on_critical_path, n));
  out.emplace_back(FlagAt(analysis.dead, n));
}

void ContainerValues(const ContainerStats& c, std::vector<Value>& out) {
  out.clear();
  out.emplace_back(std::string_view(c.id));
  out.emplace_back(int64_t{c.depth});
  out.emplace_back(uint64_t{c.nodes});
  out.emplace_back(uint64_t{c.cooked_nodes});
  out.emplace_back(c.per_frame_ms);
  out.emplace_back(c.self_per_frame_ms);
  out.emplace_back(c.share);
  out.emplace_back(c.max_ms);
  out.emplace_back(std::string_view(c.costliest));
}

/// The rows of one snapshot: the ranking, how many of its leading entries cooked,
/// and how many rows --top keeps.
struct Selection {
  std::vector<NodeIndex> order;
  size_t cooked = 0;
  size_t shown = 0;
};

size_t Shown(size_t total, size_t top) { return top == 0 ? total : std::min(total, top); }

Selection SelectNodes(const Analysis& analysis, const ScoreOptions& options) {
  Selection s;
  s.order = Rank(analysis, options.sort);
  s.cooked = std::min(CookedCount(analysis), s.order.size());
  s.shown = Shown(s.order.size(), options.top);
  return s;
}

std::optional<size_t> RankAt(const Selection& s, size_t position) {
  if (position < s.cooked) return position + 1;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Text encoding.

/// `s` as the text of a GitHub Markdown table cell or list item: printable, on one
/// line, with Markdown punctuation (and '|', which would end the cell) escaped.
std::string MarkdownText(std::string_view s) {
  std::string printable = Printable(s);
  std::string out;
  out.reserve(printable.size());
  for (char c : printable) {
    if (std::string_view("\\`*_[]<>|~#&!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Numbers.

/// Appends the shortest text that reads back as the same number (std::to_chars:
/// no locale, no allocation); nothing for a non-finite double.
template <typename T>
void AppendNumber(std::string& out, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return;
  }
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

std::string Fixed(double v, int decimals) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : std::string("-");
}
std::string Ms(double v) { return Fixed(v, 3); }
std::string Percent(double fraction) { return Fixed(fraction * 100.0, 1) + "%"; }

// ---------------------------------------------------------------------------
// JSON.

/// A streaming JSON writer that places the commas; strings are escaped, numbers
/// are written shortest-round-trip, non-finite numbers as null.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key) {
    Separate();
    AppendJsonString(out_, key);
    out_ += ':';
    after_key_ = true;
  }
  void Write(const Value& v) {
    Separate();
    std::visit([this](const auto& x) { Put(x); }, v);
  }
  void String(std::string_view s) { Write(Value(s)); }
  void Number(double v) { Write(Value(v)); }
  void Count(uint64_t v) { Write(Value(v)); }

 private:
  void Put(std::monostate) { out_ += "null"; }
  void Put(std::string_view s) { AppendJsonString(out_, s); }
  void Put(double v) {
    if (std::isfinite(v)) {
      const size_t start = out_.size();
      AppendNumber(out_, v);
      // "8" -> "8.0": a measurement stays a float for typed readers (as nlohmann writes it).
      if (out_.find_first_of(".eE", start) == std::string::npos) out_ += ".0";
    } else {
      out_ += "null";
    }
  }
  void Put(uint64_t v) { AppendNumber(out_, v); }
  void Put(int64_t v) { AppendNumber(out_, v); }
  void Put(bool v) { out_ += v ? "true" : "false"; }

  void Open(char c) {
    Separate();
    out_ += c;
    has_item_.push_back(false);
  }
  void Close(char c) {
    out_ += c;
    has_item_.pop_back();
  }
  // A comma before every value and key but the first of its container; none
  // between a key and its value.
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!has_item_.empty()) {
      if (has_item_.back()) out_ += ',';
      has_item_.back() = true;
    }
  }

  std::string& out_;
  std::vector<bool> has_item_;  // per open container: something was written in it
  bool after_key_ = false;
};

void WriteIds(JsonWriter& w, const Network& network, const std::vector<NodeIndex>& nodes) {
  w.BeginArray();
  for (NodeIndex n : nodes) w.String(network.node(n).id);
  w.EndArray();
}

std::string JsonFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Snapshot& snap = scored.snapshot;
  const Analysis& a = scored.analysis;
  const Network& net = snap.network;
  std::string out;
  JsonWriter w(out);
  w.BeginObject();
  w.Key("file");
  w.String(scored.file);
  w.Key("name");
  w.String(snap.info.name);
  w.Key("engine");
  w.String(snap.info.engine);
  w.Key("frames");
  w.Count(snap.samples.frame_count());
  w.Key("frame_budget_ms");
  w.Number(a.budget_ms);
  w.Key("frame_ms");
  w.BeginObject();
  w.Key("mean");
  w.Number(a.frames.mean_ms);
  w.Key("p95");
  w.Number(a.frames.p95_ms);
  w.Key("max");
  w.Number(a.frames.max_ms);
  w.Key("measured");
  w.Write(a.frames.measured);
  w.EndObject();
  w.Key("over_budget_frames");
  w.Count(a.frames.over_budget.size());

  std::vector<Value> values;
  const Selection sel = SelectNodes(a, options);
  w.Key("nodes");
  w.BeginArray();
  for (size_t i = 0; i < sel.shown; ++i) {
    NodeValues(snap, a, sel.order[i], RankAt(sel, i), values);
    w.BeginObject();
    for (size_t c = 0; c < kNodeColumns.size(); ++c) {
      w.Key(kNodeColumns[c]);
      w.Write(values[c]);
    }
    w.EndObject();
  }
  w.EndArray();

  if (options.group_by_container) {
    const std::vector<ContainerStats> containers = RollUp(snap, a);
    w.Key("containers");
    w.BeginArray();
    for (size_t i = 0; i < Shown(containers.size(), options.top); ++i) {
      ContainerValues(containers[i], values);
      w.BeginObject();
      for (size_t c = 0; c < kContainerColumns.size(); ++c) {
        w.Key(kContainerColumns[c]);
        w.Write(values[c]);
      }
      w.EndObject();
    }
    w.EndArray();
  }

  w.Key("loops");
  w.BeginArray();
  for (const LoopReport& loop : a.loops) {
    w.BeginObject();
    w.Key("kind");
    w.String(LoopKindName(loop.loop.kind));
    w.Key("nodes");
    WriteIds(w, net, loop.loop.nodes);
    w.Key("per_frame_ms");
    w.Number(loop.per_frame_ms);
    w.EndObject();
  }
  w.EndArray();

  w.Key("critical_path");
  w.BeginObject();
  w.Key("nodes");
  WriteIds(w, net, a.critical_path.nodes);
  w.Key("per_frame_ms");
  w.Number(a.critical_path.weight);
  w.EndObject();

  w.Key("spikes");
  w.BeginArray();
  for (const Spike& s : a.spikes) {
    w.BeginObject();
    w.Key("id");
    w.String(net.node(s.node).id);
    w.Key("median_ms");
    w.Number(s.median_ms);
    w.Key("frames");
    w.Count(s.frames);
    w.Key("excess_ms");
    w.Number(s.excess_ms);
    w.Key("max_excess_ms");
    w.Number(s.max_excess_ms);
    w.Key("worst_frame");
    w.Write(Value(s.worst_frame));
    w.Key("share_of_overrun");
    w.Number(s.share_of_overrun);
    w.EndObject();
  }
  w.EndArray();

  w.Key("warnings");
  w.BeginArray();
  for (const std::string& warning : a.warnings) w.String(warning);
  w.EndArray();
  w.EndObject();
  return out;
}

// ---------------------------------------------------------------------------
// CSV (RFC 4180 quoting; "\n" line ends, which every CSV reader accepts).

void AppendCsvField(std::string& out, std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void AppendCsvValue(std::string& out, const Value& v) {
  struct CsvCell {
    std::string& out;
    void operator()(std::monostate) const {}
    void operator()(std::string_view s) const { AppendCsvField(out, s); }
    void operator()(double d) const { AppendNumber(out, d); }
    void operator()(uint64_t u) const { AppendNumber(out, u); }
    void operator()(int64_t i) const { AppendNumber(out, i); }
    void operator()(bool b) const { out += b ? "true" : "false"; }
  };
  std::visit(CsvCell{out}, v);
}

std::string CsvFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Snapshot& snap = scored.snapshot;
  std::string prefix;  // file,name,engine, the same on every row
  AppendCsvField(prefix, scored.file);
  prefix += ',';
  AppendCsvField(prefix, snap.info.name);
  prefix += ',';
  AppendCsvField(prefix, snap.info.engine);

  std::string out;
  std::vector<Value> values;
  auto row = [&] {
    out += prefix;
    for (const Value& v : values) {
      out += ',';
      AppendCsvValue(out, v);
    }
    out += '\n';
  };
  if (options.group_by_container) {
    // Header: file,container,depth,...: no name and engine columns here.
    prefix.resize(0);
    AppendCsvField(prefix, scored.file);
    const std::vector<ContainerStats> containers = RollUp(snap, scored.analysis);
    for (size_t i = 0; i < Shown(containers.size(), options.top); ++i) {
      ContainerValues(containers[i], values);
      row();
    }
    return out;
  }
  const Selection sel = SelectNodes(scored.analysis, options);
  for (size_t i = 0; i < sel.shown; ++i) {
    NodeValues(snap, scored.analysis, sel.order[i], RankAt(sel, i), values);
    row();
  }
  return out;
}

std::string CsvHeader(const ScoreOptions& options) {
  std::string out;
  if (options.group_by_container) {
    out = "file,container";
    for (size_t c = 1; c < kContainerColumns.size(); ++c) {
      out += ',';
      out += kContainerColumns[c];
    }
  } else {
    out = "file,name,engine";
    for (std::string_view column : kNodeColumns) {
      out += ',';
      out += column;
    }
  }
  out += '\n';
  return out;
}

// ---------------------------------------------------------------------------
// The table and Markdown: one row model, two renderings.

enum class Tone : uint8_t { kPlain, kDim, kRed, kYellow };

struct Cell {
  std::string text;  // raw: made printable, truncated or escaped when rendered
  Tone tone = Tone::kPlain;
};

struct Column {
  std::string_view title;
  bool right = true;     // numbers are right-aligned
  size_t max_width = 0;  // for the terminal table: cut longer text in the middle; 0 = no limit
};

struct TextTable {
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::string more;  // line after the table when --top cut rows; "" = none
};

constexpr size_t kIdWidth = 48;
constexpr size_t kTypeWidth = 24;

// Score colour thresholds on share of the frame time.
constexpr double kRedShare = 0.10;
constexpr double kYellowShare = 0.02;

Cell Number(std::string text, double value) {
  return {std::move(text), value == 0 ? Tone::kDim : Tone::kPlain};
}
Cell Missing() { return {"-", Tone::kDim}; }

TextTable NodeTable(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Analysis& a = scored.analysis;
  TextTable t;
  t.columns = {{"#"},
               {"node", false, kIdWidth},
               {"type", false, kTypeWidth},
               {"score"},
               {"avg ms"},
               {"std ms"},
               {"p95 ms"},
               {"max ms"},
               {"ms/frame"},
               {"share"},
               {"cooks/f"},
               {"upstream ms"},
               {"flags", false}};
  const Selection sel = SelectNodes(a, options);
  for (size_t i = 0; i < sel.shown; ++i) {
    const NodeIndex n = sel.order[i];
    const Node& node = scored.snapshot.network.node(n);
    const NodeStats& s = a.stats[n];
    std::vector<Cell> row;
    const std::optional<size_t> rank = RankAt(sel, i);
    row.push_back(rank ? Cell{std::to_string(*rank)} : Missing());
    row.push_back({node.id});
    row.push_back({node.type});
    if (s.cooked_frames > 0) {
      Tone tone = s.share >= kRedShare      ? Tone::kRed
                  : s.share >= kYellowShare ? Tone::kYellow
                  : s.score == 0            ? Tone::kDim
                                            : Tone::kPlain;
      row.push_back({Fixed(s.score, 3), tone});
      for (double v : {s.avg_ms, s.std_ms, s.p95_ms, s.max_ms}) row.push_back(Number(Ms(v), v));
    } else {
      for (int k = 0; k < 5; ++k) row.push_back(Missing());
    }
    row.push_back(Number(Ms(s.per_frame_ms), s.per_frame_ms));
    row.push_back(Number(Percent(s.share), s.share));
    row.push_back(Number(Fixed(s.cooks_per_frame, 2), s.cooks_per_frame));
    const double upstream = ValueAt(a.upstream_ms, n);
    row.push_back(Number(Ms(upstream), upstream));
    std::string flags;
    if (FlagAt(a.in_loop, n)) flags += 'L';
    if (FlagAt(a.on_critical_path, n)) flags += 'C';
    if (FlagAt(a.dead, n)) flags += 'D';
    row.push_back({flags});
    t.rows.push_back(std::move(row));
  }
  if (sel.shown < sel.order.size()) {
    t.more = fmt::format("… {} more nodes (--top 0 shows all)", sel.order.size() - sel.shown);
  }
  return t;
}

TextTable ContainerTable(const ScoredSnapshot& scored, const ScoreOptions& options) {
  TextTable t;
  t.columns = {{"#"},
               {"container", false, kIdWidth},
               {"depth"},
               {"nodes"},
               {"cooked"},
               {"ms/frame"},
               {"self ms/frame"},
               {"share"},
               {"max ms"},
               {"costliest", false, kIdWidth}};
  const std::vector<ContainerStats> containers = RollUp(scored.snapshot, scored.analysis);
  const size_t shown = Shown(containers.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const ContainerStats& c = containers[i];
    std::vector<Cell> row;
    row.push_back({std::to_string(i + 1)});
    row.push_back({c.id.empty() ? std::string("(top level)") : c.id});
    row.push_back({std::to_string(c.depth)});
    row.push_back({std::to_string(c.nodes)});
    row.push_back(Number(std::to_string(c.cooked_nodes), static_cast<double>(c.cooked_nodes)));
    Tone tone = c.share >= kRedShare      ? Tone::kRed
                : c.share >= kYellowShare ? Tone::kYellow
                : c.per_frame_ms == 0     ? Tone::kDim
                                          : Tone::kPlain;
    row.push_back({Ms(c.per_frame_ms), tone});
    row.push_back(Number(Ms(c.self_per_frame_ms), c.self_per_frame_ms));
    row.push_back(Number(Percent(c.share), c.share));
    row.push_back(Number(Ms(c.max_ms), c.max_ms));
    row.push_back({c.costliest});
    t.rows.push_back(std::move(row));
  }
  if (shown < containers.size()) {
    t.more = fmt::format("… {} more containers (--top 0 shows all)", containers.size() - shown);
  }
  return t;
}

/// The title line's parts: file, engine, name, frames, frame time against the budget.
std::vector<std::string> TitleParts(const ScoredSnapshot& scored,
                                    const std::function<std::string(std::string_view)>& text) {
  const Snapshot& snap = scored.snapshot;
  const Analysis& a = scored.analysis;
  std::vector<std::string> parts;
  if (!snap.info.engine.empty()) parts.push_back(text(snap.info.engine));
  if (!snap.info.name.empty()) parts.push_back("\"" + text(snap.info.name) + "\"");
  const size_t frames = snap.samples.frame_count();
  parts.push_back(fmt::format("{} frame{}", frames, frames == 1 ? "" : "s"));
  parts.push_back(fmt::format("frame time mean {} / p95 {} / max {} ms ({}), budget {} ms",
                              Ms(a.frames.mean_ms), Ms(a.frames.p95_ms), Ms(a.frames.max_ms),
                              a.frames.measured ? "measured" : "sum of cooks", Ms(a.budget_ms)));
  const size_t over = a.frames.over_budget.size();
  parts.push_back(
      frames == 0 ? fmt::format("{} over budget", over)
                  : fmt::format("{} over budget ({})", over,
                                Percent(static_cast<double>(over) / static_cast<double>(frames))));
  return parts;
}

struct Section {
  std::string title;
  std::vector<std::string> items;
};

constexpr size_t kMaxLoops = 10;
constexpr size_t kLoopIds = 3;
constexpr size_t kMaxSpikes = 5;
constexpr size_t kMaxWarnings = 10;

/// Loops, critical path, spikes and warnings, with ids rendered by `id` and free
/// text by `text`. Empty sections are left out.
std::vector<Section> Sections(const ScoredSnapshot& scored,
                              const std::function<std::string(std::string_view)>& id,
                              const std::function<std::string(std::string_view)>& text) {
  const Network& net = scored.snapshot.network;
  const Analysis& a = scored.analysis;
  std::vector<Section> sections;
  auto node_id = [&](NodeIndex n) { return id(net.node(n).id); };

  if (!a.loops.empty()) {
    Section s{fmt::format("loops ({})", a.loops.size()), {}};
    for (size_t i = 0; i < std::min(a.loops.size(), kMaxLoops); ++i) {
      const LoopReport& r = a.loops[i];
      std::string ids;
      for (size_t k = 0; k < std::min(r.loop.nodes.size(), kLoopIds); ++k) {
        if (k > 0) ids += ", ";
        ids += node_id(r.loop.nodes[k]);
      }
      if (r.loop.nodes.size() > kLoopIds) ids += ", …";
      s.items.push_back(fmt::format("{:<9} {} ms/frame, {} node{}: {}", LoopKindName(r.loop.kind),
                                    Ms(r.per_frame_ms), r.loop.nodes.size(),
                                    r.loop.nodes.size() == 1 ? "" : "s", ids));
    }
    if (a.loops.size() > kMaxLoops) {
      s.items.push_back(fmt::format("… {} more loops", a.loops.size() - kMaxLoops));
    }
    sections.push_back(std::move(s));
  }

  const std::vector<NodeIndex>& path = a.critical_path.nodes;
  if (!path.empty()) {
    std::string ends = node_id(path.front());
    if (path.size() == 2) ends += " → " + node_id(path.back());
    if (path.size() > 2) ends += " → … → " + node_id(path.back());
    sections.push_back({"critical path",
                        {fmt::format("{} ms/frame, {} node{}: {}", Ms(a.critical_path.weight),
                                     path.size(), path.size() == 1 ? "" : "s", ends)}});
  }

  if (!a.spikes.empty()) {
    Section s{"spikes in over-budget frames", {}};
    for (size_t i = 0; i < std::min(a.spikes.size(), kMaxSpikes); ++i) {
      const Spike& sp = a.spikes[i];
      s.items.push_back(fmt::format(
          "{}: +{} ms over {} frame{} (median {} ms, worst +{} ms at frame {}), {} of overrun",
          node_id(sp.node), Ms(sp.excess_ms), sp.frames, sp.frames == 1 ? "" : "s",
          Ms(sp.median_ms), Ms(sp.max_excess_ms), sp.worst_frame, Percent(sp.share_of_overrun)));
    }
    if (a.spikes.size() > kMaxSpikes) {
      s.items.push_back(fmt::format("… {} more", a.spikes.size() - kMaxSpikes));
    }
    sections.push_back(std::move(s));
  }

  if (!a.warnings.empty()) {
    Section s{fmt::format("warnings ({})", a.warnings.size()), {}};
    for (size_t i = 0; i < std::min(a.warnings.size(), kMaxWarnings); ++i) {
      s.items.push_back(text(a.warnings[i]));
    }
    if (a.warnings.size() > kMaxWarnings) {
      s.items.push_back(fmt::format("… {} more warnings", a.warnings.size() - kMaxWarnings));
    }
    sections.push_back(std::move(s));
  }
  return sections;
}

// ANSI SGR sequences.
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kDim = "\x1b[2m";
constexpr std::string_view kRed = "\x1b[31m";
constexpr std::string_view kYellow = "\x1b[33m";
constexpr std::string_view kReset = "\x1b[0m";

std::string_view ToneCode(Tone tone) {
  switch (tone) {
    case Tone::kDim:
      return kDim;
    case Tone::kRed:
      return kRed;
    case Tone::kYellow:
      return kYellow;
    case Tone::kPlain:
      break;
  }
  return {};
}

void AppendPadded(std::string& out, const std::string& text, size_t width, bool right, bool last) {
  const size_t pad = width - std::min(width, DisplayWidth(text));
  if (right) out.append(pad, ' ');
  out += text;
  if (!right && !last) out.append(pad, ' ');
}

void RenderAligned(const TextTable& t, bool color, std::string& out) {
  const size_t cols = t.columns.size();
  // Cell text as shown: printable, cut to the column's width.
  std::vector<std::vector<std::string>> shown(t.rows.size());
  std::vector<size_t> width(cols);
  for (size_t c = 0; c < cols; ++c) width[c] = DisplayWidth(t.columns[c].title);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (size_t c = 0; c < cols; ++c) {
      std::string s = Printable(t.rows[r][c].text);
      if (t.columns[c].max_width > 0) s = TruncateMiddle(s, t.columns[c].max_width);
      width[c] = std::max(width[c], DisplayWidth(s));
      shown[r].push_back(std::move(s));
    }
  }
  // Trailing left-aligned columns that are empty everywhere (flags) still get
  // their title; lines never end in spaces.
  auto line = [&](auto&& text_of, auto&& tone_of) {
    std::string row;
    for (size_t c = 0; c < cols; ++c) {
      if (c > 0) row += "  ";
      const std::string_view code = color ? tone_of(c) : std::string_view();
      if (!code.empty()) row += code;
      AppendPadded(row, text_of(c), width[c], t.columns[c].right, c + 1 == cols);
      if (!code.empty()) row += kReset;
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row;
    out += '\n';
  };
  line([&](size_t c) { return std::string(t.columns[c].title); }, [&](size_t) { return kBold; });
  for (size_t r = 0; r < t.rows.size(); ++r) {
    line([&](size_t c) -> const std::string& { return shown[r][c]; },
         [&](size_t c) { return ToneCode(t.rows[r][c].tone); });
  }
  if (!t.more.empty()) {
    out += color ? std::string(kDim) + t.more + std::string(kReset) : t.more;
    out += '\n';
  }
}

void RenderMarkdownTable(const TextTable& t, std::string& out) {
  out += '|';
  for (const Column& c : t.columns) out += fmt::format(" {} |", c.title);
  out += "\n|";
  for (const Column& c : t.columns) out += c.right ? " ---: |" : " :--- |";
  out += '\n';
  for (const std::vector<Cell>& row : t.rows) {
    out += '|';
    for (const Cell& cell : row) out += " " + MarkdownText(cell.text) + " |";
    out += '\n';
  }
  if (!t.more.empty()) out += "\n" + t.more + "\n";
}

std::string TableFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const bool color = options.color;
  auto text = [](std::string_view s) { return Printable(s); };
  auto id = [](std::string_view s) { return TruncateMiddle(Printable(s), kIdWidth); };
  std::string out;
  std::string title = Printable(scored.file);
  for (const std::string& part : TitleParts(scored, text)) title += " · " + part;
  out += color ? std::string(kBold) + title + std::string(kReset) : title;
  out += "\n\n";
  RenderAligned(
      options.group_by_container ? ContainerTable(scored, options) : NodeTable(scored, options),
      color, out);
  for (const Section& s : Sections(scored, id, text)) {
    out += '\n';
    out += color ? std::string(kBold) + s.title + std::string(kReset) : s.title;
    out += ":\n";
    for (const std::string& item : s.items) out += "  " + item + "\n";
  }
  return out;
}

std::string MarkdownFragment(const ScoredSnapshot& scored, const ScoreOptions& options) {
  auto text = [](std::string_view s) { return MarkdownText(s); };
  std::string out;
  out += "### " + MarkdownText(scored.file) + "\n\n";
  const std::vector<std::string> parts = TitleParts(scored, text);
  for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? " · " : "") + parts[i];
  out += "\n\n";
  RenderMarkdownTable(
      options.group_by_container ? ContainerTable(scored, options) : NodeTable(scored, options),
      out);
  for (const Section& s : Sections(scored, text, text)) {
    out += "\n**" + s.title + "**\n\n";
    for (const std::string& item : s.items) out += "- " + item + "\n";
  }
  return out;
}

}  // namespace

std::string RenderScoreHeader(ScoreFormat format, const ScoreOptions& options) {
  switch (format) {
    case ScoreFormat::kJson:
      return "{\"cookgraph\":1,\"snapshots\":[";
    case ScoreFormat::kCsv:
      return CsvHeader(options);
    case ScoreFormat::kTable:
    case ScoreFormat::kMarkdown:
      break;
  }
  return {};
}

std::string_view RenderScoreSeparator(ScoreFormat format) {
  switch (format) {
    case ScoreFormat::kJson:
      return ",";
    case ScoreFormat::kCsv:
      return "";
    case ScoreFormat::kTable:
    case ScoreFormat::kMarkdown:
      return "\n";
  }
  return "";
}

std::string RenderScoreSnapshot(ScoreFormat format, const ScoredSnapshot& scored,
                                const ScoreOptions& options) {
  switch (format) {
    case ScoreFormat::kJson:
      return "\n" + JsonFragment(scored, options);
    case ScoreFormat::kCsv:
      return CsvFragment(scored, options);
    case ScoreFormat::kTable:
      return TableFragment(scored, options);
    case ScoreFormat::kMarkdown:
      return MarkdownFragment(scored, options);
  }
  return {};
}

std::string RenderScoreFooter(ScoreFormat format, const std::vector<Error>& errors) {
  if (format != ScoreFormat::kJson) return {};
  std::string out = "\n],\"errors\":[";
  for (size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"file\":";
    AppendJsonString(out, errors[i].file);
    out += ",\"message\":";
    AppendJsonString(out, errors[i].Format());
    out += '}';
  }
  out += "]}\n";
  return out;
}

}  // namespace cookgraph
