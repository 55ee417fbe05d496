#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "base/text.h"
#include "server/explorer_internal.h"

// The network of one container, laid out (docs/commands.md#the-explorers-api).

namespace cookgraph::server {

namespace {

// Flags of a drawn item (docs/commands.md#the-explorers-api): one bit each.
enum ItemFlag : uint32_t {
  kLoop = 1,
  kCritical = 2,
  kDead = 4,
  kWaiting = 8,
  kEnterable = 16,  // a container: double-click enters it
  kOutput = 32,
  kNode = 64,  // the item is a node (a container may be one too)
};

// The chain of containers from the top level down to `id` (inclusive).
std::vector<std::string> Breadcrumb(const View& v,
                                    const std::unordered_map<std::string_view, size_t>& index,
                                    const std::string& id) {
  std::vector<std::string> chain;
  std::string at = id;
  for (size_t guard = 0; !at.empty() && guard <= kMaxContainerDepth + 1; ++guard) {
    chain.push_back(at);
    auto it = index.find(at);
    if (it == index.end()) break;
    at = v.containers[it->second].parent;
  }
  chain.push_back("");
  std::reverse(chain.begin(), chain.end());
  return chain;
}

// Longest-path layers of a directed graph given as edge pairs over `k`
// items, cycles broken at the remaining item with the fewest unplaced inputs
// (ties: the first): every item gets a layer one past its placed inputs'.
std::vector<uint32_t> Layers(size_t k, const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
  std::vector<uint32_t> offsets(k + 1, 0), targets(edges.size()), indegree(k, 0);
  for (const auto& [a, b] : edges) {
    ++offsets[a + 1];
    ++indegree[b];
  }
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
  for (const auto& [a, b] : edges) targets[fill[a]++] = b;
  std::vector<uint32_t> layer(k, 0), ready;
  std::vector<bool> placed(k, false);
  for (uint32_t i = 0; i < k; ++i) {
    if (indegree[i] == 0) ready.push_back(i);
  }
  size_t done = 0, scan = 0;
  while (done < k) {
    if (ready.empty()) {  // a cycle: free the unplaced item with the fewest inputs left
      uint32_t best = UINT32_MAX;
      for (size_t i = scan; i < k; ++i) {
        if (!placed[i] && (best == UINT32_MAX || indegree[i] < indegree[best])) best = static_cast<uint32_t>(i);
      }
      while (scan < k && placed[scan]) ++scan;
      indegree[best] = 0;
      ready.push_back(best);
    }
    const uint32_t n = ready.back();
    ready.pop_back();
    if (placed[n]) continue;
    placed[n] = true;
    ++done;
    for (uint32_t e = offsets[n]; e < offsets[n + 1]; ++e) {
      const uint32_t m = targets[e];
      if (placed[m]) continue;
      layer[m] = std::max(layer[m], layer[n] + 1);
      if (indegree[m] > 0 && --indegree[m] == 0) ready.push_back(m);
    }
  }
  return layer;
}

// Item geometry (docs/commands.md#the-explorers-api): columns of layers, rows within.
constexpr double kColumnWidth = 220, kRowHeight = 56;
// A layer taller than this many rows wraps into more columns, so that a flat
// network of 100k nodes is a block, not a line.
constexpr size_t kMaxRows = 400;

}  // namespace

namespace {

using ContainerIds = std::unordered_map<std::string_view, size_t>;

// The items drawn for container `here`: its own nodes, then its child
// containers (a container that is also a node is that node's item).
struct GraphItems {
  std::vector<int64_t> node;  // NodeIndex or -1
  std::vector<std::string_view> id;
  std::vector<bool> enterable;
  std::vector<uint32_t> of_node;  // each node's item: itself, or the child container above it; UINT32_MAX outside
  size_t size() const { return id.size(); }
};

GraphItems CollectItems(const View& v, const ContainerIds& cindex, const std::string& here) {
  const Network& net = v.snapshot.network;
  GraphItems items;
  std::vector<int64_t>& item_node = items.node;
  std::vector<std::string_view>& item_id = items.id;
  std::unordered_map<std::string_view, uint32_t> item_of_id;
  auto add = [&](std::string_view id, int64_t node) {
    auto [it, fresh] = item_of_id.emplace(id, static_cast<uint32_t>(item_id.size()));
    if (fresh) {
      item_id.push_back(id);
      item_node.push_back(node);
    } else if (node >= 0) {
      item_node[it->second] = node;
    }
    return it->second;
  };
  for (NodeIndex n = 0; n < net.size(); ++n) {
    if (v.parents[n] == here) add(net.node(n).id, n);
  }
  std::vector<bool>& enterable = items.enterable;
  for (const Container& c : v.containers) {
    if (!c.id.empty() && c.parent == here) add(c.id, -1);
  }
  enterable.assign(item_id.size(), false);
  for (const Container& c : v.containers) {
    auto it = item_of_id.find(c.id);
    if (!c.id.empty() && c.parent == here && it != item_of_id.end()) enterable[it->second] = true;
  }

  // Each node's item in this container: itself, or the child container above
  // it; none outside. Walks up the parents (bounded by the container depth).
  std::vector<uint32_t>& node_item = items.of_node;
  node_item.assign(net.size(), UINT32_MAX);
  for (NodeIndex n = 0; n < net.size(); ++n) {
    std::string_view at = net.node(n).id;
    std::string_view parent = v.parents[n];
    for (size_t guard = 0; guard <= kMaxContainerDepth + 1; ++guard) {
      if (parent == here) {
        auto it = item_of_id.find(at);
        if (it != item_of_id.end()) node_item[n] = it->second;
        break;
      }
      if (parent.empty()) break;
      auto c = cindex.find(parent);
      if (c == cindex.end()) break;
      at = v.containers[c->second].id;
      parent = v.containers[c->second].parent;
    }
  }
  return items;
}

// Metrics and flags of each item.
struct ItemMetrics {
  std::vector<double> score, per_frame, gpu, upstream, gain;
  std::vector<bool> has_gpu;
  std::vector<uint32_t> flags;
  std::vector<int64_t> costliest;  // a container's costliest node beneath it (per frame), named on its box
};

ItemMetrics MeasureItems(const View& v, const GraphItems& items) {
  const Network& net = v.snapshot.network;
  const Analysis& a = v.analysis;
  const size_t k = items.size();
  const std::vector<int64_t>& item_node = items.node;
  const std::vector<uint32_t>& node_item = items.of_node;
  // Metrics and flags of each item: a node's own; a container's summed (per
  // frame, GPU) or largest (score, upstream) over the nodes beneath it.
  // Gains (per_frame ms saved by halving) do not add up: a container's is its
  // largest, as the score's.
  ItemMetrics m{.score = std::vector<double>(k, 0),
                .per_frame = std::vector<double>(k, 0),
                .gpu = std::vector<double>(k, 0),
                .upstream = std::vector<double>(k, 0),
                .gain = std::vector<double>(k, 0),
                .has_gpu = std::vector<bool>(k, false),
                .flags = std::vector<uint32_t>(k, 0),
                .costliest = std::vector<int64_t>(k, -1)};
  std::vector<double>& score = m.score;
  std::vector<double>& per_frame = m.per_frame;
  std::vector<double>& gpu = m.gpu;
  std::vector<double>& upstream = m.upstream;
  std::vector<double>& gain = m.gain;
  std::vector<bool>& has_gpu = m.has_gpu;
  std::vector<uint32_t>& flags = m.flags;
  std::vector<int64_t>& costliest = m.costliest;
  for (NodeIndex n = 0; n < net.size(); ++n) {
    const uint32_t i = node_item[n];
    if (i == UINT32_MAX) continue;
    const NodeStats& s = a.stats[n];
    const bool self = item_node[i] == static_cast<int64_t>(n);
    if (self) {
      score[i] = s.score;
      per_frame[i] = s.per_frame_ms;
      upstream[i] = n < a.upstream_ms.size() ? a.upstream_ms[n] : 0;
      gain[i] = n < a.gain_ms.size() ? a.gain_ms[n] : 0;
      if (s.gpu_avg_ms) {
        gpu[i] = *s.gpu_avg_ms * s.cooks_per_frame;
        has_gpu[i] = true;
      }
      flags[i] |= kNode;
      if (net.node(n).output) flags[i] |= kOutput;
      if (n < a.waiting.size() && a.waiting[n]) flags[i] |= kWaiting;
      if (n < a.dead.size() && a.dead[n]) flags[i] |= kDead;
    } else {
      score[i] = std::max(score[i], s.score);
      per_frame[i] += s.per_frame_ms;
      if (costliest[i] < 0 || s.per_frame_ms > a.stats[static_cast<NodeIndex>(costliest[i])].per_frame_ms) {
        costliest[i] = static_cast<int64_t>(n);
      }
      upstream[i] = std::max(upstream[i], n < a.upstream_ms.size() ? a.upstream_ms[n] : 0);
      gain[i] = std::max(gain[i], n < a.gain_ms.size() ? a.gain_ms[n] : 0);
      if (s.gpu_avg_ms) {
        gpu[i] += *s.gpu_avg_ms * s.cooks_per_frame;
        has_gpu[i] = true;
      }
    }
    if (n < a.in_loop.size() && a.in_loop[n]) flags[i] |= kLoop;
    if (n < a.on_critical_path.size() && a.on_critical_path[n]) flags[i] |= kCritical;
  }
  for (size_t i = 0; i < k; ++i) {
    if (items.enterable[i]) flags[i] |= kEnterable;
  }
  return m;
}

// Edges between items (parallel ones merged; inside one item, none). The
// critical route's steps mark theirs.
struct ItemEdges {
  std::vector<uint32_t> flat;                        // from, to, kind, critical
  std::vector<std::pair<uint32_t, uint32_t>> order;  // those that order the layers
};

ItemEdges LinkItems(const View& v, const std::vector<uint32_t>& node_item) {
  const Network& net = v.snapshot.network;
  const Analysis& a = v.analysis;
  ItemEdges edges;
  std::vector<uint32_t>& edge_flat = edges.flat;
  std::vector<std::pair<uint32_t, uint32_t>>& order_edges = edges.order;
  std::unordered_set<uint64_t> critical_steps;
  const std::vector<NodeIndex>& route = a.critical_route.nodes;
  for (size_t i = 1; i < route.size(); ++i) {
    critical_steps.insert((uint64_t{route[i - 1]} << 32) | route[i]);
  }
  std::unordered_map<uint64_t, size_t> edge_at;
  for (const Edge& e : net.edges()) {
    const uint32_t x = node_item[e.from], y = node_item[e.to];
    if (x == UINT32_MAX || y == UINT32_MAX || x == y) continue;
    const bool critical = critical_steps.contains((uint64_t{e.from} << 32) | e.to);
    const uint64_t key = (uint64_t{x} << 32) | y;
    auto [it, fresh] = edge_at.emplace(key, edge_flat.size());
    if (fresh) {
      edge_flat.insert(edge_flat.end(), {x, y, static_cast<uint32_t>(e.kind), critical ? 1u : 0u});
      if (e.kind != EdgeKind::kFeedback && e.kind != EdgeKind::kFwdBwd) order_edges.emplace_back(x, y);
    } else if (critical) {
      edge_flat[it->second + 3] = 1;
    }
  }
  return edges;
}

// Where each item is drawn and the size of the drawing.
struct Placement {
  std::vector<double> xs, ys;
  double column = 0, height = 0;  // columns used; px
};

// Layout: layers left to right, each ordered by the mean row of its inputs
// (one barycentre sweep), wrapped past kMaxRows.
Placement PlaceItems(size_t k, const std::vector<std::pair<uint32_t, uint32_t>>& order_edges) {
  const std::vector<uint32_t> layer = Layers(k, order_edges);
  uint32_t layers = 0;
  for (uint32_t l : layer) layers = std::max(layers, l + 1);
  std::vector<std::vector<uint32_t>> by_layer(layers);
  for (uint32_t i = 0; i < k; ++i) by_layer[layer[i]].push_back(i);
  std::vector<std::vector<uint32_t>> preds(k);
  for (const auto& [x, y] : order_edges) preds[y].push_back(x);
  Placement place{.xs = std::vector<double>(k, 0), .ys = std::vector<double>(k, 0)};
  std::vector<double>& xs = place.xs;
  std::vector<double>& ys = place.ys;
  double& column = place.column;
  double& height = place.height;
  std::vector<double> row(k, 0);
  for (uint32_t l = 0; l < layers; ++l) {
    std::vector<uint32_t>& items = by_layer[l];
    std::vector<double> key(items.size());
    for (size_t j = 0; j < items.size(); ++j) {
      double sum = 0;
      size_t count = 0;
      for (uint32_t p : preds[items[j]]) {
        if (layer[p] < l) {
          sum += row[p];
          ++count;
        }
      }
      key[j] = count ? sum / static_cast<double>(count) : static_cast<double>(j);
    }
    std::vector<size_t> perm(items.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(), [&](size_t p, size_t q) { return key[p] < key[q]; });
    for (size_t j = 0; j < perm.size(); ++j) {
      const uint32_t i = items[perm[j]];
      row[i] = static_cast<double>(j % kMaxRows);
      xs[i] = (column + static_cast<double>(j / kMaxRows)) * kColumnWidth;
      ys[i] = row[i] * kRowHeight;
      height = std::max(height, ys[i] + kRowHeight);
    }
    column += static_cast<double>(std::max<size_t>(1, (items.size() + kMaxRows - 1) / kMaxRows));
  }
  return place;
}

// The document (docs/commands.md#the-explorers-api), column by column.
// Streamed by JsonWriter: at 100k items a json value per number costs more than
// the layout (docs/performance.md#the-explorer).
std::string WriteGraph(size_t index, const View& v, const ContainerIds& cindex, const std::string& here,
                       const GraphItems& items, const ItemMetrics& m, const ItemEdges& edges,
                       const Placement& place) {
  const Network& net = v.snapshot.network;
  const Analysis& a = v.analysis;
  const size_t k = items.size();
  const bool has_gain = !a.gain_ms.empty();
  const std::vector<double>& score = m.score;
  const std::vector<double>& per_frame = m.per_frame;
  const std::vector<double>& gpu = m.gpu;
  const std::vector<double>& upstream = m.upstream;
  const std::vector<double>& gain = m.gain;
  const std::vector<bool>& has_gpu = m.has_gpu;
  const std::vector<uint32_t>& flags = m.flags;
  const std::vector<int64_t>& costliest = m.costliest;
  const std::vector<int64_t>& item_node = items.node;
  const std::vector<std::string_view>& item_id = items.id;
  const std::vector<uint32_t>& edge_flat = edges.flat;
  const std::vector<double>& xs = place.xs;
  const std::vector<double>& ys = place.ys;
  const double& column = place.column;
  const double& height = place.height;
  // fmt's numbers, as when this document was written with it by hand; the
  // breadcrumb, written in the explorer's style, is placed as it is.
  JsonWriter w(JsonStyle::kFmt);
  auto strings = [&](const char* key, auto&& get) {
    w.Key(key);
    w.BeginArray();
    for (size_t i = 0; i < k; ++i) w.String(get(i));
    w.EndArray();
  };
  auto numbers = [&](const char* key, auto&& get) {
    w.Key(key);
    w.BeginArray();
    for (size_t i = 0; i < k; ++i) {
      const std::optional<double> value = get(i);
      w.Write(value ? JsonValue(*value) : JsonValue());  // null when not finite too
    }
    w.EndArray();
  };
  JsonWriter crumbs(kExplorerStyle);
  crumbs.BeginArray();
  for (const std::string& c : Breadcrumb(v, cindex, here)) {
    crumbs.BeginObject();
    crumbs.StringField("id", c);
    crumbs.StringField("name", c.empty() ? std::string_view("top") : ShortName(c));
    crumbs.EndObject();
  }
  crumbs.EndArray();
  w.BeginObject();
  w.CountField("view", index);
  w.StringField("container", here);
  w.Key("breadcrumb");
  w.Raw(crumbs.text());
  w.NumberField("width", column * kColumnWidth);
  w.NumberField("height", height);
  w.Key("items");
  w.BeginObject();
  w.CountField("n", k);
  strings("id", [&](size_t i) { return item_id[i]; });
  strings("name", [&](size_t i) { return ShortName(item_id[i]); });
  strings("type", [&](size_t i) -> std::string_view {
    return item_node[i] >= 0 ? std::string_view(net.node(static_cast<NodeIndex>(item_node[i])).type)
                             : std::string_view("container");
  });
  strings("family", [&](size_t i) -> std::string_view {
    return item_node[i] >= 0 ? std::string_view(net.node(static_cast<NodeIndex>(item_node[i])).family)
                             : std::string_view();
  });
  strings("costliest", [&](size_t i) -> std::string_view {
    return costliest[i] >= 0 ? std::string_view(net.node(static_cast<NodeIndex>(costliest[i])).id)
                             : std::string_view();
  });
  numbers("costliest_ms", [&](size_t i) {
    return costliest[i] >= 0
               ? std::optional<double>(a.stats[static_cast<NodeIndex>(costliest[i])].per_frame_ms)
               : std::nullopt;
  });
  numbers("x", [&](size_t i) { return std::optional<double>(xs[i]); });
  numbers("y", [&](size_t i) { return std::optional<double>(ys[i]); });
  numbers("flags", [&](size_t i) { return std::optional<double>(flags[i]); });
  numbers("score", [&](size_t i) { return std::optional<double>(score[i]); });
  numbers("per_frame_ms", [&](size_t i) { return std::optional<double>(per_frame[i]); });
  numbers("gpu_ms", [&](size_t i) { return has_gpu[i] ? std::optional<double>(gpu[i]) : std::nullopt; });
  numbers("upstream_ms", [&](size_t i) { return std::optional<double>(upstream[i]); });
  numbers("gain_ms",
          [&](size_t i) { return has_gain ? std::optional<double>(gain[i]) : std::nullopt; });
  w.EndObject();
  w.Key("edges");
  w.BeginArray();
  for (uint32_t e : edge_flat) w.Count(e);
  w.EndArray();
  w.EndObject();
  return w.Take();
}

}  // namespace

Result<std::string> Explorer::GraphJson(size_t index, std::string_view container) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const auto cindex = ContainerIndex(v);
  const std::string here(container);
  if (!here.empty() && !cindex.contains(here)) {
    return NotFound("no container '" + here + "' in " + v.file);
  }
  const GraphItems items = CollectItems(v, cindex, here);
  const ItemMetrics metrics = MeasureItems(v, items);
  const ItemEdges edges = LinkItems(v, items.of_node);
  const Placement place = PlaceItems(items.size(), edges.order);
  return WriteGraph(index, v, cindex, here, items, metrics, edges, place);
}

}  // namespace cookgraph::server
