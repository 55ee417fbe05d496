#include "writers/graph_formats.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/json_writer.h"
#include "base/text.h"
#include "graph/condensation.h"
#include "graph/containers.h"
#include "writers/score_columns.h"

namespace cookgraph {
namespace {

using score_internal::Ms;

// The condensation is not part of the Analysis; the writers need it for the
// cyclic components (JSON) and to tell which edges lie on the critical path (DOT).
struct GraphFacts {
  Condensation condensation;
  /// Per component: its step along the critical path, or -1 when off the path.
  std::vector<int64_t> path_step;
};

GraphFacts Facts(const Network& network, const Analysis& analysis) {
  GraphFacts f;
  const Adjacency adjacency(network);
  f.condensation = Condense(network, adjacency);
  f.path_step.assign(f.condensation.members.size(), -1);
  int64_t step = -1;
  uint32_t last = UINT32_MAX;
  // A component on the path contributes all its members, one after the other.
  // The route: with the waiting nodes the path passes through, so that the
  // edges into and out of a queue on the way are drawn as the path's.
  for (NodeIndex n : analysis.critical_route.nodes) {
    if (n >= f.condensation.component.size()) continue;
    const uint32_t c = f.condensation.component[n];
    if (c != last) f.path_step[c] = ++step;
    last = c;
  }
  return f;
}

/// True when `e` is one of the critical path's edges: a non-feedback edge inside a
/// component on the path, or from one step of the path to the next.
bool OnCriticalPath(const GraphFacts& f, const Edge& e) {
  if (e.kind == EdgeKind::kFeedback || e.kind == EdgeKind::kFwdBwd) return false;
  const std::vector<uint32_t>& comp = f.condensation.component;
  if (e.from >= comp.size() || e.to >= comp.size()) return false;
  const int64_t a = f.path_step[comp[e.from]];
  const int64_t b = f.path_step[comp[e.to]];
  return a >= 0 && b >= 0 && (a == b || b == a + 1);
}

// ---------------------------------------------------------------------------
// Text.


std::string RenderText(const std::string& file, const Snapshot& snapshot,
                       const Analysis& analysis) {
  const Network& net = snapshot.network;
  auto id = [&](NodeIndex n) { return Printable(net.node(n).id); };
  std::string out = Printable(file);
  if (!snapshot.info.engine.empty()) out += " · " + Printable(snapshot.info.engine);
  if (!snapshot.info.name.empty()) out += " · \"" + Printable(snapshot.info.name) + "\"";
  out += fmt::format(" · {} nodes · {} edges\n", net.size(), net.edges().size());

  out += fmt::format("\norder ({}):\n", analysis.order.size());
  const size_t digits = std::to_string(analysis.order.size()).size();
  for (size_t i = 0; i < analysis.order.size(); ++i) {
    out += fmt::format("  {:>{}}  {}\n", i + 1, digits, id(analysis.order[i]));
  }

  if (analysis.loops.empty()) {
    out += "\nloops: none\n";
  } else {
    out += fmt::format("\nloops ({}):\n", analysis.loops.size());
    for (const LoopReport& r : analysis.loops) {
      out +=
          fmt::format("  {} {} ms/{}, {} node{}", LoopKindName(r.loop.kind), Ms(r.per_frame_ms),
                      snapshot.info.frame_word(), r.loop.nodes.size(),
                      r.loop.nodes.size() == 1 ? "" : "s");
      if (r.loop.kind == LoopKind::kFeedback) {
        out += fmt::format(", closed by {} -> {} [feedback]", id(r.loop.feedback_from),
                           id(r.loop.feedback_to));
      }
      out += ":\n";
      for (NodeIndex n : r.loop.nodes) out += "    " + id(n) + "\n";
    }
  }

  const Path& path = analysis.critical_path;
  if (path.nodes.empty()) {
    out += "\ncritical path: none\n";
  } else {
    out += fmt::format("\ncritical path ({} ms/{}, {} node{}):\n", Ms(path.weight),
                       snapshot.info.frame_word(), path.nodes.size(),
                       path.nodes.size() == 1 ? "" : "s");
    for (NodeIndex n : path.nodes) out += "  " + id(n) + "\n";
  }

  out += fmt::format("\nedges ({}):\n", net.edges().size());
  for (const Edge& e : net.edges()) {
    out += fmt::format("  {} -> {} [{}]\n", id(e.from), id(e.to), EdgeKindName(e.kind));
  }
  return out;
}

// ---------------------------------------------------------------------------
// JSON.

void Ids(JsonWriter& w, const Network& network, const std::vector<NodeIndex>& nodes) {
  w.BeginArray();
  for (NodeIndex n : nodes) w.String(network.node(n).id);
  w.EndArray();
}

}  // namespace

void WriteCriticalPath(JsonWriter& w, const Network& net, const Path& path, const StepPath* events,
                       std::optional<size_t> keep_events) {
  w.BeginObject();
  w.Key("nodes");
  Ids(w, net, path.nodes);
  w.NumberField("per_frame_ms", path.weight);  // null when not finite
  if (events != nullptr) {
    // A trace's path is its events' (docs/architecture.md#event-critical-path).
    const StepPath& p = *events;
    w.CountField("rank", p.rank);
    w.Field("step", p.step ? JsonValue(*p.step) : JsonValue());
    w.Key("window");
    w.BeginObject();
    w.StringField("annotation", p.annotation);
    w.CountField("instance", p.instance);
    w.EndObject();
    w.NumberField("length_ms", p.length_ms);
    w.NumberField("window_ms", p.window_ms);
    const size_t shown = std::min(p.events.size(), keep_events.value_or(p.events.size()));
    w.Key("events");
    w.BeginArray();
    for (size_t i = 0; i < shown; ++i) {
      const StepPath::Event& e = p.events[i];
      w.BeginObject();
      w.StringField("name", e.name);
      w.StringField("track", e.track);
      w.NumberField("ts_us", e.ts_us);
      w.NumberField("dur_us", e.dur_us);
      w.BoolField("gpu", e.gpu);
      w.EndObject();
    }
    w.EndArray();
    w.Key("per_node");
    w.BeginArray();
    for (const std::pair<uint32_t, double>& entry : p.per_node_ms) {
      if (entry.first >= net.size()) continue;
      w.BeginObject();
      w.StringField("id", net.node(entry.first).id);
      w.NumberField("ms", entry.second);
      w.EndObject();
    }
    w.EndArray();
    if (keep_events) {
      w.BoolField("truncated", true);
      w.CountField("events_total", p.events.size());
    }
  }
  w.EndObject();
}

namespace {

std::string RenderJson(const std::string& file, const Snapshot& snapshot,
                       const Analysis& analysis) {
  const Network& net = snapshot.network;
  const GraphFacts facts = Facts(net, analysis);
  // nlohmann's spelling, as this document had when it was built with it; ids
  // are bytes from the input: invalid UTF-8 is replaced.
  JsonWriter w(JsonStyle::kNlohmann);
  w.BeginObject();
  w.CountField("cookgraph", 1);
  w.StringField("file", file);
  w.StringField("name", snapshot.info.name);
  w.StringField("engine", snapshot.info.engine);
  w.CountField("nodes", net.size());
  w.Key("edges");
  w.BeginArray();
  for (const Edge& e : net.edges()) {
    w.BeginObject();
    w.StringField("from", net.node(e.from).id);
    w.StringField("to", net.node(e.to).id);
    w.StringField("kind", EdgeKindName(e.kind));
    w.EndObject();
  }
  w.EndArray();
  w.Key("order");
  Ids(w, net, analysis.order);
  w.Key("components");
  w.BeginArray();
  for (size_t c = 0; c < facts.condensation.members.size(); ++c) {
    if (c < facts.condensation.cyclic.size() && facts.condensation.cyclic[c]) {
      Ids(w, net, facts.condensation.members[c]);
    }
  }
  w.EndArray();
  w.Key("loops");
  w.BeginArray();
  for (const LoopReport& r : analysis.loops) {
    w.BeginObject();
    w.StringField("kind", LoopKindName(r.loop.kind));
    w.Key("nodes");
    Ids(w, net, r.loop.nodes);
    w.NumberField("per_frame_ms", r.per_frame_ms);
    if (r.loop.kind == LoopKind::kFeedback) {
      w.Key("feedback_edge");
      w.BeginObject();
      w.StringField("from", net.node(r.loop.feedback_from).id);
      w.StringField("to", net.node(r.loop.feedback_to).id);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("critical_path");
  WriteCriticalPath(w, net, analysis.critical_path,
                    analysis.trace && analysis.trace->path ? &*analysis.trace->path : nullptr);
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

// ---------------------------------------------------------------------------
// DOT.


struct EdgeStyle {
  std::string_view style;  // "" = solid
  std::string_view color;
};

EdgeStyle StyleOf(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kData:
      return {"", "#404040"};
    case EdgeKind::kRef:
      return {"dotted", "#7f7f7f"};
    case EdgeKind::kFeedback:
      return {"dashed", "#d62728"};
    case EdgeKind::kCall:
      return {"", "#1f77b4"};
    case EdgeKind::kLaunch:
      return {"", "#9467bd"};
    case EdgeKind::kFlow:
      return {"", "#ff7f0e"};
    case EdgeKind::kFwdBwd:
      return {"dashed", "#8c564b"};
  }
  return {};
}

class DotWriter {
 public:
  DotWriter(const Snapshot& snapshot, const Analysis& analysis)
      : net_(snapshot.network), analysis_(analysis) {
    for (const NodeStats& s : analysis.stats) {
      if (s.cooked_frames > 0 && std::isfinite(s.score)) max_score_ = std::max(max_score_, s.score);
    }
  }

  std::string Render(const std::string& file, const Snapshot& snapshot) {
    word_ = snapshot.info.frame_word();
    std::string title = file;
    if (!snapshot.info.engine.empty()) title += " · " + snapshot.info.engine;
    if (!snapshot.info.name.empty()) title += " · " + snapshot.info.name;
    out_ = "digraph cookgraph {\n";
    out_ += fmt::format(
        "  graph [label=\"{}\", labelloc=t, rankdir=LR, fontname=\"Helvetica\", "
        "fontsize=12];\n",
        EscapeDot(title));
    out_ +=
        "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", "
        "fontname=\"Helvetica\", fontsize=10];\n";
    out_ += "  edge [arrowsize=0.7];\n";
    Clusters();
    Edges();
    out_ += "}\n";
    return std::move(out_);
  }

 private:
  void NodeLine(NodeIndex n, int indent) {
    const Node& node = net_.node(n);
    const NodeStats* s = n < analysis_.stats.size() ? &analysis_.stats[n] : nullptr;
    const bool cooked = s != nullptr && s->cooked_frames > 0;
    // White to red by score relative to the largest score of the snapshot.
    const double t = cooked && max_score_ > 0 ? std::clamp(s->score / max_score_, 0.0, 1.0) : 0.0;
    const int gb = static_cast<int>(std::lround(255.0 * (1.0 - t)));
    std::string label = EscapeDot(Basename(node.id)) + "\\n" +
                        (cooked ? fmt::format("{:.3f}", s->score) : std::string("not cooked"));
    std::string tooltip = EscapeDot(node.id);
    if (!node.type.empty()) tooltip += " (" + EscapeDot(node.type) + ")";
    if (cooked) tooltip += fmt::format("\\n{:.3f} ms/{}", s->per_frame_ms, word_);
    out_.append(indent, ' ');
    out_ += fmt::format("n{} [label=\"{}\", tooltip=\"{}\", fillcolor=\"#ff{:02x}{:02x}\"", n,
                        label, tooltip, gb, gb);
    if (t > 0.75) out_ += ", fontcolor=\"#ffffff\"";
    if (!cooked) out_ += ", fontcolor=\"#808080\"";
    out_ += "];\n";
  }

  // One cluster per container, nested like the containers; nodes of the top
  // level stay outside any cluster.
  void Clusters() {
    containers_ = Containers(net_);
    std::unordered_map<std::string_view, size_t> by_id;
    for (size_t i = 0; i < containers_.size(); ++i) by_id.emplace(containers_[i].id, i);
    children_.assign(containers_.size(), {});
    std::vector<size_t> roots;
    std::vector<bool> placed(net_.size(), false);
    for (size_t i = 0; i < containers_.size(); ++i) {
      const Container& c = containers_[i];
      if (c.id.empty()) {
        for (NodeIndex n : c.direct) Place(n, 2, placed);
        continue;
      }
      auto parent = by_id.find(c.parent);
      if (c.parent.empty() || parent == by_id.end() || parent->second == i) {
        roots.push_back(i);
      } else {
        children_[parent->second].push_back(i);
      }
    }
    visited_.assign(containers_.size(), false);
    for (size_t r : roots) Cluster(r, placed);
    // Whatever a malformed hierarchy (a parent cycle) left out still gets drawn.
    for (NodeIndex n = 0; n < net_.size(); ++n) Place(n, 2, placed);
  }

  void Place(NodeIndex n, int indent, std::vector<bool>& placed) {
    if (n >= placed.size() || placed[n]) return;
    placed[n] = true;
    NodeLine(n, indent);
  }

  // The cluster of container `root` and, nested inside, those of everything
  // beneath it. Walks with an explicit stack: a chain of explicit parents can
  // nest as deep as kMaxContainerDepth, and the indentation stops growing at
  // kMaxIndent so that deep nesting does not make the output quadratic.
  void Cluster(size_t root, std::vector<bool>& placed) {
    constexpr size_t kMaxIndent = 32;
    auto indent = [&](size_t level) {
      return static_cast<int>(std::min(2 + 2 * level, kMaxIndent));
    };
    struct Open {
      size_t container;
      size_t next_child;  // index into children_[container]
    };
    std::vector<Open> stack;
    auto open = [&](size_t i) {
      if (visited_[i]) return;
      visited_[i] = true;
      const int inner = indent(stack.size() + 1);
      out_.append(indent(stack.size()), ' ');
      out_ += fmt::format("subgraph cluster_{} {{\n", i);
      out_.append(inner, ' ');
      out_ += fmt::format("label=\"{}\"; style=\"rounded\"; color=\"#a0a0a0\";\n",
                          EscapeDot(containers_[i].id));
      for (NodeIndex n : containers_[i].direct) Place(n, inner, placed);
      stack.push_back(Open{.container = i, .next_child = 0});
    };
    open(root);
    while (!stack.empty()) {
      Open& top = stack.back();
      const std::vector<size_t>& children = children_[top.container];
      if (top.next_child < children.size()) {
        open(children[top.next_child++]);  // may reallocate `stack`: `top` is not used after
        continue;
      }
      stack.pop_back();
      out_.append(indent(stack.size()), ' ');
      out_ += "}\n";
    }
  }

  void Edges() {
    const GraphFacts facts = Facts(net_, analysis_);
    for (const Edge& e : net_.edges()) {
      const EdgeStyle style = StyleOf(e.kind);
      std::vector<std::string> attrs;
      std::string styles(style.style);
      if (OnCriticalPath(facts, e)) {
        styles += styles.empty() ? "bold" : ",bold";
        attrs.push_back("penwidth=2.5");
      }
      if (!styles.empty()) attrs.push_back(fmt::format("style=\"{}\"", styles));
      attrs.push_back(fmt::format("color=\"{}\"", style.color));
      // A feedback edge runs backwards on purpose; it must not bend the layout.
      if (e.kind == EdgeKind::kFeedback || e.kind == EdgeKind::kFwdBwd) {
        attrs.push_back("constraint=false");
      }
      attrs.push_back(fmt::format("tooltip=\"{}\"", EdgeKindName(e.kind)));
      out_ += fmt::format("  n{} -> n{} [{}];\n", e.from, e.to, fmt::join(attrs, ", "));
    }
  }

  const Network& net_;
  const Analysis& analysis_;
  double max_score_ = 0;
  std::string_view word_ = "frame";  // the engine's word for a frame (SnapshotInfo::frame_word)
  std::vector<Container> containers_;
  std::vector<std::vector<size_t>> children_;
  std::vector<bool> visited_;
  std::string out_;
};

}  // namespace

std::string RenderGraph(GraphFormat format, const std::string& file, const Snapshot& snapshot,
                        const Analysis& analysis) {
  switch (format) {
    case GraphFormat::kText:
      return RenderText(file, snapshot, analysis);
    case GraphFormat::kJson:
      return RenderJson(file, snapshot, analysis);
    case GraphFormat::kDot:
      return DotWriter(snapshot, analysis).Render(file, snapshot);
  }
  return {};
}

}  // namespace cookgraph
