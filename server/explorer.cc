#include "server/explorer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "advisor/gains.h"
#include "base/text.h"
#include "metrics/rollup.h"

#include "writers/score_columns.h"

namespace cookgraph::server {
namespace {

using nlohmann::json;
using score_internal::kNodeColumns;
using score_internal::NodeValues;
using score_internal::Value;

// NaN and infinities are null in JSON (as `score --format json` writes them).
// A document as JSON text; bytes that are not UTF-8 (a file name, a name from
// an input) become U+FFFD, never an exception.
std::string Dump(const json& doc) { return doc.dump(-1, ' ', false, json::error_handler_t::replace); }

json Num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json Num(const std::optional<double>& v) { return v ? Num(*v) : json(nullptr); }

Error NotFound(std::string message) {
  return Error{.where = kNotFound, .message = std::move(message)};
}

// A view with the dataset that holds it (kept alive while a request reads it).
struct ViewRef {
  std::shared_ptr<const Dataset> data;
  const View* view = nullptr;
};

Result<ViewRef> ViewOf(std::shared_ptr<const Dataset> d, size_t index) {
  if (index >= d->views.size()) return NotFound("no view " + std::to_string(index));
  const View* view = d->views[index].get();
  return ViewRef{std::move(d), view};
}

// The last part of a '/'-separated id ("/project1/noise1" -> "noise1"); the
// whole id when that part would be empty.
std::string_view ShortName(std::string_view id) {
  const size_t slash = id.rfind('/');
  if (slash == std::string_view::npos || slash + 1 == id.size()) return id;
  return id.substr(slash + 1);
}

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

// Index of each container by id.
std::unordered_map<std::string_view, size_t> ContainerIndex(const View& v) {
  std::unordered_map<std::string_view, size_t> index;
  index.reserve(v.containers.size());
  for (size_t i = 0; i < v.containers.size(); ++i) index.emplace(v.containers[i].id, i);
  return index;
}

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

std::string StepLabel(const Snapshot& s, size_t frame) {
  const auto& index = s.samples.frame_index();
  if (frame < index.size()) return std::to_string(index[frame]);
  return std::to_string(frame);
}

}  // namespace

namespace {

// A trace's nodes are operators named by what they are ("aten::conv2d"), not
// by where they sit, so they have no containers. The explorer shows them as
// their call tree (docs/commands.md#what-the-page-shows): each node under the
// first node that calls or launches it, earlier in the topological order
// (which keeps the tree free of cycles); the roots (steps, annotations, the
// first ops) at the top level. Nodes nested past kMaxContainerDepth stay at
// the top level.
std::vector<std::string> CallTreeParents(const View& view) {
  const Network& net = view.snapshot.network;
  std::vector<size_t> position(net.size(), SIZE_MAX);
  for (size_t i = 0; i < view.analysis.order.size(); ++i) position[view.analysis.order[i]] = i;
  std::vector<int64_t> parent(net.size(), -1);
  for (const Edge& e : net.edges()) {
    if (e.kind != EdgeKind::kCall && e.kind != EdgeKind::kLaunch) continue;
    if (parent[e.to] >= 0 || position[e.from] >= position[e.to]) continue;
    parent[e.to] = e.from;
  }
  // Depth by the order: a parent comes earlier, so its depth is known.
  std::vector<size_t> depth(net.size(), 0);
  std::vector<std::string> parents(net.size());
  for (NodeIndex n : view.analysis.order) {
    if (parent[n] < 0) continue;
    const auto p = static_cast<NodeIndex>(parent[n]);
    if (depth[p] + 1 >= kMaxContainerDepth) continue;
    depth[n] = depth[p] + 1;
    parents[n] = net.node(p).id;
  }
  return parents;
}

bool HasContainers(const Network& net) {
  for (const Node& n : net.nodes()) {
    if (!n.parent.empty()) return true;
  }
  return false;
}

}  // namespace

void Prepare(View& view) {
  const Network& net = view.snapshot.network;
  view.parents.clear();
  if (!view.snapshot.timelines.empty() && !HasContainers(net)) {
    view.parents = CallTreeParents(view);
    // The containers of that tree: the same nodes, their parents replaced.
    Network tree;
    tree.Reserve(net.size(), 0);
    for (NodeIndex n = 0; n < net.size(); ++n) {
      Node copy{.id = net.node(n).id, .parent = view.parents[n]};
      if (!tree.AddNode(std::move(copy))) {  // deeper than allowed: at the top
        view.parents[n].clear();
        (void)tree.AddNode(Node{.id = net.node(n).id});
      }
    }
    view.containers = Containers(tree);
  } else {
    view.parents.reserve(net.size());
    for (const Node& n : net.nodes()) view.parents.push_back(n.parent);
    view.containers = Containers(net);
  }
  view.rank = Rank(view.analysis, SortKey::kScore);
  view.whatif = std::make_unique<const WhatIf>(WhatIf::Build(view.snapshot, view.analysis));
}

std::shared_ptr<const View> MakeView(std::string file, Judged judged) {
  auto view = std::make_shared<View>();
  view->file = std::move(file);
  static_cast<Judged&>(*view) = std::move(judged);
  Prepare(*view);
  return std::shared_ptr<const View>(std::move(view));
}

const AnalysisTools& View::tools() const {
  std::call_once(tools_once_, [this] { tools_ = std::make_unique<const AnalysisTools>(*this, file); });
  return *tools_;
}

std::optional<size_t> ViewNumber(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  size_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

namespace {

ApiReply Reply(const Result<std::string>& doc) {
  if (doc) return ApiReply{.body = *doc};
  return ApiReply{.status = doc.error().where == kNotFound ? 404 : 400,
                  .body = Dump(json{{"error", doc.error().message}})};
}

ApiReply Refuse(std::string message) {
  return ApiReply{.status = 400, .body = Dump(json{{"error", std::move(message)}})};
}

}  // namespace

ApiReply ViewDocument(const Explorer& ex, size_t v, std::string_view what,
                      const std::function<std::string(const char* name)>& param) {
  if (what == "summary") return Reply(ex.SummaryJson(v));
  if (what == "graph") return Reply(ex.GraphJson(v, param("container")));
  if (what == "node") return Reply(ex.NodeJson(v, param("id")));
  if (what == "search") return Reply(ex.SearchJson(v, param("q")));
  if (what == "frames") return Reply(ex.FramesJson(v));
  if (what == "findings") return Reply(ex.FindingsJson(v));
  if (what == "nodes") {
    const std::string t = param("top");
    const std::optional<size_t> top = t.empty() ? 100 : ViewNumber(t);
    if (!top) return Refuse(fmt::format("top: give a number of rows, 1 to {}", kMaxNodeRows));
    return Reply(ex.NodesJson(v, param("sort"), *top));
  }
  if (what == "whatif") return Reply(ex.WhatIfJson(v, param("node"), param("factor")));
  if (what == "timeline") {
    const std::optional<size_t> frame = ViewNumber(param("frame"));
    if (!frame) return Refuse("frame: give a frame position (0, 1, ...)");
    return Reply(ex.TimelineJson(v, *frame));
  }
  return ApiReply{.status = 404, .body = Dump(json{{"error", "no such page"}})};
}

Explorer::Explorer(Dataset data, AskHooks hooks)
    : data_(std::make_shared<const Dataset>(std::move(data))), hooks_(std::move(hooks)) {}

std::shared_ptr<const Dataset> Explorer::data() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return data_;
}

void Explorer::Replace(Dataset data) {
  std::lock_guard<std::mutex> lock(mutex_);
  data.version = data_->version + 1;
  data_ = std::make_shared<const Dataset>(std::move(data));
}

uint64_t Explorer::version() const { return data()->version; }

std::string Explorer::IndexJson() const {
  const std::shared_ptr<const Dataset> d = data();
  json views = json::array();
  for (size_t i = 0; i < d->views.size(); ++i) {
    const View& v = *d->views[i];
    const FrameSummary& f = v.analysis.frames;
    size_t critical = 0;
    for (const Finding& x : v.findings) critical += x.severity == Severity::kCritical;
    views.push_back({{"view", i},
                     {"file", v.file},
                     {"name", v.snapshot.info.name},
                     {"engine", v.snapshot.info.engine},
                     {"nodes", v.snapshot.network.size()},
                     {"frames", v.snapshot.samples.frame_count()},
                     {"frame_word", v.snapshot.info.frame_word()},
                     {"mean_ms", Num(f.mean_ms)},
                     {"p95_ms", Num(f.p95_ms)},
                     {"max_ms", Num(f.max_ms)},
                     {"budget_ms", v.analysis.has_budget ? Num(v.analysis.budget_ms) : json(nullptr)},
                     {"over_budget", f.over_budget.size()},
                     {"findings", v.findings.size()},
                     {"critical_findings", critical},
                     {"top", v.rank.empty() || CookedCount(v.analysis) == 0
                                 ? json(nullptr)
                                 : json(v.snapshot.network.node(v.rank[0]).id)}});
  }
  json doc = {{"cookgraph", 1},
              {"version", d->version},
              {"live", d->live},
              {"status", d->status},
              {"alerts", d->alerts},
              {"diff", d->diff.has_value()},
              {"ask", {{"configured", hooks_.not_configured.empty() && hooks_.ask != nullptr},
                       {"help", hooks_.not_configured}}},
              {"views", std::move(views)}};
  return Dump(doc);
}

Result<std::string> Explorer::SummaryJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const FrameSummary& f = v.analysis.frames;
  json path = json::array();
  for (NodeIndex n : v.analysis.critical_path.nodes) path.push_back(net.node(n).id);
  json loops = json::array();
  for (const LoopReport& l : v.analysis.loops) {
    json ids = json::array();
    for (NodeIndex n : l.loop.nodes) ids.push_back(net.node(n).id);
    loops.push_back({{"kind", LoopKindName(l.loop.kind)},
                     {"nodes", std::move(ids)},
                     {"per_frame_ms", Num(l.per_frame_ms)}});
  }
  const bool gpu = v.snapshot.samples.any_series(Metric::kGpuMs);
  json metrics = {"score", "per_frame_ms"};
  if (gpu) metrics.push_back("gpu_ms");
  metrics.push_back("upstream_ms");
  if (!v.analysis.gain_ms.empty()) metrics.push_back("gain_ms");
  json threads = json::array();
  if (v.snapshot.streaming) {
    const Streaming& st = *v.snapshot.streaming;
    for (size_t t = 0; t < st.threads.size(); ++t) {
      const StreamingThread& th = st.threads[t];
      json elements = json::array();
      for (NodeIndex n : th.elements) elements.push_back(net.node(n).id);
      threads.push_back({{"thread", th.thread},
                         {"name", th.name},
                         {"route", th.route},
                         {"costliest", th.costliest() ? json(net.node(*th.costliest()).id) : json(nullptr)},
                         {"bottleneck", st.bottleneck == t},
                         {"elements", std::move(elements)},
                         {"busy_ms_per_buffer", Num(th.busy_ms_per_buffer)},
                         {"buffer_period_ms", Num(th.buffer_period_ms)},
                         {"utilisation", Num(th.utilisation())},
                         {"cpu_load_pct", Num(th.cpu_load_pct)}});
    }
  }
  // What to change first (docs/commands.md#cookgraph-serve): the first rows of
  // the top gains, over-budget frames first, each with the findings about its
  // node (those that name it first), as the report's section.
  json first_fixes = json::array();
  for (size_t i = 0; i < v.gains.rows.size() && i < 3; ++i) {
    const PredictedGain& g = v.gains.rows[i];
    const NodeIndex node = g.nodes.front();
    json why = json::array();
    for (size_t k = 0; k < v.findings.size(); ++k) {
      if (!v.findings[k].nodes.empty() && v.findings[k].nodes.front() == node) why.push_back(k);
    }
    first_fixes.push_back({{"id", net.node(node).id},
                           {"text", FixSentence(g, v.snapshot.info.frame_word())},
                           {"frames_saved", g.frames()},
                           {"over_budget", g.over_budget},
                           {"saved_ms", Num(g.ms())},
                           {"findings", std::move(why)}});
  }
  json doc = {{"view", index},
              {"file", v.file},
              {"name", v.snapshot.info.name},
              {"engine", v.snapshot.info.engine},
              {"steps", v.snapshot.info.steps()},
              {"frame_word", v.snapshot.info.frame_word()},
              {"nodes", net.size()},
              {"edges", net.edges().size()},
              {"budget_ms", v.analysis.has_budget ? Num(v.analysis.budget_ms) : json(nullptr)},
              {"frames",
               {{"count", v.snapshot.samples.frame_count()},
                {"counted", f.counted},
                {"measured", f.measured},
                {"mean_ms", Num(f.mean_ms)},
                {"p95_ms", Num(f.p95_ms)},
                {"max_ms", Num(f.max_ms)},
                {"over_budget", f.over_budget.size()}}},
              {"metrics", std::move(metrics)},
              {"critical_path", {{"nodes", std::move(path)},
                                 {"per_frame_ms", Num(v.analysis.critical_path.weight)}}},
              {"loops", std::move(loops)},
              {"threads", std::move(threads)},
              {"timeline", !v.snapshot.timelines.empty() ||
                                   (v.snapshot.streaming && !v.snapshot.streaming->cook_start_ms.empty())
                               ? "recorded"
                               : "dependency"},
              {"first_fixes", std::move(first_fixes)},
              {"warnings", v.analysis.warnings}};
  return Dump(doc);
}

Result<std::string> Explorer::GraphJson(size_t index, std::string_view container) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const Analysis& a = v.analysis;
  const auto cindex = ContainerIndex(v);
  const std::string here(container);
  if (!here.empty() && !cindex.contains(here)) {
    return NotFound("no container '" + here + "' in " + v.file);
  }

  // The items: the container's own nodes, then its child containers (a
  // container that is also a node is that node's item).
  std::vector<int64_t> item_node;        // NodeIndex or -1
  std::vector<std::string_view> item_id;
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
  std::vector<bool> enterable;
  for (const Container& c : v.containers) {
    if (!c.id.empty() && c.parent == here) add(c.id, -1);
  }
  enterable.assign(item_id.size(), false);
  for (const Container& c : v.containers) {
    auto it = item_of_id.find(c.id);
    if (!c.id.empty() && c.parent == here && it != item_of_id.end()) enterable[it->second] = true;
  }
  const size_t k = item_id.size();

  // Each node's item in this container: itself, or the child container above
  // it; none outside. Walks up the parents (bounded by the container depth).
  std::vector<uint32_t> node_item(net.size(), UINT32_MAX);
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

  // Metrics and flags of each item: a node's own; a container's summed (per
  // frame, GPU) or largest (score, upstream) over the nodes beneath it.
  // Gains (per_frame ms saved by halving) do not add up: a container's is its
  // largest, as the score's.
  std::vector<double> score(k, 0), per_frame(k, 0), gpu(k, 0), upstream(k, 0), gain(k, 0);
  const bool has_gain = !a.gain_ms.empty();
  std::vector<bool> has_gpu(k, false);
  std::vector<uint32_t> flags(k, 0);
  // A container's costliest node beneath it (per frame), named on its box.
  std::vector<int64_t> costliest(k, -1);
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
    if (enterable[i]) flags[i] |= kEnterable;
  }

  // Edges between items (parallel ones merged; inside one item, none). The
  // critical route's steps mark theirs.
  std::unordered_set<uint64_t> critical_steps;
  const std::vector<NodeIndex>& route = a.critical_route.nodes;
  for (size_t i = 1; i < route.size(); ++i) {
    critical_steps.insert((uint64_t{route[i - 1]} << 32) | route[i]);
  }
  std::unordered_map<uint64_t, size_t> edge_at;
  std::vector<uint32_t> edge_flat;  // from, to, kind, critical
  std::vector<std::pair<uint32_t, uint32_t>> order_edges;
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

  // Layout: layers left to right, each ordered by the mean row of its inputs
  // (one barycentre sweep), wrapped past kMaxRows.
  const std::vector<uint32_t> layer = Layers(k, order_edges);
  uint32_t layers = 0;
  for (uint32_t l : layer) layers = std::max(layers, l + 1);
  std::vector<std::vector<uint32_t>> by_layer(layers);
  for (uint32_t i = 0; i < k; ++i) by_layer[layer[i]].push_back(i);
  std::vector<std::vector<uint32_t>> preds(k);
  for (const auto& [x, y] : order_edges) preds[y].push_back(x);
  std::vector<double> row(k, 0), xs(k, 0), ys(k, 0);
  double column = 0, height = 0;
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

  // Written directly: at 100k items a json value per number costs more than
  // the layout (docs/performance.md#the-explorer).
  std::string out;
  out.reserve(k * 160 + edge_flat.size() * 8 + 1024);
  auto strings = [&](const char* key, auto&& get) {
    out += fmt::format(",\"{}\":[", key);
    for (size_t i = 0; i < k; ++i) {
      if (i) out += ',';
      AppendJsonString(out, get(i));
    }
    out += ']';
  };
  auto numbers = [&](const char* key, auto&& get) {
    out += fmt::format(",\"{}\":[", key);
    for (size_t i = 0; i < k; ++i) {
      if (i) out += ',';
      const std::optional<double> value = get(i);
      if (value && std::isfinite(*value)) {
        fmt::format_to(std::back_inserter(out), "{}", *value);
      } else {
        out += "null";
      }
    }
    out += ']';
  };
  json crumbs = json::array();
  for (const std::string& c : Breadcrumb(v, cindex, here)) {
    crumbs.push_back({{"id", c}, {"name", c.empty() ? std::string("top") : std::string(ShortName(c))}});
  }
  out += fmt::format("{{\"view\":{},\"container\":", index);
  AppendJsonString(out, here);
  out += fmt::format(",\"breadcrumb\":{},\"width\":{},\"height\":{},\"items\":{{\"n\":{}",
                     Dump(crumbs), column * kColumnWidth, height, k);
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
  out += "},\"edges\":[";
  for (size_t i = 0; i < edge_flat.size(); ++i) {
    if (i) out += ',';
    fmt::format_to(std::back_inserter(out), "{}", edge_flat[i]);
  }
  out += "]}";
  return out;
}

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
  json doc = {{"view", index}, {"id", id}};
  if (container != cindex.end()) {
    const Container& c = v.containers[container->second];
    double per_frame = 0;
    size_t cooked = 0;
    for (NodeIndex n : c.all) {
      per_frame += v.analysis.stats[n].per_frame_ms;
      cooked += v.analysis.stats[n].cooked_frames > 0;
    }
    doc["container"] = {{"nodes", c.all.size()},
                        {"direct", c.direct.size()},
                        {"cooked_nodes", cooked},
                        {"per_frame_ms", Num(per_frame)}};
  }
  // The parent container to enter to see the node.
  const std::string parent =
      found ? v.parents[*found] : v.containers[container->second].parent;
  doc["parent"] = parent;
  if (!found) return Dump(doc);
  const NodeIndex n = *found;
  const Node& node = net.node(n);

  // The same columns and values as `score --format json` (writers/score_columns.h).
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
  json stats = json::object();
  for (size_t c = 0; c < kNodeColumns.size() && c < values.size(); ++c) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            stats[std::string(kNodeColumns[c])] = nullptr;
          } else if constexpr (std::is_same_v<T, double>) {
            stats[std::string(kNodeColumns[c])] = Num(x);
          } else if constexpr (std::is_same_v<T, std::string_view>) {
            stats[std::string(kNodeColumns[c])] = std::string(x);
          } else {
            stats[std::string(kNodeColumns[c])] = x;
          }
        },
        values[c]);
  }
  json params = json::array();
  for (const auto& [key, value] : node.params) params.push_back({key, value});
  json inputs = json::array(), outputs = json::array();
  for (const Edge& e : net.edges()) {
    if (e.to == n) inputs.push_back({{"id", net.node(e.from).id}, {"kind", EdgeKindName(e.kind)}});
    if (e.from == n) outputs.push_back({{"id", net.node(e.to).id}, {"kind", EdgeKindName(e.kind)}});
  }
  auto series = [&](Metric m) {
    json out = json::array();
    for (double x : v.snapshot.samples.series(n, m)) out.push_back(Num(x));
    return out;
  };
  json findings = json::array();
  for (size_t i = 0; i < v.findings.size(); ++i) {
    const auto& nodes = v.findings[i].nodes;
    if (std::find(nodes.begin(), nodes.end(), n) != nodes.end()) findings.push_back(i);
  }
  json frames = json::array();
  for (int64_t f : v.snapshot.samples.frame_index()) frames.push_back(f);
  doc["node"] = {{"type", node.type},
                 {"family", node.family},
                 {"output", node.output},
                 {"waiting", n < v.analysis.waiting.size() && v.analysis.waiting[n]}};
  doc["stats"] = std::move(stats);
  doc["params"] = std::move(params);
  doc["inputs"] = std::move(inputs);
  doc["outputs"] = std::move(outputs);
  doc["series"] = {{"frames", std::move(frames)},
                   {"cook_ms", series(Metric::kCookMs)},
                   {"gpu_ms", series(Metric::kGpuMs)}};
  doc["budget_ms"] = v.analysis.has_budget ? Num(v.analysis.budget_ms) : json(nullptr);
  doc["gain_ms"] = n < v.analysis.gain_ms.size() ? Num(v.analysis.gain_ms[n]) : json(nullptr);
  json over = json::array();
  for (size_t f : v.analysis.frames.over_budget) over.push_back(f);
  doc["over_budget"] = std::move(over);
  doc["findings"] = std::move(findings);
  return Dump(doc);
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
  json results = json::array();
  for (const auto& [tier, n] : hits) {
    const Node& node = net.node(n);
    results.push_back({{"id", node.id},
                       {"name", ShortName(node.id)},
                       {"type", node.type},
                       {"parent", v.parents[n]},
                       {"score", Num(v.analysis.stats[n].score)}});
  }
  return Dump(json{{"query", std::string(query)}, {"total", total}, {"results", std::move(results)}});
}

Result<std::string> Explorer::FramesJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const FrameSummary& f = v.analysis.frames;
  json ms = json::array(), frames = json::array(), over = json::array();
  size_t worst = 0;
  double worst_ms = -1;
  for (size_t i = 0; i < f.frame_ms.size(); ++i) {
    ms.push_back(Num(f.frame_ms[i]));
    if (std::isfinite(f.frame_ms[i]) && f.frame_ms[i] > worst_ms) {
      worst_ms = f.frame_ms[i];
      worst = i;
    }
  }
  for (int64_t x : v.snapshot.samples.frame_index()) frames.push_back(x);
  for (size_t x : f.over_budget) over.push_back(x);
  json doc = {{"view", index},
              {"steps", v.snapshot.info.steps()},
              {"frame_word", v.snapshot.info.frame_word()},
              {"frames", std::move(frames)},
              {"frame_ms", std::move(ms)},
              {"budget_ms", v.analysis.has_budget ? Num(v.analysis.budget_ms) : json(nullptr)},
              {"over_budget", std::move(over)},
              {"worst", f.frame_ms.empty() ? json(nullptr) : json(worst)},
              {"mean_ms", Num(f.mean_ms)},
              {"p95_ms", Num(f.p95_ms)},
              {"max_ms", Num(f.max_ms)}};
  return Dump(doc);
}

namespace {

// The most events one timeline document carries; the longest are kept.
constexpr size_t kTimelineEvents = 100000;

const char* KindName(EventKind kind) {
  switch (kind) {
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kRuntime: return "runtime";
    case EventKind::kAnnotation: return "annotation";
    case EventKind::kMarker: return "marker";
    case EventKind::kKernel: return "kernel";
    case EventKind::kMemcpy: return "memcpy";
    case EventKind::kMemset: return "memset";
    case EventKind::kGpuAnnotation: return "gpu_annotation";
    case EventKind::kGpuSync: return "gpu_sync";
    case EventKind::kOther: return "other";
  }
  return "other";
}

// A lane of the timeline document, filled column by column.
struct Lane {
  std::string label;
  bool gpu = false;
  json start = json::array(), dur = json::array(), name = json::array(), depth = json::array(),
       kind = json::array(), node = json::array(), link = json::array();
};

json LaneJson(Lane& l) {
  return {{"label", l.label}, {"gpu", l.gpu},  {"start", std::move(l.start)},
          {"dur", std::move(l.dur)}, {"name", std::move(l.name)}, {"depth", std::move(l.depth)},
          {"kind", std::move(l.kind)}, {"node", std::move(l.node)}, {"link", std::move(l.link)}};
}

}  // namespace

Result<std::string> Explorer::TimelineJson(size_t index, size_t frame) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Snapshot& s = v.snapshot;
  if (frame >= s.samples.frame_count()) {
    return NotFound("no frame at position " + std::to_string(frame) + " in " + v.file);
  }
  const Network& net = s.network;
  std::vector<Lane> lanes;
  std::vector<std::string> names;
  std::unordered_map<std::string_view, uint32_t> name_at;
  auto intern = [&](std::string_view text) {
    auto it = name_at.find(text);
    if (it != name_at.end()) return it->second;
    names.emplace_back(text);
    const uint32_t at = static_cast<uint32_t>(names.size() - 1);
    name_at.emplace(names.back(), at);
    return at;
  };
  names.reserve(kTimelineEvents);
  std::string layout;
  double span_ms = 0;
  size_t total = 0, kept = 0;
  size_t other_streams = 0;  // GStreamer: cooks of buffer k on threads at another rate, left out

  if (!s.timelines.empty()) {
    layout = "recorded";
    // The frame's events of every rank; its start is the earliest of them.
    std::vector<std::pair<size_t, uint32_t>> picked;  // (timeline, event)
    int64_t origin = INT64_MAX, end = INT64_MIN;
    for (size_t t = 0; t < s.timelines.size(); ++t) {
      const Timeline& tl = s.timelines[t];
      for (uint32_t e = 0; e < tl.events.size(); ++e) {
        const TimelineEvent& ev = tl.events[e];
        if (ev.frame != frame) continue;
        picked.emplace_back(t, e);
        origin = std::min(origin, ev.start_ns);
        end = std::max(end, ev.end_ns());
      }
    }
    total = picked.size();
    if (picked.size() > kTimelineEvents) {
      std::nth_element(picked.begin(), picked.begin() + kTimelineEvents, picked.end(),
                       [&](const auto& p, const auto& q) {
                         return s.timelines[p.first].events[p.second].dur_ns >
                                s.timelines[q.first].events[q.second].dur_ns;
                       });
      picked.resize(kTimelineEvents);
      std::sort(picked.begin(), picked.end());
    }
    kept = picked.size();
    span_ms = picked.empty() ? 0 : static_cast<double>(end - origin) / 1e6;
    // Lanes by (timeline, track), in the order the tracks are listed; an
    // event's link is its partner's (lane, position) when the partner is kept.
    std::unordered_map<uint64_t, size_t> lane_of;
    std::unordered_map<uint64_t, std::pair<size_t, size_t>> position;  // (t, e) -> (lane, i)
    std::unordered_map<uint64_t, uint32_t> depth_of;
    for (const auto& [t, e] : picked) {
      const Timeline& tl = s.timelines[t];
      const TimelineEvent& ev = tl.events[e];
      const uint64_t lane_key = (uint64_t{t} << 32) | ev.track;
      auto [it, fresh] = lane_of.emplace(lane_key, lanes.size());
      if (fresh) {
        Lane l;
        const Track& track = tl.tracks[ev.track];
        l.label = (s.timelines.size() > 1 ? "rank " + std::to_string(tl.rank) + " · " : "") + track.label;
        l.gpu = track.gpu;
        lanes.push_back(std::move(l));
      }
      Lane& l = lanes[it->second];
      uint32_t depth = 0;
      if (ev.parent != kNoIndex) {
        auto p = depth_of.find((uint64_t{t} << 32) | ev.parent);
        if (p != depth_of.end()) depth = p->second + 1;
      }
      depth_of[(uint64_t{t} << 32) | e] = depth;
      position[(uint64_t{t} << 32) | e] = {it->second, l.start.size()};
      l.start.push_back(static_cast<double>(ev.start_ns - origin) / 1e6);
      l.dur.push_back(static_cast<double>(ev.dur_ns) / 1e6);
      l.name.push_back(intern(tl.name(ev)));
      l.depth.push_back(depth);
      l.kind.push_back(KindName(ev.kind));
      l.node.push_back(ev.node != kNoIndex && ev.node < net.size() ? json(net.node(ev.node).id) : json(nullptr));
      l.link.push_back(nullptr);
    }
    for (const auto& [t, e] : picked) {
      const TimelineEvent& ev = s.timelines[t].events[e];
      if (ev.link == kNoIndex) continue;
      auto from = position.find((uint64_t{t} << 32) | e);
      auto to = position.find((uint64_t{t} << 32) | ev.link);
      if (from == position.end() || to == position.end()) continue;
      lanes[from->second.first].link[from->second.second] = {to->second.first, to->second.second};
    }
  } else if (s.streaming && !s.streaming->cook_start_ms.empty()) {
    // A GStreamer recording: each element's cook of this buffer index where
    // the latency tracer says it began, on the thread that ran it; waiting
    // elements (queues, mixers) on a row of their own below the work.
    layout = "recorded";
    const Streaming& st = *s.streaming;
    lanes.resize(st.threads.size() + 1);
    for (size_t t = 0; t < st.threads.size(); ++t) {
      lanes[t].label = st.threads[t].name + (st.bottleneck == t ? " (bottleneck)" : "");
    }
    lanes.back().label = "thread not logged";
    // Node n's cook of this frame as (start, ms), when both are known.
    auto cook_of = [&](NodeIndex n) -> std::optional<std::pair<double, double>> {
      const auto& starts = st.cook_start_ms[n];
      const auto cook = s.samples.series(n, Metric::kCookMs);
      if (frame >= starts.size() || !std::isfinite(starts[frame]) || frame >= cook.size() ||
          !std::isfinite(cook[frame])) {
        return std::nullopt;
      }
      return std::pair{starts[frame], cook[frame]};
    };
    const NodeIndex nodes = static_cast<NodeIndex>(std::min(st.cook_start_ms.size(), net.size()));
    double origin = INFINITY, end = -INFINITY;
    // A cook on a thread at another rate (audio beside video) is that
    // stream's buffer k, not part of frame k: left out, and counted.
    auto other_rate = [&](NodeIndex n) {
      const uint32_t t = st.cook_thread[n][frame];
      return t < st.threads.size() && !st.threads[t].sets_frame;
    };
    for (NodeIndex n = 0; n < nodes; ++n) {
      const auto c = cook_of(n);
      if (c && !other_rate(n)) {
        origin = std::min(origin, c->first);
        end = std::max(end, c->first + c->second);
      }
    }
    for (NodeIndex n = 0; n < nodes; ++n) {
      const auto c = cook_of(n);
      if (!c) continue;
      if (other_rate(n)) {
        ++other_streams;
        continue;
      }
      const uint32_t t = st.cook_thread[n][frame];
      Lane& l = lanes[t < st.threads.size() ? t : st.threads.size()];
      const bool waiting = v.analysis.waiting.size() > n && v.analysis.waiting[n];
      l.start.push_back(c->first - origin);
      l.dur.push_back(c->second);
      l.name.push_back(intern(ShortName(net.node(n).id)));
      l.depth.push_back(waiting ? 1 : 0);
      l.kind.push_back(waiting ? "waiting" : "cook");
      l.node.push_back(net.node(n).id);
      l.link.push_back(nullptr);
      ++total;
    }
    kept = total;
    span_ms = total ? end - origin : 0;
  } else {
    // No recorded times: the frame's cooks laid out in the order their inputs
    // allow (the topological order), one after another on one lane per
    // streaming thread (GStreamer) or on the main thread (TouchDesigner cooks
    // one operator at a time).
    layout = "dependency";
    std::vector<size_t> lane_of_node(net.size(), 0);
    const std::vector<bool> off_frame =
        s.streaming ? OffFrameNodes(*s.streaming, net.size()) : std::vector<bool>(net.size(), false);
    if (s.streaming && !s.streaming->threads.empty()) {
      lanes.resize(s.streaming->threads.size());
      for (size_t t = 0; t < s.streaming->threads.size(); ++t) {
        const StreamingThread& th = s.streaming->threads[t];
        lanes[t].label = th.name + (s.streaming->bottleneck == t ? " (bottleneck)" : "");
      }
      for (size_t t = s.streaming->threads.size(); t-- > 0;) {
        for (NodeIndex n : s.streaming->threads[t].elements) lane_of_node[n] = t;
      }
    } else {
      lanes.resize(1);
      lanes[0].label = s.info.engine == "touchdesigner" ? "main thread" : "cooks";
    }
    // A waiting node (a queue, a mixer: docs/architecture.md#waiting-nodes)
    // is drawn on the row below, from where its buffer arrived, and takes no
    // time from the lane: its time is waiting for others, not work.
    std::vector<double> at(lanes.size(), 0);
    for (NodeIndex n : v.analysis.order) {
      const auto cook = s.samples.series(n, Metric::kCookMs);
      if (cook.empty() || frame >= cook.size() || !std::isfinite(cook[frame])) continue;
      if (off_frame[n]) {
        ++other_streams;
        continue;
      }
      const bool waiting = v.analysis.waiting.size() > n && v.analysis.waiting[n];
      Lane& l = lanes[lane_of_node[n]];
      double& t = at[lane_of_node[n]];
      l.start.push_back(t);
      l.dur.push_back(cook[frame]);
      l.name.push_back(intern(ShortName(net.node(n).id)));
      l.depth.push_back(waiting ? 1 : 0);
      l.kind.push_back(waiting ? "waiting" : "cook");
      l.node.push_back(net.node(n).id);
      l.link.push_back(nullptr);
      if (!waiting) t += cook[frame];
      span_ms = std::max(span_ms, t);
      ++total;
    }
    kept = total;
  }
  json jl = json::array();
  for (Lane& l : lanes) {
    if (!l.start.empty()) jl.push_back(LaneJson(l));
  }
  const auto& f = v.analysis.frames;
  json doc = {{"view", index},
              {"frame", frame},
              {"step", StepLabel(s, frame)},
              {"frame_ms", frame < f.frame_ms.size() ? Num(f.frame_ms[frame]) : json(nullptr)},
              {"layout", layout},
              {"span_ms", Num(span_ms)},
              {"events", total},
              {"kept", kept},
              {"other_streams", other_streams},
              {"names", std::move(names)},
              {"lanes", std::move(jl)}};
  return Dump(doc);
}

Result<std::string> Explorer::FindingsJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  json list = json::array();
  for (const Finding& f : v.findings) {
    json nodes = json::array(), numbers = json::array();
    for (NodeIndex n : f.nodes) nodes.push_back(v.snapshot.network.node(n).id);
    for (const auto& [name, value] : f.numbers) numbers.push_back({name, Num(value)});
    list.push_back({{"rule", f.rule},
                    {"severity", SeverityName(f.severity)},
                    {"title", f.title},
                    {"nodes", std::move(nodes)},
                    {"numbers", std::move(numbers)},
                    {"suggestion", f.suggestion}});
  }
  return Dump(json{{"view", index}, {"findings", std::move(list)}});
}

Result<std::string> Explorer::DiffJson() const {
  const std::shared_ptr<const Dataset> d = data();
  if (!d->diff) return NotFound("no comparison: serve two inputs, BEFORE and AFTER");
  const SnapshotDiff& diff = *d->diff;
  json rows = json::array();
  for (const NodeDiff& n : diff.nodes) {
    rows.push_back({{"id", n.id},
                    {"before_avg_ms", Num(n.before_stats.avg_ms)},
                    {"after_avg_ms", Num(n.after_stats.avg_ms)},
                    {"before_per_frame_ms", Num(n.before_stats.per_frame_ms)},
                    {"after_per_frame_ms", Num(n.after_stats.per_frame_ms)},
                    {"avg_pct", Num(n.avg_pct)},
                    {"per_frame_pct", Num(n.per_frame_pct)},
                    {"p_value", Num(n.p_value())},
                    {"regression", n.regression},
                    {"improvement", n.improvement},
                    {"note", n.note}});
  }
  const FrameDiff& f = diff.frames;
  json doc = {{"before", d->views[0]->file},
              {"after", d->views[1]->file},
              {"alpha", diff.options.alpha},
              {"min_change_pct", diff.options.min_change_pct},
              {"frames",
               {{"mean_before", Num(f.mean_before)},
                {"mean_after", Num(f.mean_after)},
                {"p95_before", Num(f.p95_before)},
                {"p95_after", Num(f.p95_after)},
                {"change_pct", Num(f.change_pct)},
                {"p_value", Num(f.p_value())},
                {"regression", f.regression},
                {"improvement", f.improvement}}},
              {"regressions", diff.regressions},
              {"improvements", diff.improvements},
              {"nodes", std::move(rows)},
              {"added", diff.added},
              {"removed", diff.removed},
              {"warnings", diff.warnings}};
  return Dump(doc);
}

Result<double> ParseWhatIfFactor(std::string_view text) {
  const std::string range = fmt::format("from 0 (the node removed) to {}", kMaxWhatIfFactor);
  if (text.empty()) {
    return Error{.message = "factor: give how many times as long the node cooks, " + range +
                            " (?factor=0.5)"};
  }
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, value);
  const bool too_far = ec == std::errc::result_out_of_range;  // 1e999, 1e-999
  const bool whole = (ec == std::errc() || too_far) && at == end;
  const std::string shown = Printable(text.substr(0, 32));  // the page shows it
  if (whole && text.front() == '-') {
    return Error{.message =
                     "factor: '" + shown +
                     "' is negative: a node cannot cook in less than no time; give a factor " +
                     range};
  }
  // from_chars also takes "inf", "nan" and "infinity": a factor starts with a digit or '.'.
  const bool decimal =
      (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.') &&
      text.find_first_not_of("0123456789.eE+-") == std::string_view::npos;
  if (!whole || !decimal) {
    return Error{.message = "factor: '" + shown + "' is not a number; give a factor " + range};
  }
  if (too_far || !std::isfinite(value) || value > kMaxWhatIfFactor) {
    return Error{.message = "factor: '" + shown + "' is out of range; give a factor " + range};
  }
  return value;
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
  json rows = json::array();
  for (size_t r = 0; r < cooked && r < top && r < order.size(); ++r) {
    const NodeIndex n = order[r];
    const Node& node = net.node(n);
    const NodeStats& s = a.stats[n];
    const auto found = inside.find(node.id);
    const ContainerStats* container = found == inside.end() ? nullptr : found->second;
    rows.push_back(
        {{"id", node.id},
         {"name", ShortName(node.id)},
         {"type", node.type},
         {"parent", v.parents[n]},
         {"rank", rank_of[n]},
         {"score", Num(s.score)},
         {"avg_ms", Num(s.avg_ms)},
         {"p95_ms", Num(s.p95_ms)},
         {"max_ms", Num(s.max_ms)},
         {"per_frame_ms", Num(s.per_frame_ms)},
         {"gpu_avg_ms", Num(s.gpu_avg_ms)},
         {"gpu_per_frame_ms", s.gpu_per_frame_ms ? Num(*s.gpu_per_frame_ms) : json(nullptr)},
         {"gpu_share", s.gpu_share ? Num(*s.gpu_share) : json(nullptr)},
         {"inside_ms", container ? Num(s.per_frame_ms + container->per_frame_ms) : json(nullptr)},
         {"costliest_inside", container && !container->costliest.empty()
                                  ? json(container->costliest)
                                  : json(nullptr)},
         {"upstream_ms", n < a.upstream_ms.size() ? Num(a.upstream_ms[n]) : json(nullptr)},
         {"gain_ms", n < a.gain_ms.size() ? Num(a.gain_ms[n]) : json(nullptr)},
         {"waiting", n < a.waiting.size() && a.waiting[n]}});
  }
  return Dump(json{{"view", index},       {"sort", SortKeyName(*key)},   {"cooked", cooked},
                   {"nodes", net.size()}, {"gains", !a.gain_ms.empty()}, {"rows", std::move(rows)}});
}

Result<std::string> Explorer::WhatIfJson(size_t index, std::string_view id,
                                         std::string_view factor_text) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  if (id.empty()) return Error{.message = "node: give a node id (?node=ID)"};
  Result<double> factor = ParseWhatIfFactor(factor_text);
  if (!factor) return factor.error();
  const std::optional<NodeIndex> found = v.snapshot.network.Find(id);
  if (!found) {
    const auto containers = ContainerIndex(v);
    if (containers.contains(id)) {
      return NotFound("'" + Printable(id) + "' is a container in " + v.file +
                      ", not a node: the what-if changes one node");
    }
    return NotFound("no node '" + Printable(id) + "' in " + v.file);
  }
  if (v.whatif == nullptr) return Error{.message = "no what-if model for " + v.file};
  const WhatIf& w = *v.whatif;
  const WhatIfChange change{.node = *found, .factor = *factor};
  const WhatIfPrediction p = w.Predict(std::span(&change, 1));
  auto frames = [](const WhatIfFrames& f) {
    return json{
        {"mean_ms", Num(f.mean_ms)}, {"p95_ms", Num(f.p95_ms)}, {"over_budget", f.over_budget}};
  };
  auto series = [](const std::vector<double>& ms) {
    json out = json::array();
    for (double x : ms) out.push_back(Num(x));
    return out;
  };
  const NodeIndex n = *found;
  const bool waiting = n < v.analysis.waiting.size() && v.analysis.waiting[n];
  const bool cooked = v.analysis.stats[n].cooked_frames > 0;
  json doc = {{"view", index},
              {"node", v.snapshot.network.node(n).id},
              {"factor", *factor},
              {"model", WhatIfModelName(w.model())},
              {"budget_ms", w.has_budget() ? Num(w.budget_ms()) : json(nullptr)},
              {"before", frames(w.before())},
              {"after", frames(p.after)},
              {"saved_ms", Num(p.saved_ms)},
              {"saved_p95_ms", Num(p.saved_p95_ms)},
              {"frames_saved", p.frames_saved},
              {"waiting", waiting},
              {"cooked", cooked},
              {"before_ms", series(w.frame_ms())},
              {"after_ms", series(p.frame_ms)},
              {"warnings", w.warnings()}};
  return Dump(doc);
}

}  // namespace cookgraph::server
