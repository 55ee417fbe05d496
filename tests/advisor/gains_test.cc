// Advice ordered by impact (docs/architecture.md#advice-ordered-by-impact):
// each finding's predicted gain and the sentence that says it, the order they
// give, and the snippets in each engine's own terms, on the examples.

#include "advisor/gains.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "adapters/chrome/chrome_trace.h"
#include "adapters/native/snapshot_reader.h"
#include "advisor/pack.h"
#include "advisor/rules.h"
#include "metrics/whatif.h"

namespace cookgraph {
namespace {

// A snapshot judged with and without the what-if model. Held by pointer: the
// model keeps the addresses of the snapshot and the analysis.
struct Run {
  Snapshot snapshot;
  Analysis analysis;
  KnowledgePack pack;
  WhatIf whatif;
  std::vector<Finding> plain;   // Evaluate without the model
  std::vector<Finding> gained;  // Evaluate with it
};

std::unique_ptr<Run> Judge(Snapshot snapshot, KnowledgePack pack) {
  auto run = std::make_unique<Run>();
  run->snapshot = std::move(snapshot);
  run->pack = std::move(pack);
  run->analysis = Analyse(run->snapshot, AnalysisOptions{.gains = true});
  run->whatif = WhatIf::Build(run->snapshot, run->analysis);
  run->plain = Evaluate(run->pack, run->snapshot, run->analysis);
  run->gained =
      Evaluate(run->pack, run->snapshot, run->analysis, EvaluateOptions{.whatif = &run->whatif});
  return run;
}

KnowledgePack Builtin(std::string_view engine) {
  Result<KnowledgePack> pack = BuiltinPack(engine);
  EXPECT_TRUE(pack) << pack.error().Format();
  return pack ? std::move(*pack) : KnowledgePack{};
}

std::unique_ptr<Run> Example(const std::string& name) {
  Result<Snapshot> s =
      ReadSnapshotFile(std::string(COOKGRAPH_SOURCE_DIR) + "/examples/" + name + ".json");
  EXPECT_TRUE(s) << s.error().Format();
  Snapshot snapshot = s ? std::move(*s) : Snapshot{};
  KnowledgePack pack = Builtin(snapshot.info.engine);
  return Judge(std::move(snapshot), std::move(pack));
}

std::unique_ptr<Run> FromJson(const std::string& json, KnowledgePack pack) {
  Result<Snapshot> s = ParseSnapshot(json, Spelling::kJson, "net.json");
  EXPECT_TRUE(s) << s.error().Format();
  return Judge(s ? std::move(*s) : Snapshot{}, std::move(pack));
}

NodeIndex Node(const Run& run, const std::string& id) {
  const auto n = run.snapshot.network.Find(id);
  EXPECT_TRUE(n) << id;
  return n.value_or(0);
}

// The finding of `rule` whose first node is `id`, among the ones with gains.
const Finding* Find(const Run& run, const std::string& rule, const std::string& id) {
  for (const Finding& f : run.gained) {
    if (f.rule == rule && !f.nodes.empty() && run.snapshot.network.node(f.nodes[0]).id == id) {
      return &f;
    }
  }
  ADD_FAILURE() << "no " << rule << " finding on " << id;
  return nullptr;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string Key(const Finding& f) {
  std::string key = f.rule;
  for (NodeIndex n : f.nodes) key += " " + std::to_string(n);
  return key;
}

double GainMs(const Finding& f) { return f.gain ? f.gain->ms() : 0.0; }

TEST(Gains, SentenceSaysWhatHalvingAndTheFixSave) {
  PredictedGain g{.nodes = {0},
                  .halved = {.ms = 0.954, .p95_ms = 1, .frames = 2},
                  .fix_factor = 0.0,
                  .fixed = Saving{.ms = 1.907, .p95_ms = 2, .frames = 15},
                  .over_budget = 15};
  EXPECT_EQ(GainSentence(g, {}, "frame"),
            "Predicted: halving it saves ~0.95 ms per frame and 2 of 15 over-budget frames; "
            "removing or caching it saves ~1.91 ms per frame and 15 of 15 over-budget frames.");
  // Frames saved only where some are; a factor other than 0; steps; several nodes.
  g.halved.frames = 0;
  g.fix_factor = 0.25;
  g.fixed->ms = 14.31;
  EXPECT_EQ(
      GainSentence(g, {.text = "the loop's 5 nodes", .plural = true}, "step"),
      "Predicted: halving the loop's 5 nodes saves ~0.95 ms per step; cutting the loop's 5 "
      "nodes to 25% of their cook time saves ~14.3 ms per step and 15 of 15 over-budget steps.");
  EXPECT_EQ(ApproxMs(0.0123), "~0.012 ms");
  EXPECT_EQ(ApproxMs(0.0001), "~0 ms");
}

TEST(Gains, FindingsAreOrderedByTheirFixesGainAndTiesKeepTheOrder) {
  for (const char* name : {"touchdesigner_feedback", "gstreamer_pipeline", "pytorch_model"}) {
    SCOPED_TRACE(name);
    auto run = Example(name);
    ASSERT_EQ(run->plain.size(), run->gained.size());
    // Without the model, no gains; with it, every finding here names nodes that cook.
    for (const Finding& f : run->plain) EXPECT_FALSE(f.gain) << Key(f);
    for (const Finding& f : run->gained) EXPECT_TRUE(f.gain) << Key(f);
    // The order with gains is the order without, stably sorted by the fix's
    // gain; with frames over the budget, by the over-budget frames the fix
    // saves first (the TouchDesigner example: 15 over budget).
    struct Expected {
      int64_t frames = 0;
      double ms = 0;
      std::string key;
    };
    std::vector<Expected> expected;
    for (const Finding& f : run->plain) {
      auto it = std::find_if(run->gained.begin(), run->gained.end(),
                             [&](const Finding& g) { return Key(g) == Key(f); });
      ASSERT_NE(it, run->gained.end()) << Key(f);
      expected.push_back({it->gain->frames(), GainMs(*it), Key(f)});
    }
    const bool frames_first = FramesFirst(run->whatif);
    EXPECT_TRUE(frames_first);  // every example has frames over its budget
    std::stable_sort(expected.begin(), expected.end(), [&](const auto& a, const auto& b) {
      if (frames_first && a.frames != b.frames) return a.frames > b.frames;
      return a.ms > b.ms;
    });
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(Key(run->gained[i]), expected[i].key) << "position " << i;
    }
  }
}

TEST(Gains, TouchDesignerSuggestionsSayTheGainAndCarryTextportLines) {
  auto run = Example("touchdesigner_feedback");
  // The script CHOP that cooks always: caching it saves every over-budget frame.
  const Finding* script = Find(*run, "cookalways-script", "/project1/control/script_osc");
  ASSERT_TRUE(script && script->gain && script->gain->fixed);
  EXPECT_EQ(script->gain->fix_factor, 0.0);
  EXPECT_EQ(script->gain->over_budget, 15u);
  EXPECT_EQ(script->gain->fixed->frames, 15);
  EXPECT_TRUE(Contains(script->suggestion,
                       "removing or caching it saves ~1.12 ms per frame and 15 of 15 over-budget "
                       "frames."))
      << script->suggestion;
  EXPECT_EQ(script->snippet, "op('/project1/control/script_osc').par.cookalways = False");
  EXPECT_TRUE(Contains(script->suggestion,
                       " Textport: `op('/project1/control/script_osc').par.cookalways = False`"));
  // The 4K blur: half its resolution from its own params, a quarter of the pixels.
  const NodeIndex blur = Node(*run, "/project1/fx/trails/blur_fb");
  const Finding* heavy = Find(*run, "heavy-top", "/project1/fx/trails/blur_fb");
  ASSERT_TRUE(heavy && heavy->gain && heavy->gain->fixed);
  // Custom resolution at half of what it renders now (tests/tools/td_standin/
  // check_snippets.py runs it): its params alone may be stale defaults.
  EXPECT_EQ(heavy->snippet,
            "t = op('/project1/fx/trails/blur_fb'); w, h = t.width, t.height; "
            "t.par.outputresolution = 'custom'; t.par.resolutionw = w // 2; "
            "t.par.resolutionh = h // 2");
  EXPECT_EQ(heavy->gain->fix_factor, 0.25);
  // Halving is the analysis's gain (HalvingGains) and the model's prediction.
  EXPECT_NEAR(heavy->gain->halved.ms, run->analysis.gain_ms[blur], 1e-9);
  const WhatIfChange quarter{.node = blur, .factor = 0.25};
  EXPECT_NEAR(heavy->gain->fixed->ms, run->whatif.Predict(std::span(&quarter, 1)).saved_ms, 1e-9);
  EXPECT_TRUE(Contains(heavy->suggestion,
                       "Predicted: halving it saves ~0.95 ms per frame; "
                       "cutting it to 25% of its cook time saves ~1.43 ms"))
      << heavy->suggestion;
  // Without the model the snippet is there, the prediction is not.
  for (const Finding& f : run->plain) {
    if (f.rule == "heavy-top" && f.nodes[0] == blur) {
      EXPECT_EQ(f.snippet, heavy->snippet);
      EXPECT_FALSE(Contains(f.suggestion, "Predicted:"));
    }
  }
}

TEST(Gains, GstreamerFragmentsComeFromTheElementsParams) {
  auto run = Example("gstreamer_pipeline");
  const Finding* enc = Find(*run, "encoder-spikes", "/pipeline0/bin_record/x264enc8");
  ASSERT_TRUE(enc);
  EXPECT_EQ(enc->snippet, "x264enc name=x264enc8 key-int-max=120");  // key-int-max 60, doubled
  EXPECT_TRUE(
      Contains(enc->suggestion, " gst-launch-1.0: `x264enc name=x264enc8 key-int-max=120`"));
  const Finding* scale = Find(*run, "slow-scale-method", "/pipeline0/bin_debug/videoscale19");
  ASSERT_TRUE(scale);
  EXPECT_EQ(scale->snippet, "videoscale name=videoscale19 method=bilinear");  // was lanczos
  const Finding* convert = Find(*run, "costly-conversion", "/pipeline0/bin_cam3/videoconvert4");
  ASSERT_TRUE(convert);
  EXPECT_EQ(convert->snippet, "videoconvert name=videoconvert4 n-threads=4");  // n-threads 2
  // No n-threads in the dump: the default (1) is in effect, as a dump lists
  // only properties set away from their defaults; the suggestion says so.
  const Finding* bare = Find(*run, "costly-conversion", "/pipeline0/bin_debug/videoconvert20");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->snippet, "videoconvert name=videoconvert20 n-threads=2");
  EXPECT_TRUE(Contains(bare->suggestion, "raise n-threads (now 1, the default) on")) << bare->suggestion;
  // A queue's gain is that of the element it waits for, named.
  const Finding* bp = Find(*run, "back-pressure", "/pipeline0/bin_record/queue32");
  ASSERT_TRUE(bp && bp->gain);
  EXPECT_EQ(bp->gain->nodes, std::vector<NodeIndex>{Node(*run, "/pipeline0/bin_record/x264enc8")});
  EXPECT_TRUE(
      Contains(bp->suggestion, "Predicted: halving /pipeline0/bin_record/x264enc8 saves ~4.6"))
      << bp->suggestion;
}

TEST(Gains, PytorchFindingsCarryTheChangePattern) {
  auto run = Example("pytorch_model");
  const Finding* copy =
      Find(*run, "pageable-copy",
           "step/input/aten::to/aten::_to_copy/aten::copy_/Memcpy HtoD (Pageable -> Device)");
  ASSERT_TRUE(copy && copy->gain && copy->gain->fixed);
  EXPECT_EQ(copy->gain->fix_factor, 0.0);
  EXPECT_TRUE(Contains(copy->snippet, "pin_memory=True")) << copy->snippet;
  EXPECT_TRUE(Contains(copy->snippet, ".to(device, non_blocking=True)")) << copy->snippet;
  // Loading that keeps ahead of the step saves all ten slow steps.
  const Finding* loader =
      Find(*run, "data-loader-stall",
           "step/dataloader/enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  ASSERT_TRUE(loader && loader->gain && loader->gain->fixed);
  EXPECT_EQ(loader->gain->fixed->frames, 10);
  EXPECT_TRUE(Contains(loader->snippet, "persistent_workers=True")) << loader->snippet;
}

TEST(Gains, TraceStepsArePredictedOnTheirCriticalPaths) {
  Result<Snapshot> s =
      ReadChromeTraceFile(std::string(COOKGRAPH_SOURCE_DIR) +
                              "/tests/data/fixtures/traces/kineto_resnet50_workers4.json.gz",
                          {});
  ASSERT_TRUE(s) << s.error().Format();
  auto run = Judge(std::move(*s), Builtin("pytorch"));
  EXPECT_EQ(run->whatif.model(), WhatIfModel::kStepPath);
  // The launch-bound rank: the compile pattern, and no node to predict.
  const auto launch = std::find_if(run->gained.begin(), run->gained.end(),
                                   [](const Finding& f) { return f.rule == "launch-bound"; });
  ASSERT_NE(launch, run->gained.end());
  EXPECT_EQ(launch->snippet, "model = torch.compile(model, mode=\"reduce-overhead\")");
  EXPECT_FALSE(launch->gain);
  // Findings without a prediction come after every one with a positive gain.
  EXPECT_GT(GainMs(run->gained.front()), 0.0);
  // Steps, not frames.
  for (const Finding& f : run->gained) {
    if (f.gain) {
      EXPECT_TRUE(Contains(f.suggestion, " per step")) << f.suggestion;
    }
    EXPECT_FALSE(Contains(f.title, "per frame")) << f.title;
  }
  // The critical path is one step's: its share is of that step's span (the
  // issue-35 report divided it by the mean step: 54.6% for 46.1%). Under HTA's
  // rules of commit f4d0062 (the backward pass on the path, the runtime lock)
  // the path is 151.117 ms, HTA's own length (HtaOracle.critical_path).
  const auto path = std::find_if(run->gained.begin(), run->gained.end(),
                                 [](const Finding& f) { return f.rule == "long-critical-path"; });
  ASSERT_NE(path, run->gained.end());
  EXPECT_TRUE(Contains(path->title, "ms in step 5 (99.6% of the step's 151.728 ms)")) << path->title;
}

// ONNX Runtime gives shapes as input_type_shape, PyTorch as input_dims: the
// advice names whichever the node has, never "unknown" for a shape it has.
TEST(Gains, TheDominantOpsShapesComeFromEitherProducer) {
  Result<Snapshot> s = ReadChromeTraceFile(
      std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/chrome/onnxruntime_profile.json", {});
  ASSERT_TRUE(s) << s.error().Format();
  auto run = Judge(std::move(*s), Builtin("pytorch"));
  const auto top = std::find_if(run->gained.begin(), run->gained.end(),
                                [](const Finding& f) { return f.rule == "dominant-node"; });
  ASSERT_NE(top, run->gained.end());
  EXPECT_TRUE(Contains(top->suggestion,
                       "shapes and dtypes ([{\"float\": [1, 3, 224, 224]}, {\"float\": [64, 3, 7, 7]}])"))
      << top->suggestion;
}

const char* kTwoNodes = R"({"cookgraph": 1, "engine": "test", "frame_budget_ms": 10, "nodes": [
    {"id": "/p/a", "type": "noiseTOP", "family": "TOP", "output": true},
    {"id": "/p/b", "type": "noiseTOP", "family": "TOP", "output": true}],
  "frames": {"index": [1, 2, 3], "series": {
    "/p/a": {"cook_ms": [A, A, A]}, "/p/b": {"cook_ms": [B, B, B]}}}})";

// A critical rule on /p/b and an info rule on /p/a: without gains the
// critical one leads; with them, the one whose node saves more.
const char* kTwoRules = R"(engine: test
rules:
  - id: grave
    severity: critical
    scope: node
    match: {id: "/p/b"}
    when: [{fact: per_frame_ms, gt: 0}]
    title: "{node} is grave"
    suggestion: "Fix {node}."
  - id: mild
    severity: info
    scope: node
    match: {id: "/p/a"}
    when: [{fact: per_frame_ms, gt: 0}]
    title: "{node} is mild"
    suggestion: "Fix {node}."
)";

std::string TwoNodes(const std::string& a_ms, const std::string& b_ms) {
  std::string json = kTwoNodes;
  json.replace(json.find("A, A, A"), 7, a_ms + ", " + a_ms + ", " + a_ms);
  json.replace(json.find("B, B, B"), 7, b_ms + ", " + b_ms + ", " + b_ms);
  return json;
}

std::vector<std::string> Rules(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.push_back(f.rule);
  return out;
}

TEST(Gains, SwappingTheNodesCostsSwapsTheOrder) {
  Result<KnowledgePack> pack = ParsePack(kTwoRules, "two.yaml");
  ASSERT_TRUE(pack) << pack.error().Format();
  const auto a_costly = FromJson(TwoNodes("6", "2"), *pack);
  EXPECT_EQ(Rules(a_costly->plain), (std::vector<std::string>{"grave", "mild"}));
  EXPECT_EQ(Rules(a_costly->gained), (std::vector<std::string>{"mild", "grave"}));
  EXPECT_NEAR(a_costly->gained[0].gain->halved.ms, 3.0, 1e-9);  // half of /p/a's 6 ms
  // The perturbed case: the costs swapped, the gains swap and so does the order.
  const auto b_costly = FromJson(TwoNodes("2", "6"), *pack);
  EXPECT_EQ(Rules(b_costly->gained), (std::vector<std::string>{"grave", "mild"}));
  EXPECT_NEAR(b_costly->gained[0].gain->halved.ms, 3.0, 1e-9);
}

TEST(Gains, ASnippetNeverNamesAParameterTheSnapshotLacks) {
  // A 32-bit float TOP without resolution params, and a rule whose snippet
  // halves them: its line would need resolutionw and resolutionh.
  const std::string json = R"({"cookgraph": 1, "engine": "touchdesigner", "nodes": [
      {"id": "/p/noise", "type": "noiseTOP", "family": "TOP", "output": true,
       "params": {"format": "rgba32float"}}],
    "frames": {"index": [1, 2], "series": {"/p/noise": {"cook_ms": [2, 2]}}}})";
  Result<KnowledgePack> pack = ParsePack(R"(engine: touchdesigner
snippet_label: Textport
rules:
  - id: heavy-top
    severity: warning
    scope: node
    match: {family: TOP}
    when: [{fact: per_frame_ms, gt: 0}]
    title: "{node}"
    suggestion: "Halve it."
    fix:
      factor: 0.25
      snippet: "op('{node}').par.resolutionw = {half:resolutionw}; op('{node}').par.resolutionh = {half:resolutionh}"
)", "halves.yaml");
  ASSERT_TRUE(pack) << pack.error().Format();
  const auto run = FromJson(json, std::move(*pack));
  const Finding* heavy = Find(*run, "heavy-top", "/p/noise");
  ASSERT_TRUE(heavy);
  EXPECT_EQ(heavy->snippet, "");
  EXPECT_TRUE(Contains(heavy->suggestion,
                       "(No Textport line: the snapshot gives no usable resolutionw, resolutionh "
                       "here.)"))
      << heavy->suggestion;
}

TEST(Gains, TopGainsAreTheNodesThatSaveMostHalvedWithTheirRemoval) {
  // Frames over the budget: what saves over-budget frames comes first (the
  // script CHOP, 15 of 15 removed), then the gain order.
  auto run = Example("touchdesigner_feedback");
  const TopGains top = PredictTopGains(run->whatif, run->analysis, 5);
  EXPECT_EQ(top.model, "serial frames");
  EXPECT_TRUE(top.frames_first);
  ASSERT_EQ(top.rows.size(), 5u);
  const NodeIndex script = Node(*run, "/project1/control/script_osc");
  EXPECT_EQ(top.rows[0].nodes, std::vector<NodeIndex>{script});
  EXPECT_EQ(top.rows[0].fixed->frames, 15);
  std::vector<NodeIndex> ranked = Rank(run->analysis, SortKey::kGain);
  std::erase(ranked, script);
  for (size_t i = 0; i < top.rows.size(); ++i) {
    const NodeIndex want = i == 0 ? script : ranked[i - 1];
    EXPECT_EQ(top.rows[i].nodes, std::vector<NodeIndex>{want}) << i;
    EXPECT_NEAR(top.rows[i].halved.ms, run->analysis.gain_ms[want], 1e-9) << i;
    ASSERT_TRUE(top.rows[i].fixed);
    EXPECT_EQ(top.rows[i].fix_factor, 0.0);
    if (i > 0) {
      EXPECT_EQ(top.rows[i].fixed->frames, 0) << i;
    }
  }
  // No frame over the budget (2 + 6 ms of 10): the gain order alone, /p/b first.
  Result<KnowledgePack> pack = ParsePack(kTwoRules, "two.yaml");
  ASSERT_TRUE(pack) << pack.error().Format();
  const auto within = FromJson(TwoNodes("2", "6"), *pack);
  const TopGains by_gain = PredictTopGains(within->whatif, within->analysis, 5);
  EXPECT_FALSE(by_gain.frames_first);
  ASSERT_EQ(by_gain.rows.size(), 2u);
  EXPECT_EQ(by_gain.rows[0].nodes, std::vector<NodeIndex>{Node(*within, "/p/b")});
  // Over it (6 + 6 ms): the same order, now by frames saved (both save all 3).
  const auto over = FromJson(TwoNodes("6", "6"), *pack);
  EXPECT_TRUE(PredictTopGains(over->whatif, over->analysis, 5).frames_first);
}

// `nodes` TOP nodes over 12 frames, each cook a multiple of 0.5 ms up to 3,
// and measured frame times around a budget of 100 ms: eight frames over it by
// 0.25 to 2.75 ms (a node cooking that much there saves them), four under.
// Seeded.
Snapshot ManyNodes(size_t nodes) {
  const std::vector<double> frame_ms = {100.25, 100.75, 101.25, 101.75, 102.25, 102.75,
                                        99,     98,     100.5,  101,    80,     60};
  std::mt19937 rng(11);
  Snapshot s;
  s.info.engine = "touchdesigner";
  s.info.frame_budget_ms = 100;
  for (size_t n = 0; n < nodes; ++n) {
    const std::string id = "/p/n" + std::to_string(n);
    EXPECT_TRUE(
        s.network.AddNode(cookgraph::Node{.id = id, .type = "blurTOP", .family = "TOP"}).ok());
  }
  s.samples = Samples(nodes);
  std::vector<int64_t> index(frame_ms.size());
  for (size_t f = 0; f < index.size(); ++f) index[f] = static_cast<int64_t>(f);
  s.samples.SetFrameIndex(index);
  for (NodeIndex n = 0; n < nodes; ++n) {
    std::vector<double> cook(frame_ms.size());
    for (double& c : cook) c = 0.5 * static_cast<double>(rng() % 7);
    s.samples.SetSeries(n, Metric::kCookMs, std::move(cook));
  }
  s.samples.SetFrameMs(frame_ms);
  return s;
}

TEST(Gains, FramesFirstWeighsEveryCandidateAsItsWholePredictionWould) {
  // PredictTopGains counts each candidate's frames saved (WhatIf::Savings, on
  // two cores past 4,096) and predicts in full only the rows it keeps: the
  // rows must be those of predicting every candidate in full and ranking
  // them (frames removing saves, then halving, ties in the gain order).
  const Snapshot s = ManyNodes(5000);
  for (bool gains : {false, true}) {
    const Analysis analysis = Analyse(s, AnalysisOptions{.gains = gains});
    const WhatIf whatif = WhatIf::Build(s, analysis);
    ASSERT_TRUE(FramesFirst(whatif));
    std::vector<NodeIndex> candidates;
    if (gains) {
      for (NodeIndex n : Rank(analysis, SortKey::kGain)) {
        if (analysis.gain_ms[n] > 0) candidates.push_back(n);
      }
    } else {
      for (const NodeGain& g : whatif.Gains(0.5)) {
        if (g.saved_ms > 0) candidates.push_back(g.node);
      }
    }
    ASSERT_GT(candidates.size(), 4096u);
    std::vector<PredictedGain> want;
    for (NodeIndex n : candidates) want.push_back(*PredictGain(whatif, analysis, {n}, 0.0));
    std::stable_sort(want.begin(), want.end(), [](const PredictedGain& a, const PredictedGain& b) {
      if (a.frames() != b.frames()) return a.frames() > b.frames();
      return a.halved.frames > b.halved.frames;
    });
    ASSERT_GT(want[0].frames(), want[20].frames()) << "the frames must decide the order";
    const TopGains top = PredictTopGains(whatif, analysis, 20);
    ASSERT_EQ(top.rows.size(), 20u);
    for (size_t i = 0; i < top.rows.size(); ++i) {
      const PredictedGain& got = top.rows[i];
      EXPECT_EQ(got.nodes, want[i].nodes) << "gains " << gains << ", row " << i;
      EXPECT_EQ(got.halved.ms, want[i].halved.ms);
      EXPECT_EQ(got.halved.p95_ms, want[i].halved.p95_ms);
      EXPECT_EQ(got.halved.frames, want[i].halved.frames);
      ASSERT_TRUE(got.fixed);
      EXPECT_EQ(got.fixed->frames, want[i].fixed->frames);
      EXPECT_EQ(got.fixed->ms, want[i].fixed->ms);
    }
  }
}

}  // namespace
}  // namespace cookgraph
