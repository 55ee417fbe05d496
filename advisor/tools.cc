#include "advisor/tools.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>

#include "base/text.h"
#include "graph/containers.h"
#include "graph/suggest.h"
#include "metrics/rollup.h"
#include "metrics/whatif.h"
#include "writers/graph_formats.h"
#include "writers/score_columns.h"
#include "writers/score_sections.h"  // a node, the GPU and threads exactly as `score --format json` writes them
#include "writers/whatif_formats.h"

// The tools the model can call (docs/architecture.md#tools-the-model-can-call).
// Every result is compact JSON written as `score --format json` writes its own
// (base/json_writer.h, JsonStyle::kShortest: shortest round trip; a whole double keeps its ".0"), fitted to
// its token budget by cutting lists, then details.

namespace cookgraph {

using score_internal::Value;

/// The container hierarchy with the roll-up of `score --group-by container`,
/// built on first use (container).
struct ContainerIndex {
  std::vector<Container> containers;                 // Containers(network): by id
  std::unordered_map<std::string, size_t> by_id;     // id -> containers
  std::vector<ContainerStats> stats;                 // per container (RollUp's numbers)
  std::vector<std::vector<size_t>> children;         // per container: containers inside it
  std::vector<size_t> top;                           // containers at the top level
  std::vector<NodeIndex> top_nodes;                  // nodes at the top level (parent "")
};

namespace {

constexpr size_t kMaxArgumentBytes = 64 * 1024;
constexpr size_t kMaxStringBytes = 4096;
constexpr size_t kMaxDepth = 16;
constexpr size_t kEchoBytes = 80;  // of a name or value repeated in a message

// What a node shows at each level of detail; lists past these are cut and say
// their total.
struct Detail {
  size_t params, param_bytes, edges, findings, title_bytes, frames;
  bool parent;
};
constexpr Detail kDetails[] = {
    {.params = 16, .param_bytes = 160, .edges = 16, .findings = 8, .title_bytes = 200, .frames = 5, .parent = true},
    {.params = 4, .param_bytes = 48, .edges = 4, .findings = 2, .title_bytes = 80, .frames = 2, .parent = true},
    {.params = 0, .param_bytes = 0, .edges = 0, .findings = 0, .title_bytes = 0, .frames = 0, .parent = false},
};

// ---- Text -----------------------------------------------------------------------

// `s` cut to at most `bytes` bytes at a UTF-8 boundary, with "…" when cut.
std::string Clip(std::string_view s, size_t bytes) {
  if (s.size() <= bytes) return std::string(s);
  size_t end = 0;
  while (end < s.size()) {
    const size_t len = std::max<size_t>(1, Utf8Length(s, end));
    if (end + len > bytes) break;
    end += len;
  }
  return std::string(s.substr(0, end)) + "\xE2\x80\xA6";
}


// A text to find: a glob when it holds '*' or '?' (the whole text must match;
// '*' any run of bytes, '/' included; '?' one byte), else a substring; both
// ignoring ASCII case.
class Matcher {
 public:
  explicit Matcher(std::string_view text) : text_(AsciiLower(text)) {
    glob_ = text_.find_first_of("*?") != std::string::npos;
  }
  bool operator()(std::string_view s) const {
    const std::string lower = AsciiLower(s);
    return glob_ ? Glob(text_, lower) : lower.find(text_) != std::string::npos;
  }

 private:
  // Iterative, with one backtracking point: O(|p| x |s|) at worst.
  static bool Glob(std::string_view p, std::string_view s) {
    size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
    while (si < s.size()) {
      if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
        ++pi;
        ++si;
      } else if (pi < p.size() && p[pi] == '*') {
        star = pi++;
        mark = si;
      } else if (star != std::string_view::npos) {
        pi = star + 1;
        si = ++mark;
      } else {
        return false;
      }
    }
    while (pi < p.size() && p[pi] == '*') ++pi;
    return pi == p.size();
  }

  std::string text_;
  bool glob_ = false;
};

// ---- JSON out ---------------------------------------------------------------------

std::string ErrorJson(std::string_view message) {
  JsonWriter w;
  w.BeginObject();
  w.StringField("error", message);
  w.EndObject();
  return w.Take();
}

// ---- Arguments --------------------------------------------------------------------

std::string Echo(std::string_view s) { return "'" + Clip(s, kEchoBytes) + "'"; }

std::string TypeName(const nlohmann::json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

// The model's arguments for `tool`: a JSON object with only `allowed` keys.
// The first problem found, in the text or in an argument read, is kept as a
// message for the model (problem()); an argument that could not be read reads
// as not given, so that a tool reads all of its arguments, then checks once.
class Arguments {
 public:
  Arguments(std::string_view tool, std::string_view text,
            std::initializer_list<std::string_view> allowed)
      : tool_(tool) {
    Parse(text, allowed);
    if (!ok() || !json_.is_object()) json_ = nlohmann::json::object();
  }

  bool ok() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }

  bool Has(std::string_view key) const {
    auto it = json_.find(key);
    return it != json_.end() && !it->is_null();  // null: as if not given
  }

  std::optional<std::string> String(std::string_view key) {
    if (!Has(key)) return std::nullopt;
    const nlohmann::json& v = json_.at(key);
    if (!v.is_string()) return Refuse(Wrong(key, "a string", v));
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() > kMaxStringBytes) {
      return Refuse(fmt::format("{}: argument '{}' is {} bytes; at most {}", tool_, key, s.size(),
                                kMaxStringBytes));
    }
    return s;
  }

  // An integer in [min, max]; a number with a fraction, or out of range, is
  // refused with `what` ("an integer >= 1").
  std::optional<int64_t> Integer(std::string_view key, int64_t min, int64_t max,
                                 std::string_view what) {
    if (!Has(key)) return std::nullopt;
    const nlohmann::json& v = json_.at(key);
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(max) || (min > 0 && u < static_cast<uint64_t>(min))) {
        return Refuse(Range(key, what, v));
      }
      return static_cast<int64_t>(u);
    }
    if (v.is_number_integer()) {
      const int64_t i = v.get<int64_t>();
      if (i < min || i > max) return Refuse(Range(key, what, v));
      return i;
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(min) ||
          d > static_cast<double>(max)) {
        return Refuse(Range(key, what, v));
      }
      return static_cast<int64_t>(d);
    }
    return Refuse(Wrong(key, what, v));
  }

  // A list's length: an integer >= 1; more than AnalysisTools::kMaxLimit is
  // taken as that.
  size_t Limit(size_t fallback) {
    const auto limit = Integer("limit", 1, std::numeric_limits<int64_t>::max(), "an integer >= 1");
    if (!limit) return fallback;
    return std::min<size_t>(static_cast<size_t>(*limit), AnalysisTools::kMaxLimit);
  }

  std::optional<double> Number(std::string_view key, std::string_view what) {
    if (!Has(key)) return std::nullopt;
    const nlohmann::json& v = json_.at(key);
    if (!v.is_number()) return Refuse(Wrong(key, what, v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) return Refuse(Range(key, what, v));
    return d;
  }

  std::optional<bool> Bool(std::string_view key) {
    if (!Has(key)) return std::nullopt;
    const nlohmann::json& v = json_.at(key);
    if (!v.is_boolean()) return Refuse(Wrong(key, "a boolean", v));
    return v.get<bool>();
  }

  // The raw value, for a tool that reads a structure of its own (whatif's
  // changes); null when not given.
  const nlohmann::json& Raw(std::string_view key) const {
    static const nlohmann::json kNull;
    auto it = json_.find(key);
    return it == json_.end() ? kNull : *it;
  }

  // Keeps `message` as the problem (the first one found wins).
  void Problem(std::string message) { Refuse(std::move(message)); }

 private:
  void Parse(std::string_view text, std::initializer_list<std::string_view> allowed) {
    if (text.size() > kMaxArgumentBytes) {
      Refuse(fmt::format("{}: the arguments are {} bytes; at most {}", tool_, text.size(),
                         kMaxArgumentBytes));
      return;
    }
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return;  // none at all: {}
    if (JsonNestsDeeperThan(text, kMaxDepth)) {
      Refuse(fmt::format("{}: the arguments nest more than {} levels deep", tool_, kMaxDepth));
      return;
    }
    try {
      json_ = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      std::string what = e.what();
      if (const size_t at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
      Refuse(fmt::format("{}: the arguments are not valid JSON: {}", tool_, Clip(what, 160)));
      return;
    } catch (const std::exception&) {
      Refuse(fmt::format("{}: the arguments could not be read", tool_));
      return;
    }
    if (!json_.is_object()) {
      Refuse(fmt::format("{}: the arguments must be a JSON object, not {}", tool_,
                         TypeName(json_)));
      return;
    }
    for (const auto& [key, value] : json_.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string names;
        for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
        Refuse(fmt::format("{}: unknown argument {}; it takes {}", tool_, Echo(key),
                           names.empty() ? std::string("none") : names));
        return;
      }
    }
  }

  // Keeps `message` unless a problem was found before; the argument reads as
  // not given.
  std::nullopt_t Refuse(std::string message) {
    if (problem_.empty()) problem_ = std::move(message);
    return std::nullopt;
  }
  std::string Wrong(std::string_view key, std::string_view what, const nlohmann::json& v) const {
    return fmt::format("{}: argument '{}' must be {}, not {}", tool_, key, what, TypeName(v));
  }
  std::string Range(std::string_view key, std::string_view what, const nlohmann::json& v) const {
    return fmt::format("{}: argument '{}' must be {}, not {}", tool_, key, what,
                       Clip(v.dump(), 40));
  }

  std::string tool_;
  nlohmann::json json_ = nlohmann::json::object();
  std::string problem_;
};

}  // namespace

// ---- One call -------------------------------------------------------------------------

// One call's work: the arguments checked, the rows rendered, the largest
// result that fits the budget chosen.
class ToolRun {
 public:
  ToolRun(const AnalysisTools& tools, const TokenCounter& counter, size_t max_tokens)
      : t_(tools),
        snap_(tools.judged_.snapshot),
        a_(tools.judged_.analysis),
        net_(snap_.network),
        counter_(counter),
        max_(max_tokens) {}

  ToolResult Run(std::string_view name, std::string_view arguments) {
    if (!t_.Applies(name)) {
      for (const ToolDefinition& d : AnalysisTools::Definitions()) {
        if (d.spec.name == name) return Fail(NotHere(d));
      }
      std::string names;
      for (const ToolSpec& s : t_.specs()) names += (names.empty() ? "" : ", ") + s.name;
      return Fail(fmt::format("unknown tool {}; the tools are {}", Echo(name), names));
    }
    if (name == "summary") return Summary(arguments);
    if (name == "top_nodes") return TopNodes(arguments);
    if (name == "node") return NodeTool(arguments);
    if (name == "findings") return FindingsTool(arguments);
    if (name == "frames") return Frames(arguments);
    if (name == "critical_path") return CriticalPathTool(arguments);
    if (name == "whatif") return RunWhatIf(arguments);
    if (name == "container") return ListContainer(arguments);
    if (name == "gpu_breakdown") return GpuBreakdown(arguments);
    if (name == "launches") return Launches(arguments);
    return Threads(arguments);
  }

 private:
  bool Fits(const std::string& text) const { return counter_.Count(text) <= max_; }

  // An error within the budget: the message, else a shorter one, else "{}",
  // else nothing.
  ToolResult Fail(const std::string& message) const {
    ToolResult r{.error = true};
    for (const std::string& text :
         {ErrorJson(message), ErrorJson(Clip(message, 60)), ErrorJson("no room"), std::string("{}")}) {
      if (Fits(text)) {
        r.content = text;
        return r;
      }
    }
    return r;  // content ""
  }

  // `content` whole, or an error when it does not fit.
  ToolResult Whole(std::string content) const {
    if (!Fits(content)) return TooLarge();
    return ToolResult{.content = std::move(content)};
  }

  // A document as compact JSON; invalid UTF-8 in ids becomes U+FFFD.
  static std::string Compact(const nlohmann::ordered_json& doc) {
    return doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  }

  ToolResult TooLarge() const {
    return Fail(fmt::format("the result does not fit in {} tokens", max_));
  }

  // The largest `k` in [min_rows, rows] whose render(k) fits (rows first, then
  // by bisection, as the count grows with k); nullopt when min_rows does not.
  template <typename Render>
  std::optional<std::pair<size_t, std::string>> FitRows(size_t rows, size_t min_rows,
                                                        const Render& render) const {
    std::string all = render(rows);
    if (Fits(all)) return std::pair{rows, std::move(all)};
    if (min_rows >= rows) return std::nullopt;
    std::string low = render(min_rows);
    if (!Fits(low)) return std::nullopt;
    size_t lo = min_rows, hi = rows - 1;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo + 1) / 2;
      std::string text = render(mid);
      if (Fits(text)) {
        lo = mid;
        low = std::move(text);
      } else {
        hi = mid - 1;
      }
    }
    return std::pair{lo, std::move(low)};
  }

  // "{prefix,"KEY":[rows...]}" with ',"truncated":true,"total":N' when fewer
  // than `total` rows are shown. `prefix` is "" or members with no braces.
  static std::string ListDoc(std::string_view prefix, std::string_view key,
                             std::span<const std::string> rows, size_t shown, size_t total) {
    std::string out = "{";
    out += prefix;
    if (!prefix.empty()) out += ',';
    AppendJsonString(out, key);
    out += ":[";
    for (size_t i = 0; i < shown; ++i) {
      if (i > 0) out += ',';
      out += rows[i];
    }
    out += ']';
    if (shown < total) out += fmt::format(",\"truncated\":true,\"total\":{}", total);
    out += '}';
    return out;
  }

  static std::string Members(JsonWriter& w) {  // an object's members without its braces
    w.EndObject();
    return w.text().substr(1, w.text().size() - 2);
  }

  std::vector<NodeIndex> Ranked(const std::vector<bool>& keep) const {
    std::vector<NodeIndex> out;
    for (NodeIndex n : t_.ranked_) {
      if (keep[n]) out.push_back(n);
    }
    return out;
  }

  std::optional<size_t> RankOf(NodeIndex n) const {
    const size_t p = t_.position_[n];
    return p < t_.cooked_ ? std::optional<size_t>(p + 1) : std::nullopt;
  }

  bool Waits(NodeIndex n) const { return n < a_.waiting.size() && a_.waiting[n]; }

  // An unknown id, with the closest one when it looks like a typo.
  std::string UnknownId(std::string_view tool, std::string_view id) const {
    std::string message = fmt::format("{}: no node has the id {} in {}", tool, Echo(id), t_.file_);
    if (id.size() <= 256) {
      if (auto close = ClosestId(net_, id)) message += fmt::format("; did you mean {}?", Echo(*close));
    }
    return message;
  }

  // ---- node ----

  // The node's object: score's per-node object (same keys, same numbers, and
  // gain_ms when the analysis has gains), then what `detail` shows of its
  // place, parameters, findings and slowest frames.
  std::string NodeObject(NodeIndex n, const Detail& d) const {
    const Node& node = net_.node(n);
    JsonWriter w;
    score_internal::WriteNode(w, snap_, a_, n, RankOf(n), !a_.gain_ms.empty());
    if (Waits(n)) w.BoolField("waiting", true);
    if (d.parent) w.StringField("parent", node.parent);
    if (d.params > 0 && !node.params.empty()) Params(w, node, d);
    if (d.edges > 0) {
      Edges(w, "inputs", t_.inputs_of(n), true, d.edges);
      Edges(w, "outputs", t_.outputs_of(n), false, d.edges);
    }
    if (d.findings > 0) Findings(w, n, d);
    if (d.frames > 0) SlowestFrames(w, n, d.frames);
    w.EndObject();
    return w.Take();
  }

  // "slowest_frames": the frames in which it cooked longest, longest first.
  void SlowestFrames(JsonWriter& w, NodeIndex n, size_t limit) const {
    std::span<const double> series = snap_.samples.series(n, Metric::kCookMs);
    std::vector<std::pair<double, size_t>> cooked;
    for (size_t f = 0; f < series.size(); ++f) {
      if (!IsMissing(series[f])) cooked.emplace_back(series[f], f);
    }
    if (cooked.empty()) return;
    const size_t shown = std::min(limit, cooked.size());
    std::partial_sort(cooked.begin(), cooked.begin() + static_cast<ptrdiff_t>(shown), cooked.end(),
                      [](const auto& x, const auto& y) {
                        return x.first != y.first ? x.first > y.first : x.second < y.second;
                      });
    const std::vector<int64_t>& numbers = snap_.samples.frame_index();
    w.Key(snap_.info.steps() ? "slowest_steps" : "slowest_frames");
    w.BeginArray();
    for (size_t i = 0; i < shown; ++i) {
      w.BeginObject();
      w.CountField("index", cooked[i].second);
      w.IntField(snap_.info.steps() ? "step" : "frame", numbers[cooked[i].second]);
      w.NumberField("ms", cooked[i].first);
      w.EndObject();
    }
    w.EndArray();
  }

  // The pack's key parameters first (advisor/pack.h), then the others, each
  // name once.
  void Params(JsonWriter& w, const Node& node, const Detail& d) const {
    std::vector<size_t> order;
    std::vector<bool> taken(node.params.size(), false);
    auto seen = [&](const std::string& key) {
      for (size_t i : order) {
        if (node.params[i].first == key) return true;
      }
      return false;
    };
    for (const std::string& name : KeyParamsFor(t_.judged_.pack, node)) {
      for (size_t i = 0; i < node.params.size(); ++i) {
        if (!taken[i] && node.params[i].first == name && !seen(name)) {
          taken[i] = true;
          order.push_back(i);
          break;
        }
      }
    }
    for (size_t i = 0; i < node.params.size(); ++i) {
      if (!taken[i] && !seen(node.params[i].first)) order.push_back(i);
    }
    w.Key("params");
    w.BeginObject();
    for (size_t k = 0; k < order.size() && k < d.params; ++k) {
      const auto& [key, value] = node.params[order[k]];
      w.StringField(Clip(key, 64), Clip(value, d.param_bytes));
    }
    w.EndObject();
    if (order.size() > d.params) w.CountField("params_total", order.size());
  }

  // {"data":[ids],"call":[ids],...}: the neighbours by edge kind (in the order
  // of EdgeKind), each once, the first `limit` in all.
  void Edges(JsonWriter& w, std::string_view key, const std::vector<size_t>& edges, bool inputs,
             size_t limit) const {
    std::vector<std::vector<NodeIndex>> by_kind(kEdgeKindCount);
    size_t distinct = 0;
    for (size_t e : edges) {
      const Edge& edge = net_.edges()[e];
      auto& list = by_kind[static_cast<size_t>(edge.kind)];
      const NodeIndex other = inputs ? edge.from : edge.to;
      if (std::find(list.begin(), list.end(), other) != list.end()) continue;
      list.push_back(other);
      ++distinct;
    }
    w.Key(key);
    w.BeginObject();
    size_t shown = 0;
    for (int k = 0; k < kEdgeKindCount && shown < limit; ++k) {
      if (by_kind[k].empty()) continue;
      w.Key(EdgeKindName(static_cast<EdgeKind>(k)));
      w.BeginArray();
      for (NodeIndex other : by_kind[k]) {
        if (shown == limit) break;
        w.String(net_.node(other).id);
        ++shown;
      }
      w.EndArray();
    }
    w.EndObject();
    if (distinct > shown) w.CountField(std::string(key) + "_total", distinct);
  }

  void Findings(JsonWriter& w, NodeIndex n, const Detail& d) const {
    const std::vector<size_t>& found = t_.findings_of(n);
    if (found.empty()) return;
    w.Key("findings");
    w.BeginArray();
    for (size_t k = 0; k < found.size() && k < d.findings; ++k) {
      const Finding& f = t_.judged_.findings[found[k]];
      w.BeginObject();
      w.StringField("rule", f.rule);
      w.StringField("severity", SeverityName(f.severity));
      w.StringField("title", Clip(f.title, d.title_bytes));
      w.EndObject();
    }
    w.EndArray();
    if (found.size() > d.findings) w.CountField("findings_total", found.size());
  }

  ToolResult NodeTool(std::string_view text) {
    Arguments args("node", text, {"id"});
    const std::optional<std::string> id_value = args.String("id");
    if (!args.ok()) return Fail(args.problem());
    if (!id_value) return Fail("node: argument 'id' is missing: the exact id of a node (top_nodes finds ids)");
    const std::optional<NodeIndex> n = net_.Find(*id_value);
    if (!n) return Fail(UnknownId("node", *id_value));
    // In full detail; if it does not fit, with less.
    for (const Detail& d : kDetails) {
      std::string object = NodeObject(*n, d);
      if (!Fits(object)) continue;
      ToolResult r{.content = std::move(object)};
      r.nodes.push_back(net_.node(*n).id);
      return r;
    }
    return TooLarge();
  }

  // ---- Rows of lists ----

  // {"id","type","family","rank","avg_ms","per_frame_ms","score"}, as score's.
  std::string NodeRow(NodeIndex n) const {
    const Node& node = net_.node(n);
    const NodeStats& s = a_.stats[n];
    const bool cooked = s.cooked_frames > 0;
    JsonWriter w;
    w.BeginObject();
    w.StringField("id", node.id);
    w.StringField("type", node.type);
    w.StringField("family", node.family);
    const auto rank = RankOf(n);
    w.Field("rank", rank ? Value(uint64_t{*rank}) : Value());
    w.Field("avg_ms", cooked ? Value(s.avg_ms) : Value());
    w.Field("per_frame_ms", cooked ? Value(s.per_frame_ms) : Value());
    w.Field("score", cooked ? Value(s.score) : Value());
    if (Waits(n)) w.BoolField("waiting", true);
    w.EndObject();
    return w.Take();
  }

  ToolResult Listed(std::string content, std::span<const NodeIndex> nodes) const {
    ToolResult r{.content = std::move(content)};
    for (NodeIndex n : nodes) r.listed.push_back(net_.node(n).id);
    return r;
  }

  // ---- top_nodes ----

  ToolResult TopNodes(std::string_view text) {
    Arguments args("top_nodes", text, {"sort", "top", "type", "family", "name"});
    std::optional<Matcher> by_type, by_family, by_name;
    for (auto [key, matcher] : {std::pair{"type", &by_type}, std::pair{"family", &by_family},
                                std::pair{"name", &by_name}}) {
      if (const auto s = args.String(key)) matcher->emplace(*s);
    }
    const std::optional<std::string> sort_name = args.String("sort");
    const auto top = args.Integer("top", 1, std::numeric_limits<int64_t>::max(), "an integer >= 1");
    if (!args.ok()) return Fail(args.problem());
    SortKey sort = SortKey::kScore;
    if (sort_name) {
      const std::optional<SortKey> key = ParseSortKey(*sort_name);
      if (!key) {
        return Fail(fmt::format("top_nodes: argument 'sort' must be one of score, avg, p95, max, "
                                "per-frame, gpu, upstream, gain, not {}", Echo(*sort_name)));
      }
      sort = *key;
    }
    if (sort == SortKey::kGain && a_.gain_ms.empty()) {
      return Fail(fmt::format("top_nodes: {} has no predicted gains to sort by", t_.file_));
    }
    // A `top` over the most rows a list gives is cut, and the result says so.
    const size_t asked = top ? static_cast<size_t>(*top) : 10;
    const size_t limit = std::min(asked, AnalysisTools::kMaxLimit);
    const std::vector<NodeIndex> order = sort == SortKey::kScore ? t_.ranked_ : Rank(a_, sort);
    const size_t cooked = std::min(t_.cooked_, order.size());
    std::vector<std::pair<NodeIndex, std::optional<size_t>>> matches;  // node, its rank
    for (size_t i = 0; i < order.size(); ++i) {
      const Node& node = net_.node(order[i]);
      if ((!by_type || (*by_type)(node.type)) && (!by_family || (*by_family)(node.family)) &&
          (!by_name || (*by_name)(node.id))) {
        matches.emplace_back(order[i], i < cooked ? std::optional<size_t>(i + 1) : std::nullopt);
      }
    }
    const size_t rows = std::min(matches.size(), limit);
    std::vector<std::string> lines;
    std::vector<NodeIndex> nodes;
    for (size_t i = 0; i < rows; ++i) {
      JsonWriter w;  // as `score --sort KEY --format json` writes it
      score_internal::WriteNode(w, snap_, a_, matches[i].first, matches[i].second, sort == SortKey::kGain);
      w.EndObject();
      lines.push_back(w.Take());
      nodes.push_back(matches[i].first);
    }
    JsonWriter head;
    head.BeginObject();
    head.StringField("sort", SortKeyName(sort));
    if (asked > limit) {
      head.StringField("note", fmt::format("top {} is more than a list gives: at most {} rows", asked, limit));
    }
    const std::string prefix = Members(head);
    auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc(prefix, "nodes", lines, k, matches.size()); });
    if (!fit) return TooLarge();
    return Listed(std::move(fit->second), std::span(nodes).first(fit->first));
  }

  // ---- container ----

  ToolResult ListContainer(std::string_view text) {
    Arguments args("container", text, {"path", "limit"});
    const std::optional<std::string> path_arg = args.String("path");
    const size_t limit = args.Limit(20);
    if (!args.ok()) return Fail(args.problem());
    if (!path_arg) {
      return Fail("container: argument 'path' is missing: a container id, \"\" for the top level");
    }
    std::string path = *path_arg;
    const ContainerIndex& ci = t_.containers();
    auto found = ci.by_id.find(path);
    while (found == ci.by_id.end() && path.size() > 1 && path.back() == '/') {
      path.pop_back();  // "/project1/" names "/project1"
      found = ci.by_id.find(path);
    }
    const bool top = path.empty();
    if (!top && found == ci.by_id.end()) {
      std::string names;
      for (size_t i = 0; i < ci.top.size() && i < 10; ++i) {
        names += (names.empty() ? "" : ", ") + Echo(ci.containers[ci.top[i]].id);
      }
      return Fail(fmt::format("container: no container {} in {}{}", Echo(path), t_.file_,
                              names.empty() ? "; it has none"
                                            : fmt::format("; the top level holds {}{}", names,
                                                          ci.top.size() > 10 ? ", ..." : "")));
    }
    std::vector<size_t> subs = top ? ci.top : ci.children[found->second];
    // By the roll-up's order: ms per frame, largest first, then id.
    std::sort(subs.begin(), subs.end(), [&](size_t x, size_t y) {
      const ContainerStats &a = ci.stats[x], &b = ci.stats[y];
      if (a.per_frame_ms != b.per_frame_ms) return a.per_frame_ms > b.per_frame_ms;
      return a.id < b.id;
    });
    std::vector<bool> keep(net_.size(), false);
    for (NodeIndex n : top ? ci.top_nodes : ci.containers[found->second].direct) keep[n] = true;
    const std::vector<NodeIndex> nodes = Ranked(keep);

    JsonWriter head;
    head.BeginObject();
    head.StringField("path", path);
    if (!top) {
      const Container& c = ci.containers[found->second];
      const ContainerStats& s = ci.stats[found->second];
      head.StringField("parent", c.parent);
      head.CountField("nodes_beneath", s.nodes);
      head.CountField("cooked_nodes", s.cooked_nodes);
      head.NumberField("per_frame_ms", s.per_frame_ms);
      head.NumberField("self_per_frame_ms", s.self_per_frame_ms);
      head.NumberField("share", s.share);
    }
    const std::string prefix = Members(head);
    std::vector<std::string> sub_rows, node_rows;
    const size_t sub_count = std::min(subs.size(), limit), node_count = std::min(nodes.size(), limit);
    for (size_t i = 0; i < sub_count; ++i) {
      const ContainerStats& s = ci.stats[subs[i]];
      JsonWriter w;
      w.BeginObject();
      w.StringField("id", s.id);
      w.CountField("nodes", s.nodes);
      w.CountField("cooked_nodes", s.cooked_nodes);
      w.NumberField("per_frame_ms", s.per_frame_ms);
      w.NumberField("share", s.share);
      w.StringField("costliest", s.costliest);
      w.EndObject();
      sub_rows.push_back(w.Take());
    }
    for (size_t i = 0; i < node_count; ++i) node_rows.push_back(NodeRow(nodes[i]));
    // k rows of each list at most.
    auto render = [&](size_t k) {
      std::string out = "{" + prefix + ",\"containers\":[";
      const size_t cs = std::min(k, sub_count), ns = std::min(k, node_count);
      for (size_t i = 0; i < cs; ++i) out += (i > 0 ? "," : "") + sub_rows[i];
      out += "],\"nodes\":[";
      for (size_t i = 0; i < ns; ++i) out += (i > 0 ? "," : "") + node_rows[i];
      out += ']';
      if (cs < subs.size() || ns < nodes.size()) {
        out += fmt::format(",\"truncated\":true,\"containers_total\":{},\"nodes_total\":{}",
                           subs.size(), nodes.size());
      }
      return out + "}";
    };
    auto fit = FitRows(std::max(sub_count, node_count), 0, render);
    if (!fit) return TooLarge();
    return Listed(std::move(fit->second),
                  std::span(nodes).first(std::min(fit->first, node_count)));
  }

  // ---- frames ----

  // A frame chosen by 'index' or by number ('frame', or 'step'): its
  // position, or the problem as a message. Neither given: nullopt and no
  // problem.
  std::optional<size_t> ChosenFrame(Arguments& args, std::string_view tool, std::string& problem) const {
    const size_t frames = snap_.samples.frame_count();
    const int64_t last = static_cast<int64_t>(frames) - 1;
    const std::optional<int64_t> index_value =
        args.Integer("index", 0, std::max<int64_t>(last, 0), fmt::format("an integer from 0 to {}", last));
    const std::string_view number_key = args.Has("step") ? "step" : "frame";
    const std::optional<int64_t> number_value =
        args.Integer(number_key, std::numeric_limits<int64_t>::min(),
                     std::numeric_limits<int64_t>::max(), "an integer");
    if (!args.ok()) {
      problem = args.problem();
      return std::nullopt;
    }
    if ((index_value && number_value) || (args.Has("step") && args.Has("frame"))) {
      problem = fmt::format("{}: give 'index' (0-based position) or '{}' (the engine's {} "
                            "number), not both", tool, tool == "frames" ? "frame" : "step",
                            tool == "frames" ? "frame or step" : "step");
      return std::nullopt;
    }
    if (!index_value && !number_value) return std::nullopt;
    if (frames == 0) {
      problem = fmt::format("{}: {} has no frames", tool, t_.file_);
      return std::nullopt;
    }
    if (index_value) return static_cast<size_t>(*index_value);
    const std::vector<int64_t>& numbers = snap_.samples.frame_index();
    auto it = std::find(numbers.begin(), numbers.end(), *number_value);
    if (it == numbers.end()) {
      problem = fmt::format("{}: no {} numbered {} in {}; its {}s are numbered {} to {}", tool,
                            snap_.info.frame_word(), *number_value, t_.file_, snap_.info.frame_word(),
                            numbers.front(), numbers.back());
      return std::nullopt;
    }
    return static_cast<size_t>(it - numbers.begin());
  }

  ToolResult Frames(std::string_view text) {
    Arguments args("frames", text, {"index", "frame", "step", "over_budget", "limit"});
    if (!args.ok()) return Fail(args.problem());
    std::string problem;
    const std::optional<size_t> chosen = ChosenFrame(args, "frames", problem);
    const bool only_over = args.Bool("over_budget").value_or(false);
    const size_t limit = args.Limit(20);
    if (!args.ok()) return Fail(args.problem());
    if (!problem.empty()) return Fail(problem);
    if (chosen && args.Has("over_budget")) {
      return Fail("frames: 'over_budget' chooses among the slowest frames; it does not go with a frame");
    }
    if (!chosen) return SlowestFrameList(only_over, limit);
    return OneFrame(*chosen, limit);
  }

  // The slowest frames (only those over budget with `only_over`), slowest first.
  ToolResult SlowestFrameList(bool only_over, size_t limit) const {
    const bool steps = snap_.info.steps();
    const std::vector<int64_t>& numbers = snap_.samples.frame_index();
    std::vector<size_t> order;
    for (size_t f = 0; f < a_.frames.frame_ms.size() && f < numbers.size(); ++f) {
      if (IsMissing(a_.frames.frame_ms[f])) continue;  // a frame without work is not counted
      if (only_over && !std::binary_search(a_.frames.over_budget.begin(), a_.frames.over_budget.end(), f)) continue;
      order.push_back(f);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return a_.frames.frame_ms[x] > a_.frames.frame_ms[y];
    });
    JsonWriter head;
    head.BeginObject();
    head.StringField("frame_word", snap_.info.frame_word());
    head.Field("budget_ms", a_.has_budget ? Value(a_.budget_ms) : Value());
    head.NumberField("mean_ms", a_.frames.mean_ms);
    head.NumberField("p95_ms", a_.frames.p95_ms);
    head.BoolField("measured", a_.frames.measured);
    if (a_.has_budget) head.CountField("over_budget_frames", a_.frames.over_budget.size());
    const std::string prefix = Members(head);
    const size_t rows = std::min(order.size(), limit);
    std::vector<std::string> lines;
    for (size_t i = 0; i < rows; ++i) {
      const size_t f = order[i];
      JsonWriter w;
      w.BeginObject();
      w.CountField("index", f);
      w.IntField(steps ? "step" : "frame", numbers[f]);
      w.NumberField("ms", a_.frames.frame_ms[f]);
      if (a_.has_budget) {
        w.BoolField("over_budget", std::binary_search(a_.frames.over_budget.begin(),
                                                      a_.frames.over_budget.end(), f));
      }
      w.EndObject();
      lines.push_back(w.Take());
    }
    auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc(prefix, "frames", lines, k, order.size()); });
    if (!fit) return TooLarge();
    return ToolResult{.content = std::move(fit->second)};
  }

  ToolResult OneFrame(size_t f, size_t limit) const {
    const std::vector<int64_t>& numbers = snap_.samples.frame_index();
    const bool steps = snap_.info.steps();
    const double ms = f < a_.frames.frame_ms.size() ? a_.frames.frame_ms[f] : kMissing;

    JsonWriter head;
    head.BeginObject();
    head.CountField("index", f);
    head.IntField(steps ? "step" : "frame", numbers[f]);
    head.NumberField("ms", ms);  // null: a frame without work, not counted
    head.BoolField("measured", a_.frames.measured);
    head.Field("budget_ms", a_.has_budget ? Value(a_.budget_ms) : Value());
    if (a_.has_budget) {
      head.BoolField("over_budget", std::binary_search(a_.frames.over_budget.begin(),
                                                       a_.frames.over_budget.end(), f));
    }
    head.NumberField("mean_ms", a_.frames.mean_ms);
    head.NumberField("p95_ms", a_.frames.p95_ms);
    if (snap_.samples.has_profiler_ms()) head.NumberField("profiler_ms", snap_.samples.profiler_ms()[f]);
    if (a_.trace) TraceStep(head, *a_.trace, numbers[f], f);

    // The nodes that cooked in it, slowest first (ties by NodeIndex).
    std::vector<std::pair<double, NodeIndex>> cooked;
    for (NodeIndex n = 0; n < net_.size(); ++n) {
      std::span<const double> series = snap_.samples.series(n, Metric::kCookMs);
      if (f < series.size() && !IsMissing(series[f])) cooked.emplace_back(series[f], n);
    }
    std::sort(cooked.begin(), cooked.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    head.CountField("cooked", cooked.size());
    const std::string prefix = Members(head);
    const size_t rows = std::min(cooked.size(), limit);
    std::vector<std::string> lines;
    std::vector<NodeIndex> shown;
    for (size_t i = 0; i < rows; ++i) {
      const NodeIndex n = cooked[i].second;
      JsonWriter w;
      w.BeginObject();
      w.StringField("id", net_.node(n).id);
      w.NumberField("ms", cooked[i].first);
      w.NumberField("p50_ms", a_.stats[n].p50_ms);  // its usual cook, to see a spike
      std::span<const double> gpu = snap_.samples.series(n, Metric::kGpuMs);
      if (f < gpu.size() && !IsMissing(gpu[f])) w.NumberField("gpu_ms", gpu[f]);
      if (Waits(n)) w.BoolField("waiting", true);
      w.EndObject();
      lines.push_back(w.Take());
      shown.push_back(n);
    }
    auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc(prefix, "nodes", lines, k, cooked.size()); });
    if (!fit) return TooLarge();
    return Listed(std::move(fit->second), std::span(shown).first(fit->first));
  }

  // A trace's numbers for one step (docs/architecture.md#traces-steps-ranks-and-memory):
  // each rank's step time and straggling, GPU time, memory peaks, and what
  // grew when it is the slowest step. Short lists, cut at fixed lengths.
  void TraceStep(JsonWriter& w, const TraceSummary& t, int64_t step, size_t f) const {
    constexpr size_t kRows = 8;
    w.Key("ranks");
    w.BeginArray();
    size_t shown = 0;
    for (const RankSteps& r : t.ranks) {
      auto it = std::find(r.steps.begin(), r.steps.end(), step);
      if (it == r.steps.end() || shown == kRows) continue;
      const size_t j = static_cast<size_t>(it - r.steps.begin());
      w.BeginObject();
      w.CountField("rank", r.rank);
      w.NumberField("step_ms", j < r.step_ms.size() ? r.step_ms[j] : kMissing);
      if (t.job() && j < r.straggler_ms.size() && r.straggler_ms[j]) {
        w.NumberField("straggler_ms", *r.straggler_ms[j]);
      }
      w.EndObject();
      ++shown;
    }
    w.EndArray();
    if (!t.gpu.empty()) {
      w.Key("gpu");
      w.BeginArray();
      shown = 0;
      for (const RankGpuTime& r : t.gpu.ranks) {
        for (const StepGpuTime& s : r.steps) {
          if (s.step != step || shown == kRows) continue;
          w.BeginObject();
          w.CountField("rank", r.rank);
          score_internal::WriteStepGpuTime(w, s);
          w.EndObject();
          ++shown;
        }
      }
      w.EndArray();
    }
    shown = 0;
    bool memory = false;
    for (const MemoryPeak& m : t.memory) {
      for (const StepMemory& s : m.steps) {
        if (s.step != step || shown == kRows) continue;
        if (!memory) {
          w.Key("memory");
          w.BeginArray();
          memory = true;
        }
        w.BeginObject();
        w.CountField("rank", m.rank);
        w.StringField("device", m.device);
        score_internal::WritePeaks(w, s.peak_allocated_mb, s.peak_reserved_mb);
        w.EndObject();
        ++shown;
      }
    }
    if (memory) w.EndArray();
    if (t.slowest && t.slowest->frame == f) {
      w.Key("slowest_step");
      w.BeginObject();
      w.NumberField("mean_ms", t.slowest->mean_ms);
      w.Key("grew");
      score_internal::WriteGrew(w, net_, t.slowest->nodes);
      w.EndObject();
    }
  }

  // ---- whatif ----

  ToolResult RunWhatIf(std::string_view text) {
    Arguments args("whatif", text, {"id", "factor", "changes", "top"});
    const std::optional<std::string> id_value = args.String("id");
    const std::optional<double> factor_value = args.Number("factor", "a finite number >= 0");
    const auto top = args.Integer("top", 1, std::numeric_limits<int64_t>::max(), "an integer >= 1");
    if (!args.ok()) return Fail(args.problem());
    std::vector<WhatIfChange> changes;
    if (id_value) {
      const std::optional<NodeIndex> n = net_.Find(*id_value);
      if (!n) return Fail(UnknownId("whatif", *id_value));
      changes.push_back({.node = *n, .factor = factor_value.value_or(0.5)});
    } else if (factor_value) {
      return Fail("whatif: 'factor' goes with 'id' (or each of 'changes')");
    }
    if (top && (id_value || args.Has("changes"))) {
      return Fail("whatif: 'top' is for the largest savings, without 'id' or 'changes'");
    }
    const nlohmann::json& listed = args.Raw("changes");
    if (!listed.is_null()) {
      if (!listed.is_array() || listed.size() > 64) {
        return Fail("whatif: argument 'changes' must be an array of at most 64 {\"id\", \"factor\"}");
      }
      for (const nlohmann::json& c : listed) {
        auto id = c.is_object() ? c.find("id") : c.end();
        auto factor = c.is_object() ? c.find("factor") : c.end();
        const bool factor_ok = !c.is_object() || factor == c.end() ||
                               (factor->is_number() && std::isfinite(factor->get<double>()) &&
                                factor->get<double>() >= 0);
        if (!c.is_object() || id == c.end() || !id->is_string() || !factor_ok || c.size() > 2) {
          return Fail("whatif: each of 'changes' must be {\"id\": a node id, \"factor\": a number "
                      ">= 0 (default 0.5)}");
        }
        const std::optional<NodeIndex> n = net_.Find(id->get<std::string>());
        if (!n) return Fail(UnknownId("whatif", id->get<std::string>()));
        changes.push_back({.node = *n, .factor = factor == c.end() ? 0.5 : factor->get<double>()});
      }
    }
    // As `cookgraph whatif INPUT --node ID=F... --format json` (writers/whatif_formats.cc).
    const size_t rows = std::min<size_t>(top ? static_cast<size_t>(*top) : 10, AnalysisTools::kMaxLimit);
    nlohmann::ordered_json doc = WhatIfJson(t_.file_, snap_, t_.whatif(), changes, rows);
    std::string content = Compact(doc);
    // The per-frame series (two numbers a frame) are the detail left out
    // first: with them a change on a few hundred frames never fits `ask`'s
    // budget of a result.
    if (!Fits(content) && doc.contains("series")) {
      doc.erase("series");
      content = Compact(doc);
    }
    if (!Fits(content)) return TooLarge();
    ToolResult r{.content = std::move(content)};
    for (const WhatIfChange& c : changes) r.nodes.push_back(net_.node(c.node).id);
    return r;
  }

  // ---- summary ----

  ToolResult Summary(std::string_view text) {
    Arguments args("summary", text, {});
    if (!args.ok()) return Fail(args.problem());
    JsonWriter w;
    w.BeginObject();
    score_internal::WriteFrameSummary(w, t_.file_, snap_, a_);
    w.StringField("frame_word", snap_.info.frame_word());
    w.CountField("nodes", net_.size());
    w.CountField("cooked_nodes", t_.cooked_);
    w.CountField("edges", net_.edges().size());
    w.Key("findings");
    w.BeginObject();
    for (Severity severity : {Severity::kCritical, Severity::kWarning, Severity::kInfo}) {
      size_t count = 0;
      for (const Finding& f : t_.judged_.findings) count += f.severity == severity ? 1 : 0;
      w.CountField(SeverityName(severity), count);
    }
    w.EndObject();
    w.Key("top");
    w.BeginArray();
    for (size_t i = 0; i < t_.cooked_ && i < 5; ++i) w.String(net_.node(t_.ranked_[i]).id);
    w.EndArray();
    w.Key("critical_path");
    w.BeginObject();
    w.CountField("nodes", a_.critical_path.nodes.size());
    w.NumberField("per_frame_ms", a_.critical_path.weight);
    w.EndObject();
    w.CountField("loops", a_.loops.size());
    w.Key("tools");
    w.BeginArray();
    for (const ToolSpec& s : t_.specs()) w.String(s.name);
    w.EndArray();
    w.CountField("warnings", a_.warnings.size());
    w.EndObject();
    return Whole(w.Take());
  }

  // ---- findings ----

  ToolResult FindingsTool(std::string_view text) {
    Arguments args("findings", text, {"severity", "node", "limit"});
    const std::optional<std::string> severity_name = args.String("severity");
    const std::optional<std::string> node_id = args.String("node");
    const size_t limit = args.Limit(10);
    if (!args.ok()) return Fail(args.problem());
    Severity least = Severity::kInfo;
    if (severity_name) {
      bool known = false;
      for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kCritical}) {
        if (SeverityName(s) == *severity_name) least = s, known = true;
      }
      if (!known) {
        return Fail(fmt::format("findings: argument 'severity' must be info, warning or critical, not {}",
                                Echo(*severity_name)));
      }
    }
    std::optional<NodeIndex> node;
    if (node_id) {
      node = net_.Find(*node_id);
      if (!node) return Fail(UnknownId("findings", *node_id));
    }
    std::vector<size_t> chosen;
    for (size_t i = 0; i < t_.judged_.findings.size(); ++i) {
      const Finding& f = t_.judged_.findings[i];
      if (f.severity < least) continue;
      if (node && std::find(f.nodes.begin(), f.nodes.end(), *node) == f.nodes.end()) continue;
      chosen.push_back(i);
    }
    std::stable_sort(chosen.begin(), chosen.end(), [&](size_t x, size_t y) {
      return t_.judged_.findings[x].severity > t_.judged_.findings[y].severity;
    });
    const size_t rows = std::min(chosen.size(), limit);
    std::vector<std::string> lines;
    std::vector<NodeIndex> shown_nodes;
    for (size_t i = 0; i < rows; ++i) lines.push_back(FindingObject(t_.judged_.findings[chosen[i]]));
    auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc("", "findings", lines, k, chosen.size()); });
    if (!fit) return TooLarge();
    ToolResult r{.content = std::move(fit->second)};
    for (size_t i = 0; i < fit->first; ++i) {
      for (NodeIndex n : t_.judged_.findings[chosen[i]].nodes) {
        if (n < net_.size()) r.listed.push_back(net_.node(n).id);
      }
    }
    return r;
  }

  std::string FindingObject(const Finding& f) const {
    constexpr size_t kNodes = 8;
    JsonWriter w;
    w.BeginObject();
    w.StringField("rule", f.rule);
    w.StringField("severity", SeverityName(f.severity));
    w.StringField("title", f.title);
    w.Key("nodes");
    w.BeginArray();
    for (size_t i = 0; i < f.nodes.size() && i < kNodes; ++i) {
      if (f.nodes[i] < net_.size()) w.String(net_.node(f.nodes[i]).id);
    }
    w.EndArray();
    if (f.nodes.size() > kNodes) w.CountField("nodes_total", f.nodes.size());
    w.Key("numbers");
    w.BeginObject();
    for (const auto& [name, value] : f.numbers) w.NumberField(name, value);
    w.EndObject();
    w.StringField("suggestion", Clip(f.suggestion, 1200));
    if (f.gain) {
      w.Key("gain");
      w.BeginObject();
      w.NumberField("saved_ms", f.gain->ms());
      w.IntField("frames_saved", f.gain->frames());
      w.CountField("over_budget_frames", f.gain->over_budget);
      w.EndObject();
    }
    if (!f.snippet.empty()) w.StringField("snippet", Clip(f.snippet, 600));
    if (!f.docs.empty()) w.StringField("docs", f.docs);
    w.EndObject();
    return w.Take();
  }

  // ---- critical_path ----

  ToolResult CriticalPathTool(std::string_view text) {
    Arguments args("critical_path", text, {"step", "index"});
    if (!args.ok()) return Fail(args.problem());
    std::string problem;
    const std::optional<size_t> chosen = ChosenFrame(args, "critical_path", problem);
    if (!args.ok()) return Fail(args.problem());
    if (!problem.empty()) return Fail(problem);
    nlohmann::ordered_json doc;
    if (!chosen) {  // as `cookgraph graph --format json` gives it
      doc = CriticalPathJson(net_, a_.critical_path,
                             a_.trace && a_.trace->path ? &*a_.trace->path : nullptr);
    } else {
      if (!a_.trace || snap_.timelines.empty()) {
        return Fail(fmt::format("critical_path: {}'s critical path is the network's, of the mean "
                                "frame; a step's is for traces", t_.file_));
      }
      std::string warning;
      const std::optional<StepPath> path = StepCriticalPath(snap_.timelines, *chosen, warning);
      if (!path) {
        return Fail(fmt::format("critical_path: no path for that step{}",
                                warning.empty() ? "" : ": " + Clip(warning, 160)));
      }
      Path nodes{.weight = path->length_ms};
      for (NodeIndex n : path->nodes) {
        if (n < net_.size()) nodes.nodes.push_back(n);
      }
      doc = CriticalPathJson(net_, nodes, &*path);
    }
    // A trace's events can outgrow the budget: the first ones that fit, saying so.
    std::string whole = Compact(doc);
    if (!doc.contains("events") || Fits(whole)) return Whole(std::move(whole));
    const nlohmann::ordered_json events = std::move(doc["events"]);
    auto render = [&](size_t k) {
      doc["events"] = nlohmann::ordered_json(events.begin(), events.begin() + static_cast<ptrdiff_t>(k));
      doc["truncated"] = true;
      doc["events_total"] = events.size();
      return Compact(doc);
    };
    auto fit = FitRows(events.size(), 0, render);
    if (!fit) return TooLarge();
    return ToolResult{.content = std::move(fit->second)};
  }

  // ---- gpu_breakdown, launches, threads ----

  std::string NotHere(const ToolDefinition& d) const {
    return d.scope == ToolScope::kThreads
               ? fmt::format("{}: {} is no GStreamer recording with streaming threads", d.spec.name, t_.file_)
               : fmt::format("{}: {} is no trace with GPU kernels", d.spec.name, t_.file_);
  }

  ToolResult GpuBreakdown(std::string_view text) {
    Arguments args("gpu_breakdown", text, {});
    if (!args.ok()) return Fail(args.problem());
    JsonWriter w;  // score's "gpu" without its launches
    score_internal::WriteGpu(w, a_.trace->gpu, /*launches=*/false);
    return Whole(w.Take());
  }

  ToolResult Launches(std::string_view text) {
    Arguments args("launches", text, {});
    if (!args.ok()) return Fail(args.problem());
    JsonWriter w;
    score_internal::WriteLaunches(w, a_.trace->gpu.launches);
    return Whole(w.Take());
  }

  ToolResult Threads(std::string_view text) {
    Arguments args("threads", text, {});
    if (!args.ok()) return Fail(args.problem());
    JsonWriter w;
    w.BeginObject();
    score_internal::WriteStreaming(w, snap_, *snap_.streaming);
    w.EndObject();
    return Whole(w.Take());
  }

  const AnalysisTools& t_;
  const Snapshot& snap_;
  const Analysis& a_;
  const Network& net_;
  const TokenCounter& counter_;
  const size_t max_;
};

// ---- AnalysisTools ------------------------------------------------------------------------

AnalysisTools::AnalysisTools(const Judged& judged, std::string file)
    : judged_(judged), file_(std::move(file)) {
  for (const ToolDefinition& d : Definitions()) {
    if (Applies(d.spec.name)) specs_.push_back(d.spec);
  }
  const Analysis& a = judged_.analysis;
  const Network& net = judged_.snapshot.network;
  ranked_ = Rank(a, SortKey::kScore);
  cooked_ = CookedCount(a);
  position_.assign(net.size(), ranked_.size());
  for (size_t i = 0; i < ranked_.size(); ++i) {
    if (ranked_[i] < net.size()) position_[ranked_[i]] = i;
  }
  inputs_.resize(net.size());
  outputs_.resize(net.size());
  for (size_t e = 0; e < net.edges().size(); ++e) {
    inputs_[net.edges()[e].to].push_back(e);
    outputs_[net.edges()[e].from].push_back(e);
  }
  findings_.resize(net.size());
  for (size_t i = 0; i < judged_.findings.size(); ++i) {
    std::vector<NodeIndex> nodes = judged_.findings[i].nodes;
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (NodeIndex n : nodes) {
      if (n < net.size()) findings_[n].push_back(i);
    }
  }
}

AnalysisTools::~AnalysisTools() = default;

const std::vector<ToolSpec>& AnalysisTools::specs() const { return specs_; }

const std::vector<ToolDefinition>& AnalysisTools::Definitions() {
  static const std::vector<ToolDefinition> definitions = MakeToolDefinitions();
  return definitions;
}

bool AnalysisTools::Applies(std::string_view name) const {
  for (const ToolDefinition& d : Definitions()) {
    if (d.spec.name != name) continue;
    switch (d.scope) {
      case ToolScope::kAlways:
        return true;
      case ToolScope::kGpu:
        return judged_.analysis.trace && !judged_.analysis.trace->gpu.empty();
      case ToolScope::kThreads:
        return judged_.snapshot.streaming.has_value();
    }
  }
  return false;
}

const WhatIf& AnalysisTools::whatif() const {
  std::call_once(whatif_once_, [this] {
    whatif_ = std::make_unique<WhatIf>(WhatIf::Build(judged_.snapshot, judged_.analysis));
  });
  return *whatif_;
}

const ContainerIndex& AnalysisTools::containers() const {
  std::call_once(containers_once_, [this] {
    auto ci = std::make_unique<ContainerIndex>();
    const Network& net = judged_.snapshot.network;
    ci->containers = Containers(net);
    for (size_t i = 0; i < ci->containers.size(); ++i) ci->by_id.emplace(ci->containers[i].id, i);
    ci->stats.resize(ci->containers.size());
    for (ContainerStats& s : RollUp(judged_.snapshot, judged_.analysis)) {
      if (auto it = ci->by_id.find(s.id); it != ci->by_id.end()) ci->stats[it->second] = std::move(s);
    }
    ci->children.resize(ci->containers.size());
    for (size_t i = 0; i < ci->containers.size(); ++i) {
      const Container& c = ci->containers[i];
      if (c.id.empty()) continue;  // the top level itself
      if (c.parent.empty()) {
        ci->top.push_back(i);
      } else if (auto it = ci->by_id.find(c.parent); it != ci->by_id.end()) {
        ci->children[it->second].push_back(i);
      }
    }
    for (NodeIndex n = 0; n < net.size(); ++n) {
      if (net.node(n).parent.empty()) ci->top_nodes.push_back(n);
    }
    containers_ = std::move(ci);
  });
  return *containers_;
}

ToolResult AnalysisTools::Run(std::string_view name, std::string_view arguments,
                              const TokenCounter& counter, size_t max_tokens) const {
  try {
    return ToolRun(*this, counter, max_tokens).Run(name, arguments);
  } catch (const std::exception&) {
    // Out of memory and the like: still an answer the conversation can carry.
    ToolResult r{.error = true};
    const std::string text = ErrorJson("the tool failed");
    if (counter.Count(text) <= max_tokens) r.content = text;
    return r;
  }
}

}  // namespace cookgraph
