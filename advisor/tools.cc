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
#include "writers/json_out.h"
#include "writers/score_columns.h"  // a node's statistics exactly as `score --format json` writes them

// The tools the model can call (docs/architecture.md#tools-the-model-can-call).
// Every result is compact JSON written as `score --format json` writes its own
// (writers/json_out.h: shortest round trip; a whole double keeps its ".0"), fitted to
// its token budget by cutting lists, then details.

namespace cookgraph {

using score_internal::JsonOut;  // as score writes its JSON
using score_internal::Value;

/// The container hierarchy with the roll-up of `score --group-by container`,
/// built on first use (list_container).
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
  size_t params, param_bytes, edges, findings, title_bytes;
  bool parent;
};
constexpr Detail kDetails[] = {
    {.params = 16, .param_bytes = 160, .edges = 16, .findings = 8, .title_bytes = 200, .parent = true},
    {.params = 4, .param_bytes = 48, .edges = 4, .findings = 2, .title_bytes = 80, .parent = true},
    {.params = 0, .param_bytes = 0, .edges = 0, .findings = 0, .title_bytes = 0, .parent = false},
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

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// A text to find: a glob when it holds '*' or '?' (the whole text must match;
// '*' any run of bytes, '/' included; '?' one byte), else a substring; both
// ignoring ASCII case.
class Matcher {
 public:
  explicit Matcher(std::string_view text) : text_(Lower(text)) {
    glob_ = text_.find_first_of("*?") != std::string::npos;
  }
  bool operator()(std::string_view s) const {
    const std::string lower = Lower(s);
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
  JsonOut w;
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

// How deeply brackets nest outside strings: refused past kMaxDepth before
// parsing, so that no input reaches the parser's limits.
bool NestsTooDeeply(std::string_view text) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxDepth) return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return false;
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

 private:
  void Parse(std::string_view text, std::initializer_list<std::string_view> allowed) {
    if (text.size() > kMaxArgumentBytes) {
      Refuse(fmt::format("{}: the arguments are {} bytes; at most {}", tool_, text.size(),
                         kMaxArgumentBytes));
      return;
    }
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return;  // none at all: {}
    if (NestsTooDeeply(text)) {
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
        Refuse(fmt::format("{}: unknown argument {}; it takes {}", tool_, Echo(key), names));
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

// ---- Specs ---------------------------------------------------------------------------

std::vector<ToolSpec> MakeSpecs() {
  return {
      {"get_node",
       "Nodes by id or id pattern, in rank order: statistics as `cookgraph score` gives them, "
       "params, inputs and outputs by edge kind, findings, gain_ms.",
       R"j({"type":"object","properties":{"id":{"type":"string","description":"Exact node id"},)j"
       R"j("pattern":{"type":"string","description":"Glob (* ?) or part of ids, any case"},)j"
       R"j("limit":{"type":"integer","minimum":1,"description":"Default 5"}}})j"},
      {"get_frame",
       "A frame (trace: step) by position or number: its time against the budget and the nodes "
       "that cooked in it, slowest first.",
       R"j({"type":"object","properties":{"index":{"type":"integer","minimum":0,"description":)j"
       R"j("0-based position"},"frame":{"type":"integer","description":"The engine's frame or )j"
       R"j(step number"},"limit":{"type":"integer","minimum":1,"description":"Default 20"}}})j"},
      {"list_container",
       "What a container (COMP, bin, module path; \"\" = top level) holds directly: containers by "
       "ms per frame, nodes in rank order.",
       R"j({"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer",)j"
       R"j("minimum":1,"description":"Default 20 per list"}},"required":["path"]})j"},
      {"whatif",
       "Predicted frame (step) time if a node cooked factor times as long: mean and p95 ms and "
       "over-budget frames before and after, savings.",
       R"j({"type":"object","properties":{"id":{"type":"string"},"factor":{"type":"number",)j"
       R"j("minimum":0,"description":"Default 0.5 (twice as fast); 0 = removed"}},)j"
       R"j("required":["id"]})j"},
      {"search_nodes",
       "Nodes whose type, family and id contain the texts given (any case; * ? glob), in rank "
       "order, with avg ms and score.",
       R"j({"type":"object","properties":{"type":{"type":"string"},"family":{"type":"string"},)j"
       R"j("name":{"type":"string","description":"Part of the id"},"limit":{"type":"integer",)j"
       R"j("minimum":1,"description":"Default 20"}}})j"},
  };
}

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
    if (name == "get_node") return GetNode(arguments);
    if (name == "get_frame") return GetFrame(arguments);
    if (name == "list_container") return ListContainer(arguments);
    if (name == "whatif") return RunWhatIf(arguments);
    if (name == "search_nodes") return SearchNodes(arguments);
    std::string names;
    for (const ToolSpec& s : t_.specs()) names += (names.empty() ? "" : ", ") + s.name;
    return Fail(fmt::format("unknown tool {}; the tools are {}", Echo(name), names));
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

  static std::string Members(JsonOut& w) {  // an object's members without its braces
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

  // ---- get_node ----

  // The node's object: score's per-node object (same keys, same numbers),
  // then what `detail` shows of its place and parameters.
  std::string NodeObject(NodeIndex n, const Detail& d) const {
    const Node& node = net_.node(n);
    std::vector<Value> values;
    score_internal::NodeValues(snap_, a_, n, RankOf(n), values);
    JsonOut w;
    w.BeginObject();
    for (size_t c = 0; c < score_internal::kNodeColumns.size(); ++c) {
      w.Field(score_internal::kNodeColumns[c], values[c]);
    }
    if (!a_.gain_ms.empty()) w.Field("gain_ms", Value(score_internal::ValueAt(a_.gain_ms, n)));
    if (Waits(n)) w.BoolField("waiting", true);
    if (d.parent) w.StringField("parent", node.parent);
    if (d.params > 0 && !node.params.empty()) Params(w, node, d);
    if (d.edges > 0) {
      Edges(w, "inputs", t_.inputs_of(n), true, d.edges);
      Edges(w, "outputs", t_.outputs_of(n), false, d.edges);
    }
    if (d.findings > 0) Findings(w, n, d);
    w.EndObject();
    return w.Take();
  }

  // The pack's key parameters first (advisor/pack.h), then the others, each
  // name once.
  void Params(JsonOut& w, const Node& node, const Detail& d) const {
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
  void Edges(JsonOut& w, std::string_view key, const std::vector<size_t>& edges, bool inputs,
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

  void Findings(JsonOut& w, NodeIndex n, const Detail& d) const {
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

  ToolResult GetNode(std::string_view text) {
    Arguments args("get_node", text, {"id", "pattern", "limit"});
    const std::optional<std::string> id_value = args.String("id");
    const std::optional<std::string> pattern_value = args.String("pattern");
    const size_t limit = args.Limit(5);
    if (!args.ok()) return Fail(args.problem());
    if (id_value.has_value() == pattern_value.has_value()) {
      return Fail("get_node: give either 'id' (an exact node id) or 'pattern', not both or neither");
    }
    std::vector<NodeIndex> matches;
    if (id_value) {
      const std::optional<NodeIndex> n = net_.Find(*id_value);
      if (!n) return Fail(UnknownId("get_node", *id_value));
      matches.push_back(*n);
    } else {
      const Matcher match(*pattern_value);
      std::vector<bool> keep(net_.size(), false);
      for (NodeIndex n = 0; n < net_.size(); ++n) keep[n] = match(net_.node(n).id);
      matches = Ranked(keep);
      if (matches.empty()) {
        return Fail(fmt::format("get_node: no node id matches {}", Echo(*pattern_value)));
      }
    }
    const size_t total = matches.size();
    const size_t rows = std::min(total, limit);
    // The most nodes in full detail; if not even one fits, less detail.
    for (const Detail& d : kDetails) {
      std::vector<std::string> objects;
      objects.reserve(rows);
      for (size_t i = 0; i < rows; ++i) objects.push_back(NodeObject(matches[i], d));
      auto fit = FitRows(rows, 1, [&](size_t k) { return ListDoc("", "nodes", objects, k, total); });
      if (!fit) continue;
      ToolResult r{.content = std::move(fit->second)};
      for (size_t i = 0; i < fit->first; ++i) r.nodes.push_back(net_.node(matches[i]).id);
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
    JsonOut w;
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

  // ---- search_nodes ----

  ToolResult SearchNodes(std::string_view text) {
    Arguments args("search_nodes", text, {"type", "family", "name", "limit"});
    std::optional<Matcher> by_type, by_family, by_name;
    for (auto [key, matcher] : {std::pair{"type", &by_type}, std::pair{"family", &by_family},
                                std::pair{"name", &by_name}}) {
      if (const auto s = args.String(key)) matcher->emplace(*s);
    }
    const size_t limit = args.Limit(20);
    if (!args.ok()) return Fail(args.problem());
    std::vector<bool> keep(net_.size(), false);
    for (NodeIndex n = 0; n < net_.size(); ++n) {
      const Node& node = net_.node(n);
      keep[n] = (!by_type || (*by_type)(node.type)) && (!by_family || (*by_family)(node.family)) &&
                (!by_name || (*by_name)(node.id));
    }
    const std::vector<NodeIndex> matches = Ranked(keep);
    const size_t rows = std::min(matches.size(), limit);
    std::vector<std::string> lines;
    for (size_t i = 0; i < rows; ++i) lines.push_back(NodeRow(matches[i]));
    auto fit = FitRows(rows, 0, [&](size_t k) { return ListDoc("", "nodes", lines, k, matches.size()); });
    if (!fit) return TooLarge();
    return Listed(std::move(fit->second), std::span(matches).first(fit->first));
  }

  // ---- list_container ----

  ToolResult ListContainer(std::string_view text) {
    Arguments args("list_container", text, {"path", "limit"});
    const std::optional<std::string> path_arg = args.String("path");
    const size_t limit = args.Limit(20);
    if (!args.ok()) return Fail(args.problem());
    if (!path_arg) {
      return Fail("list_container: argument 'path' is missing: a container id, \"\" for the top level");
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
      return Fail(fmt::format("list_container: no container {} in {}{}", Echo(path), t_.file_,
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

    JsonOut head;
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
      JsonOut w;
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

  // ---- get_frame ----

  ToolResult GetFrame(std::string_view text) {
    Arguments args("get_frame", text, {"index", "frame", "step", "limit"});
    if (!args.ok()) return Fail(args.problem());
    const size_t frames = snap_.samples.frame_count();
    if (frames == 0) return Fail(fmt::format("get_frame: {} has no frames", t_.file_));
    const int64_t last = static_cast<int64_t>(frames) - 1;
    const std::optional<int64_t> index_value =
        args.Integer("index", 0, last, fmt::format("an integer from 0 to {}", last));
    const std::string_view number_key = args.Has("step") ? "step" : "frame";
    const std::optional<int64_t> number_value =
        args.Integer(number_key, std::numeric_limits<int64_t>::min(),
                     std::numeric_limits<int64_t>::max(), "an integer");
    const size_t limit = args.Limit(20);
    if (!args.ok()) return Fail(args.problem());
    if (index_value.has_value() == number_value.has_value() || (args.Has("step") && args.Has("frame"))) {
      return Fail("get_frame: give either 'index' (0-based position) or 'frame' (the engine's "
                  "frame or step number), not both or neither");
    }
    const std::vector<int64_t>& numbers = snap_.samples.frame_index();
    size_t f = 0;
    if (index_value) {
      f = static_cast<size_t>(*index_value);
    } else {
      auto it = std::find(numbers.begin(), numbers.end(), *number_value);
      if (it == numbers.end()) {
        return Fail(fmt::format("get_frame: no frame numbered {} in {}; its frames are numbered {} to {}",
                                *number_value, t_.file_, numbers.front(), numbers.back()));
      }
      f = static_cast<size_t>(it - numbers.begin());
    }
    const bool steps = snap_.info.steps();
    const double ms = f < a_.frames.frame_ms.size() ? a_.frames.frame_ms[f] : kMissing;

    JsonOut head;
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
      JsonOut w;
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
  void TraceStep(JsonOut& w, const TraceSummary& t, int64_t step, size_t f) const {
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
          w.CountField("kernels", s.kernels);
          w.NumberField("kernel_span_ms", s.kernel_span_ms);
          w.NumberField("idle_ms", s.idle_ms);
          w.NumberField("compute_ms", s.compute_ms);
          w.NumberField("non_compute_ms", s.non_compute_ms);
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
        w.NumberField("peak_allocated_mb", s.peak_allocated_mb);
        w.NumberField("peak_reserved_mb", s.peak_reserved_mb);
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
      w.BeginArray();
      for (const NodeExcess& n : t.slowest->nodes) {
        if (n.node >= net_.size()) continue;
        w.BeginObject();
        w.StringField("id", net_.node(n.node).id);
        w.NumberField("excess_ms", n.ms);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
    }
  }

  // ---- whatif ----

  ToolResult RunWhatIf(std::string_view text) {
    Arguments args("whatif", text, {"id", "factor"});
    const std::optional<std::string> id_value = args.String("id");
    const double factor = args.Number("factor", "a finite number >= 0").value_or(0.5);
    if (!args.ok()) return Fail(args.problem());
    if (!id_value) return Fail("whatif: argument 'id' is missing: the exact id of a node");
    const std::optional<NodeIndex> n = net_.Find(*id_value);
    if (!n) return Fail(UnknownId("whatif", *id_value));

    // As `cookgraph whatif INPUT --node ID=F --format json` (writers/whatif_formats.cc).
    const WhatIf& model = t_.whatif();
    const WhatIfChange change{.node = *n, .factor = factor};
    const WhatIfPrediction p = model.Predict(std::span(&change, 1));
    size_t counted = 0;
    for (double v : model.frame_ms()) counted += IsMissing(v) ? 0 : 1;
    auto frames = [](JsonOut& w, std::string_view key, const WhatIfFrames& fr) {
      w.Key(key);
      w.BeginObject();
      w.Key("frame_ms");
      w.BeginObject();
      w.NumberField("mean", fr.mean_ms);
      w.NumberField("p95", fr.p95_ms);
      w.EndObject();
      w.CountField("over_budget_frames", fr.over_budget);
      w.EndObject();
    };
    auto render = [&](size_t warnings) {
      JsonOut w;
      w.BeginObject();
      w.StringField("id", *id_value);
      w.NumberField("factor", factor);
      w.StringField("model", WhatIfModelName(model.model()));
      w.Field("budget_ms", model.has_budget() ? Value(model.budget_ms()) : Value());
      w.CountField("frames", counted);
      frames(w, "before", model.before());
      frames(w, "after", p.after);
      w.NumberField("saved_ms", p.saved_ms);
      w.NumberField("saved_p95_ms", p.saved_p95_ms);
      w.IntField("frames_saved", p.frames_saved);
      if (Waits(*n)) {
        w.StringField("note", fmt::format("a {} waits, it does not work: the model leaves it unchanged",
                                          net_.node(*n).family));
      } else if (a_.stats[*n].cooked_frames == 0) {
        w.StringField("note", "it never cooked: nothing to save");
      }
      const auto& all = model.warnings();
      if (warnings > 0 && !all.empty()) {
        w.Key("warnings");
        w.BeginArray();
        for (size_t i = 0; i < all.size() && i < warnings; ++i) w.String(Clip(all[i], 160));
        w.EndArray();
        if (all.size() > warnings) w.CountField("warnings_total", all.size());
      }
      w.EndObject();
      return w.Take();
    };
    auto fit = FitRows(std::min<size_t>(3, model.warnings().size()), 0, render);
    if (!fit) return TooLarge();
    ToolResult r{.content = std::move(fit->second)};
    r.nodes.push_back(*id_value);
    return r;
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
    : judged_(judged), file_(std::move(file)), specs_(MakeSpecs()) {
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
