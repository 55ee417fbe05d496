#include "writers/graph_formats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace cookgraph {
namespace {

using nlohmann::json;

/// ramp -> noise -> feedback -> comp -> out with comp feeding back into feedback
/// (dashed), a ref into noise, a call pair forming a cycle (a <-> b) inside a
/// nested container, and an id that needs DOT escaping.
Snapshot MakeGraphSnapshot() {
  Snapshot snap;
  snap.info.engine = "touchdesigner";
  snap.info.name = "demo";
  const std::vector<std::pair<std::string, std::vector<double>>> nodes = {
      {"/p/ramp1", {0.5, 0.5, 0.5}},     {"/p/noise1", {1.0, 1.2, kMissing}},
      {"/p/feedback1", {0.2, 0.2, 0.2}}, {"/p/comp1", {2.0, 8.0, 2.0}},
      {"/p/out1", {0.1, 0.1, 0.1}},      {"/p/lfo \"fast\" \\1", {0.3, 0.3, 0.3}},
      {"/p/sub/a", {0.05, 0.05, 0.05}},  {"/p/sub/b", {}},
  };
  for (const auto& [id, cook] : nodes) {
    EXPECT_TRUE(snap.network.AddNode({.id = id, .type = "t", .output = id == "/p/out1"}));
  }
  auto at = [&](const std::string& id) { return *snap.network.Find(id); };
  snap.network.AddEdge(at("/p/ramp1"), at("/p/noise1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/noise1"), at("/p/feedback1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/comp1"), at("/p/feedback1"), EdgeKind::kFeedback);
  snap.network.AddEdge(at("/p/feedback1"), at("/p/comp1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/comp1"), at("/p/out1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/lfo \"fast\" \\1"), at("/p/noise1"), EdgeKind::kRef);
  snap.network.AddEdge(at("/p/sub/a"), at("/p/sub/b"), EdgeKind::kCall);
  snap.network.AddEdge(at("/p/sub/b"), at("/p/sub/a"), EdgeKind::kFlow);
  snap.samples = Samples(snap.network.size());
  snap.samples.SetFrameIndex({1, 2, 3});
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!nodes[i].second.empty()) {
      snap.samples.SetSeries(static_cast<NodeIndex>(i), Metric::kCookMs, nodes[i].second);
    }
  }
  return snap;
}

/// True when braces and brackets outside double-quoted strings balance.
bool Balanced(const std::string& dot) {
  int braces = 0, brackets = 0;
  bool quoted = false;
  for (size_t i = 0; i < dot.size(); ++i) {
    const char c = dot[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
      continue;
    }
    if (c == '"') quoted = true;
    braces += c == '{' ? 1 : c == '}' ? -1 : 0;
    brackets += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (braces < 0 || brackets < 0) return false;
  }
  return braces == 0 && brackets == 0 && !quoted;
}

std::string EdgeLine(const std::string& dot, const Snapshot& snap, const std::string& from,
                     const std::string& to) {
  const std::string head = "n" + std::to_string(*snap.network.Find(from)) + " -> n" +
                           std::to_string(*snap.network.Find(to)) + " [";
  const size_t at = dot.find(head);
  if (at == std::string::npos) return {};
  return dot.substr(at, dot.find('\n', at) - at);
}

TEST(GraphDot, FeedbackEdgeIsDashedAndBracesBalance) {
  const Snapshot snap = MakeGraphSnapshot();
  const std::string dot = RenderGraph(GraphFormat::kDot, "net.json", snap, Analyse(snap));
  EXPECT_EQ(dot.rfind("digraph ", 0), 0u);
  EXPECT_TRUE(Balanced(dot)) << dot;
  const std::string feedback = EdgeLine(dot, snap, "/p/comp1", "/p/feedback1");
  EXPECT_NE(feedback.find("style=\"dashed\""), std::string::npos) << feedback;
  EXPECT_NE(feedback.find("constraint=false"), std::string::npos);
  EXPECT_NE(EdgeLine(dot, snap, "/p/lfo \"fast\" \\1", "/p/noise1").find("dotted"),
            std::string::npos);
  const std::string call = EdgeLine(dot, snap, "/p/sub/a", "/p/sub/b");
  const std::string flow = EdgeLine(dot, snap, "/p/sub/b", "/p/sub/a");
  ASSERT_FALSE(call.empty());
  ASSERT_FALSE(flow.empty());
  EXPECT_NE(call.substr(call.find("color")), flow.substr(flow.find("color")));
  // One node statement per node, one edge statement per edge.
  for (NodeIndex n = 0; n < snap.network.size(); ++n) {
    EXPECT_NE(dot.find("  n" + std::to_string(n) + " [label="), std::string::npos) << n;
  }
}

TEST(GraphDot, CriticalPathEdgesAreBoldAndOthersNot) {
  const Snapshot snap = MakeGraphSnapshot();
  const Analysis a = Analyse(snap);
  const std::string dot = RenderGraph(GraphFormat::kDot, "net.json", snap, a);
  // ramp1 -> noise1 -> feedback1 -> comp1 -> out1 is the heaviest path.
  EXPECT_NE(EdgeLine(dot, snap, "/p/ramp1", "/p/noise1").find("bold"), std::string::npos);
  EXPECT_NE(EdgeLine(dot, snap, "/p/comp1", "/p/out1").find("bold"), std::string::npos);
  EXPECT_EQ(EdgeLine(dot, snap, "/p/comp1", "/p/feedback1").find("bold"), std::string::npos);
  EXPECT_EQ(EdgeLine(dot, snap, "/p/sub/a", "/p/sub/b").find("bold"), std::string::npos);
}

TEST(GraphDot, NodesAreClusteredColouredAndEscaped) {
  const Snapshot snap = MakeGraphSnapshot();
  const std::string dot = RenderGraph(GraphFormat::kDot, "net.json", snap, Analyse(snap));
  EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos);
  EXPECT_NE(dot.find("label=\"/p\";"), std::string::npos);
  EXPECT_NE(dot.find("label=\"/p/sub\";"), std::string::npos);
  // The costliest node is full red, the never-cooked one white.
  const std::string comp = "n" + std::to_string(*snap.network.Find("/p/comp1")) + " [";
  const size_t at = dot.find(comp);
  ASSERT_NE(at, std::string::npos);
  const std::string comp_line = dot.substr(at, dot.find('\n', at) - at);
  EXPECT_NE(comp_line.find("fillcolor=\"#ff0000\""), std::string::npos) << comp_line;
  EXPECT_NE(comp_line.find("label=\"comp1\\n"), std::string::npos) << comp_line;
  // Quotes and backslashes in ids are escaped.
  EXPECT_NE(dot.find("lfo \\\"fast\\\" \\\\1"), std::string::npos) << dot;
  // "/p/sub" is nested inside "/p".
  EXPECT_LT(dot.find("label=\"/p\";"), dot.find("label=\"/p/sub\";"));
}

TEST(GraphDot, DeepNestingIsWrittenWithoutRecursionAndBoundedIndentation) {
  // 2000 nodes, each the parent of the next: clusters nest as deep as
  // Containers() allows (kMaxContainerDepth), and were written by a recursion
  // with one more level of indentation each, quadratic in the depth.
  Snapshot snap;
  std::string id;
  for (int i = 0; i < 2000; ++i) {
    std::string parent = id;
    id = "c" + std::to_string(i);
    ASSERT_TRUE(snap.network.AddNode({.id = id, .parent = parent}));
    if (i > 0) snap.network.AddEdge(i - 1, i, EdgeKind::kData);
  }
  snap.samples = Samples(snap.network.size());
  const std::string dot = RenderGraph(GraphFormat::kDot, "deep.json", snap, Analyse(snap));
  EXPECT_TRUE(Balanced(dot));
  size_t clusters = 0, widest = 0;
  for (size_t at = 0; at < dot.size();) {
    const size_t end = dot.find('\n', at);
    const std::string_view line(dot.data() + at, end - at);
    widest = std::max(widest, line.find_first_not_of(' '));
    clusters += line.find("subgraph cluster_") != std::string_view::npos;
    at = end + 1;
  }
  EXPECT_EQ(clusters, 1999u);  // c0..c1998 hold a node each
  EXPECT_LE(widest, 32u);
  for (NodeIndex n = 0; n < snap.network.size(); ++n) {
    EXPECT_NE(dot.find("n" + std::to_string(n) + " [label="), std::string::npos) << n;
  }
}

TEST(GraphJson, CriticalPathKeepsTheFirstEventsWhenAsked) {
  const Snapshot snap = MakeGraphSnapshot();
  StepPath p{.rank = 1, .annotation = "ProfilerStep#4", .step = 4, .length_ms = 2.5, .window_ms = 3};
  for (int i = 0; i < 3; ++i) {
    p.events.push_back({.name = "k" + std::to_string(i), .track = "stream 7", .ts_us = 10.0 * i,
                        .dur_us = 1e-5, .gpu = i > 0});
  }
  p.per_node_ms = {{0, 1.5}, {99, 1.0}};  // 99: not a node, left out
  const Path path{.nodes = {0, 1}, .weight = 2.5};
  JsonWriter whole(JsonStyle::kNlohmann);
  WriteCriticalPath(whole, snap.network, path, &p);
  const std::string text = whole.Take();
  const json doc = json::parse(text);
  EXPECT_EQ(doc["events"].size(), 3u);
  EXPECT_FALSE(doc.contains("truncated"));
  EXPECT_EQ(doc["per_node"].size(), 1u);
  EXPECT_EQ(doc["step"], 4);
  EXPECT_NE(text.find("\"dur_us\":1e-05"), std::string::npos) << text;  // nlohmann's spelling
  JsonWriter cut(JsonStyle::kNlohmann);
  WriteCriticalPath(cut, snap.network, path, &p, 1);
  // As the tool cut it when it was built with nlohmann: the events in place,
  // then "truncated" and "events_total" last.
  nlohmann::ordered_json want = nlohmann::ordered_json::parse(text);
  want["events"] = nlohmann::ordered_json::array({want["events"][0]});
  want["truncated"] = true;
  want["events_total"] = 3;
  EXPECT_EQ(cut.Take(), want.dump());
  JsonWriter none(JsonStyle::kNlohmann);
  WriteCriticalPath(none, snap.network, path, nullptr, 0);  // no events: nothing to cut
  EXPECT_EQ(none.Take(), R"({"nodes":["/p/ramp1","/p/noise1"],"per_frame_ms":2.5})");
}

TEST(GraphJson, HasOrderEdgesComponentsLoopsAndPath) {
  const Snapshot snap = MakeGraphSnapshot();
  const Analysis a = Analyse(snap);
  const json doc = json::parse(RenderGraph(GraphFormat::kJson, "net.json", snap, a));
  EXPECT_EQ(doc["cookgraph"], 1);
  EXPECT_EQ(doc["file"], "net.json");
  EXPECT_EQ(doc["name"], "demo");
  EXPECT_EQ(doc["engine"], "touchdesigner");
  EXPECT_EQ(doc["nodes"], snap.network.size());

  // order lists every id once, in the analysis's order.
  ASSERT_EQ(doc["order"].size(), snap.network.size());
  std::vector<std::string> order = doc["order"];
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(order[i], snap.network.node(a.order[i]).id);
  }
  std::sort(order.begin(), order.end());
  EXPECT_EQ(std::unique(order.begin(), order.end()), order.end());

  ASSERT_EQ(doc["edges"].size(), snap.network.edges().size());
  EXPECT_EQ(doc["edges"][2],
            json({{"from", "/p/comp1"}, {"to", "/p/feedback1"}, {"kind", "feedback"}}));
  EXPECT_EQ(doc["components"], json::parse(R"([["/p/sub/a", "/p/sub/b"]])"));

  ASSERT_EQ(doc["loops"].size(), a.loops.size());
  bool saw_feedback = false, saw_cycle = false;
  for (const json& loop : doc["loops"]) {
    if (loop["kind"] == "feedback") {
      saw_feedback = true;
      EXPECT_EQ(loop["nodes"], json({"/p/feedback1", "/p/comp1"}));
      EXPECT_EQ(loop["feedback_edge"], json({{"from", "/p/comp1"}, {"to", "/p/feedback1"}}));
      EXPECT_NEAR(loop["per_frame_ms"].get<double>(), 0.2 + 4.0, 1e-9);
    } else {
      saw_cycle = loop["kind"] == "cycle";
      EXPECT_FALSE(loop.contains("feedback_edge"));
    }
  }
  EXPECT_TRUE(saw_feedback);
  EXPECT_TRUE(saw_cycle);
  EXPECT_EQ(doc["critical_path"]["nodes"],
            json({"/p/ramp1", "/p/noise1", "/p/feedback1", "/p/comp1", "/p/out1"}));
  EXPECT_EQ(doc["critical_path"]["per_frame_ms"].get<double>(), a.critical_path.weight);
}

TEST(GraphText, HasSectionsAndTypedEdges) {
  const Snapshot snap = MakeGraphSnapshot();
  const std::string text = RenderGraph(GraphFormat::kText, "net.json", snap, Analyse(snap));
  EXPECT_EQ(text.rfind("net.json", 0), 0u);
  EXPECT_NE(text.find("\norder (8):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nloops (2):\n"), std::string::npos);
  EXPECT_NE(text.find("closed by /p/comp1 -> /p/feedback1 [feedback]"), std::string::npos);
  EXPECT_NE(text.find("\ncritical path ("), std::string::npos);
  EXPECT_NE(text.find("\nedges (8):\n"), std::string::npos);
  EXPECT_NE(text.find("  /p/comp1 -> /p/feedback1 [feedback]\n"), std::string::npos);
  EXPECT_NE(text.find("  /p/sub/a -> /p/sub/b [call]\n"), std::string::npos);
  EXPECT_NE(text.find("  /p/ramp1 -> /p/noise1 [data]\n"), std::string::npos);
}

TEST(GraphText, ControlCharactersInIdsAreNeutralised) {
  Snapshot snap = MakeGraphSnapshot();
  ASSERT_TRUE(snap.network.AddNode({.id = "/p/evil\x1b[2J\xc2\x9b"
                                          "1m"}));
  snap.samples = Samples(snap.network.size());
  const std::string text = RenderGraph(GraphFormat::kText, "net.json", snap, Analyse(snap));
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("/p/evil?[2J?1m"), std::string::npos) << text;
}

TEST(GraphText, NoFramesMeansNoCriticalPath) {
  // Every node weighs 0 ms: no path is heavier than another.
  Snapshot snap = MakeGraphSnapshot();
  snap.samples = Samples(snap.network.size());
  const Analysis a = Analyse(snap);
  EXPECT_TRUE(a.critical_path.nodes.empty());
  const std::string text = RenderGraph(GraphFormat::kText, "net.json", snap, a);
  EXPECT_NE(text.find("critical path: none"), std::string::npos) << text;
  const std::string dot = RenderGraph(GraphFormat::kDot, "net.json", snap, a);
  EXPECT_EQ(dot.find("bold"), std::string::npos);
}

TEST(GraphText, EmptyNetworkSaysNone) {
  Snapshot snap;
  const std::string text = RenderGraph(GraphFormat::kText, "-", snap, Analyse(snap));
  EXPECT_NE(text.find("loops: none"), std::string::npos);
  EXPECT_NE(text.find("critical path: none"), std::string::npos);
  const json doc = json::parse(RenderGraph(GraphFormat::kJson, "-", snap, Analyse(snap)));
  EXPECT_EQ(doc["order"], json::array());
  const std::string dot = RenderGraph(GraphFormat::kDot, "-", snap, Analyse(snap));
  EXPECT_TRUE(Balanced(dot));
}

}  // namespace
}  // namespace cookgraph
