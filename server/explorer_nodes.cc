#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "base/text.h"
#include "metrics/rollup.h"
#include "server/explorer_internal.h"
#include "writers/score_columns.h"

// A view's nodes: one node, a search, the table of nodes
// (docs/commands.md#the-explorers-api).

namespace cookgraph::server {
namespace {

using score_internal::kNodeColumns;
using score_internal::Optional;
using score_internal::NodeValues;
using score_internal::Value;

}  // namespace

namespace {

// A container's counts: its nodes beneath, those directly in it, those that
// cooked, and their ms per frame.
void WriteContainerCounts(JsonWriter& w, const View& v, const Container& c) {
  double per_frame = 0;
  size_t cooked = 0;
  for (NodeIndex n : c.all) {
    per_frame += v.analysis.stats[n].per_frame_ms;
    cooked += v.analysis.stats[n].cooked_frames > 0;
  }
  w.BeginObject();
  w.CountField("cooked_nodes", cooked);
  w.CountField("direct", c.direct.size());
  w.CountField("nodes", c.all.size());
  w.NumberField("per_frame_ms", per_frame);
  w.EndObject();
}

// The same columns and values as `score --format json` (writers/score_columns.h),
// in the sorted order of nlohmann::json's keys.
void WriteStats(JsonWriter& w, const View& v, NodeIndex n) {
  std::optional<size_t> rank;
  const size_t cooked = CookedCount(v.analysis);
  for (size_t r = 0; r < cooked; ++r) {
    if (v.rank[r] == n) {
      rank = r + 1;
      break;
    }
  }
  std::vector<Value> values;
  NodeValues(v.snapshot, v.analysis, n, rank, values);
  std::vector<size_t> columns(std::min(kNodeColumns.size(), values.size()));
  for (size_t c = 0; c < columns.size(); ++c) columns[c] = c;
  std::sort(columns.begin(), columns.end(), [](size_t a, size_t b) { return kNodeColumns[a] < kNodeColumns[b]; });
  w.BeginObject();
  for (size_t c : columns) w.Field(kNodeColumns[c], values[c]);
  w.EndObject();
}

// The node's neighbours on one side: {"id", "kind"} per edge.
void WriteNeighbours(JsonWriter& w, const Network& net, NodeIndex n, bool inputs) {
  w.BeginArray();
  for (const Edge& e : net.edges()) {
    if ((inputs ? e.to : e.from) != n) continue;
    w.BeginObject();
    w.StringField("id", net.node(inputs ? e.from : e.to).id);
    w.StringField("kind", EdgeKindName(e.kind));
    w.EndObject();
  }
  w.EndArray();
}

void WriteSeries(JsonWriter& w, const View& v, NodeIndex n) {
  auto series = [&](Metric m) {
    w.BeginArray();
    for (double x : v.snapshot.samples.series(n, m)) w.Number(x);
    w.EndArray();
  };
  w.BeginObject();
  w.Key("cook_ms");
  series(Metric::kCookMs);
  w.Key("frames");
  w.BeginArray();
  for (int64_t f : v.snapshot.samples.frame_index()) w.Int(f);
  w.EndArray();
  w.Key("gpu_ms");
  series(Metric::kGpuMs);
  w.EndObject();
}

}  // namespace

Result<std::string> Explorer::NodeJson(size_t index, std::string_view id) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const std::optional<NodeIndex> found = net.Find(id);
  const auto cindex = ContainerIndex(v);
  const auto container = cindex.find(id);
  if (!found && container == cindex.end()) {
    return NotFound("no node '" + std::string(id) + "' in " + v.file);
  }
  // The parent container to enter to see the node.
  const std::string& parent = found ? v.parents[*found] : v.containers[container->second].parent;
  JsonWriter w(kExplorerStyle);  // the keys in sorted order
  w.BeginObject();
  if (found) {
    w.Field("budget_ms", v.analysis.has_budget ? JsonValue(v.analysis.budget_ms) : JsonValue());
  }
  if (container != cindex.end()) {
    w.Key("container");
    WriteContainerCounts(w, v, v.containers[container->second]);
  }
  if (!found) {
    w.StringField("id", id);
    w.StringField("parent", parent);
    w.CountField("view", index);
    w.EndObject();
    return w.Take();
  }
  const NodeIndex n = *found;
  const Node& node = net.node(n);
  w.Key("findings");
  w.BeginArray();
  for (size_t i = 0; i < v.findings.size(); ++i) {
    const auto& nodes = v.findings[i].nodes;
    if (std::find(nodes.begin(), nodes.end(), n) != nodes.end()) w.Count(i);
  }
  w.EndArray();
  w.Field("gain_ms", n < v.analysis.gain_ms.size() ? JsonValue(v.analysis.gain_ms[n]) : JsonValue());
  w.StringField("id", id);
  w.Key("inputs");
  WriteNeighbours(w, net, n, /*inputs=*/true);
  w.Key("node");
  w.BeginObject();
  w.StringField("family", node.family);
  w.BoolField("output", node.output);
  w.StringField("type", node.type);
  w.BoolField("waiting", n < v.analysis.waiting.size() && v.analysis.waiting[n]);
  w.EndObject();
  w.Key("outputs");
  WriteNeighbours(w, net, n, /*inputs=*/false);
  w.Key("over_budget");
  w.BeginArray();
  for (size_t f : v.analysis.frames.over_budget) w.Count(f);
  w.EndArray();
  w.Key("params");
  w.BeginArray();
  for (const auto& [key, value] : node.params) {
    w.BeginArray();
    w.String(key);
    w.String(value);
    w.EndArray();
  }
  w.EndArray();
  w.StringField("parent", parent);
  w.Key("series");
  WriteSeries(w, v, n);
  w.Key("stats");
  WriteStats(w, v, n);
  w.CountField("view", index);
  w.EndObject();
  return w.Take();
}

Result<std::string> Explorer::SearchJson(size_t index, std::string_view query) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const std::string q = AsciiLower(query);
  constexpr size_t kLimit = 50;
  // Exact names first, then names that start with the query, then any match;
  // each by score, largest first.
  std::vector<std::pair<int, NodeIndex>> hits;
  if (!q.empty()) {
    for (NodeIndex n = 0; n < net.size(); ++n) {
      const Node& node = net.node(n);
      const std::string name = AsciiLower(ShortName(node.id));
      int tier = -1;
      if (name == q) {
        tier = 0;
      } else if (name.rfind(q, 0) == 0) {
        tier = 1;
      } else if (AsciiLower(node.id).find(q) != std::string::npos || AsciiLower(node.type).find(q) != std::string::npos) {
        tier = 2;
      }
      if (tier >= 0) hits.emplace_back(tier, n);
    }
  }
  const size_t total = hits.size();
  auto better = [&](const auto& p, const auto& q2) {
    if (p.first != q2.first) return p.first < q2.first;
    const double a = v.analysis.stats[p.second].score, b = v.analysis.stats[q2.second].score;
    if (a != b) return a > b;
    return p.second < q2.second;
  };
  if (hits.size() > kLimit) {
    std::partial_sort(hits.begin(), hits.begin() + kLimit, hits.end(), better);
    hits.resize(kLimit);
  } else {
    std::sort(hits.begin(), hits.end(), better);
  }
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.StringField("query", query);
  w.Key("results");
  w.BeginArray();
  for (const auto& [tier, n] : hits) {
    const Node& node = net.node(n);
    w.BeginObject();
    w.StringField("id", node.id);
    w.StringField("name", ShortName(node.id));
    w.StringField("parent", v.parents[n]);
    w.NumberField("score", v.analysis.stats[n].score);
    w.StringField("type", node.type);
    w.EndObject();
  }
  w.EndArray();
  w.CountField("total", total);
  w.EndObject();
  return w.Take();
}

Result<std::string> Explorer::NodesJson(size_t index, std::string_view sort, size_t top) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const Analysis& a = v.analysis;
  const std::optional<SortKey> key = ParseSortKey(sort.empty() ? "score" : sort);
  if (!key) {
    std::string known;
    for (SortKey k : {SortKey::kScore, SortKey::kAvg, SortKey::kP95, SortKey::kMax,
                      SortKey::kPerFrame, SortKey::kGpu, SortKey::kUpstream, SortKey::kGain}) {
      known += (known.empty() ? "" : ", ") + std::string(SortKeyName(k));
    }
    return Error{.message = "sort: unknown key '" + Printable(sort.substr(0, 32)) +
                            "'; give one of " + known};
  }
  if (*key == SortKey::kGain && a.gain_ms.empty()) {
    return Error{.message = "sort: gain: " + v.file + " was analysed without gains"};
  }
  if (top == 0 || top > kMaxNodeRows) {
    return Error{.message = fmt::format("top: give 1 to {} rows", kMaxNodeRows)};
  }
  const size_t cooked = CookedCount(a);
  std::vector<size_t> rank_of(net.size(), 0);  // 1-based by score; 0 = never cooked
  for (size_t r = 0; r < cooked && r < v.rank.size(); ++r) rank_of[v.rank[r]] = r + 1;
  const std::vector<NodeIndex> order = *key == SortKey::kScore ? v.rank : Rank(a, *key);
  // A container's row (a node whose id others sit under: a COMP, a bin) shows
  // the total per frame of itself and everything inside it, as its box does,
  // and its costliest node inside (metrics/rollup.h).
  std::unordered_map<std::string_view, const ContainerStats*> inside;
  const std::vector<ContainerStats> containers = RollUp(v.snapshot, a);
  for (const ContainerStats& c : containers) inside.emplace(c.id, &c);
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.CountField("cooked", cooked);
  w.BoolField("gains", !a.gain_ms.empty());
  w.CountField("nodes", net.size());
  w.Key("rows");
  w.BeginArray();
  auto at = [](const std::vector<double>& values, NodeIndex n) {
    return n < values.size() ? JsonValue(values[n]) : JsonValue();
  };
  for (size_t r = 0; r < cooked && r < top && r < order.size(); ++r) {
    const NodeIndex n = order[r];
    const Node& node = net.node(n);
    const NodeStats& s = a.stats[n];
    const auto found = inside.find(node.id);
    const ContainerStats* container = found == inside.end() ? nullptr : found->second;
    w.BeginObject();
    w.NumberField("avg_ms", s.avg_ms);
    w.Field("costliest_inside", container && !container->costliest.empty()
                                    ? JsonValue(container->costliest)
                                    : JsonValue());
    w.Field("gain_ms", at(a.gain_ms, n));
    w.Field("gpu_avg_ms", Optional(s.gpu_avg_ms));
    w.Field("gpu_per_frame_ms", Optional(s.gpu_per_frame_ms));
    w.Field("gpu_share", Optional(s.gpu_share));
    w.StringField("id", node.id);
    w.Field("inside_ms", container ? JsonValue(s.per_frame_ms + container->per_frame_ms) : JsonValue());
    w.NumberField("max_ms", s.max_ms);
    w.StringField("name", ShortName(node.id));
    w.NumberField("p95_ms", s.p95_ms);
    w.StringField("parent", v.parents[n]);
    w.NumberField("per_frame_ms", s.per_frame_ms);
    w.CountField("rank", rank_of[n]);
    w.NumberField("score", s.score);
    w.StringField("type", node.type);
    w.Field("upstream_ms", at(a.upstream_ms, n));
    w.BoolField("waiting", n < a.waiting.size() && a.waiting[n]);
    w.EndObject();
  }
  w.EndArray();
  w.StringField("sort", SortKeyName(*key));
  w.CountField("view", index);
  w.EndObject();
  return w.Take();
}

}  // namespace cookgraph::server
