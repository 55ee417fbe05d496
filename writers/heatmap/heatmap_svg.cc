#include "writers/heatmap/heatmap_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "base/text.h"
#include "graph/condensation.h"
#include "graph/containers.h"
#include "writers/heatmap/color_scale.h"
#include "writers/heatmap/graphviz.h"
#include "writers/heatmap/graphviz_api.h"

namespace cookgraph {
namespace {

// ---------------------------------------------------------------------------
// Text for Graphviz attributes.

// Backslashes doubled `times` times (see GvText and GvTooltip), and '&' as
// "&amp;": Graphviz decodes HTML entities in plain labels and tooltips
// ("&lt;" shows as "<", "&nbsp;" as a space), so an id holding one would be
// shown changed; "&amp;" decodes back to the '&' that was there.
std::string GvEscape(std::string_view s, int times) {
  std::string printable = Printable(s);
  std::string out;
  out.reserve(printable.size());
  const std::string backslash(size_t{1} << times, '\\');
  for (char c : printable) {
    if (c == '\\') {
      out += backslash;
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

/// `s` as the value of a Graphviz escString attribute (label, tooltip) that
/// shows it literally: printable valid UTF-8 (Graphviz rejects invalid UTF-8),
/// and every backslash doubled so that ids like `\N`, `\G` or `\l` are not
/// read as Graphviz's label escapes. Angle brackets and braces need nothing:
/// the label is a plain string (never an HTML-like one) on a non-record shape.
std::string GvText(std::string_view s) { return GvEscape(s, 1); }

/// `s` as the value of a Graphviz tooltip that shows it literally. Graphviz
/// (2.42) reads a tooltip's backslash escapes twice, once when it reads the
/// text and once when it substitutes \N, \G and \E, so backslashes are
/// doubled twice. A test (DrawHeatmap.HostileNamesAreDrawnAsLiteralText)
/// checks the result, and would notice a Graphviz that reads them once.
std::string GvTooltip(std::string_view s) { return GvEscape(s, 2); }

std::string Ms(double v) {
  if (!std::isfinite(v)) return "-";
  if (v != 0 && std::fabs(v) < 0.001) return fmt::format("{:.2g}", v);
  return fmt::format("{:.3f}", v);
}

// Node labels are cut to this many columns (middle replaced by '…'); the
// tooltip has the whole id.
constexpr size_t kLabelColumns = 32;

// ---------------------------------------------------------------------------
// Styles.

struct EdgeStyle {
  const char* style;  // Graphviz style; "solid" when plain
  const char* color;
  const char* arrowhead;  // told apart by the head as well as the colour
};

EdgeStyle StyleOf(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kData:
      return {"solid", "#404040", "normal"};
    case EdgeKind::kRef:
      return {"dotted", "#808080", "normal"};
    case EdgeKind::kFeedback:
      return {"dashed", "#8c4fc4", "normal"};
    case EdgeKind::kCall:
      return {"solid", "#1f77b4", "odot"};
    case EdgeKind::kLaunch:
      return {"solid", "#2ca02c", "vee"};
    case EdgeKind::kFlow:
      return {"solid", "#e08214", "empty"};
    case EdgeKind::kFwdBwd:
      return {"dashed", "#8c564b", "empty"};
  }
  return {"solid", "#404040", "normal"};
}

constexpr const char* kCriticalColor = "#d62728";
constexpr const char* kUncookedFill = "#e6e6e6";
// Waiting nodes (a queue, a mixer): hatched-looking pale blue, off the scale,
// so that a queue in front of a slow element never reads as the hot spot.
constexpr const char* kWaitingFill = "#dbe6f2";

// ---------------------------------------------------------------------------
// The critical path's edges (as `graph --format dot` draws them): a
// non-feedback edge inside a component on the path, or from one step of the
// path to the next.

class CriticalEdges {
 public:
  CriticalEdges(const Network& network, const Path& critical_path) {
    if (critical_path.nodes.empty()) return;
    const Adjacency adjacency(network);
    condensation_ = Condense(network, adjacency);
    step_.assign(condensation_.members.size(), -1);
    int64_t step = -1;
    uint32_t last = UINT32_MAX;
    for (NodeIndex n : critical_path.nodes) {
      if (n >= condensation_.component.size()) continue;
      const uint32_t c = condensation_.component[n];
      if (c != last) step_[c] = ++step;
      last = c;
    }
  }

  bool operator()(const Edge& e) const {
    if (step_.empty() || e.kind == EdgeKind::kFeedback || e.kind == EdgeKind::kFwdBwd) return false;
    const std::vector<uint32_t>& comp = condensation_.component;
    if (e.from >= comp.size() || e.to >= comp.size()) return false;
    const int64_t a = step_[comp[e.from]];
    const int64_t b = step_[comp[e.to]];
    return a >= 0 && b >= 0 && (a == b || b == a + 1);
  }

 private:
  Condensation condensation_;
  std::vector<int64_t> step_;  // per component: its step on the path, -1 = off it
};

// ---------------------------------------------------------------------------
// Building the cgraph graph.

// cgraph takes char* everywhere but copies what it keeps.
char* C(const std::string& s) { return const_cast<char*>(s.c_str()); }
char* C(const char* s) { return const_cast<char*>(s); }

class HeatmapBuilder {
 public:
  HeatmapBuilder(const Snapshot& snapshot, const Analysis& analysis,
                 const HeatmapSelection& selection)
      : net_(snapshot.network),
        analysis_(analysis),
        selection_(selection),
        critical_(snapshot.network, analysis.critical_route),
        word_(snapshot.info.frame_word()) {
    double max_score = 0;
    // The scale's top is the largest score of the whole network, so that a
    // reduced picture keeps the colours of the whole one.
    for (NodeIndex n = 0; n < analysis.stats.size(); ++n) {
      const NodeStats& s = analysis.stats[n];
      if (s.cooked_frames > 0 && std::isfinite(s.score) && !Waiting(n)) {
        max_score = std::max(max_score, s.score);
      }
    }
    scale_ = ScoreScale(max_score);
  }

  void Build(Agraph_t* g, const std::string& title) {
    g_ = g;
    Defaults(title);
    Clusters();
    Nodes();
    Edges();
    Legend();
  }

 private:
  const NodeStats* Stats(NodeIndex n) const {
    return n < analysis_.stats.size() ? &analysis_.stats[n] : nullptr;
  }
  bool Waiting(NodeIndex n) const {
    return n < analysis_.waiting.size() && analysis_.waiting[n];
  }
  bool OnCriticalPath(NodeIndex n) const {
    return n < analysis_.on_critical_path.size() && analysis_.on_critical_path[n];
  }

  void Defaults(const std::string& title) {
    Graphviz().agattr(g_, AGRAPH, C("rankdir"), C("LR"));
    Graphviz().agattr(g_, AGRAPH, C("fontname"), C("Helvetica"));
    Graphviz().agattr(g_, AGRAPH, C("fontsize"), C("12"));
    Graphviz().agattr(g_, AGRAPH, C("labelloc"), C("t"));
    Graphviz().agattr(g_, AGRAPH, C("labeljust"), C("l"));
    Graphviz().agattr(g_, AGRAPH, C("nodesep"), C("0.12"));
    Graphviz().agattr(g_, AGRAPH, C("ranksep"), C("0.35"));
    Graphviz().agattr(g_, AGRAPH, C("style"), C("rounded"));
    Graphviz().agattr(g_, AGRAPH, C("color"), C("#a0a0a0"));
    Graphviz().agattr(g_, AGRAPH, C("id"), C(""));
    Graphviz().agattr(g_, AGRAPH, C("label"), C(GvText(title)));
    Graphviz().agattr(g_, AGNODE, C("shape"), C("box"));
    Graphviz().agattr(g_, AGNODE, C("style"), C("rounded,filled"));
    Graphviz().agattr(g_, AGNODE, C("fontname"), C("Helvetica"));
    Graphviz().agattr(g_, AGNODE, C("fontsize"), C("10"));
    Graphviz().agattr(g_, AGNODE, C("margin"), C("0.06,0.03"));
    Graphviz().agattr(g_, AGNODE, C("height"), C("0.3"));
    Graphviz().agattr(g_, AGNODE, C("color"), C("#505050"));
    Graphviz().agattr(g_, AGNODE, C("penwidth"), C("1"));
    for (const char* name : {"label", "tooltip", "fillcolor", "fontcolor", "class", "id"}) {
      Graphviz().agattr(g_, AGNODE, C(name), C(""));
    }
    Graphviz().agattr(g_, AGEDGE, C("arrowsize"), C("0.6"));
    Graphviz().agattr(g_, AGEDGE, C("penwidth"), C("1"));
    Graphviz().agattr(g_, AGEDGE, C("constraint"), C("true"));
    Graphviz().agattr(g_, AGEDGE, C("fontname"), C("Helvetica"));
    Graphviz().agattr(g_, AGEDGE, C("fontsize"), C("9"));
    for (const char* name : {"style", "color", "arrowhead", "tooltip", "class"}) {
      Graphviz().agattr(g_, AGEDGE, C(name), C(""));
    }
  }

  // One cluster per container that holds a drawn node (directly or further
  // down), nested like the containers.
  void Clusters() {
    containers_ = Containers(net_);
    std::unordered_map<std::string_view, size_t> by_id;
    for (size_t i = 0; i < containers_.size(); ++i) by_id.emplace(containers_[i].id, i);
    parent_.assign(containers_.size(), SIZE_MAX);
    for (size_t i = 0; i < containers_.size(); ++i) {
      auto p = by_id.find(containers_[i].parent);
      if (!containers_[i].id.empty() && p != by_id.end() && p->second != i &&
          !containers_[p->second].id.empty()) {
        parent_[i] = p->second;
      }
    }
    std::vector<bool> drawn(net_.size(), false);
    for (NodeIndex n : selection_.nodes) drawn[n] = true;
    cluster_of_node_.assign(net_.size(), nullptr);
    subgraph_.assign(containers_.size(), nullptr);
    for (size_t i = 0; i < containers_.size(); ++i) {
      if (containers_[i].id.empty()) continue;  // the top level is the graph itself
      for (NodeIndex n : containers_[i].direct) {
        if (n < drawn.size() && drawn[n]) cluster_of_node_[n] = Subgraph(i);
      }
    }
  }

  // The cluster of container `i`, made with its enclosing clusters on first
  // use. Containers() guarantees that parent chains end within
  // kMaxContainerDepth steps, which bounds the recursion.
  Agraph_t* Subgraph(size_t i) {
    if (subgraph_[i] != nullptr) return subgraph_[i];
    Agraph_t* outer = parent_[i] == SIZE_MAX ? g_ : Subgraph(parent_[i]);
    Agraph_t* sub = Graphviz().agsubg(outer, C(fmt::format("cluster_{}", i)), 1);
    Graphviz().agsafeset(sub, C("label"), C(GvText(ClipMiddle(containers_[i].id, 48))), C(""));
    Graphviz().agsafeset(sub, C("id"), C(fmt::format("container-{}", i)), C(""));
    subgraph_[i] = sub;
    return sub;
  }

  void Nodes() {
    node_.assign(net_.size(), nullptr);
    for (NodeIndex n : selection_.nodes) {
      Agraph_t* where = cluster_of_node_[n] != nullptr ? cluster_of_node_[n] : g_;
      Agnode_t* v = Graphviz().agnode(where, C(fmt::format("n{}", n)), 1);
      node_[n] = v;
      const Node& node = net_.node(n);
      const NodeStats* s = Stats(n);
      const bool cooked = s != nullptr && s->cooked_frames > 0;
      const std::string name = ClipMiddle(Basename(node.id), kLabelColumns);
      const bool waiting = cooked && Waiting(n);
      std::string label = GvText(name) + "\\n" +
                          (waiting  ? "waits " + Ms(s->avg_ms) + " ms"
                           : cooked ? Ms(s->score)
                                    : "not cooked");
      std::string tooltip = GvTooltip(node.id);
      if (!node.type.empty()) tooltip += " (" + GvTooltip(node.type) + ")";
      if (cooked) {
        tooltip += fmt::format("\\nscore {} · {} ms/{} · avg {} ms", Ms(s->score),
                               Ms(s->per_frame_ms), word_, Ms(s->avg_ms));
      }
      if (waiting) {
        tooltip += "\\nwaiting, not work: back-pressure from the slow element downstream";
      }
      std::string cls = waiting ? "waiting" : cooked ? "cooked" : "uncooked";
      Graphviz().agsafeset(v, C("label"), C(label), C(""));
      Graphviz().agsafeset(v, C("tooltip"), C(tooltip), C(""));
      Graphviz().agsafeset(v, C("id"), C(fmt::format("node-{}", n)), C(""));
      if (waiting) {
        Graphviz().agsafeset(v, C("fillcolor"), C(kWaitingFill), C(""));
        Graphviz().agsafeset(v, C("fontcolor"), C("#404040"), C(""));
      } else if (cooked) {
        const double t = scale_(s->score);
        Graphviz().agsafeset(v, C("fillcolor"), C(Viridis(t)), C(""));
        Graphviz().agsafeset(v, C("fontcolor"), C(ViridisWantsDarkText(t) ? "#000000" : "#ffffff"), C(""));
      } else {
        Graphviz().agsafeset(v, C("fillcolor"), C(kUncookedFill), C(""));
        Graphviz().agsafeset(v, C("fontcolor"), C("#606060"), C(""));
      }
      if (OnCriticalPath(n)) {
        Graphviz().agsafeset(v, C("color"), C(kCriticalColor), C(""));
        Graphviz().agsafeset(v, C("penwidth"), C("3"), C(""));
        cls += " critical";
      }
      Graphviz().agsafeset(v, C("class"), C(cls), C(""));
    }
  }

  void Edges() {
    // Parallel edges of one kind between the same two nodes are drawn once.
    std::unordered_map<uint64_t, uint8_t> seen;  // (from, to) -> bit per kind
    for (const Edge& e : net_.edges()) {
      if (e.from >= node_.size() || e.to >= node_.size()) continue;
      if (node_[e.from] == nullptr || node_[e.to] == nullptr) continue;
      uint8_t& kinds = seen[(uint64_t{e.from} << 32) | e.to];
      const uint8_t bit = static_cast<uint8_t>(1u << static_cast<int>(e.kind));
      if (kinds & bit) continue;
      kinds |= bit;
      kinds_drawn_ |= bit;
      Agedge_t* a = Graphviz().agedge(g_, node_[e.from], node_[e.to], nullptr, 1);
      StyleEdge(a, e.kind, critical_(e));
    }
  }

  void StyleEdge(Agedge_t* a, EdgeKind kind, bool critical) {
    const EdgeStyle style = StyleOf(kind);
    Graphviz().agsafeset(a, C("style"), C(style.style), C(""));
    Graphviz().agsafeset(a, C("arrowhead"), C(style.arrowhead), C(""));
    Graphviz().agsafeset(a, C("tooltip"), C(std::string(EdgeKindName(kind))), C(""));
    std::string cls = "kind-" + std::string(EdgeKindName(kind));
    if (critical) {
      critical_drawn_ = true;
      Graphviz().agsafeset(a, C("color"), C(kCriticalColor), C(""));
      Graphviz().agsafeset(a, C("penwidth"), C("3"), C(""));
      cls += " critical";
    } else {
      Graphviz().agsafeset(a, C("color"), C(style.color), C(""));
    }
    // A feedback edge runs backwards on purpose; it must not bend the layout.
    if (kind == EdgeKind::kFeedback || kind == EdgeKind::kFwdBwd) {
      Graphviz().agsafeset(a, C("constraint"), C("false"), C(""));
    }
    Graphviz().agsafeset(a, C("class"), C(cls), C(""));
  }

  // A cluster with the colour scale (an HTML-like table Graphviz lays out),
  // what was left out, and one sample of each kind of edge drawn.
  void Legend() {
    Agraph_t* legend = Graphviz().agsubg(g_, C("cluster_legend"), 1);
    Graphviz().agsafeset(legend, C("id"), C("legend"), C(""));
    Graphviz().agsafeset(legend, C("label"), C("legend"), C(""));
    Graphviz().agsafeset(legend, C("class"), C("legend"), C(""));

    constexpr int kSwatches = 11;
    std::string table =
        "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\">"
        "<TR><TD COLSPAN=\"11\" ALIGN=\"LEFT\">score = avg × (1 + std), ms; log "
        "scale</TD></TR><TR>";
    for (int i = 0; i < kSwatches; ++i) {
      table += fmt::format("<TD BGCOLOR=\"{}\" WIDTH=\"16\" HEIGHT=\"12\"> </TD>",
                           Viridis(static_cast<double>(i) / (kSwatches - 1)));
    }
    table += "</TR><TR>";
    if (scale_.max() > 0) {
      table += fmt::format(
          "<TD COLSPAN=\"4\" ALIGN=\"LEFT\">≤{}</TD><TD COLSPAN=\"3\">{}</TD>"
          "<TD COLSPAN=\"4\" ALIGN=\"RIGHT\">{}</TD>",
          EscapeHtml(Ms(scale_.ScoreAt(0))), EscapeHtml(Ms(scale_.ScoreAt(0.5))),
          EscapeHtml(Ms(scale_.ScoreAt(1))));
    } else {
      table += "<TD COLSPAN=\"11\">no node cooked</TD>";
    }
    table += fmt::format(
        "</TR><TR><TD COLSPAN=\"11\" ALIGN=\"LEFT\" BGCOLOR=\"{}\">grey: did not cook</TD></TR>"
        "<TR><TD COLSPAN=\"11\" ALIGN=\"LEFT\" BGCOLOR=\"{}\">pale blue: waits (queue, "
        "mixer), not work</TD></TR>"
        "<TR><TD COLSPAN=\"11\" ALIGN=\"LEFT\"><FONT COLOR=\"{}\">red outline and edges: critical "
        "path ({} of {} node{} shown)</FONT></TD></TR>",
        kUncookedFill, kWaitingFill, kCriticalColor, selection_.critical_shown,
        selection_.critical_total, selection_.critical_total == 1 ? "" : "s");
    table += fmt::format("<TR><TD COLSPAN=\"11\" ALIGN=\"LEFT\">showing {} of {} node{}</TD></TR>",
                         selection_.nodes.size(), selection_.total,
                         selection_.total == 1 ? "" : "s");
    if (selection_.reduced()) {
      table +=
          "<TR><TD COLSPAN=\"11\" ALIGN=\"LEFT\">(the costliest by score, the critical path, "
          "and their neighbours)</TD></TR>";
    }
    table += "</TABLE>";
    Agnode_t* key = Graphviz().agnode(legend, C("legend_scale"), 1);
    Graphviz().agsafeset(key, C("shape"), C("plain"), C(""));
    Graphviz().agsafeset(key, C("style"), C(""), C(""));
    Graphviz().agsafeset(key, C("id"), C("legend-scale"), C(""));
    char* html = Graphviz().agstrdup_html(g_, C(table));
    Graphviz().agsafeset(key, C("label"), html, C(""));
    Graphviz().agstrfree(g_, html);

    // One sample edge per kind drawn (and for the critical path), from an
    // invisible point to the kind's name. Not an edge label: one labelled edge
    // makes dot double the ranks of the whole picture.
    //
    // The points share a rank, and so do the names; invisible edges between
    // neighbours in a rank fix their order (dot keeps the tail of an edge
    // within a rank before its head), so the samples run parallel instead of
    // crossing.
    Agraph_t* tails = Graphviz().agsubg(legend, C("legend_tails"), 1);
    Agraph_t* heads = Graphviz().agsubg(legend, C("legend_heads"), 1);
    for (Agraph_t* rank : {tails, heads}) Graphviz().agsafeset(rank, C("rank"), C("same"), C(""));
    Agnode_t* last_tail = nullptr;
    Agnode_t* last_head = nullptr;
    auto order = [&](Agnode_t* before, Agnode_t* after) {
      if (before == nullptr) return;
      Agedge_t* e = Graphviz().agedge(legend, before, after, nullptr, 1);
      Graphviz().agsafeset(e, C("style"), C("invis"), C(""));
      Graphviz().agsafeset(e, C("class"), C("legend-edge"), C(""));
    };
    auto sample = [&](const std::string& name, EdgeKind kind, bool critical) {
      Agnode_t* a = Graphviz().agnode(tails, C("legend_" + name + "_from"), 1);
      Graphviz().agsafeset(a, C("shape"), C("point"), C(""));
      Graphviz().agsafeset(a, C("width"), C("0.02"), C(""));
      Graphviz().agsafeset(a, C("style"), C("invis"), C(""));
      Agnode_t* b = Graphviz().agnode(heads, C("legend_" + name), 1);
      Graphviz().agsafeset(b, C("shape"), C("plaintext"), C(""));
      Graphviz().agsafeset(b, C("style"), C(""), C(""));
      Graphviz().agsafeset(b, C("label"), C(name), C(""));
      std::string id = "legend-" + name;
      std::replace(id.begin(), id.end(), ' ', '-');
      Graphviz().agsafeset(b, C("id"), C(id), C(""));
      Agedge_t* e = Graphviz().agedge(legend, a, b, nullptr, 1);
      StyleEdge(e, kind, critical);
      Graphviz().agsafeset(e, C("constraint"), C("true"), C(""));  // a feedback sample too
      Graphviz().agsafeset(e, C("class"), C("legend-edge"), C(""));
      order(last_tail, a);
      order(last_head, b);
      last_tail = a;
      last_head = b;
    };
    const bool critical_drawn = critical_drawn_;
    for (int k = 0; k < kEdgeKindCount; ++k) {
      if (kinds_drawn_ & (1u << k)) {
        const auto kind = static_cast<EdgeKind>(k);
        sample(std::string(EdgeKindName(kind)), kind, false);
      }
    }
    if (critical_drawn) sample("critical path", EdgeKind::kData, true);
  }

  const Network& net_;
  const Analysis& analysis_;
  const HeatmapSelection& selection_;
  const CriticalEdges critical_;
  const std::string_view word_;  // the engine's word for a frame (SnapshotInfo::frame_word)
  ScoreScale scale_{0};
  Agraph_t* g_ = nullptr;
  std::vector<Container> containers_;
  std::vector<size_t> parent_;              // per container: enclosing one, SIZE_MAX = top
  std::vector<Agraph_t*> subgraph_;         // per container: its cluster, once made
  std::vector<Agraph_t*> cluster_of_node_;  // per node: its cluster; nullptr = top level
  std::vector<Agnode_t*> node_;             // per node: drawn as; nullptr = left out
  unsigned kinds_drawn_ = 0;                // bit per EdgeKind
  bool critical_drawn_ = false;
};

std::string Title(const std::string& file, const Snapshot& snapshot,
                  const HeatmapSelection& selection) {
  std::string title = file;
  if (!snapshot.info.engine.empty()) title += " · " + snapshot.info.engine;
  if (!snapshot.info.name.empty()) title += " · " + snapshot.info.name;
  title += fmt::format(" · showing {} of {} node{}", selection.nodes.size(), selection.total,
                       selection.total == 1 ? "" : "s");
  return title;
}

// A length attribute of the SVG root ("3424pt", as Graphviz writes it) in
// points; 0 when it is missing or in another unit.
double RootLength(std::string_view svg, std::string_view attribute) {
  const size_t root = svg.find("<svg");
  if (root == std::string_view::npos) return 0;
  const std::string_view tag = svg.substr(root, svg.find('>', root) - root);
  const size_t at = tag.find(fmt::format(" {}=\"", attribute));
  if (at == std::string_view::npos) return 0;
  const size_t start = at + attribute.size() + 3;
  const size_t end = tag.find('"', start);
  std::string_view value = tag.substr(start, end == std::string_view::npos ? 0 : end - start);
  if (!value.ends_with("pt")) return 0;
  value.remove_suffix(2);
  double points = 0;
  const auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), points);
  return error == std::errc() && rest == value.data() + value.size() && points > 0 ? points : 0;
}

}  // namespace

Result<Heatmap> DrawHeatmap(const std::string& file, const Snapshot& snapshot,
                            const Analysis& analysis, const HeatmapLimits& limits) {
  Heatmap heatmap;
  heatmap.selection = SelectHeatmapNodes(snapshot.network, analysis, limits);
  HeatmapBuilder builder(snapshot, analysis, heatmap.selection);
  const std::string title = Title(file, snapshot, heatmap.selection);

  Result<DotRendering> drawn =
      RenderDotSvg(file, [&](Agraph_t* graph) { builder.Build(graph, title); });
  if (!drawn) return drawn.error();
  heatmap.svg = std::move(drawn->svg);
  heatmap.width_pt = RootLength(heatmap.svg, "width");
  heatmap.height_pt = RootLength(heatmap.svg, "height");
  heatmap.warnings = std::move(drawn->warnings);
  return heatmap;
}

std::string InlineSvg(std::string_view svg) {
  const size_t start = svg.find("<svg");
  if (start == std::string_view::npos) return {};
  std::string out(svg.substr(start));
  const size_t tag_end = out.find('>');
  if (tag_end == std::string::npos) return {};
  std::string tag = out.substr(0, tag_end);
  // Drop xmlns="..." and xmlns:xlink="..." from the root tag.
  for (size_t at; (at = tag.find(" xmlns")) != std::string::npos;) {
    const size_t open = tag.find('"', at);
    const size_t close = open == std::string::npos ? open : tag.find('"', open + 1);
    if (close == std::string::npos) break;
    tag.erase(at, close + 1 - at);
  }
  out.replace(0, tag_end, tag);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace cookgraph
