#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "metrics/analysis.h"
#include "writers/heatmap/color_scale.h"
#include "writers/heatmap/heatmap_select.h"
#include "writers/heatmap/heatmap_svg.h"

namespace cookgraph {
namespace {

// ---------------------------------------------------------------------------
// Colour scale.

TEST(Viridis, EndsAndSamplesAreMatplotlibs) {
  EXPECT_EQ(Viridis(0), "#440154");
  EXPECT_EQ(Viridis(0.5), "#21918c");
  EXPECT_EQ(Viridis(1), "#fde725");
}

TEST(Viridis, InterpolatesBetweenSamplesAndClamps) {
  // Halfway between #440154 and #482475: (0x46, 18.5 -> 19, 100.5 -> 101).
  EXPECT_EQ(Viridis(0.05), "#461365");
  EXPECT_EQ(Viridis(-3), "#440154");
  EXPECT_EQ(Viridis(7), "#fde725");
  EXPECT_EQ(Viridis(std::nan("")), "#440154");
}

TEST(ScoreScale, IsLogarithmicOverThreeDecadesBelowTheMaximum) {
  const ScoreScale scale(10.0);
  EXPECT_DOUBLE_EQ(scale(10.0), 1.0);
  EXPECT_NEAR(scale(1.0), 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(scale(0.1), 1.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(scale(0.01), 0.0);
  EXPECT_DOUBLE_EQ(scale(0.0001), 0.0);
  EXPECT_DOUBLE_EQ(scale(0.0), 0.0);
  EXPECT_DOUBLE_EQ(scale(50.0), 1.0);
  EXPECT_NEAR(scale.ScoreAt(0), 0.01, 1e-15);
  EXPECT_NEAR(scale.ScoreAt(0.5), 10.0 / std::pow(10.0, 1.5), 1e-12);
  EXPECT_DOUBLE_EQ(ScoreScale(0)(5.0), 0.0);
}

// ---------------------------------------------------------------------------
// Snapshots to draw.

/// `chains` independent chains of `length` nodes, each in its own container
/// (/net/cK/opI), every node cooking every frame. Chain K's nodes cost
/// 0.01 * (K + 1) ms, so the last chain is the critical path and holds the
/// costliest nodes. Every tenth chain closes a feedback edge from its end to
/// its start.
Snapshot Chains(size_t chains, size_t length) {
  Snapshot s;
  s.info.engine = "touchdesigner";
  for (size_t c = 0; c < chains; ++c) {
    for (size_t i = 0; i < length; ++i) {
      EXPECT_TRUE(s.network.AddNode(
          {.id = "/net/c" + std::to_string(c) + "/op" + std::to_string(i), .type = "levelTOP"}));
    }
  }
  for (size_t c = 0; c < chains; ++c) {
    const auto first = static_cast<NodeIndex>(c * length);
    for (size_t i = 1; i < length; ++i) {
      s.network.AddEdge(first + i - 1, first + i, EdgeKind::kData);
    }
    if (c % 10 == 0 && length > 1) {
      s.network.AddEdge(first + length - 1, first, EdgeKind::kFeedback);
    }
  }
  s.samples = Samples(s.network.size());
  s.samples.SetFrameIndex({1, 2});
  for (NodeIndex n = 0; n < s.network.size(); ++n) {
    const double ms = 0.01 * static_cast<double>(n / length + 1);
    s.samples.SetSeries(n, Metric::kCookMs, {ms, ms});
  }
  return s;
}

bool Contains(const std::vector<NodeIndex>& sorted, NodeIndex n) {
  return std::binary_search(sorted.begin(), sorted.end(), n);
}

// ---------------------------------------------------------------------------
// Selection.

TEST(HeatmapSelect, SmallNetworkIsDrawnWhole) {
  const Snapshot s = Chains(4, 10);
  const Analysis a = Analyse(s);
  const HeatmapSelection sel = SelectHeatmapNodes(s.network, a);
  EXPECT_EQ(sel.nodes.size(), 40u);
  EXPECT_EQ(sel.total, 40u);
  EXPECT_FALSE(sel.reduced());
  EXPECT_EQ(sel.critical_shown, sel.critical_total);
}

TEST(HeatmapSelect, TenThousandNodesAreReducedToTheCapWithTheCriticalPath) {
  const Snapshot s = Chains(500, 20);  // 10,000 nodes
  const Analysis a = Analyse(s);
  ASSERT_EQ(a.critical_path.nodes.size(), 20u);
  const HeatmapLimits limits;  // 400 nodes, top 50
  const HeatmapSelection sel = SelectHeatmapNodes(s.network, a, limits);
  EXPECT_EQ(sel.total, 10000u);
  EXPECT_TRUE(sel.reduced());
  EXPECT_LE(sel.nodes.size(), limits.max_nodes);
  EXPECT_TRUE(std::is_sorted(sel.nodes.begin(), sel.nodes.end()));
  for (NodeIndex n : a.critical_path.nodes) EXPECT_TRUE(Contains(sel.nodes, n)) << n;
  EXPECT_EQ(sel.critical_shown, 20u);
  EXPECT_EQ(sel.critical_total, 20u);
  // The 50 costliest are the last chain (20) and the one before it (20) and
  // ten of the third-last; their neighbours (one hop, also over the feedback
  // edge of chain 490) come next, so nothing else is drawn.
  const std::vector<NodeIndex> ranking = Rank(a, SortKey::kScore);
  for (size_t i = 0; i < 50; ++i) EXPECT_TRUE(Contains(sel.nodes, ranking[i])) << i;
  for (NodeIndex n : sel.nodes) EXPECT_GE(n, 497u * 20u) << "node " << n << " is not near the top";
}

TEST(HeatmapSelect, NeighboursFillUpToTheCapCostliestFirst) {
  // 10,000 nodes in 10 chains of 1,000: the critical path (the last chain) is
  // longer than the cap, so it is cut after the top 50 filled their part.
  const Snapshot s = Chains(10, 1000);
  const Analysis a = Analyse(s);
  const HeatmapSelection sel = SelectHeatmapNodes(s.network, a, {.max_nodes = 300, .top = 50});
  EXPECT_EQ(sel.nodes.size(), 300u);
  EXPECT_EQ(sel.critical_total, 1000u);
  EXPECT_EQ(sel.critical_shown, 300u);  // the top 50 are on the path too
  for (NodeIndex n : sel.nodes) EXPECT_GE(n, 9000u);
}

TEST(HeatmapSelect, NodesThatNeverCookedComeLast) {
  Snapshot s = Chains(1, 5);  // 5 cooked nodes in a chain
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(s.network.AddNode({.id = "/idle" + std::to_string(i)}));
  }
  s.network.AddEdge(0, 5, EdgeKind::kRef);  // an idle neighbour of a top node
  Samples samples(s.network.size());
  samples.SetFrameIndex({1, 2});
  for (NodeIndex n = 0; n < 5; ++n) samples.SetSeries(n, Metric::kCookMs, {1.0, 1.0});
  s.samples = std::move(samples);
  const Analysis a = Analyse(s);
  const HeatmapSelection sel = SelectHeatmapNodes(s.network, a, {.max_nodes = 6, .top = 2});
  EXPECT_EQ(sel.nodes, (std::vector<NodeIndex>{0, 1, 2, 3, 4, 5}));
}

// ---------------------------------------------------------------------------
// Drawing.

Snapshot Hostile() {
  Snapshot s;
  s.info.engine = "touchdesigner";
  s.info.name = "<script>alert('name')</script> \\G";
  for (const char* id : {"<script>alert(1)</script>", "\\N", "/p/<b>", "/p/{a|<p>b}",
                         "/p/a\\lb&c\"d", "<img src=x onerror=alert(2)>"}) {
    EXPECT_TRUE(s.network.AddNode({.id = id, .type = "t\\E"}));
  }
  s.network.AddEdge(0, 1, EdgeKind::kData);
  s.network.AddEdge(1, 2, EdgeKind::kRef);
  s.network.AddEdge(2, 3, EdgeKind::kData);
  s.network.AddEdge(3, 1, EdgeKind::kFeedback);
  s.network.AddEdge(3, 4, EdgeKind::kCall);
  s.samples = Samples(s.network.size());
  s.samples.SetFrameIndex({1, 2});
  for (NodeIndex n = 0; n < 4; ++n) {
    s.samples.SetSeries(n, Metric::kCookMs, {1.0 + n, 2.0 + n});
  }
  return s;
}

TEST(DrawHeatmap, HostileNamesAreDrawnAsLiteralText) {
  const Snapshot s = Hostile();
  const Analysis a = Analyse(s);
  Result<Heatmap> h = DrawHeatmap("in<.json", s, a);
  ASSERT_TRUE(h) << h.error().Format();
  const std::string& svg = h->svg;
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  // Labels are the last part of the id (the containers are the clusters);
  // tooltips have the whole id and the type.
  EXPECT_NE(svg.find(">&lt;img src=x onerror=alert(2)&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find("xlink:title=\"&lt;script&gt;alert(1)&lt;/script&gt; (t\\E)&#10;score"),
            std::string::npos);
  // Graphviz's escapes are shown as typed, not expanded to the node's name.
  EXPECT_NE(svg.find(">\\N</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("xlink:title=\"\\N (t\\E)&#10;score"), std::string::npos);
  EXPECT_NE(svg.find(">&lt;b&gt;</text>"), std::string::npos);
  EXPECT_NE(svg.find(">{a|&lt;p&gt;b}</text>"), std::string::npos);
  EXPECT_NE(svg.find(">a\\lb&amp;c&quot;d</text>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt; \\G"), std::string::npos)
      << "the title";
  EXPECT_TRUE(h->warnings.empty()) << h->warnings.front();
}

// Graphviz decodes HTML entities in plain labels and tooltips; an id that
// holds one is still shown as typed.
TEST(DrawHeatmap, EntitiesInIdsAreShownAsTyped) {
  Snapshot s;
  s.info.name = "&amp; name";
  EXPECT_TRUE(s.network.AddNode({.id = "/p/&lt;i&gt;&#60;&nbsp;&bogus;", .type = "&quot;"}));
  s.samples = Samples(s.network.size());
  s.samples.SetFrameIndex({1});
  s.samples.SetSeries(0, Metric::kCookMs, {1.0});
  Result<Heatmap> h = DrawHeatmap("in&lt;.json", s, Analyse(s));
  ASSERT_TRUE(h) << h.error().Format();
  const std::string& svg = h->svg;
  EXPECT_NE(svg.find(">&amp;lt;i&amp;gt;&amp;#60;&amp;nbsp;&amp;bogus;</text>"), std::string::npos)
      << svg;
  EXPECT_NE(svg.find("xlink:title=\"/p/&amp;lt;i&amp;gt;&amp;#60;&amp;nbsp;&amp;bogus; "
                     "(&amp;quot;)&#10;score"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("in&amp;lt;.json · &amp;amp; name"), std::string::npos) << "the title";
}

TEST(DrawHeatmap, MarksTheCriticalPathFeedbackAndLegend) {
  const Snapshot s = Hostile();
  const Analysis a = Analyse(s);
  Result<Heatmap> h = DrawHeatmap("in.json", s, a);
  ASSERT_TRUE(h) << h.error().Format();
  const std::string& svg = h->svg;
  // One <g class="node ..."> per drawn node (legend entries are not "cooked"
  // or "uncooked").
  // Graphviz writes '-' in ids and classes as "&#45;".
  const std::regex node_group(
      R"re(<g id="node&#45;(\d+)" class="node (cooked|uncooked)( critical)?">)re");
  size_t drawn = 0, critical = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), node_group);
       it != std::sregex_iterator(); ++it) {
    ++drawn;
    const auto n = static_cast<NodeIndex>(std::stoul((*it)[1]));
    EXPECT_EQ((*it)[3].matched, a.on_critical_path[n]) << n;
    critical += (*it)[3].matched;
  }
  EXPECT_EQ(drawn, 6u);
  EXPECT_EQ(critical, a.critical_path.nodes.size());
  EXPECT_GT(critical, 0u);
  // The feedback edge is dashed, the ref dotted (within the edge's group).
  EXPECT_TRUE(std::regex_search(
      svg, std::regex(
               R"re(class="edge kind&#45;feedback">(?:(?!</g>)[\s\S])*stroke-dasharray="5,2")re")));
  EXPECT_TRUE(std::regex_search(
      svg, std::regex(
               R"re(class="edge kind&#45;ref[^"]*">(?:(?!</g>)[\s\S])*stroke-dasharray="1,5")re")));
  EXPECT_NE(svg.find("<g id=\"legend\" class=\"cluster legend\">"), std::string::npos);
  EXPECT_NE(svg.find("showing 6 of 6 nodes"), std::string::npos);
  EXPECT_NE(svg.find("id=\"legend&#45;feedback\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"legend&#45;critical&#45;path\""), std::string::npos);
  EXPECT_EQ(svg.find("id=\"legend&#45;launch\""), std::string::npos) << "no launch edge is drawn";
}

TEST(DrawHeatmap, AQueueWaitsOffTheScaleAndTheSlowElementIsHottest) {
  // src -> queue (waits 80 ms a buffer) -> slow (5 ms) -> sink.
  Snapshot s;
  s.info.engine = "gstreamer";
  for (auto [id, family] : {std::pair{"/p/src", "element"}, std::pair{"/p/queue0", "queue"},
                            std::pair{"/p/slow", "element"}, std::pair{"/p/sink", "element"}}) {
    EXPECT_TRUE(s.network.AddNode({.id = id, .type = "t", .family = family}));
  }
  for (NodeIndex n = 0; n < 3; ++n) s.network.AddEdge(n, n + 1, EdgeKind::kData);
  s.samples = Samples(s.network.size());
  s.samples.SetFrameIndex({0, 1});
  s.samples.SetSeries(0, Metric::kCookMs, {0.2, 0.2});
  s.samples.SetSeries(1, Metric::kCookMs, {70.0, 90.0});
  s.samples.SetSeries(2, Metric::kCookMs, {5.0, 5.0});
  const Analysis a = Analyse(s);
  Result<Heatmap> h = DrawHeatmap("in.json", s, a);
  ASSERT_TRUE(h) << h.error().Format();
  const std::string& svg = h->svg;
  const std::regex group(R"re(<g id="node&#45;(\d+)" class="node ([a-z ]+)">)re");
  std::map<NodeIndex, std::string> cls;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), group);
       it != std::sregex_iterator(); ++it) {
    cls[static_cast<NodeIndex>(std::stoul((*it)[1]))] = (*it)[2];
  }
  EXPECT_EQ(cls[1], "waiting");           // not "cooked", not "critical"
  EXPECT_EQ(cls[2], "cooked critical");   // the slow element carries the path
  EXPECT_FALSE(a.on_critical_path[1]);
  // The slow element has the top of the scale (viridis #fde725), the queue the
  // pale blue of waiting, labelled with its wait.
  auto fill_of = [&](NodeIndex n) {
    const size_t at = svg.find("<g id=\"node&#45;" + std::to_string(n) + "\"");
    const size_t fill = svg.find("fill=\"", at);
    return svg.substr(fill + 6, 7);
  };
  EXPECT_EQ(fill_of(2), "#fde725");
  EXPECT_EQ(fill_of(1), "#dbe6f2");
  EXPECT_NE(svg.find("waits 80.000 ms"), std::string::npos);
  EXPECT_NE(svg.find("pale blue: waits"), std::string::npos);
}

TEST(DrawHeatmap, ConcurrentCallsAgree) {
  const Snapshot s = Chains(6, 8);
  const Analysis a = Analyse(s);
  std::vector<std::string> svgs(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < svgs.size(); ++i) {
    threads.emplace_back([&, i] {
      Result<Heatmap> h = DrawHeatmap("net.json", s, a);
      if (h) svgs[i] = h->svg;
    });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& svg : svgs) {
    ASSERT_FALSE(svg.empty());
    EXPECT_EQ(svg, svgs[0]);
  }
}

TEST(DrawHeatmap, ReducedNetworkSaysHowManyNodesItShows) {
  const Snapshot s = Chains(500, 20);
  const Analysis a = Analyse(s);
  Result<Heatmap> h = DrawHeatmap("big.json", s, a);
  ASSERT_TRUE(h) << h.error().Format();
  EXPECT_TRUE(h->selection.reduced());
  EXPECT_NE(h->svg.find("showing " + std::to_string(h->selection.nodes.size()) + " of 10000 nodes"),
            std::string::npos);
  EXPECT_NE(h->svg.find("the costliest by score, the critical path, and their neighbours"),
            std::string::npos);
}

TEST(InlineSvg, DropsPrologAndNamespaces) {
  const std::string doc =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<!-- Generated -->\n"
      "<svg width=\"8pt\" height=\"4pt\" viewBox=\"0 0 8 4\" "
      "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
      "<g/>\n</svg>\n";
  EXPECT_EQ(InlineSvg(doc), "<svg width=\"8pt\" height=\"4pt\" viewBox=\"0 0 8 4\">\n<g/>\n</svg>");
  EXPECT_EQ(InlineSvg("no picture"), "");
}

}  // namespace
}  // namespace cookgraph
