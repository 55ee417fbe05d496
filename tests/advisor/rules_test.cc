#include "advisor/rules.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "adapters/native/snapshot_reader.h"
#include "advisor/pack.h"
#include "metrics/analysis.h"

namespace cookgraph {
namespace {

struct Examined {
  Snapshot snapshot;
  Analysis analysis;
  std::vector<Finding> findings;
};

Examined Examine(const std::string& example, std::string_view engine) {
  auto snapshot = ReadSnapshotFile(std::string(COOKGRAPH_SOURCE_DIR) + "/examples/" + example);
  EXPECT_TRUE(snapshot.ok()) << snapshot.error().Format();
  auto pack = BuiltinPack(engine);
  EXPECT_TRUE(pack.ok()) << pack.error().Format();
  Examined run{std::move(*snapshot), {}, {}};
  run.analysis = Analyse(run.snapshot);
  run.findings = Evaluate(*pack, run.snapshot, run.analysis);
  return run;
}

// The first finding of `rule` whose nodes include `id`, or nullptr.
const Finding* Find(const Examined& run, const std::string& rule, const std::string& id) {
  for (const auto& f : run.findings) {
    if (f.rule != rule) continue;
    for (NodeIndex n : f.nodes) {
      if (run.snapshot.network.node(n).id == id) return &f;
    }
  }
  return nullptr;
}

double Number(const Finding& f, const std::string& name) {
  for (const auto& [n, v] : f.numbers) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no number " << name << " in " << f.rule;
  return 0;
}

std::string Dump(const Examined& run) {
  std::string out;
  for (const auto& f : run.findings) {
    out += std::string(SeverityName(f.severity)) + " " + f.rule + ": " + f.title + "\n";
  }
  return out;
}

TEST(RulesTest, TouchDesignerExampleNamesEveryPlantedProblem) {
  const Examined run = Examine("touchdesigner_feedback.json", "touchdesigner");
  SCOPED_TRACE(Dump(run));
  // The costly feedback loop, costliest node first.
  const Finding* loop = Find(run, "costly-feedback-loop", "/project1/fx/trails/feedback1");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->nodes.size(), 5u);
  EXPECT_EQ(run.snapshot.network.node(loop->nodes[0]).id, "/project1/fx/trails/blur_fb");
  EXPECT_NEAR(Number(*loop, "per_frame_ms"), 4.35793, 1e-4);
  EXPECT_NE(loop->title.find("4.358 ms per frame"), std::string::npos) << loop->title;
  // The spiky script CHOP, and that it costs the over-budget frames.
  const Finding* spike = Find(run, "spiky-node", "/project1/control/script_osc");
  ASSERT_NE(spike, nullptr);
  EXPECT_EQ(spike->severity, Severity::kCritical);
  EXPECT_EQ(Number(*spike, "spike_frames"), 15);
  EXPECT_NEAR(Number(*spike, "spike_share_of_overrun"), 1.313824, 1e-5);
  EXPECT_NE(Find(run, "cookalways-script", "/project1/control/script_osc"), nullptr);
  // The dead cook, the double cook.
  EXPECT_NE(Find(run, "dead-cook", "/project1/post/blur_preview"), nullptr);
  const Finding* twice = Find(run, "double-cook", "/project1/post/level_grade");
  ASSERT_NE(twice, nullptr);
  EXPECT_GE(Number(*twice, "cooks_per_frame"), 1.5);
  // The heavy 4K float TOPs in the trails network.
  for (const char* id : {"/project1/fx/trails/blur_fb", "/project1/fx/trails/displace_fb",
                         "/project1/fx/trails/comp_fb", "/project1/fx/trails/level_fb",
                         "/project1/fx/trails/fb_seed"}) {
    const Finding* heavy = Find(run, "heavy-top", id);
    ASSERT_NE(heavy, nullptr) << id;
    EXPECT_NE(heavy->title.find("3840x2160 in rgba32float"), std::string::npos) << heavy->title;
  }
  // The cheap loops are not findings.
  EXPECT_EQ(Find(run, "costly-feedback-loop", "/project1/control/counter1"), nullptr);
  // Ordering: critical first.
  ASSERT_FALSE(run.findings.empty());
  EXPECT_EQ(run.findings.front().severity, Severity::kCritical);
}

TEST(RulesTest, FindingsAreDeterministicAndOrdered) {
  const Examined a = Examine("touchdesigner_feedback.json", "touchdesigner");
  const Examined b = Examine("touchdesigner_feedback.json", "touchdesigner");
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    EXPECT_EQ(a.findings[i].rule, b.findings[i].rule);
    EXPECT_EQ(a.findings[i].nodes, b.findings[i].nodes);
    EXPECT_EQ(a.findings[i].title, b.findings[i].title);
    EXPECT_EQ(a.findings[i].suggestion, b.findings[i].suggestion);
    EXPECT_EQ(a.findings[i].numbers, b.findings[i].numbers);
  }
  for (size_t i = 1; i < a.findings.size(); ++i) {
    EXPECT_GE(a.findings[i - 1].severity, a.findings[i].severity);
  }
}

TEST(RulesTest, GstreamerQueueWaitsForTheEncoderDownstream) {
  const Examined run = Examine("gstreamer_pipeline.json", "gstreamer");
  SCOPED_TRACE(Dump(run));
  const Finding* bp = Find(run, "back-pressure", "/pipeline0/bin_record/queue32");
  ASSERT_NE(bp, nullptr);
  ASSERT_EQ(bp->nodes.size(), 2u);
  EXPECT_EQ(run.snapshot.network.node(bp->nodes[1]).id, "/pipeline0/bin_record/x264enc8");
  EXPECT_NE(bp->suggestion.find("/pipeline0/bin_record/x264enc8"), std::string::npos);
  EXPECT_NEAR(Number(*bp, "downstream_ms"), 9.229696, 1e-4);
  EXPECT_NE(Find(run, "encoder-spikes", "/pipeline0/bin_record/x264enc8"), nullptr);
  // Dead branch; a tee's eight records per buffer are not a double cook.
  EXPECT_NE(Find(run, "dead-cook", "/pipeline0/bin_debug/videoconvert20"), nullptr);
  for (const auto& f : run.findings) EXPECT_NE(f.rule, "double-cook");
}

// A pipeline of two streaming threads, written down by hand: a camera thread
// that converts, and an encoder thread behind a queue whose software encoder
// needs `enc_ms` of its `period_ms` buffer period at 90% CPU.
Examined Threads(double enc_ms, double period_ms, const std::string& enc_type = "GstX264Enc",
                 const std::string& enc_id = "/p/x264enc0",
                 std::vector<std::pair<std::string, std::string>> enc_params = {}) {
  Snapshot s;
  s.info.engine = "gstreamer";
  s.info.fps = 1000.0 / period_ms;
  auto add = [&](const std::string& id, const std::string& type, const std::string& family,
                 std::vector<std::pair<std::string, std::string>> params = {}) {
    return *s.network.AddNode(
        {.id = id, .type = type, .family = family, .params = std::move(params)});
  };
  const NodeIndex conv = add("/p/videoconvert0", "GstVideoConvert", "element");
  const NodeIndex queue = add("/p/queue0", "GstQueue", "queue");
  const NodeIndex enc = add(enc_id, enc_type, "element", std::move(enc_params));
  const NodeIndex sink = add("/p/sink", "GstFakeSink", "element");
  s.network.AddEdge(conv, queue, EdgeKind::kData);
  s.network.AddEdge(queue, enc, EdgeKind::kData);
  s.network.AddEdge(enc, sink, EdgeKind::kData);
  s.samples = Samples(s.network.size());
  s.samples.SetFrameIndex({0, 1, 2, 3});
  s.samples.SetSeries(conv, Metric::kCookMs, {0.5, 0.5, 0.5, 0.5});
  s.samples.SetSeries(queue, Metric::kCookMs, {30, 30, 30, 30});
  s.samples.SetSeries(enc, Metric::kCookMs, {enc_ms, enc_ms, enc_ms, enc_ms});
  s.samples.SetFrameMs({enc_ms, enc_ms, enc_ms, enc_ms});  // the slowest thread's work
  Streaming st;
  st.threads.push_back({.thread = "0x1",
                        .elements = {conv},
                        .work = {true},
                        .element_ms = {2.0},
                        .buffers = 4,
                        .busy_ms_per_buffer = 0.5,
                        .buffer_period_ms = period_ms,
                        .cpu_load_pct = 5.0});
  st.threads.push_back({.thread = "0x2",
                        .elements = {queue, enc},
                        .work = {false, true},
                        .element_ms = {120, 4 * enc_ms},
                        .buffers = 4,
                        .busy_ms_per_buffer = enc_ms,
                        .buffer_period_ms = period_ms,
                        .cpu_load_pct = 90.0});
  st.bottleneck = BottleneckThread(st.threads);
  NameThreads(st.threads, s.network);
  s.streaming = std::move(st);
  auto pack = BuiltinPack("gstreamer");
  EXPECT_TRUE(pack.ok()) << pack.error().Format();
  Examined run{std::move(s), {}, {}};
  run.analysis = Analyse(run.snapshot);
  run.findings = Evaluate(*pack, run.snapshot, run.analysis);
  return run;
}

TEST(RulesTest, GstreamerNamesTheBottleneckThreadAndItsElement) {
  const Examined run = Threads(20.0, 33.0);  // 20 of 33 ms: 61%, headroom left
  SCOPED_TRACE(Dump(run));
  const Finding* b = Find(run, "bottleneck-thread", "/p/x264enc0");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(run.snapshot.network.node(b->nodes[0]).id, "/p/x264enc0");
  EXPECT_DOUBLE_EQ(Number(*b, "busy_ms_per_buffer"), 20.0);
  EXPECT_DOUBLE_EQ(Number(*b, "utilisation"), 20.0 / 33.0);
  EXPECT_DOUBLE_EQ(Number(*b, "element_share"), 1.0);
  // The thread is named by what it runs, not by its pointer.
  EXPECT_NE(b->title.find("The x264enc0 thread (queue0 → x264enc0) limits"), std::string::npos)
      << b->title;
  EXPECT_EQ(b->title.find("0x2"), std::string::npos) << b->title;
  EXPECT_EQ(Find(run, "thread-no-headroom", "/p/x264enc0"), nullptr);
  EXPECT_EQ(Find(run, "thread-over-rate", "/p/x264enc0"), nullptr);
  // A software encoder at 90% of its thread's CPU.
  const Finding* sw = Find(run, "software-encoder-cpu", "/p/x264enc0");
  ASSERT_NE(sw, nullptr);
  EXPECT_DOUBLE_EQ(Number(*sw, "thread_cpu_load"), 0.9);
  // The queue's 30 ms are waiting: back-pressure, never the dominant node.
  EXPECT_NE(Find(run, "back-pressure", "/p/queue0"), nullptr);
  for (const auto& f : run.findings) {
    if (f.rule == "dominant-node") {
      EXPECT_NE(run.snapshot.network.node(f.nodes[0]).id, "/p/queue0");
    }
  }
}

// Each software encoder's advice names its own properties (gst-inspect-1.0),
// with the default where the dump, which lists only properties set away from
// their defaults, does not give the value; never "n/a", never another
// encoder's property.
TEST(RulesTest, GstreamerEncoderAdviceInTheEncodersOwnTerms) {
  struct Case {
    std::string type, id, rule;
    std::vector<std::pair<std::string, std::string>> params;
    std::vector<std::string> says, never;
  };
  const std::vector<Case> cases = {
      {"GstX264Enc", "/p/x264enc0", "software-encoder-cpu", {},
       {"speed-preset (now medium, the default)"}, {"deadline", "speed-level"}},
      // x265enc has no threads property: its threading goes through option-string.
      {"GstX265Enc", "/p/x265enc0", "software-encoder-cpu-x265", {},
       {"speed-preset (now medium, the default)", "option-string (pools=, frame-threads=)"},
       {"threads (now", "deadline", "speed-level"}},
      {"GstTheoraEnc", "/p/theoraenc0", "software-encoder-cpu-theora", {},
       {"speed-level (now 1, the default; 0 to 3, higher is faster)"},
       {"speed-preset", "key-int-max", "deadline"}},
      {"GstTheoraEnc", "/p/theoraenc0", "software-encoder-cpu-theora", {{"speed-level", "2"}},
       {"speed-level (now 2;"}, {"speed-preset"}},
      {"GstVP8Enc", "/p/vp8enc0", "software-encoder-cpu-vpx", {{"deadline", "1"}},
       {"deadline=1 for realtime (now 1)", "cpu-used (now 0, the default)"},
       {"speed-preset", "speed-level"}},
      {"GstJpegEnc", "/p/jpegenc0", "software-encoder-cpu-jpeg", {},
       {"quality (now 85, the default)"}, {"speed-preset", "keyframe"}},
      {"GstOpenh264Enc", "/p/openh264enc0", "software-encoder-cpu-other", {},
       {"gst-inspect-1.0 openh264enc lists them"}, {"speed-preset", "deadline", "speed-level"}},
  };
  for (const Case& c : cases) {
    const Examined run = Threads(20.0, 33.0, c.type, c.id, c.params);
    SCOPED_TRACE(c.type + "\n" + Dump(run));
    const Finding* f = Find(run, c.rule, c.id);
    ASSERT_NE(f, nullptr);
    for (const std::string& text : c.says) {
      EXPECT_NE(f->suggestion.find(text), std::string::npos) << text;
    }
    for (const auto& finding : run.findings) {
      for (const std::string& line : {finding.title, finding.suggestion}) {
        EXPECT_EQ(line.find("n/a"), std::string::npos) << line;
        EXPECT_EQ(line.find("unknown"), std::string::npos) << line;
        if (std::find(finding.nodes.begin(), finding.nodes.end(), 2u) == finding.nodes.end()) continue;
        for (const std::string& text : c.never) {
          EXPECT_EQ(line.find(text), std::string::npos) << finding.rule << ": " << line;
        }
      }
    }
    int software = 0;  // one rule per encoder, never two
    for (const auto& finding : run.findings) software += finding.rule.starts_with("software-encoder-cpu");
    EXPECT_EQ(software, 1);
  }
}

TEST(RulesTest, GstreamerThreadsWithoutHeadroomOrOverTheirRate) {
  const Examined tight = Threads(30.0, 33.0);  // 91%
  SCOPED_TRACE(Dump(tight));
  const Finding* h = Find(tight, "thread-no-headroom", "/p/x264enc0");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->severity, Severity::kWarning);
  EXPECT_DOUBLE_EQ(Number(*h, "headroom_ms"), 3.0);
  EXPECT_EQ(Find(tight, "thread-over-rate", "/p/x264enc0"), nullptr);
  const Examined over = Threads(40.0, 33.0);  // 121%
  const Finding* o = Find(over, "thread-over-rate", "/p/x264enc0");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->severity, Severity::kWarning);  // a file may run slower than real time
  EXPECT_EQ(Find(over, "thread-no-headroom", "/p/x264enc0"), nullptr);
}

TEST(RulesTest, PytorchDataLoaderStallIsCritical) {
  const Examined run = Examine("pytorch_model.json", "pytorch");
  SCOPED_TRACE(Dump(run));
  const std::string loader =
      "step/dataloader/enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__";
  const Finding* stall = Find(run, "data-loader-stall", loader);
  ASSERT_NE(stall, nullptr);
  EXPECT_EQ(stall->severity, Severity::kCritical);
  EXPECT_NE(Find(run, "spiky-node", loader), nullptr);
  EXPECT_NE(Find(run, "dead-cook", "resnet50/debug_stats/aten::item/aten::_local_scalar_dense"),
            nullptr);
  EXPECT_NE(Find(run, "pageable-copy",
                 "step/input/aten::to/aten::_to_copy/aten::copy_/Memcpy HtoD (Pageable -> Device)"),
            nullptr);
}

TEST(RulesTest, UserRuleNeedsNoCodeChange) {
  auto snapshot =
      ReadSnapshotFile(std::string(COOKGRAPH_SOURCE_DIR) + "/examples/touchdesigner_feedback.json");
  ASSERT_TRUE(snapshot.ok());
  auto pack = ParsePack(R"(engine: mine
rules:
  - id: render-tops
    severity: info
    scope: node
    match: {type: "render*"}
    when:
      all:
        - {param: antialias, eq: 4}
        - {fact: per_frame_ms, gt: 0}
    evidence: [per_frame_ms, share]
    limit: 1
    title: "{node} ({type}) antialias {param:antialias}: {per_frame_ms} ms, {share:%}"
    suggestion: "Try antialias 2 on {node}."
)",
                        "mine.yaml");
  ASSERT_TRUE(pack.ok()) << pack.error().Format();
  const Analysis analysis = Analyse(*snapshot);
  const auto findings = Evaluate(*pack, *snapshot, analysis);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "render-tops");
  EXPECT_EQ(snapshot->network.node(findings[0].nodes[0]).id, "/project1/scene/render1");
  EXPECT_EQ(findings[0].title, "/project1/scene/render1 (renderTOP) antialias 4: 0.369 ms, 2.7%");
  ASSERT_EQ(findings[0].numbers.size(), 2u);
  EXPECT_EQ(findings[0].numbers[0].first, "per_frame_ms");
}

// A chain of `n` nodes n0 -> n1 -> ... (one cook each of 1 ms, 2 frames): its
// critical path is the whole chain.
Snapshot Chain(size_t n) {
  std::string nodes, series;
  for (size_t i = 0; i < n; ++i) {
    nodes += (i ? ", " : "") + fmt::format(R"({{"id": "n{}"{}}})", i,
                                           i ? fmt::format(R"(, "inputs": ["n{}"])", i - 1) : "");
    series += (i ? ", " : "") + fmt::format(R"("n{}": {{"cook_ms": [1, 1]}})", i);
  }
  auto snapshot = ParseSnapshot(fmt::format(R"({{"cookgraph": 1, "nodes": [{}], "frames": )"
                                            R"({{"index": [0, 1], "series": {{{}}}}}}})",
                                            nodes, series),
                                Spelling::kJson, "chain.json");
  EXPECT_TRUE(snapshot.ok()) << snapshot.error().Format();
  return std::move(*snapshot);
}

// A long path is shortened to both ends and "(N more)", each node named once
// (the last shown ids were once written twice: "... -> n7 -> n7 -> n8 -> n9").
TEST(RulesTest, ShortenedCriticalPathNamesEachNodeOnce) {
  auto pack = ParsePack(R"(engine: mine
rules:
  - id: path
    severity: info
    scope: critical_path
    when:
      - {fact: length, ge: 1}
    title: "{path_nodes}"
    suggestion: "from {first} to {last}"
)",
                        "mine.yaml");
  ASSERT_TRUE(pack.ok()) << pack.error().Format();
  const std::pair<size_t, const char*> cases[] = {
      {10, "n0 -> n1 -> n2 -> (4 more) -> n7 -> n8 -> n9"},
      {8, "n0 -> n1 -> n2 -> (2 more) -> n5 -> n6 -> n7"},
      {7, "n0 -> n1 -> n2 -> n3 -> n4 -> n5 -> n6"},  // one more is not worth "(1 more)"
      {2, "n0 -> n1"},
  };
  for (const auto& [length, expected] : cases) {
    const Snapshot snapshot = Chain(length);
    const Analysis analysis = Analyse(snapshot);
    ASSERT_EQ(analysis.critical_path.nodes.size(), length);
    const auto findings = Evaluate(*pack, snapshot, analysis);
    ASSERT_EQ(findings.size(), 1u) << length;
    EXPECT_EQ(findings[0].title, expected);
    EXPECT_EQ(findings[0].suggestion, fmt::format("from n0 to n{}", length - 1));
  }
}

}  // namespace
}  // namespace cookgraph
