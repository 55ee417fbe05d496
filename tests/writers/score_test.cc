#include "writers/score.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/diff.h"
#include "metrics/rollup.h"
#include "writers/diff_formats.h"

namespace cookgraph {
namespace {

using nlohmann::json;

constexpr double N = kMissing;
const std::string kWeirdId = "/p/weird,\"id\"";

struct NodeSpec {
  std::string id;
  std::string type;
  std::vector<double> cook_ms;  // empty = no series (never cooked)
  bool output = false;
};

/// A small TouchDesigner-like network: ramp -> noise -> feedback -> comp -> out,
/// comp feeding back into feedback, a ref from a node whose id needs CSV quoting,
/// a node in a nested container and one that never cooks. Frame 101 is over budget.
Snapshot MakeSnapshot(std::vector<NodeSpec> extra = {}) {
  std::vector<NodeSpec> specs = {
      {"/p/ramp1", "rampTOP", {0.5, 0.5, 0.5, 0.5}},
      {"/p/noise1", "noiseTOP", {1.0, 1.2, N, 1.1}},
      {"/p/feedback1", "feedbackTOP", {0.2, 0.2, 0.2, 0.2}},
      {"/p/comp1", "compositeTOP", {2.0, 8.0, 2.0, 2.1}},
      {"/p/out1", "nullTOP", {0.1, 0.1, 0.1, 0.1}, true},
      {kWeirdId, "textDAT", {0.3, 0.3, 0.3, 0.3}},
      {"/p/idle1", "nullCHOP", {}},
      {"/p/sub/deep1", "levelTOP", {0.05, 0.05, 0.05, 0.05}},
  };
  for (NodeSpec& s : extra) specs.push_back(std::move(s));
  Snapshot snap;
  snap.info.engine = "touchdesigner";
  snap.info.name = "feedback_demo";
  snap.info.frame_budget_ms = 5.0;
  for (const NodeSpec& s : specs) {
    auto added =
        snap.network.AddNode({.id = s.id, .type = s.type, .family = "TOP", .output = s.output});
    EXPECT_TRUE(added) << s.id;
  }
  auto at = [&](const std::string& id) { return *snap.network.Find(id); };
  snap.network.AddEdge(at("/p/ramp1"), at("/p/noise1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/noise1"), at("/p/feedback1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/comp1"), at("/p/feedback1"), EdgeKind::kFeedback);
  snap.network.AddEdge(at("/p/feedback1"), at("/p/comp1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/noise1"), at("/p/comp1"), EdgeKind::kData);
  snap.network.AddEdge(at("/p/comp1"), at("/p/out1"), EdgeKind::kData);
  snap.network.AddEdge(at(kWeirdId), at("/p/noise1"), EdgeKind::kRef);
  snap.network.AddEdge(at("/p/sub/deep1"), at("/p/comp1"), EdgeKind::kData);

  snap.samples = Samples(snap.network.size());
  snap.samples.SetFrameIndex({100, 101, 102, 103});
  for (size_t i = 0; i < specs.size(); ++i) {
    if (!specs[i].cook_ms.empty()) {
      snap.samples.SetSeries(static_cast<NodeIndex>(i), Metric::kCookMs, specs[i].cook_ms);
    }
  }
  snap.samples.SetSeries(at("/p/comp1"), Metric::kGpuMs, {1.5, 6.0, 1.5, 1.6});
  snap.warnings.push_back("unknown key 'color' ignored");
  return snap;
}

// MakeSnapshot() with measured frame times (mean 5 ms, frame 101 over the
// 5 ms budget) and, when `profiler`, the profiler's own time in three of the
// four frames: [0.5, 0.25, -, 0.75], mean 0.5, p95 0.725, max 0.75, 10% of 5 ms.
Snapshot WithFrameTimes(bool profiler) {
  Snapshot snap = MakeSnapshot();
  snap.samples.SetFrameMs({4, 8, 4, 4});
  if (profiler) snap.samples.SetProfilerMs({0.5, 0.25, N, 0.75});
  return snap;
}

// MakeSnapshot() (frame time not measured) with the profiler's time `values`.
Snapshot WithProfilerOnly(std::vector<double> values) {
  Snapshot snap = MakeSnapshot();
  snap.samples.SetProfilerMs(std::move(values));
  return snap;
}

constexpr const char* kProfilerPart =
    " · profiler overhead mean 0.500 / p95 0.725 / max 0.750 ms per frame (in 3 of 4 frames; "
    "10.0% of frame time, not in it)";

struct Scored {
  std::string file = "net.json";
  Snapshot snapshot;
  Analysis analysis;
  explicit Scored(Snapshot s) : snapshot(std::move(s)), analysis(Analyse(snapshot)) {}
  ScoredSnapshot view() const { return {file, snapshot, analysis}; }
};

std::string Render(ScoreFormat format, const Scored& scored, const ScoreOptions& options = {},
                   const std::vector<Error>& errors = {}) {
  return RenderScoreHeader(format, options) + RenderScoreSnapshot(format, scored.view(), options) +
         RenderScoreFooter(format, errors);
}

/// Equal for finite numbers written shortest-round-trip; null for "no value".
void ExpectNumber(const json& j, double expected, const std::string& what) {
  ASSERT_TRUE(j.is_number()) << what << ": " << j.dump();
  EXPECT_EQ(j.get<double>(), expected) << what;
}

TEST(ScoreJson, DocumentHasEveryKeyWithTheAnalysisValues) {
  Scored s(MakeSnapshot());
  const std::vector<Error> errors = {
      {.file = "bad.json", .line = 3, .column = 7, .message = "unexpected '}'"}};
  const std::string text = Render(ScoreFormat::kJson, s, {}, errors);
  const json doc = json::parse(text);
  // Whole-valued measurements keep a decimal point, as nlohmann would write them.
  EXPECT_NE(text.find("\"frame_budget_ms\":5.0,"), std::string::npos);
  EXPECT_NE(text.find("\"frames\":4,"), std::string::npos);

  EXPECT_EQ(doc["cookgraph"], 1);
  ASSERT_EQ(doc["snapshots"].size(), 1u);
  ASSERT_EQ(doc["errors"].size(), 1u);
  EXPECT_EQ(doc["errors"][0]["file"], "bad.json");
  EXPECT_EQ(doc["errors"][0]["message"], "bad.json:3:7: unexpected '}'");

  const json& snap = doc["snapshots"][0];
  for (const char* key :
       {"file", "name", "engine", "frames", "frame_budget_ms", "frame_ms", "over_budget_frames",
        "nodes", "loops", "critical_path", "spikes", "warnings"}) {
    EXPECT_TRUE(snap.contains(key)) << key;
  }
  EXPECT_FALSE(snap.contains("containers"));
  EXPECT_EQ(snap["file"], "net.json");
  EXPECT_EQ(snap["name"], "feedback_demo");
  EXPECT_EQ(snap["engine"], "touchdesigner");
  EXPECT_EQ(snap["frames"], 4);
  ExpectNumber(snap["frame_budget_ms"], 5.0, "budget");
  const Analysis& a = s.analysis;
  ExpectNumber(snap["frame_ms"]["mean"], a.frames.mean_ms, "mean");
  ExpectNumber(snap["frame_ms"]["p95"], a.frames.p95_ms, "p95");
  ExpectNumber(snap["frame_ms"]["max"], a.frames.max_ms, "max");
  EXPECT_EQ(snap["frame_ms"]["measured"], false);
  EXPECT_EQ(snap["over_budget_frames"], a.frames.over_budget.size());
  EXPECT_EQ(snap["over_budget_frames"], 1);  // only frame 101 (comp1 at 8 ms)
  // Frame time is the sum of cooks here: frame 101 = 0.5+1.2+0.2+8+0.1+0.3+0.05.
  EXPECT_NEAR(snap["frame_ms"]["max"].get<double>(), 10.35, 1e-9);

  const json& nodes = snap["nodes"];
  const std::vector<NodeIndex> order = Rank(a, SortKey::kScore);
  ASSERT_EQ(nodes.size(), order.size());
  ASSERT_EQ(nodes.size(), 8u);
  for (size_t i = 0; i < order.size(); ++i) {
    const json& node = nodes[i];
    const NodeIndex n = order[i];
    const NodeStats& st = a.stats[n];
    const std::string& id = s.snapshot.network.node(n).id;
    SCOPED_TRACE(id);
    EXPECT_EQ(node.size(), 26u);
    EXPECT_EQ(node["id"], id);
    EXPECT_EQ(node["type"], s.snapshot.network.node(n).type);
    EXPECT_EQ(node["family"], "TOP");
    ExpectNumber(node["per_frame_ms"], st.per_frame_ms, "per_frame_ms");
    ExpectNumber(node["share"], st.share, "share");
    EXPECT_EQ(node["cooked_frames"], st.cooked_frames);
    ExpectNumber(node["cooks_per_frame"], st.cooks_per_frame, "cooks_per_frame");
    ExpectNumber(node["upstream_ms"], a.upstream_ms[n], "upstream_ms");
    EXPECT_EQ(node["loop"], static_cast<bool>(a.in_loop[n]));
    EXPECT_EQ(node["on_critical_path"], static_cast<bool>(a.on_critical_path[n]));
    EXPECT_EQ(node["dead"], static_cast<bool>(a.dead[n]));
    EXPECT_TRUE(node["cpu_mem_mb"].is_null());
    EXPECT_TRUE(node["gpu_mem_mb"].is_null());
    if (st.cooked_frames == 0) {
      EXPECT_TRUE(node["rank"].is_null());
      for (const char* key :
           {"score", "avg_ms", "std_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms"}) {
        EXPECT_TRUE(node[key].is_null()) << key;
      }
      continue;
    }
    EXPECT_EQ(node["rank"], i + 1);
    ExpectNumber(node["score"], st.score, "score");
    ExpectNumber(node["avg_ms"], st.avg_ms, "avg_ms");
    ExpectNumber(node["std_ms"], st.std_ms, "std_ms");
    ExpectNumber(node["p50_ms"], st.p50_ms, "p50_ms");
    ExpectNumber(node["p95_ms"], st.p95_ms, "p95_ms");
    ExpectNumber(node["p99_ms"], st.p99_ms, "p99_ms");
    ExpectNumber(node["max_ms"], st.max_ms, "max_ms");
  }
  // The costliest node first; the never-cooked one last.
  EXPECT_EQ(nodes[0]["id"], "/p/comp1");
  EXPECT_NEAR(nodes[0]["avg_ms"].get<double>(), 14.1 / 4, 1e-9 * 14.1 / 4);
  EXPECT_NEAR(nodes[0]["gpu_avg_ms"].get<double>(), 10.6 / 4, 1e-9);
  EXPECT_EQ(nodes[0]["loop"], true);
  EXPECT_EQ(nodes[7]["id"], "/p/idle1");
  EXPECT_TRUE(nodes[7]["rank"].is_null());
  EXPECT_TRUE(nodes[7]["gpu_avg_ms"].is_null());

  // The feedback edge comp1 -> feedback1 closes the loop feedback1 -> comp1.
  ASSERT_EQ(snap["loops"].size(), a.loops.size());
  ASSERT_GE(snap["loops"].size(), 1u);
  EXPECT_EQ(snap["loops"][0]["kind"], "feedback");
  EXPECT_EQ(snap["loops"][0]["nodes"], json({"/p/feedback1", "/p/comp1"}));
  ExpectNumber(snap["loops"][0]["per_frame_ms"], a.loops[0].per_frame_ms, "loop");

  json path = json::array();
  for (NodeIndex n : a.critical_path.nodes) path.push_back(s.snapshot.network.node(n).id);
  EXPECT_EQ(snap["critical_path"]["nodes"], path);
  EXPECT_EQ(snap["critical_path"]["nodes"].back(), "/p/out1");
  ExpectNumber(snap["critical_path"]["per_frame_ms"], a.critical_path.weight, "path");

  ASSERT_EQ(snap["spikes"].size(), a.spikes.size());
  ASSERT_GE(snap["spikes"].size(), 1u);
  const json& spike = snap["spikes"][0];
  for (const char* key : {"id", "median_ms", "frames", "excess_ms", "max_excess_ms", "worst_frame",
                          "share_of_overrun"}) {
    EXPECT_TRUE(spike.contains(key)) << key;
  }
  EXPECT_EQ(spike["id"], "/p/comp1");
  EXPECT_EQ(spike["worst_frame"], 101);
  ExpectNumber(spike["excess_ms"], a.spikes[0].excess_ms, "excess");

  EXPECT_EQ(snap["warnings"], json(a.warnings));
  EXPECT_NE(std::find(a.warnings.begin(), a.warnings.end(), "unknown key 'color' ignored"),
            a.warnings.end());
}

TEST(ScoreJson, ProfilerMsObjectOnlyWhenTheInputHasIt) {
  json with = json::parse(Render(ScoreFormat::kJson, Scored(WithFrameTimes(true))))["snapshots"][0];
  const json without =
      json::parse(Render(ScoreFormat::kJson, Scored(WithFrameTimes(false))))["snapshots"][0];
  EXPECT_FALSE(without.contains("profiler_ms"));
  ASSERT_TRUE(with.contains("profiler_ms"));
  const json& p = with["profiler_ms"];
  EXPECT_EQ(p.size(), 5u) << p.dump();
  ExpectNumber(p["mean"], 0.5, "mean");
  ASSERT_TRUE(p["p95"].is_number()) << p.dump();
  EXPECT_DOUBLE_EQ(p["p95"].get<double>(), 0.725);
  ExpectNumber(p["max"], 0.75, "max");
  EXPECT_EQ(p["frames"], 3);
  ASSERT_TRUE(p["share_of_frame"].is_number()) << p.dump();
  EXPECT_DOUBLE_EQ(p["share_of_frame"].get<double>(), 0.1);  // 0.5 ms of a 5 ms mean frame
  // The frame time, the nodes and everything else are the same without it.
  with.erase("profiler_ms");
  EXPECT_EQ(with.dump(), without.dump());
}

TEST(ScoreJson, ProfilerMsShareIsNullWithoutMeasuredFrameTimeAndStatisticsWithoutValues) {
  const std::string some =
      Render(ScoreFormat::kJson, Scored(WithProfilerOnly({0.5, 0.5, 0.5, 0.5})));
  EXPECT_NE(some.find(R"("over_budget_frames":1,"profiler_ms":{"mean":0.5,"p95":0.5,"max":0.5,)"
                      R"("frames":4,"share_of_frame":null},"nodes":)"),
            std::string::npos)
      << some;
  const std::string none = Render(ScoreFormat::kJson, Scored(WithProfilerOnly({N, N, N, N})));
  EXPECT_NE(none.find(R"("profiler_ms":{"mean":null,"p95":null,"max":null,"frames":0,)"
                      R"("share_of_frame":null})"),
            std::string::npos)
      << none;
}

TEST(ScoreJson, AGstreamerRecordingHasItsThreadsBottleneckAndLatency) {
  Snapshot snap = MakeSnapshot();
  Streaming st;
  const NodeIndex comp = *snap.network.Find("/p/comp1");
  const NodeIndex ramp = *snap.network.Find("/p/ramp1");
  st.threads.push_back({.thread = "0x7f01",
                        .elements = {ramp, comp},
                        .work = {false, true},
                        .element_ms = {1.0, 14.1},
                        .buffers = 4,
                        .busy_ms_per_buffer = 3.525,
                        .buffer_period_ms = 5.0,
                        .cpu_ms = 12.5,
                        .cpu_load_pct = 61.0,
                        .cpu_load_over_time = {{100.0, 60.0}, {200.0, 62.0}}});
  st.threads.push_back({.thread = "0x7f02",
                        .elements = {ramp},
                        .work = {true},
                        .element_ms = {2.0},
                        .buffers = 4,
                        .busy_ms_per_buffer = 0.5});
  st.bottleneck = 0;
  st.latency = LatencyStats{.records = 3, .mean_ms = 20.0, .p95_ms = 29.0, .max_ms = 30.0};
  snap.streaming = std::move(st);
  Scored s(std::move(snap));
  const json doc = json::parse(Render(ScoreFormat::kJson, s));
  const json& out = doc["snapshots"][0];
  ASSERT_EQ(out["threads"].size(), 2u);
  const json& t = out["threads"][0];
  EXPECT_EQ(t["thread"], "0x7f01");
  EXPECT_EQ(t["elements"], json({"/p/ramp1", "/p/comp1"}));
  EXPECT_EQ(t["work_elements"], json({"/p/comp1"}));
  EXPECT_EQ(t["buffers"], 4);
  EXPECT_EQ(t["busy_ms_per_buffer"], 3.525);
  EXPECT_EQ(t["buffer_period_ms"], 5.0);
  EXPECT_EQ(t["utilisation"], 3.525 / 5.0);
  EXPECT_EQ(t["cpu_load_pct"], 61.0);
  EXPECT_EQ(t["cpu_ms"], 12.5);
  EXPECT_EQ(t["cpu_load_pct_over_time"], json::parse("[[100.0,60.0],[200.0,62.0]]"));
  // Unknown figures are null, never 0.
  const json& u = out["threads"][1];
  EXPECT_TRUE(u["buffer_period_ms"].is_null());
  EXPECT_TRUE(u["utilisation"].is_null());
  EXPECT_TRUE(u["cpu_load_pct"].is_null());
  EXPECT_EQ(u["cpu_load_pct_over_time"], json::array());
  EXPECT_TRUE(out["process_cpu_load_pct"].is_null());
  EXPECT_EQ(out["bottleneck_thread"]["thread"], "0x7f01");
  EXPECT_EQ(out["bottleneck_thread"]["element"], "/p/comp1");
  EXPECT_EQ(out["latency_ms"], json::parse(R"({"records":3,"mean":20.0,"p95":29.0,"max":30.0})"));
  // Without a recording's threads there are no such keys.
  const json plain = json::parse(Render(ScoreFormat::kJson, Scored(MakeSnapshot())));
  EXPECT_FALSE(plain["snapshots"][0].contains("threads"));
  EXPECT_FALSE(plain["snapshots"][0].contains("latency_ms"));
}

TEST(ScoreJson, SeveralSnapshotsMakeOneValidDocument) {
  Scored s(MakeSnapshot());
  std::string out = RenderScoreHeader(ScoreFormat::kJson, {});
  for (int i = 0; i < 3; ++i) {
    if (i > 0) out += RenderScoreSeparator(ScoreFormat::kJson);
    out += RenderScoreSnapshot(ScoreFormat::kJson, s.view(), {});
  }
  out += RenderScoreFooter(ScoreFormat::kJson, {});
  const json doc = json::parse(out);
  EXPECT_EQ(doc["snapshots"].size(), 3u);
  EXPECT_EQ(doc["errors"], json::array());
}

TEST(ScoreJson, NoSnapshotsStillMakeAValidDocument) {
  const std::vector<Error> errors = {{.file = "-", .message = "not JSON"}};
  const json doc = json::parse(RenderScoreHeader(ScoreFormat::kJson, {}) +
                               RenderScoreFooter(ScoreFormat::kJson, errors));
  EXPECT_EQ(doc["snapshots"], json::array());
  EXPECT_EQ(doc["errors"][0]["message"], "-: not JSON");
}

TEST(ScoreJson, AwkwardIdsAndInvalidUtf8StayValidJson) {
  const std::string quoted = "/p/a\"b\\c\nd\te\x01";
  const std::string invalid = "/p/bad\xff\xc3";
  const std::string unicode = "/p/caf\xc3\xa9_\xe2\x9c\x93";
  Scored s(MakeSnapshot(
      {{quoted, "x", {1, 1, 1, 1}}, {invalid, "x", {1, 1, 1, 1}}, {unicode, "x", {1, 1, 1, 1}}}));
  const json doc = json::parse(Render(ScoreFormat::kJson, s));
  std::vector<std::string> ids;
  for (const json& node : doc["snapshots"][0]["nodes"]) ids.push_back(node["id"]);
  EXPECT_NE(std::find(ids.begin(), ids.end(), quoted), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), unicode), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "/p/bad\xef\xbf\xbd\xef\xbf\xbd"), ids.end());
}

TEST(ScoreJson, NonFiniteNumbersAreNullEverywhere) {
  Scored s(MakeSnapshot());
  const NodeIndex comp = *s.snapshot.network.Find("/p/comp1");
  s.analysis.frames.p95_ms = NAN;
  s.analysis.stats[comp].std_ms = INFINITY;
  const json snap = json::parse(Render(ScoreFormat::kJson, s))["snapshots"][0];
  EXPECT_TRUE(snap["frame_ms"]["p95"].is_null());
  EXPECT_EQ(snap["nodes"][0]["id"], "/p/comp1");
  EXPECT_TRUE(snap["nodes"][0]["std_ms"].is_null());
  const std::string csv = Render(ScoreFormat::kCsv, s);
  EXPECT_EQ(csv.find("inf"), std::string::npos);
  EXPECT_EQ(csv.find("nan"), std::string::npos);
  const std::string table = Render(ScoreFormat::kTable, s);
  EXPECT_EQ(table.find("inf"), std::string::npos);
  EXPECT_EQ(table.find("nan"), std::string::npos);
}

TEST(ScoreJson, WithoutFramesPerFrameValuesAreNull) {
  Snapshot snap;
  ASSERT_TRUE(snap.network.AddNode({.id = "/p/a"}));
  snap.samples = Samples(1);
  Scored s(std::move(snap));
  const json snapshot = json::parse(Render(ScoreFormat::kJson, s))["snapshots"][0];
  EXPECT_EQ(snapshot["frames"], 0);
  const json& node = snapshot["nodes"][0];
  EXPECT_TRUE(node["rank"].is_null());
  EXPECT_TRUE(node["per_frame_ms"].is_null());
  EXPECT_TRUE(node["share"].is_null());
  EXPECT_TRUE(node["cooks_per_frame"].is_null());
  EXPECT_EQ(node["cooked_frames"], 0);
  EXPECT_EQ(node["dead"], false);
}

TEST(ScoreJson, TopCutsNodesAndKeepsRanks) {
  Scored s(MakeSnapshot());
  const json doc = json::parse(Render(ScoreFormat::kJson, s, {.top = 3}));
  const json& nodes = doc["snapshots"][0]["nodes"];
  ASSERT_EQ(nodes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(nodes[i]["rank"], i + 1);
}

// Thousands of nodes are written in two halves, one per core: the document
// holds each node once, in rank order, and the same objects as a run of under
// the split's threshold (--top) writes on one thread.
TEST(ScoreJson, ManyNodesAreWrittenOnceEachInRankOrder) {
  std::vector<NodeSpec> extra;
  for (int i = 0; i < 5000; ++i) {
    const double ms = 0.001 * (i % 977) + 0.0001 * i;
    extra.push_back({"/p/many/n" + std::to_string(i), "nullTOP", {ms, ms * 1.5, ms, ms}});
  }
  Scored s(MakeSnapshot(std::move(extra)));
  const json all = json::parse(Render(ScoreFormat::kJson, s))["snapshots"][0]["nodes"];
  const json few =
      json::parse(Render(ScoreFormat::kJson, s, {.top = 4000}))["snapshots"][0]["nodes"];
  ASSERT_EQ(all.size(), 5008u);
  ASSERT_EQ(few.size(), 4000u);
  std::set<std::string> ids;
  for (size_t i = 0; i < all.size(); ++i) {
    ids.insert(all[i]["id"].get<std::string>());
    if (i < 5007) {
      EXPECT_EQ(all[i]["rank"], i + 1) << i;  // the last never cooked: no rank
    }
    if (i < few.size()) {
      EXPECT_EQ(all[i], few[i]) << i;
    }
  }
  EXPECT_EQ(ids.size(), 5008u);
}

// A large fragment comes as pieces of about a megabyte, each half's own,
// never joined into one string (a 100k-node snapshot's 58 MB raised the
// run's peak by 60 MiB when joined): the pieces make the same document as the
// joined text, with the halves' junction comma and a lone node (in the
// second half, the first empty) alike.
TEST(ScoreJson, ManyNodesComeAsPiecesOfAboutAMegabyte) {
  std::vector<NodeSpec> extra;
  const std::string padding(400, 'x');
  for (int i = 0; i < 6000; ++i) {
    const double ms = 0.001 * (i % 977) + 0.0001 * i;
    extra.push_back(
        {"/p/" + padding + "/n" + std::to_string(i), "nullTOP", {ms, ms * 1.5, ms, ms}});
  }
  Scored s(MakeSnapshot(std::move(extra)));
  for (const size_t top : {size_t{0}, size_t{1}, size_t{2}}) {
    const TextPieces pieces = RenderScoreSnapshotPieces(ScoreFormat::kJson, s.view(), {.top = top});
    std::string joined;
    size_t largest = 0;
    for (const std::string& piece : pieces) {
      joined += piece;
      largest = std::max(largest, piece.size());
    }
    // RenderScoreSnapshot, for callers that want one string, joins them.
    EXPECT_EQ(joined, RenderScoreSnapshot(ScoreFormat::kJson, s.view(), {.top = top})) << top;
    const json doc = json::parse(RenderScoreHeader(ScoreFormat::kJson, {}) + joined +
                                 RenderScoreFooter(ScoreFormat::kJson, {}));
    const json& nodes = doc["snapshots"][0]["nodes"];
    ASSERT_EQ(nodes.size(), top == 0 ? 6008u : top) << top;
    for (size_t i = 0; i < nodes.size() && i < 6007; ++i) EXPECT_EQ(nodes[i]["rank"], i + 1) << i;
    if (top == 0) {
      EXPECT_GT(joined.size(), size_t{4} << 20);
      EXPECT_GE(pieces.size(), 5u);
      EXPECT_LT(largest, (size_t{1} << 20) + 4096);  // a megabyte and the node that passed it
    }
  }
}

TEST(ScoreJson, SortKeyChangesTheOrder) {
  Scored s(MakeSnapshot());
  const json doc = json::parse(Render(ScoreFormat::kJson, s, {.sort = SortKey::kUpstream}));
  const std::vector<NodeIndex> order = Rank(s.analysis, SortKey::kUpstream);
  const json& nodes = doc["snapshots"][0]["nodes"];
  ASSERT_EQ(nodes.size(), order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(nodes[i]["id"], s.snapshot.network.node(order[i]).id);
  }
}

TEST(ScoreJson, GroupByContainerAddsContainersCutByTop) {
  Scored s(MakeSnapshot());
  const std::vector<ContainerStats> expected = RollUp(s.snapshot, s.analysis);
  ASSERT_GE(expected.size(), 2u);  // "/p" and "/p/sub"
  const json all =
      json::parse(Render(ScoreFormat::kJson, s, {.group_by_container = true}))["snapshots"][0];
  ASSERT_EQ(all["containers"].size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const json& c = all["containers"][i];
    EXPECT_EQ(c["id"], expected[i].id);
    EXPECT_EQ(c["depth"], expected[i].depth);
    EXPECT_EQ(c["nodes"], expected[i].nodes);
    EXPECT_EQ(c["cooked_nodes"], expected[i].cooked_nodes);
    ExpectNumber(c["per_frame_ms"], expected[i].per_frame_ms, "per_frame_ms");
    ExpectNumber(c["self_per_frame_ms"], expected[i].self_per_frame_ms, "self");
    ExpectNumber(c["share"], expected[i].share, "share");
    ExpectNumber(c["max_ms"], expected[i].max_ms, "max_ms");
    EXPECT_EQ(c["costliest"], expected[i].costliest);
  }
  const json cut = json::parse(
      Render(ScoreFormat::kJson, s, {.top = 1, .group_by_container = true}))["snapshots"][0];
  EXPECT_EQ(cut["containers"].size(), 1u);
  EXPECT_EQ(cut["nodes"].size(), 1u);
}

/// Rows of an RFC 4180 document.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(std::move(field));
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(ScoreCsv, HeaderQuotingAndNeverCookedLast) {
  Scored s(MakeSnapshot());
  const std::string out = Render(ScoreFormat::kCsv, s);
  const std::string header =
      "file,name,engine,id,type,family,rank,score,avg_ms,std_ms,p50_ms,p95_ms,p99_ms,max_ms,"
      "per_frame_ms,share,cooked_frames,cooks_per_frame,gpu_avg_ms,cpu_mem_mb,gpu_mem_mb,"
      "upstream_ms,loop,on_critical_path,dead,latency_avg_ms,latency_std_ms,latency_max_ms,"
      "inclusive_avg_ms\n";
  EXPECT_EQ(RenderScoreHeader(ScoreFormat::kCsv, {}), header);
  ASSERT_EQ(out.substr(0, header.size()), header);
  EXPECT_NE(out.find(",\"/p/weird,\"\"id\"\"\",textDAT,"), std::string::npos) << out;

  const auto rows = ParseCsv(out);
  ASSERT_EQ(rows.size(), 9u);  // header + 8 nodes
  for (const auto& row : rows) EXPECT_EQ(row.size(), 29u);
  EXPECT_EQ(rows[1][3], "/p/comp1");
  EXPECT_EQ(rows[1][6], "1");
  EXPECT_EQ(rows[1][22], "true");  // loop
  const NodeStats& comp = s.analysis.stats[*s.snapshot.network.Find("/p/comp1")];
  EXPECT_EQ(std::stod(rows[1][8]), comp.avg_ms);  // round-trips exactly
  EXPECT_EQ(std::stod(rows[1][9]), comp.std_ms);
  EXPECT_EQ(rows.back()[3], "/p/idle1");
  EXPECT_EQ(rows.back()[6], "");   // no rank
  EXPECT_EQ(rows.back()[7], "");   // no score
  EXPECT_EQ(rows.back()[18], "");  // no gpu
  bool found = false;
  for (const auto& row : rows) found = found || row[3] == kWeirdId;
  EXPECT_TRUE(found);
}

TEST(ScoreCsv, TopCutsRowsPerSnapshot) {
  Scored s(MakeSnapshot());
  const std::string out = RenderScoreHeader(ScoreFormat::kCsv, {}) +
                          RenderScoreSnapshot(ScoreFormat::kCsv, s.view(), {.top = 2}) +
                          std::string(RenderScoreSeparator(ScoreFormat::kCsv)) +
                          RenderScoreSnapshot(ScoreFormat::kCsv, s.view(), {.top = 2});
  EXPECT_EQ(ParseCsv(out).size(), 5u);
}

TEST(ScoreCsv, GroupByContainerHasItsOwnHeader) {
  Scored s(MakeSnapshot());
  const ScoreOptions options{.group_by_container = true};
  EXPECT_EQ(RenderScoreHeader(ScoreFormat::kCsv, options),
            "file,container,depth,nodes,cooked_nodes,per_frame_ms,self_per_frame_ms,share,"
            "max_ms,costliest\n");
  const auto rows = ParseCsv(Render(ScoreFormat::kCsv, s, options));
  const std::vector<ContainerStats> expected = RollUp(s.snapshot, s.analysis);
  ASSERT_EQ(rows.size(), expected.size() + 1);
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 10u);
    EXPECT_EQ(rows[i][0], "net.json");
    EXPECT_EQ(rows[i][1], expected[i - 1].id);
    EXPECT_EQ(rows[i][9], expected[i - 1].costliest);
  }
}

// CSV injection: a text cell starting with = + - @, tab or carriage return is
// quoted with a leading ' (a spreadsheet shows it as text); numbers, negative
// ones too, stay numbers; other text is written as before.
TEST(ScoreCsv, FormulaLikeTextIsNeutralisedAndNumbersAreNot) {
  Scored s(MakeSnapshot({{"=1+2", "+cmd|' /C calc'!A0", {0.4, 0.4, 0.4, 0.4}},
                         {"-2+3", "@SUM(A1)", {0.35, 0.35, 0.35, 0.35}},
                         {"\tx", "\rtype", {0.32, 0.32, 0.32, 0.32}},
                         {"a=b", "x-y", {0.31, 0.31, 0.31, 0.31}}}));
  s.file = "=HYPERLINK(\"http://x\")";
  s.snapshot.info.name = "-name";
  s.snapshot.info.engine = "@engine";
  const std::string out = Render(ScoreFormat::kCsv, s);
  auto row_of = [&](const std::string& id_cell) {
    const size_t at = out.find("," + id_cell + ",");
    EXPECT_NE(at, std::string::npos) << id_cell << " in\n" << out;
    const size_t start = out.rfind('\n', at) + 1;
    return out.substr(start, out.find('\n', at) - start);
  };
  const std::string prefix = "\"'=HYPERLINK(\"\"http://x\"\")\",\"'-name\",\"'@engine\",";
  EXPECT_EQ(row_of("\"'=1+2\"").rfind(prefix + "\"'=1+2\",\"'+cmd|' /C calc'!A0\",TOP,", 0), 0u)
      << out;
  EXPECT_EQ(row_of("\"'-2+3\"").rfind(prefix + "\"'-2+3\",\"'@SUM(A1)\",TOP,", 0), 0u);
  EXPECT_EQ(row_of("\"'\tx\"").rfind(prefix + "\"'\tx\",\"'\rtype\",TOP,", 0), 0u);
  EXPECT_EQ(row_of("a=b").rfind(prefix + "a=b,x-y,TOP,", 0), 0u)
      << "only the first character counts";
  // The quoted cells read back as the text with its leading '.
  bool found = false;
  for (const auto& row : ParseCsv(out)) {
    if (row[3] != "'=1+2") continue;
    found = true;
    EXPECT_EQ(row[0], "'=HYPERLINK(\"http://x\")");
    EXPECT_EQ(row[4], "'+cmd|' /C calc'!A0");
  }
  EXPECT_TRUE(found);
}

TEST(ScoreCsv, NegativeNumbersStayNumbers) {
  // A baseline where /p/comp1 was slower: its change columns are negative.
  Scored before(MakeSnapshot());
  Snapshot after_snapshot = MakeSnapshot();
  after_snapshot.samples.SetSeries(*after_snapshot.network.Find("/p/comp1"), Metric::kCookMs,
                                   {1.0, 1.1, 1.0, 1.05});
  Scored after(std::move(after_snapshot));
  const SnapshotDiff diff =
      CompareSnapshots(before.snapshot, before.analysis, after.snapshot, after.analysis);
  const ScoredSnapshot view{after.file, after.snapshot, after.analysis, &diff};
  const ScoreOptions options{.baseline_file = "before.json"};
  const std::string out = RenderScoreHeader(ScoreFormat::kCsv, options) +
                          RenderScoreSnapshot(ScoreFormat::kCsv, view, options);
  const auto rows = ParseCsv(out);
  ASSERT_GE(rows.size(), 2u);
  const size_t avg_change = 29 + 4;  // file,name,engine + the node columns, then the 5th
  ASSERT_EQ(rows[0][avg_change], "avg_change_pct");
  bool negative = false;
  for (const auto& row : rows) {
    if (row[3] != "/p/comp1") continue;
    ASSERT_FALSE(row[avg_change].empty());
    EXPECT_EQ(row[avg_change].front(), '-') << out;
    EXPECT_LT(std::stod(row[avg_change]), 0);
    negative = true;
  }
  EXPECT_TRUE(negative);
  EXPECT_EQ(out.find("\"'-"), std::string::npos) << "a number was quoted as text:\n" << out;
}

// `diff --format json` of a file whose name is not UTF-8 (a Linux file name
// may hold any byte): the name with U+FFFD, never an exception.
TEST(DiffJson, AFileNameThatIsNotUtf8IsWrittenWithReplacementCharacters) {
  Scored before(MakeSnapshot());
  Scored after(MakeSnapshot());
  const SnapshotDiff diff =
      CompareSnapshots(before.snapshot, before.analysis, after.snapshot, after.analysis);
  const std::string before_file = "before.json", after_file = "after\xff.json";
  const std::string out = RenderDiff(
      DiffFormat::kJson, {before_file, after_file, before.snapshot, after.snapshot, diff}, {});
  const json doc = json::parse(out);
  EXPECT_EQ(doc["after"]["file"], "after\xEF\xBF\xBD.json");
  EXPECT_EQ(doc["before"]["file"], "before.json");
}

TEST(ScoreTable, PlainWithoutColorAndColouredWithIt) {
  Scored s(MakeSnapshot());
  const std::string plain = Render(ScoreFormat::kTable, s);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  const std::string coloured = Render(ScoreFormat::kTable, s, {.color = true});
  EXPECT_NE(coloured.find("\x1b[1m"), std::string::npos);   // bold header
  EXPECT_NE(coloured.find("\x1b[31m"), std::string::npos);  // comp1's large share
}

TEST(ScoreTable, ShowsTitleRowsAndSections) {
  Scored s(MakeSnapshot());
  const std::string out = Render(ScoreFormat::kTable, s);
  EXPECT_EQ(RenderScoreHeader(ScoreFormat::kTable, {}), "");
  EXPECT_EQ(RenderScoreFooter(ScoreFormat::kTable, {}), "");
  std::istringstream lines(out);
  std::string title;
  std::getline(lines, title);
  EXPECT_EQ(title.rfind("net.json", 0), 0u) << title;
  EXPECT_NE(title.find("touchdesigner"), std::string::npos);
  EXPECT_NE(title.find("feedback_demo"), std::string::npos);
  EXPECT_NE(title.find("4 frames"), std::string::npos);
  EXPECT_NE(title.find("budget 5.000 ms"), std::string::npos);
  EXPECT_NE(title.find("1 over budget"), std::string::npos);
  EXPECT_NE(out.find("/p/comp1"), std::string::npos);
  EXPECT_NE(out.find(kWeirdId), std::string::npos);
  EXPECT_NE(out.find("3.525"), std::string::npos);  // comp1's avg ms
  EXPECT_NE(out.find("\nloops (1):\n  feedback "), std::string::npos) << out;
  EXPECT_NE(out.find("\ncritical path:\n"), std::string::npos);
  EXPECT_NE(out.find("\nspikes in over-budget frames:\n  /p/comp1: "), std::string::npos);
  EXPECT_NE(out.find("unknown key 'color' ignored"), std::string::npos);
  EXPECT_EQ(out.find("more nodes"), std::string::npos);
  // Every table line (header to last row) has the same columns aligned: the
  // "node" title starts where every id starts.
  const size_t header_at = out.find("\n\n") + 2;
  const std::string header = out.substr(header_at, out.find('\n', header_at) - header_at);
  EXPECT_NE(header.find("node"), std::string::npos);
  EXPECT_NE(out.find("\n" + std::string(header.find("node") - 3, ' ') + "1  /p/comp1"),
            std::string::npos)
      << out;
}

TEST(ScoreTable, ProfilerOverheadEndsTheTitleOnlyWhenTheInputHasIt) {
  const std::string with = Render(ScoreFormat::kTable, Scored(WithFrameTimes(true)));
  const std::string without = Render(ScoreFormat::kTable, Scored(WithFrameTimes(false)));
  const std::string title = with.substr(0, with.find('\n'));
  EXPECT_TRUE(title.ends_with(kProfilerPart)) << title;
  EXPECT_EQ(without.find("profiler"), std::string::npos) << without;
  // Nothing else in the output changes.
  std::string rest = with;
  rest.erase(rest.find(kProfilerPart), std::string_view(kProfilerPart).size());
  EXPECT_EQ(rest, without);
}

TEST(ScoreTable, ProfilerOverheadWithoutMeasuredFrameTimeHasNoShare) {
  const std::string some =
      Render(ScoreFormat::kTable, Scored(WithProfilerOnly({0.5, 0.5, 0.5, 0.5})));
  EXPECT_NE(some.find(" · profiler overhead mean 0.500 / p95 0.500 / max 0.500 ms per frame (not "
                      "in frame time)\n"),
            std::string::npos)
      << some;
  const std::string none = Render(ScoreFormat::kTable, Scored(WithProfilerOnly({N, N, N, N})));
  EXPECT_NE(none.find(" · profiler overhead not measured in any frame\n"), std::string::npos)
      << none;
}

TEST(ScoreTable, TopAddsAFooterNamingWhatWasLeftOut) {
  Scored s(MakeSnapshot());
  const std::string out = Render(ScoreFormat::kTable, s, {.top = 3});
  EXPECT_NE(out.find("… 5 more nodes (--top 0 shows all)"), std::string::npos) << out;
  EXPECT_EQ(out.find("/p/idle1"), std::string::npos);
}

TEST(ScoreTable, LongIdsAreCutInTheMiddleAndControlCharactersNeutralised) {
  const std::string long_id = "/p/" + std::string(80, 'x') + "/tail_end";
  const std::string evil = "/p/evil\x1b[2J";
  Scored s(MakeSnapshot({{long_id, "x", {1, 1, 1, 1}}, {evil, "x", {1, 1, 1, 1}}}));
  const std::string out = Render(ScoreFormat::kTable, s);
  EXPECT_EQ(out.find(long_id), std::string::npos);
  EXPECT_NE(out.find("…"), std::string::npos);
  EXPECT_NE(out.find("tail_end"), std::string::npos);
  EXPECT_NE(out.find("/p/xxx"), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_NE(out.find("/p/evil?[2J"), std::string::npos);
}

TEST(ScoreTable, SnapshotsAreSeparatedByABlankLine) {
  Scored s(MakeSnapshot());
  const std::string first = RenderScoreSnapshot(ScoreFormat::kTable, s.view(), {});
  const std::string second = std::string(RenderScoreSeparator(ScoreFormat::kTable)) +
                             RenderScoreSnapshot(ScoreFormat::kTable, s.view(), {});
  EXPECT_EQ(second, "\n" + first);
  EXPECT_EQ(first.back(), '\n');
}

TEST(ScoreTable, GroupByContainerRowsAreContainers) {
  Scored s(MakeSnapshot());
  const std::string out = Render(ScoreFormat::kTable, s, {.group_by_container = true});
  EXPECT_NE(out.find("container"), std::string::npos);
  EXPECT_NE(out.find("/p/sub"), std::string::npos);
  EXPECT_NE(out.find("costliest"), std::string::npos);
  EXPECT_EQ(out.find("cooks/f"), std::string::npos);
}

TEST(ScoreMarkdown, TableEscapesPipesAndHasOneCellPerColumn) {
  Scored s(MakeSnapshot({{"/p/a|b", "x", {1, 1, 1, 1}}}));
  const std::string out = Render(ScoreFormat::kMarkdown, s);
  EXPECT_EQ(out.rfind("### net.json\n", 0), 0u) << out;
  EXPECT_NE(out.find("/p/a\\|b"), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  // Count unescaped pipes per table line: the same on every line.
  std::istringstream lines(out);
  std::string line;
  int expected = -1, table_lines = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '|') continue;
    int pipes = 0;
    for (size_t i = 0; i < line.size(); ++i)
      pipes += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
    if (expected < 0) expected = pipes;
    EXPECT_EQ(pipes, expected) << line;
    ++table_lines;
  }
  EXPECT_EQ(expected, 16);        // 15 columns: gpu ms/f and gpu share, as it has gpu_ms
  EXPECT_EQ(table_lines, 2 + 9);  // header, alignment row, 9 nodes
  EXPECT_NE(out.find("\n**loops (1)**\n\n- feedback "), std::string::npos) << out;
}

TEST(ScoreMarkdown, ProfilerOverheadIsInTheTitleLineOnlyWhenTheInputHasIt) {
  const std::string with = Render(ScoreFormat::kMarkdown, Scored(WithFrameTimes(true)));
  EXPECT_NE(with.find(std::string(kProfilerPart) + "\n\n|"), std::string::npos) << with;
  const std::string without = Render(ScoreFormat::kMarkdown, Scored(WithFrameTimes(false)));
  EXPECT_EQ(without.find("profiler"), std::string::npos) << without;
}

TEST(ScoreMarkdown, TopAddsTheSameFooter) {
  Scored s(MakeSnapshot());
  EXPECT_NE(
      Render(ScoreFormat::kMarkdown, s, {.top = 1}).find("… 7 more nodes (--top 0 shows all)"),
      std::string::npos);
}

}  // namespace
}  // namespace cookgraph
