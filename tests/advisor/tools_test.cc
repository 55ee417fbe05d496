// The tools the model can call (docs/architecture.md#tools-the-model-can-call):
// what each answers on the examples (a node's statistics equal to `score
// --format json`'s, the what-if equal to `whatif --format json`'s), hostile
// arguments, results within their token budget, the same bytes every time,
// and calls from several threads at once.

#include "advisor/tools.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adapters/chrome/chrome_trace.h"
#include "adapters/native/snapshot_reader.h"
#include "advisor/judge.h"
#include "advisor/tokens/token_counter.h"
#include "metrics/whatif.h"
#include "pipeline/pipeline.h"
#include "writers/score.h"
#include "writers/whatif_formats.h"

namespace cookgraph {
namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

constexpr size_t kUnlimited = 1000000;

// An exact counter of another kind: one token per byte.
class ByteCounter : public TokenCounter {
 public:
  size_t Count(std::string_view text) const override { return text.size(); }
  bool exact() const override { return true; }
  std::string Describe() const override { return "bytes"; }
};

std::unique_ptr<Judged> JudgeSnapshot(Snapshot snapshot) {
  auto judged = std::make_unique<Judged>();
  judged->snapshot = std::move(snapshot);
  const pipeline::Outcome s = pipeline::Judge(*judged, AnalysisOptions{.gains = true}, "");
  EXPECT_TRUE(s) << s.failure().error.Format();
  return judged;
}

std::unique_ptr<Judged> Example(const std::string& name) {
  Result<Snapshot> s =
      ReadSnapshotFile(std::string(COOKGRAPH_SOURCE_DIR) + "/examples/" + name + ".json");
  EXPECT_TRUE(s) << s.error().Format();
  return JudgeSnapshot(s ? std::move(*s) : Snapshot{});
}

std::unique_ptr<Judged> Trace(const std::string& name) {
  Result<Snapshot> s = ReadChromeTraceFile(
      std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/fixtures/traces/" + name, {});
  EXPECT_TRUE(s) << s.error().Format();
  return JudgeSnapshot(s ? std::move(*s) : Snapshot{});
}

struct Fixture {
  std::unique_ptr<Judged> judged;
  std::unique_ptr<AnalysisTools> tools;
};

Fixture Load(std::unique_ptr<Judged> judged, const std::string& file) {
  Fixture f{.judged = std::move(judged)};
  f.tools = std::make_unique<AnalysisTools>(*f.judged, file);
  return f;
}

const TokenCounter& Estimator() {
  static const std::unique_ptr<TokenCounter> counter = MakeEstimator();
  return *counter;
}

ToolResult Call(const AnalysisTools& tools, std::string_view name, std::string_view args,
                size_t max_tokens = kUnlimited) {
  return tools.Run(name, args, Estimator(), max_tokens);
}

json Parsed(const ToolResult& r) {
  json j = json::parse(r.content, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << r.content.substr(0, 300);
  return j;
}

// `score --format json --top 0` of the judged snapshot, sorted by `key`.
json ScoreJson(const Judged& judged, SortKey key) {
  const std::string file = "in.json";
  const ScoreOptions options{.sort = key};
  const ScoredSnapshot scored{.file = file, .snapshot = judged.snapshot, .analysis = judged.analysis};
  const std::string text = RenderScoreHeader(ScoreFormat::kJson, options) +
                           RenderScoreSnapshot(ScoreFormat::kJson, scored, options) +
                           RenderScoreFooter(ScoreFormat::kJson, {});
  return json::parse(text);
}

const json* NodeIn(const json& score, const std::string& id) {
  for (const json& n : score["snapshots"][0]["nodes"]) {
    if (n["id"] == id) return &n;
  }
  return nullptr;
}

// ---- The specs --------------------------------------------------------------------------

TEST(AnalysisTools, SpecsAreFiveCompactSchemasWellUnderTheirTokenAllowance) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const auto& specs = f.tools->specs();
  ASSERT_EQ(specs.size(), 5u);
  std::vector<std::string> names;
  for (const ToolSpec& s : specs) {
    names.push_back(s.name);
    const ordered_json schema = ordered_json::parse(s.parameters);
    EXPECT_EQ(schema.dump(), s.parameters) << s.name << ": not compact JSON";
    EXPECT_EQ(schema["type"], "object");
    EXPECT_FALSE(s.description.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"get_node", "get_frame", "list_container", "whatif",
                                              "search_nodes"}));
  // As docs/formats.md#token-counts counts the tools of a request.
  auto tokens = [&](const TokenCounter& counter) {
    size_t sum = 0;
    for (const ToolSpec& s : specs) {
      sum += 3 + counter.Count(s.name) + counter.Count(s.description) + counter.Count(s.parameters);
    }
    return sum;
  };
  // Exactly, with the rank file installed with cookgraph (or tiktoken's cache);
  // the estimator may count up to 40% more.
  if (std::optional<RankFile> ranks = FindRankFile(Encoding::kO200k, "")) {
    auto exact = LoadTiktoken(ranks->path, Encoding::kO200k);
    ASSERT_TRUE(exact) << exact.error().Format();
    EXPECT_LE(tokens(**exact), 450u);
  }
  EXPECT_LE(tokens(Estimator()), 700u);
  // The same bytes from another instance.
  Fixture g = Load(Example("gstreamer_pipeline"), "gst.json");
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].parameters, g.tools->specs()[i].parameters);
    EXPECT_EQ(specs[i].description, g.tools->specs()[i].description);
  }
}

// ---- get_node ---------------------------------------------------------------------------

TEST(AnalysisTools, GetNodeGivesScoresStatisticsForNodesFarDownTheRanking) {
  for (const char* name : {"pytorch_model", "gstreamer_pipeline", "touchdesigner_feedback"}) {
    SCOPED_TRACE(name);
    Fixture f = Load(Example(name), name);
    const json score = ScoreJson(*f.judged, SortKey::kScore);
    const json gains = ScoreJson(*f.judged, SortKey::kGain);
    const json& nodes = score["snapshots"][0]["nodes"];
    ASSERT_GT(nodes.size(), 100u);
    size_t checked = 0;
    for (size_t i = 100; i < nodes.size(); i += 7) {  // past the prompt's first rows
      const std::string id = nodes[i]["id"];
      const ToolResult r = Call(*f.tools, "get_node", json{{"id", id}}.dump());
      ASSERT_FALSE(r.error) << r.content;
      EXPECT_EQ(r.nodes, std::vector<std::string>{id});
      const json got = Parsed(r)["nodes"][0];
      for (const auto& [key, value] : nodes[i].items()) {
        EXPECT_EQ(got[key], value) << id << " " << key;
      }
      EXPECT_EQ(got["gain_ms"], (*NodeIn(gains, id))["gain_ms"]) << id;
      // The numbers are written as score writes them, byte for byte.
      const std::string& text = r.content;
      EXPECT_NE(text.find("\"avg_ms\":" + nodes[i]["avg_ms"].dump()), std::string::npos)
          << nodes[i]["avg_ms"].dump();
      ++checked;
    }
    EXPECT_GT(checked, 10u);
  }
}

TEST(AnalysisTools, GetNodeShowsParamsEdgesAndFindings) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "get_node", R"({"id":"/project1/fx/trails/blur_fb"})");
  ASSERT_FALSE(r.error) << r.content;
  const json node = Parsed(r)["nodes"][0];
  EXPECT_EQ(node["parent"], "/project1/fx/trails");
  EXPECT_TRUE(node["params"].is_object());
  EXPECT_TRUE(node["inputs"].is_object());
  EXPECT_TRUE(node["outputs"].is_object());
  ASSERT_TRUE(node["findings"].is_array()) << r.content;
  bool loop = false;
  for (const json& finding : node["findings"]) loop = loop || finding["rule"] == "costly-feedback-loop";
  EXPECT_TRUE(loop) << r.content;
  EXPECT_EQ(node["loop"], true);
}

TEST(AnalysisTools, GetNodeByPatternIsRankedAndLimited) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "get_node", R"({"pattern":"/PROJECT1/fx/trails/*","limit":3})");
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  ASSERT_EQ(doc["nodes"].size(), 3u);
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_EQ(doc["total"], 6);  // the trails container holds 6 nodes
  EXPECT_EQ(doc["nodes"][0]["id"], "/project1/fx/trails/blur_fb");
  int64_t last = 0;
  for (const json& n : doc["nodes"]) {
    EXPECT_GT(n["rank"].get<int64_t>(), last);
    last = n["rank"];
  }
  EXPECT_EQ(r.nodes.size(), 3u);
  // A substring.
  const json sub = Parsed(Call(*f.tools, "get_node", R"({"pattern":"script_osc"})"));
  EXPECT_EQ(sub["nodes"][0]["id"], "/project1/control/script_osc");
}

// ---- get_frame --------------------------------------------------------------------------

TEST(AnalysisTools, GetFrameSaysTheFrameTimeAndItsSlowestNodes) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const Analysis& a = f.judged->analysis;
  ASSERT_FALSE(a.frames.over_budget.empty());
  const size_t over = a.frames.over_budget.front();
  const json doc = Parsed(Call(*f.tools, "get_frame", json{{"index", over}}.dump()));
  EXPECT_EQ(doc["index"], over);
  EXPECT_EQ(doc["frame"], f.judged->snapshot.samples.frame_index()[over]);
  EXPECT_EQ(doc["ms"].get<double>(), a.frames.frame_ms[over]);
  EXPECT_EQ(doc["over_budget"], true);
  ASSERT_GE(doc["nodes"].size(), 2u);
  double previous = 1e300;
  for (const json& n : doc["nodes"]) {
    EXPECT_LE(n["ms"].get<double>(), previous);
    previous = n["ms"];
  }
  EXPECT_EQ(doc["nodes"].size(), 20u);  // the default limit
  EXPECT_EQ(doc["total"], doc["cooked"]);
  // By the engine's frame number, the same bytes.
  const ToolResult by_number =
      Call(*f.tools, "get_frame", json{{"frame", doc["frame"]}}.dump());
  EXPECT_EQ(by_number.content, Call(*f.tools, "get_frame", json{{"index", over}}.dump()).content);
  // Out of range, both ways.
  EXPECT_TRUE(Call(*f.tools, "get_frame", R"({"index":300})").error);
  EXPECT_TRUE(Call(*f.tools, "get_frame", R"({"frame":-5})").error);
  EXPECT_TRUE(Call(*f.tools, "get_frame", R"({})").error);
  EXPECT_TRUE(Call(*f.tools, "get_frame", R"({"index":1,"frame":36000})").error);
}

TEST(AnalysisTools, GetFrameOfATraceStepHasItsRanksAndGpuTime) {
  Fixture f = Load(Trace("kineto_nccl_rank0_5steps.json.gz"), "trace.json.gz");
  const Snapshot& snap = f.judged->snapshot;
  ASSERT_GE(snap.samples.frame_count(), 2u);
  const ToolResult r = Call(*f.tools, "get_frame", R"({"index":1})");
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  EXPECT_EQ(doc["step"], snap.samples.frame_index()[1]);
  ASSERT_TRUE(doc["ranks"].is_array()) << r.content;
  ASSERT_EQ(doc["ranks"].size(), 1u);
  EXPECT_TRUE(doc["ranks"][0]["step_ms"].is_number());
  EXPECT_TRUE(doc.contains("gpu")) << r.content;
  EXPECT_FALSE(doc.contains("over_budget"));  // steps without a budget
  // The step number works as well as the frame number.
  const std::string step = std::to_string(snap.samples.frame_index()[1]);
  EXPECT_EQ(Call(*f.tools, "get_frame", R"({"step":)" + step + "}").content, r.content);
}

// ---- list_container and search_nodes -----------------------------------------------------

TEST(AnalysisTools, ListContainerHoldsItsContainersAndNodes) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "list_container", R"({"path":"/project1/fx/"})");
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  EXPECT_EQ(doc["path"], "/project1/fx");
  EXPECT_EQ(doc["parent"], "/project1");
  ASSERT_FALSE(doc["containers"].empty());
  EXPECT_EQ(doc["containers"][0]["id"], "/project1/fx/trails");  // the costliest
  for (const json& n : doc["nodes"]) {
    EXPECT_EQ(f.judged->snapshot.network.node(*f.judged->snapshot.network.Find(n["id"].get<std::string>())).parent,
              "/project1/fx");
  }
  EXPECT_EQ(r.listed.size(), doc["nodes"].size());
  // The top level holds /project1.
  const json top = Parsed(Call(*f.tools, "list_container", R"({"path":""})"));
  ASSERT_FALSE(top["containers"].empty());
  EXPECT_EQ(top["containers"][0]["id"], "/project1");
  // Unknown.
  const ToolResult unknown = Call(*f.tools, "list_container", R"({"path":"/nowhere"})");
  EXPECT_TRUE(unknown.error);
  EXPECT_NE(unknown.content.find("/project1"), std::string::npos) << unknown.content;
  // The PyTorch example's module paths.
  Fixture p = Load(Example("pytorch_model"), "pt.json");
  const json layer = Parsed(Call(*p.tools, "list_container", R"({"path":"resnet50/layer1.0"})"));
  EXPECT_FALSE(layer["containers"].empty()) << layer.dump();
}

TEST(AnalysisTools, SearchNodesMatchesTypeFamilyAndNameIgnoringCase) {
  Fixture f = Load(Example("gstreamer_pipeline"), "gst.json");
  const ToolResult r = Call(*f.tools, "search_nodes", R"({"type":"gstx264","limit":2})");
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  ASSERT_EQ(doc["nodes"].size(), 2u);
  EXPECT_EQ(doc["nodes"][0]["id"], "/pipeline0/bin_record/x264enc8");
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_GE(doc["total"].get<int>(), 3);
  const json queues =
      Parsed(Call(*f.tools, "search_nodes", R"({"type":"GSTQUEUE","family":"element","name":"bin_cam1"})"));
  ASSERT_EQ(queues["nodes"].size(), 3u) << queues.dump();
  for (const json& n : queues["nodes"]) {
    EXPECT_EQ(n["type"], "GstQueue");
    EXPECT_NE(n["id"].get<std::string>().find("bin_cam1/queue"), std::string::npos);
  }
  const json none = Parsed(Call(*f.tools, "search_nodes", R"({"name":"no such thing"})"));
  EXPECT_TRUE(none["nodes"].empty());
}

// ---- whatif -----------------------------------------------------------------------------

TEST(AnalysisTools, WhatIfEqualsTheWhatIfCommand) {
  for (const auto& [name, id] :
       {std::pair{"touchdesigner_feedback", "/project1/control/script_osc"},
        std::pair{"gstreamer_pipeline", "/pipeline0/bin_record/x264enc8"},
        std::pair{"pytorch_model", "resnet50/layer1.0/conv1/aten::conv2d"}}) {
    SCOPED_TRACE(name);
    Fixture f = Load(Example(name), name);
    for (double factor : {0.5, 0.0, 2.0}) {
      const ToolResult r =
          Call(*f.tools, "whatif", json{{"id", id}, {"factor", factor}}.dump());
      ASSERT_FALSE(r.error) << r.content;
      EXPECT_EQ(r.nodes, std::vector<std::string>{id});
      const json got = Parsed(r);
      // `cookgraph whatif --node ID=F --format json`, from an analysis without gains.
      const Analysis plain = Analyse(f.judged->snapshot);
      const WhatIf model = WhatIf::Build(f.judged->snapshot, plain);
      const WhatIfChange change{.node = *f.judged->snapshot.network.Find(id), .factor = factor};
      const json want = json::parse(
          RenderWhatIf(WhatIfFormat::kJson, name, f.judged->snapshot, model, std::span(&change, 1), 0));
      EXPECT_EQ(got["before"], want["before"]);
      EXPECT_EQ(got["after"], want["after"]);
      EXPECT_EQ(got["model"], want["model"]);
      EXPECT_EQ(got["budget_ms"], want["budget_ms"]);
      EXPECT_EQ(got["frames"], want["frames"]);
      for (const char* key : {"saved_ms", "saved_p95_ms", "frames_saved", "factor", "id"}) {
        EXPECT_EQ(got[key], want["nodes"][0][key]) << key;
      }
    }
    // The default factor is 0.5.
    EXPECT_EQ(Call(*f.tools, "whatif", json{{"id", id}}.dump()).content,
              Call(*f.tools, "whatif", json{{"id", id}, {"factor", 0.5}}.dump()).content);
  }
}

// ---- Hostile arguments ------------------------------------------------------------------

TEST(AnalysisTools, HostileArgumentsGiveAnErrorNamingWhatWasWrong) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const std::string mb(1 << 20, 'x');
  std::string deep(60000, '[');
  std::string deep_object;
  for (int i = 0; i < 40; ++i) deep_object += R"({"id":)";
  struct Case {
    std::string tool, args, says;
  };
  const std::vector<Case> cases = {
      {"get_node", "{", "not valid JSON"},
      {"get_node", "{\"id\": \"a\",}", "not valid JSON"},
      {"get_node", "NaN", "not valid JSON"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":NaN})", "not valid JSON"},
      {"get_node", "[]", "must be a JSON object, not an array"},
      {"get_node", "null", "must be a JSON object, not null"},
      {"get_node", "42", "must be a JSON object"},
      {"get_node", "\"id\"", "must be a JSON object, not a string"},
      {"get_node", deep, "nest more than 16 levels"},
      {"get_node", deep_object, "nest more than 16 levels"},
      {"get_node", R"({"id":{"id":"x"}})", "'id' must be a string, not an object"},
      {"get_node", R"({"id":["/project1"]})", "'id' must be a string, not an array"},
      {"get_node", R"({"id":5})", "'id' must be a string, not an integer"},
      {"get_node", "{\"id\":\"" + mb + "\"}", "the arguments are 1048585 bytes"},
      {"get_node", "{\"id\":\"" + std::string(5000, 'y') + "\"}", "'id' is 5000 bytes; at most 4096"},
      {"get_node", R"({"id":"/project1/nope"})", "no node has the id '/project1/nope'"},
      {"get_node", R"({"id":"/project1/control/script_os"})", "did you mean '/project1/control/script_osc'"},
      {"get_node", R"({})", "give either 'id'"},
      {"get_node", R"({"id":"/project1/control","pattern":"x"})", "give either 'id'"},
      {"get_node", R"({"pattern":"zzz*"})", "no node id matches 'zzz*'"},
      {"get_node", R"({"id":"/project1/control","limit":0})", "'limit' must be an integer >= 1, not 0"},
      {"get_node", R"({"id":"/project1/control","limit":-3})", "'limit' must be an integer >= 1"},
      {"get_node", R"({"id":"/project1/control","limit":1.5})", "'limit' must be an integer >= 1"},
      {"get_node", R"({"id":"/project1/control","limit":"5"})", "'limit' must be an integer >= 1, not a string"},
      {"get_node", R"({"id":"/project1/control","path":"/etc/passwd"})", "unknown argument 'path'"},
      {"get_node", "{\"id\":\"\xff\xfe\"}", "not valid JSON"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":-0.5})",
       "'factor' must be a finite number >= 0, not -0.5"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":1e400})",
       "not valid JSON: number overflow"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":"0.5"})",
       "'factor' must be a finite number >= 0, not a string"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":true})", "not a boolean"},
      {"whatif", R"({"factor":0.5})", "'id' is missing"},
      {"whatif", R"({"id":"nope"})", "no node has the id 'nope'"},
      {"get_frame", R"({"index":-1})", "'index' must be an integer from 0 to 299, not -1"},
      {"get_frame", R"({"index":18446744073709551615})", "'index' must be an integer from 0 to 299"},
      {"get_frame", R"({"frame":1e300})", "'frame' must be an integer"},
      {"list_container", R"({})", "'path' is missing"},
      {"list_container", R"({"path":7})", "'path' must be a string"},
      {"search_nodes", R"({"type":null,"family":[1]})", "'family' must be a string, not an array"},
      {"read_file", R"({"path":"/etc/passwd"})", "unknown tool 'read_file'"},
      {std::string(100000, 'z'), "{}", "unknown tool 'zzzz"},
      {"", "{}", "unknown tool ''"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tool.substr(0, 40) + " " + c.args.substr(0, 80));
    const ToolResult r = Call(*f.tools, c.tool, c.args, 2000);
    EXPECT_TRUE(r.error);
    EXPECT_TRUE(r.nodes.empty());
    const json doc = Parsed(r);
    ASSERT_TRUE(doc.is_object() && doc.size() == 1 && doc["error"].is_string()) << r.content;
    EXPECT_NE(doc["error"].get<std::string>().find(c.says), std::string::npos) << r.content;
    EXPECT_LE(r.content.size(), 600u) << "an error repeats at most a little of its input";
  }
  // Null is as if the argument were not given; "" is no arguments.
  EXPECT_FALSE(Call(*f.tools, "search_nodes", R"({"type":null,"limit":null})").error);
  EXPECT_FALSE(Call(*f.tools, "search_nodes", "").error);
  EXPECT_FALSE(Call(*f.tools, "search_nodes", "  \n").error);
  // A huge limit is taken as the largest.
  Fixture p = Load(Example("pytorch_model"), "pt.json");
  ASSERT_GT(p.judged->snapshot.network.size(), AnalysisTools::kMaxLimit);
  const json all = Parsed(Call(*p.tools, "search_nodes", R"({"limit":99999999999})"));
  EXPECT_EQ(all["nodes"].size(), AnalysisTools::kMaxLimit);
  EXPECT_EQ(all["total"], p.judged->snapshot.network.size());
}

// ---- Budgets ----------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> SomeCalls() {
  return {
      {"get_node", R"({"pattern":"*","limit":500})"},
      {"get_node", R"({"id":"/project1/fx/trails/blur_fb"})"},
      {"get_frame", R"({"index":7,"limit":500})"},
      {"list_container", R"({"path":"/project1/scene","limit":500})"},
      {"list_container", R"({"path":""})"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":0})"},
      {"search_nodes", R"({"family":"top","limit":500})"},
      {"get_node", R"({"id":"nope"})"},
      {"nope", "{}"},
  };
}

TEST(AnalysisTools, EveryResultFitsItsBudgetAndSaysWhenItIsCut) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ByteCounter bytes;
  for (const TokenCounter* counter : {&Estimator(), static_cast<const TokenCounter*>(&bytes)}) {
    for (const auto& [name, args] : SomeCalls()) {
      for (size_t budget : {0, 1, 2, 3, 5, 8, 13, 20, 40, 60, 100, 150, 250, 400, 800, 1500, 5000}) {
        SCOPED_TRACE(counter->Describe() + " " + name + " " + args + " " + std::to_string(budget));
        const ToolResult r = f.tools->Run(name, args, *counter, budget);
        EXPECT_LE(counter->Count(r.content), budget) << r.content;
        if (r.content.empty()) continue;
        const json doc = Parsed(r);
        ASSERT_TRUE(doc.is_object()) << r.content;
        if (r.error) continue;
        // A list cut for the budget says so and gives the total.
        for (const char* key : {"nodes", "containers"}) {
          if (!doc.contains(key)) continue;
          if (doc.contains("truncated")) {
            EXPECT_EQ(doc["truncated"], true);
            EXPECT_TRUE(doc.contains("total") || doc.contains("nodes_total"));
          }
        }
      }
    }
  }
  // A tiny budget: a few rows, cut, with the total.
  const ToolResult r = Call(*f.tools, "search_nodes", R"({"limit":500})", 200);
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_EQ(doc["total"], f.judged->snapshot.network.size());
  EXPECT_GE(doc["nodes"].size(), 1u);
  EXPECT_LE(Estimator().Count(r.content), 200u);
  EXPECT_EQ(r.listed.size(), doc["nodes"].size());
  // One node with less detail when its full object does not fit.
  const ToolResult full = Call(*f.tools, "get_node", R"({"id":"/project1/fx/trails/blur_fb"})");
  const size_t need = Estimator().Count(full.content);
  const ToolResult brief =
      Call(*f.tools, "get_node", R"({"id":"/project1/fx/trails/blur_fb"})", need - 1);
  ASSERT_FALSE(brief.error) << brief.content;
  EXPECT_LT(brief.content.size(), full.content.size());
  EXPECT_EQ(Parsed(brief)["nodes"][0]["avg_ms"], Parsed(full)["nodes"][0]["avg_ms"]);
  // Not even the statistics: a short error.
  const ToolResult none = Call(*f.tools, "get_node", R"({"id":"/project1/fx/trails/blur_fb"})", 30);
  EXPECT_TRUE(none.error);
  EXPECT_TRUE(none.nodes.empty());
}

// ---- Determinism and threads ------------------------------------------------------------

TEST(AnalysisTools, SameCallSameBytes) {
  Fixture f = Load(Example("pytorch_model"), "pt.json");
  Fixture g = Load(Example("pytorch_model"), "pt.json");
  for (const auto& [name, args] :
       std::vector<std::pair<std::string, std::string>>{
           {"get_node", R"({"pattern":"resnet50/layer2*","limit":20})"},
           {"get_frame", R"({"index":42})"},
           {"list_container", R"({"path":"resnet50"})"},
           {"whatif", R"({"id":"resnet50/layer1.0/conv1/aten::conv2d","factor":0.25})"},
           {"search_nodes", R"({"family":"kernel"})"}}) {
    const std::string first = Call(*f.tools, name, args, 1500).content;
    EXPECT_EQ(Call(*f.tools, name, args, 1500).content, first) << name;
    EXPECT_EQ(Call(*g.tools, name, args, 1500).content, first) << name;
  }
}

TEST(AnalysisTools, CallsFromSeveralThreadsAgreeWithOneThread) {
  Fixture f = Load(Example("gstreamer_pipeline"), "gst.json");
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"whatif", R"({"id":"/pipeline0/bin_record/x264enc8"})"},
      {"whatif", R"({"id":"/pipeline0/bin_webrtc/vp8enc0","factor":0})"},
      {"list_container", R"({"path":"/pipeline0"})"},
      {"get_node", R"({"pattern":"*enc*"})"},
      {"get_frame", R"({"index":3})"},
      {"search_nodes", R"({"family":"queue"})"},
  };
  // Each thread runs every call, starting at a different one, so that the
  // what-if model and the containers are first built under contention.
  constexpr size_t kThreads = 8;
  std::vector<std::vector<std::string>> got(kThreads, std::vector<std::string>(calls.size()));
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t round = 0; round < 3; ++round) {
        for (size_t i = 0; i < calls.size(); ++i) {
          const size_t c = (i + t) % calls.size();
          got[t][c] = f.tools->Run(calls[c].first, calls[c].second, Estimator(), 1500).content;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  Fixture g = Load(Example("gstreamer_pipeline"), "gst.json");
  for (size_t c = 0; c < calls.size(); ++c) {
    const std::string want = g.tools->Run(calls[c].first, calls[c].second, Estimator(), 1500).content;
    EXPECT_FALSE(want.empty());
    for (size_t t = 0; t < kThreads; ++t) EXPECT_EQ(got[t][c], want) << calls[c].first;
  }
}

}  // namespace
}  // namespace cookgraph
