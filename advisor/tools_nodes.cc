#include "advisor/tool_run.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

// The tools over nodes: node, top_nodes and container
// (docs/architecture.md#tools-the-model-can-call).

namespace cookgraph::tools_internal {

// The node's object: score's per-node object (same keys, same numbers, and
// gain_ms when the analysis has gains), then what `detail` shows of its
// place, parameters, findings and slowest frames.
std::string ToolRun::NodeObject(NodeIndex n, const Detail& d) const {
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
void ToolRun::SlowestFrames(JsonWriter& w, NodeIndex n, size_t limit) const {
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
void ToolRun::Params(JsonWriter& w, const Node& node, const Detail& d) const {
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
    w.StringField(ClipBytes(key, 64), ClipBytes(value, d.param_bytes));
  }
  w.EndObject();
  if (order.size() > d.params) w.CountField("params_total", order.size());
}

// {"data":[ids],"call":[ids],...}: the neighbours by edge kind (in the order
// of EdgeKind), each once, the first `limit` in all.
void ToolRun::Edges(JsonWriter& w, std::string_view key, const std::vector<size_t>& edges, bool inputs,
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

void ToolRun::Findings(JsonWriter& w, NodeIndex n, const Detail& d) const {
  const std::vector<size_t>& found = t_.findings_of(n);
  if (found.empty()) return;
  w.Key("findings");
  w.BeginArray();
  for (size_t k = 0; k < found.size() && k < d.findings; ++k) {
    const Finding& f = t_.judged_.findings[found[k]];
    w.BeginObject();
    w.StringField("rule", f.rule);
    w.StringField("severity", SeverityName(f.severity));
    w.StringField("title", ClipBytes(f.title, d.title_bytes));
    w.EndObject();
  }
  w.EndArray();
  if (found.size() > d.findings) w.CountField("findings_total", found.size());
}

ToolResult ToolRun::NodeTool(std::string_view text) {
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

// {"id","type","family","rank","avg_ms","per_frame_ms","score"}, as score's.
std::string ToolRun::NodeRow(NodeIndex n) const {
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

ToolResult ToolRun::TopNodes(std::string_view text) {
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

ToolResult ToolRun::ListContainer(std::string_view text) {
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

}  // namespace cookgraph::tools_internal
