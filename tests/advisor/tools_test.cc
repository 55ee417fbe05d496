// The tools the model can call (docs/architecture.md#tools-the-model-can-call):
// what each answers on the examples (a node's object and top_nodes' rows equal
// to `score --format json`'s, the what-if equal to `whatif --format json`'s
// document, the critical path to `graph --format json`'s, the GPU and thread
// sections to score's), which are offered where, every result against its
// output schema, hostile arguments, results within their token budget, the
// same bytes every time, and calls from several threads at once.

#include "advisor/tools.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "adapters/chrome/chrome_trace.h"
#include "adapters/input_files.h"
#include "adapters/native/snapshot_reader.h"
#include "advisor/judge.h"
#include "advisor/tokens/token_counter.h"
#include "metrics/analysis.h"
#include "metrics/whatif.h"
#include "pipeline/pipeline.h"
#include "writers/graph_formats.h"
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
  const pipeline::Outcome s = pipeline::JudgeSnapshot(*judged, AnalysisOptions{.gains = true}, "");
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

ordered_json OrderedParsed(const ToolResult& r) {
  ordered_json j = ordered_json::parse(r.content, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << r.content.substr(0, 300);
  return j;
}

// Compact, as the tools write a document they share with a command.
std::string Compact(const ordered_json& doc) {
  return doc.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

// A GStreamer recording with streaming threads: tee_bin.dot and its log.
std::unique_ptr<Judged> Recording() {
  const std::string dir = std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/gstreamer/";
  auto judged = std::make_unique<Judged>();
  const pipeline::Outcome s = pipeline::ReadAndJudge(
      Input{{dir + "tee_bin.dot", dir + "tee_bin.log"}}, {}, AnalysisOptions{.gains = true}, "", *judged);
  EXPECT_TRUE(s) << s.failure().error.Format();
  return judged;
}

// `score --format json --top 0` of the judged snapshot, sorted by `key`, as
// text. The judged analysis has the what-if gains, so every node has gain_ms;
// `gains` false renders it as the command does without --sort gain (which
// alone computes them): without gain_ms.
std::string ScoreText(const Judged& judged, SortKey key, bool gains = true,
                      const std::string& file = "in.json") {
  std::optional<Analysis> plain;
  if (!gains) {
    plain = judged.analysis;
    plain->gain_ms.clear();
  }
  const ScoreOptions options{.sort = key};
  const ScoredSnapshot scored{
      .file = file, .snapshot = judged.snapshot, .analysis = plain ? *plain : judged.analysis};
  return RenderScoreHeader(ScoreFormat::kJson, options) +
         RenderScoreSnapshot(ScoreFormat::kJson, scored, options) +
         RenderScoreFooter(ScoreFormat::kJson, {});
}

json ScoreJson(const Judged& judged, SortKey key) { return json::parse(ScoreText(judged, key)); }

const json* NodeIn(const json& score, const std::string& id) {
  for (const json& n : score["snapshots"][0]["nodes"]) {
    if (n["id"] == id) return &n;
  }
  return nullptr;
}

std::vector<std::string> Names(const std::vector<ToolSpec>& specs) {
  std::vector<std::string> names;
  for (const ToolSpec& s : specs) names.push_back(s.name);
  return names;
}

// The tools offered on every input, in order; a trace with GPU kernels adds
// gpu_breakdown and launches, a GStreamer recording threads.
const std::vector<std::string> kEveryInput = {"summary",  "top_nodes",     "node",   "findings",
                                              "frames",   "critical_path", "whatif", "container"};

std::vector<std::string> With(std::vector<std::string> names, std::initializer_list<const char*> more) {
  names.insert(names.end(), more.begin(), more.end());
  return names;
}

// ---- The specs --------------------------------------------------------------------------

TEST(AnalysisTools, SpecsAreCompactSchemasWellUnderTheirTokenAllowance) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const auto& specs = f.tools->specs();
  EXPECT_EQ(Names(specs), kEveryInput);
  // Every tool, with what it takes and what it gives back (MCP's outputSchema).
  std::vector<std::string> names;
  for (const ToolDefinition& d : AnalysisTools::Definitions()) {
    names.push_back(d.spec.name);
    for (const std::string* text : {&d.spec.parameters, &d.output_schema}) {
      const ordered_json schema = ordered_json::parse(*text);
      EXPECT_EQ(schema.dump(), *text) << d.spec.name << ": not compact JSON";
      EXPECT_EQ(schema["type"], "object") << d.spec.name;
    }
    EXPECT_FALSE(d.spec.description.empty());
    EXPECT_EQ(f.tools->Applies(d.spec.name), d.scope == ToolScope::kAlways) << d.spec.name;
  }
  EXPECT_EQ(names, With(kEveryInput, {"gpu_breakdown", "launches", "threads"}));
  EXPECT_FALSE(f.tools->Applies("get_node"));
  EXPECT_FALSE(f.tools->Applies(""));
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
    EXPECT_LE(tokens(**exact), 880u);
  }
  EXPECT_LE(tokens(Estimator()), 1300u);
  // The same bytes from another instance.
  Fixture g = Load(Example("gstreamer_pipeline"), "gst.json");
  ASSERT_EQ(g.tools->specs().size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    EXPECT_EQ(specs[i].parameters, g.tools->specs()[i].parameters);
    EXPECT_EQ(specs[i].description, g.tools->specs()[i].description);
  }
}

TEST(AnalysisTools, GpuAndThreadToolsAreOfferedOnlyWhereTheyApply) {
  Fixture t = Load(Trace("kineto_alexnet_sync.json.gz"), "trace.json.gz");
  const std::vector<std::string> trace = With(kEveryInput, {"gpu_breakdown", "launches"});
  EXPECT_EQ(Names(t.tools->specs()), trace);
  Fixture g = Load(Recording(), "tee_bin");
  const std::vector<std::string> recording = With(kEveryInput, {"threads"});
  EXPECT_EQ(Names(g.tools->specs()), recording);
  // The summary says which apply.
  EXPECT_EQ(Parsed(Call(*t.tools, "summary", "{}"))["tools"], json(trace));
  EXPECT_EQ(Parsed(Call(*g.tools, "summary", "{}"))["tools"], json(recording));
  // Called where it does not apply: an error saying why.
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  struct Case {
    const AnalysisTools* tools;
    std::string name, says;
  };
  for (const Case& c : std::vector<Case>{
           {f.tools.get(), "gpu_breakdown", "gpu_breakdown: td.json is no trace with GPU kernels"},
           {f.tools.get(), "launches", "launches: td.json is no trace with GPU kernels"},
           {f.tools.get(), "threads", "threads: td.json is no GStreamer recording"},
           {t.tools.get(), "threads", "threads: trace.json.gz is no GStreamer recording"},
           {g.tools.get(), "launches", "launches: tee_bin is no trace with GPU kernels"}}) {
    const ToolResult r = Call(*c.tools, c.name, "{}");
    EXPECT_TRUE(r.error) << c.name;
    EXPECT_NE(Parsed(r)["error"].get<std::string>().find(c.says), std::string::npos) << r.content;
  }
}

// Whether `v` is what the JSON Schema `schema` allows, in the parts the output
// schemas use (type, required, properties, items); the first problem in `why`.
bool Conforms(const json& v, const json& schema, const std::string& at, std::string& why) {
  if (schema.contains("type")) {
    const json types = schema["type"].is_array() ? schema["type"] : json::array({schema["type"]});
    bool any = false;
    for (const json& t : types) {
      const std::string type = t;
      any = any || (type == "object" && v.is_object()) || (type == "array" && v.is_array()) ||
            (type == "string" && v.is_string()) || (type == "boolean" && v.is_boolean()) ||
            (type == "null" && v.is_null()) || (type == "number" && v.is_number()) ||
            (type == "integer" && (v.is_number_integer() ||
                                   (v.is_number_float() && v.get<double>() == std::floor(v.get<double>()))));
    }
    if (!any) {
      why = at + " is " + v.type_name() + ", not " + schema["type"].dump();
      return false;
    }
  }
  if (v.is_object()) {
    const json required = schema.value("required", json::array());
    const json properties = schema.value("properties", json::object());
    for (const json& key : required) {
      if (!v.contains(key.get<std::string>())) {
        why = at + " has no " + key.get<std::string>();
        return false;
      }
    }
    for (const auto& [key, sub] : properties.items()) {
      if (v.contains(key) && !Conforms(v[key], sub, at + "." + key, why)) return false;
    }
  }
  if (v.is_array() && schema.contains("items")) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!Conforms(v[i], schema["items"], at + "[" + std::to_string(i) + "]", why)) return false;
    }
  }
  return true;
}

TEST(AnalysisTools, EveryResultIsWhatItsOutputSchemaSays) {
  std::vector<Fixture> inputs;
  for (const char* name : {"touchdesigner_feedback", "gstreamer_pipeline", "pytorch_model"}) {
    inputs.push_back(Load(Example(name), name));
  }
  inputs.push_back(Load(Trace("kineto_alexnet_sync.json.gz"), "trace.json.gz"));
  inputs.push_back(Load(Recording(), "tee_bin"));
  size_t checked = 0;
  for (const Fixture& f : inputs) {
    const Network& net = f.judged->snapshot.network;
    const json top = Parsed(Call(*f.tools, "summary", "{}"))["top"];
    const std::string id = top.empty() ? net.node(0).id : top[0].get<std::string>();
    const std::vector<std::pair<std::string, std::string>> calls = {
        {"summary", ""},
        {"top_nodes", ""},
        {"top_nodes", R"({"sort":"gain","top":3})"},
        {"node", json{{"id", id}}.dump()},
        {"node", json{{"id", net.node(net.size() - 1).id}}.dump()},
        {"findings", ""},
        {"frames", ""},
        {"frames", R"({"over_budget":true})"},
        {"frames", R"({"index":0})"},
        {"critical_path", ""},
        {"whatif", ""},
        {"whatif", json{{"id", id}}.dump()},
        {"container", R"({"path":""})"},
        {"gpu_breakdown", ""},
        {"launches", ""},
        {"threads", ""},
    };
    for (const auto& [name, args] : calls) {
      if (!f.tools->Applies(name)) continue;
      SCOPED_TRACE(f.judged->snapshot.info.name + " " + name + " " + args);
      const ToolResult r = Call(*f.tools, name, args);
      ASSERT_FALSE(r.error) << r.content;
      const json* schema = nullptr;
      json parsed;
      for (const ToolDefinition& d : AnalysisTools::Definitions()) {
        if (d.spec.name == name) parsed = json::parse(d.output_schema), schema = &parsed;
      }
      ASSERT_NE(schema, nullptr);
      std::string why;
      EXPECT_TRUE(Conforms(Parsed(r), *schema, name, why)) << why << "\n" << r.content.substr(0, 600);
      ++checked;
    }
  }
  EXPECT_GT(checked, 60u);
}

// ---- summary and findings ---------------------------------------------------------------

TEST(AnalysisTools, SummaryIsScoresFrameSummaryWithTheCounts) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "summary", "");
  ASSERT_FALSE(r.error) << r.content;
  EXPECT_TRUE(r.nodes.empty());
  const json doc = Parsed(r);
  const json snap = json::parse(ScoreText(*f.judged, SortKey::kScore, true, "td.json"))["snapshots"][0];
  for (const char* key : {"file", "name", "engine", "frames", "frame_budget_ms", "frame_ms",
                          "over_budget_frames"}) {
    EXPECT_EQ(doc[key], snap[key]) << key;
  }
  // Byte for byte: score's members "file" to "over_budget_frames".
  const std::string text = ScoreText(*f.judged, SortKey::kScore, true, "td.json");
  const size_t end = r.content.find(",\"frame_word\":");
  ASSERT_NE(end, std::string::npos) << r.content;
  EXPECT_NE(text.find(r.content.substr(1, end - 1)), std::string::npos) << r.content.substr(0, end);
  EXPECT_EQ(doc["file"], "td.json");
  EXPECT_EQ(doc["frame_word"], "frame");
  const Network& net = f.judged->snapshot.network;
  EXPECT_EQ(doc["nodes"], net.size());
  EXPECT_EQ(doc["edges"], net.edges().size());
  size_t cooked = 0;
  for (const json& n : snap["nodes"]) cooked += n["rank"].is_null() ? 0 : 1;
  EXPECT_EQ(doc["cooked_nodes"], cooked);
  std::map<std::string, size_t> severities;
  for (const Finding& finding : f.judged->findings) ++severities[std::string(SeverityName(finding.severity))];
  for (const char* severity : {"critical", "warning", "info"}) {
    EXPECT_EQ(doc["findings"][severity], severities[severity]) << severity;
  }
  ASSERT_EQ(doc["top"].size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(doc["top"][i], snap["nodes"][i]["id"]) << i;
  const Analysis& a = f.judged->analysis;
  EXPECT_EQ(doc["critical_path"]["nodes"], a.critical_path.nodes.size());
  EXPECT_EQ(doc["critical_path"]["per_frame_ms"].get<double>(), a.critical_path.weight);
  EXPECT_EQ(doc["loops"], snap["loops"].size());
  EXPECT_EQ(doc["warnings"], snap["warnings"].size());
  EXPECT_EQ(doc["tools"], json(kEveryInput));
  EXPECT_TRUE(Call(*f.tools, "summary", R"({"top":3})").error);
}

TEST(AnalysisTools, FindingsAreTheJudgedOnesMostSevereFirst) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const std::vector<Finding>& judged = f.judged->findings;
  ASSERT_GT(judged.size(), 10u);
  const json all = Parsed(Call(*f.tools, "findings", R"({"limit":500})"));
  ASSERT_EQ(all["findings"].size(), judged.size()) << all.dump().substr(0, 500);
  EXPECT_FALSE(all.contains("truncated"));
  std::multiset<std::string> want, got;
  for (const Finding& finding : judged) want.insert(finding.rule + " " + finding.title);
  int last = 3;
  for (const json& row : all["findings"]) {
    got.insert(row["rule"].get<std::string>() + " " + row["title"].get<std::string>());
    const std::string severity = row["severity"];
    const int rank = severity == "critical" ? 2 : severity == "warning" ? 1 : 0;
    EXPECT_LE(rank, last) << "not most severe first";
    last = rank;
    EXPECT_TRUE(row["nodes"].is_array());
    EXPECT_TRUE(row["suggestion"].is_string());
  }
  EXPECT_EQ(got, want);
  // The default: 10, cut, with the total.
  const json first = Parsed(Call(*f.tools, "findings", ""));
  EXPECT_EQ(first["findings"].size(), 10u);
  EXPECT_EQ(first["truncated"], true);
  EXPECT_EQ(first["total"], judged.size());
  EXPECT_EQ(first["findings"][0], all["findings"][0]);
  // This severity or worse.
  size_t critical = 0;
  for (const Finding& finding : judged) critical += finding.severity == Severity::kCritical ? 1 : 0;
  ASSERT_GT(critical, 0u);
  const json worst = Parsed(Call(*f.tools, "findings", R"({"severity":"critical","limit":500})"));
  EXPECT_EQ(worst["findings"].size(), critical);
  for (const json& row : worst["findings"]) EXPECT_EQ(row["severity"], "critical");
  // Those naming a node, whose ids the result lists.
  const ToolResult named =
      Call(*f.tools, "findings", R"({"node":"/project1/fx/trails/blur_fb","limit":500})");
  ASSERT_FALSE(named.error) << named.content;
  const NodeIndex blur = *f.judged->snapshot.network.Find("/project1/fx/trails/blur_fb");
  std::multiset<std::string> naming, shown;
  for (const Finding& finding : judged) {
    if (std::find(finding.nodes.begin(), finding.nodes.end(), blur) != finding.nodes.end()) {
      naming.insert(finding.rule + " " + finding.title);
    }
  }
  ASSERT_GT(naming.size(), 1u);
  ASSERT_LT(naming.size(), judged.size());
  const json rows = Parsed(named)["findings"];
  bool loop = false;
  for (const json& row : rows) {
    loop = loop || row["rule"] == "costly-feedback-loop";
    shown.insert(row["rule"].get<std::string>() + " " + row["title"].get<std::string>());
  }
  EXPECT_EQ(shown, naming);
  EXPECT_TRUE(loop) << named.content;
  EXPECT_NE(std::find(named.listed.begin(), named.listed.end(), "/project1/fx/trails/blur_fb"),
            named.listed.end());
}

// ---- node -------------------------------------------------------------------------------

TEST(AnalysisTools, NodeGivesScoresObjectForNodesFarDownTheRanking) {
  for (const char* name : {"pytorch_model", "gstreamer_pipeline", "touchdesigner_feedback"}) {
    SCOPED_TRACE(name);
    Fixture f = Load(Example(name), name);
    const std::string text = ScoreText(*f.judged, SortKey::kScore);
    const json score = json::parse(text);
    const json gains = ScoreJson(*f.judged, SortKey::kGain);
    const json& nodes = score["snapshots"][0]["nodes"];
    ASSERT_GT(nodes.size(), 100u);
    size_t checked = 0;
    for (size_t i = 100; i < nodes.size(); i += 7) {  // past the prompt's first rows
      const std::string id = nodes[i]["id"];
      const ToolResult r = Call(*f.tools, "node", json{{"id", id}}.dump());
      ASSERT_FALSE(r.error) << r.content;
      EXPECT_EQ(r.nodes, std::vector<std::string>{id});
      EXPECT_TRUE(r.listed.empty());
      const json got = Parsed(r);  // the node's object itself
      ASSERT_TRUE(got.is_object()) << r.content.substr(0, 300);
      EXPECT_EQ(got["id"], id);
      for (const auto& [key, value] : nodes[i].items()) {
        EXPECT_EQ(got[key], value) << id << " " << key;
      }
      EXPECT_EQ(got["gain_ms"], (*NodeIn(gains, id))["gain_ms"]) << id;
      // Score's object comes first, byte for byte: every member up to gain_ms,
      // the node's own ("waiting", "parent", ...) after it.
      const size_t gain = r.content.find(",\"gain_ms\":");
      ASSERT_NE(gain, std::string::npos) << r.content.substr(0, 300);
      const size_t end = std::min(r.content.find(",\"waiting\":", gain), r.content.find(",\"parent\":", gain));
      ASSERT_NE(end, std::string::npos) << r.content.substr(0, 300);
      EXPECT_NE(text.find(r.content.substr(0, end) + "}"), std::string::npos) << r.content.substr(0, end);
      ++checked;
    }
    EXPECT_GT(checked, 10u);
  }
}

TEST(AnalysisTools, NodeShowsParamsEdgesFindingsAndItsSlowestFrames) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "node", R"({"id":"/project1/fx/trails/blur_fb"})");
  ASSERT_FALSE(r.error) << r.content;
  const json node = Parsed(r);
  EXPECT_FALSE(node.contains("nodes")) << "the node's object, not a list";
  EXPECT_EQ(node["id"], "/project1/fx/trails/blur_fb");
  EXPECT_EQ(node["parent"], "/project1/fx/trails");
  EXPECT_TRUE(node["params"].is_object());
  EXPECT_TRUE(node["inputs"].is_object());
  EXPECT_TRUE(node["outputs"].is_object());
  ASSERT_TRUE(node["findings"].is_array()) << r.content;
  bool loop = false;
  for (const json& finding : node["findings"]) loop = loop || finding["rule"] == "costly-feedback-loop";
  EXPECT_TRUE(loop) << r.content;
  EXPECT_EQ(node["loop"], true);
  // Its five slowest frames, slowest first, with the series' numbers.
  const Snapshot& snap = f.judged->snapshot;
  const std::span<const double> series =
      snap.samples.series(*snap.network.Find("/project1/fx/trails/blur_fb"), Metric::kCookMs);
  std::vector<double> sorted;
  for (double ms : series) {
    if (!IsMissing(ms)) sorted.push_back(ms);
  }
  std::sort(sorted.rbegin(), sorted.rend());
  ASSERT_TRUE(node["slowest_frames"].is_array()) << r.content;
  ASSERT_EQ(node["slowest_frames"].size(), 5u);
  EXPECT_FALSE(node.contains("slowest_steps"));
  for (size_t i = 0; i < 5; ++i) {
    const json& row = node["slowest_frames"][i];
    const size_t index = row["index"];
    EXPECT_EQ(row["frame"], snap.samples.frame_index()[index]);
    EXPECT_EQ(row["ms"].get<double>(), series[index]);
    EXPECT_EQ(row["ms"].get<double>(), sorted[i]) << i;
  }
  EXPECT_EQ(node["slowest_frames"][0]["ms"], node["max_ms"]);
  // A trace's are steps.
  Fixture t = Load(Trace("kineto_alexnet_sync.json.gz"), "trace.json.gz");
  const std::string top = Parsed(Call(*t.tools, "summary", ""))["top"][0];
  const json step = Parsed(Call(*t.tools, "node", json{{"id", top}}.dump()));
  ASSERT_TRUE(step["slowest_steps"].is_array()) << step.dump().substr(0, 400);
  EXPECT_FALSE(step.contains("slowest_frames"));
  EXPECT_TRUE(step["slowest_steps"][0].contains("step"));
  // No pattern: top_nodes finds nodes by part of their id.
  const ToolResult pattern = Call(*f.tools, "node", R"({"pattern":"/project1/fx/*"})");
  EXPECT_TRUE(pattern.error);
  EXPECT_NE(pattern.content.find("unknown argument 'pattern'; it takes id"), std::string::npos)
      << pattern.content;
}

// ---- top_nodes --------------------------------------------------------------------------

TEST(AnalysisTools, TopNodesAreScoresNodesInEachSortOrder) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const size_t total = f.judged->snapshot.network.size();
  ASSERT_LT(total, AnalysisTools::kMaxLimit);
  for (const char* sort : {"score", "avg", "p95", "max", "per-frame", "gpu", "upstream", "gain"}) {
    SCOPED_TRACE(sort);
    const SortKey key = *ParseSortKey(sort);
    // `score --sort KEY --format json --top 0`: gain_ms with --sort gain only.
    const std::string text = ScoreText(*f.judged, key, key == SortKey::kGain);
    const ToolResult r = Call(*f.tools, "top_nodes", json{{"sort", sort}, {"top", 500}}.dump());
    ASSERT_FALSE(r.error) << r.content.substr(0, 300);
    const std::string head = std::string(R"({"sort":")") + sort + R"(","nodes":[)";
    ASSERT_TRUE(r.content.starts_with(head)) << r.content.substr(0, 300);
    ASSERT_TRUE(r.content.ends_with("]}")) << "cut: " << r.content.substr(r.content.size() - 100);
    // Every node, each object as score writes it, in score's order: its "nodes" array, byte for byte.
    const std::string rows = r.content.substr(head.size(), r.content.size() - head.size() - 2);
    EXPECT_NE(text.find("\"nodes\":[" + rows + "]"), std::string::npos);
    const json doc = Parsed(r);
    EXPECT_EQ(doc["nodes"].size(), total);
    EXPECT_EQ(doc["nodes"][0].contains("gain_ms"), key == SortKey::kGain);
    EXPECT_EQ(r.listed.size(), total);
    EXPECT_TRUE(r.nodes.empty());
  }
  // The default: by score, the first 10 (score's ten first), cut, with the total.
  const ToolResult first = Call(*f.tools, "top_nodes", "");
  const json doc = Parsed(first);
  EXPECT_EQ(doc["sort"], "score");
  ASSERT_EQ(doc["nodes"].size(), 10u);
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_EQ(doc["total"], total);
  const json score = json::parse(ScoreText(*f.judged, SortKey::kScore, false));
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(doc["nodes"][i], score["snapshots"][0]["nodes"][i]) << i;
  EXPECT_EQ(first.listed.size(), 10u);
  // Filtered: each node keeps its rank in the whole ordering.
  const json avg = json::parse(ScoreText(*f.judged, SortKey::kAvg, false));
  const json noise = Parsed(Call(*f.tools, "top_nodes", R"({"sort":"avg","name":"noise1"})"));
  ASSERT_GE(noise["nodes"].size(), 2u);
  for (const json& n : noise["nodes"]) {
    EXPECT_NE(n["id"].get<std::string>().find("noise1"), std::string::npos);
    EXPECT_EQ(n, *NodeIn(avg, n["id"])) << n["id"];
  }
  EXPECT_GT(noise["nodes"][0]["rank"].get<int>(), 10);
}

TEST(AnalysisTools, TopNodesByNameIsRankedAndLimited) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "top_nodes", R"({"name":"/PROJECT1/fx/trails/*","top":3})");
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
  EXPECT_EQ(r.listed.size(), 3u);
  // A substring.
  const json sub = Parsed(Call(*f.tools, "top_nodes", R"({"name":"script_osc"})"));
  ASSERT_EQ(sub["nodes"].size(), 1u);
  EXPECT_EQ(sub["nodes"][0]["id"], "/project1/control/script_osc");
  EXPECT_FALSE(sub.contains("truncated"));
}

TEST(AnalysisTools, TopNodesMatchesTypeFamilyAndNameIgnoringCase) {
  Fixture f = Load(Example("gstreamer_pipeline"), "gst.json");
  const ToolResult r = Call(*f.tools, "top_nodes", R"({"type":"gstx264","top":2})");
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  ASSERT_EQ(doc["nodes"].size(), 2u);
  EXPECT_EQ(doc["nodes"][0]["id"], "/pipeline0/bin_record/x264enc8");
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_GE(doc["total"].get<int>(), 3);
  const json queues = Parsed(
      Call(*f.tools, "top_nodes", R"({"type":"GSTQUEUE","family":"element","name":"bin_cam1"})"));
  ASSERT_EQ(queues["nodes"].size(), 3u) << queues.dump();
  for (const json& n : queues["nodes"]) {
    EXPECT_EQ(n["type"], "GstQueue");
    EXPECT_NE(n["id"].get<std::string>().find("bin_cam1/queue"), std::string::npos);
  }
  const json none = Parsed(Call(*f.tools, "top_nodes", R"({"name":"no such thing"})"));
  EXPECT_TRUE(none["nodes"].empty());
}

// ---- frames -----------------------------------------------------------------------------

TEST(AnalysisTools, FramesSaysAFramesTimeAndItsSlowestNodes) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const Analysis& a = f.judged->analysis;
  ASSERT_FALSE(a.frames.over_budget.empty());
  const size_t over = a.frames.over_budget.front();
  const json doc = Parsed(Call(*f.tools, "frames", json{{"index", over}}.dump()));
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
  const ToolResult by_number = Call(*f.tools, "frames", json{{"frame", doc["frame"]}}.dump());
  EXPECT_EQ(by_number.content, Call(*f.tools, "frames", json{{"index", over}}.dump()).content);
  // Out of range, both ways; both ways at once.
  EXPECT_TRUE(Call(*f.tools, "frames", R"({"index":300})").error);
  EXPECT_TRUE(Call(*f.tools, "frames", R"({"frame":-5})").error);
  EXPECT_TRUE(Call(*f.tools, "frames", R"({"index":1,"frame":36000})").error);
}

TEST(AnalysisTools, FramesWithNeitherGivesTheSlowestFrames) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const Analysis& a = f.judged->analysis;
  const std::vector<int64_t>& numbers = f.judged->snapshot.samples.frame_index();
  size_t counted = 0;
  for (double ms : a.frames.frame_ms) counted += IsMissing(ms) ? 0 : 1;
  const ToolResult r = Call(*f.tools, "frames", "{}");
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  EXPECT_EQ(doc["frame_word"], "frame");
  EXPECT_EQ(doc["budget_ms"].get<double>(), a.budget_ms);
  EXPECT_EQ(doc["mean_ms"].get<double>(), a.frames.mean_ms);
  EXPECT_EQ(doc["p95_ms"].get<double>(), a.frames.p95_ms);
  EXPECT_EQ(doc["measured"], a.frames.measured);
  EXPECT_EQ(doc["over_budget_frames"], a.frames.over_budget.size());
  ASSERT_EQ(doc["frames"].size(), 20u);  // the default limit
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_EQ(doc["total"], counted);
  std::vector<double> sorted;
  for (double ms : a.frames.frame_ms) {
    if (!IsMissing(ms)) sorted.push_back(ms);
  }
  std::sort(sorted.rbegin(), sorted.rend());
  for (size_t i = 0; i < doc["frames"].size(); ++i) {
    const json& row = doc["frames"][i];
    const size_t index = row["index"];
    EXPECT_EQ(row["frame"], numbers[index]);
    EXPECT_EQ(row["ms"].get<double>(), a.frames.frame_ms[index]);
    EXPECT_EQ(row["ms"].get<double>(), sorted[i]) << "not the slowest first";
    EXPECT_EQ(row["over_budget"], std::binary_search(a.frames.over_budget.begin(),
                                                     a.frames.over_budget.end(), index));
  }
  // Only those over the budget: exactly the analysis's.
  const json over = Parsed(Call(*f.tools, "frames", R"({"over_budget":true,"limit":500})"));
  std::vector<size_t> got;
  for (const json& row : over["frames"]) {
    EXPECT_EQ(row["over_budget"], true);
    got.push_back(row["index"]);
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, std::vector<size_t>(a.frames.over_budget.begin(), a.frames.over_budget.end()));
  EXPECT_FALSE(over.contains("truncated"));
  EXPECT_EQ(Call(*f.tools, "frames", R"({"over_budget":false})").content, r.content);
  // A trace's steps, without a budget.
  Fixture t = Load(Trace("kineto_alexnet_sync.json.gz"), "trace.json.gz");
  const json steps = Parsed(Call(*t.tools, "frames", ""));
  EXPECT_EQ(steps["frame_word"], "step");
  EXPECT_TRUE(steps["budget_ms"].is_null());
  EXPECT_FALSE(steps.contains("over_budget_frames"));
  ASSERT_FALSE(steps["frames"].empty());
  EXPECT_TRUE(steps["frames"][0].contains("step"));
  EXPECT_FALSE(steps["frames"][0].contains("over_budget"));
}

TEST(AnalysisTools, FramesOfATraceStepHasItsRanksAndGpuTime) {
  Fixture f = Load(Trace("kineto_nccl_rank0_5steps.json.gz"), "trace.json.gz");
  const Snapshot& snap = f.judged->snapshot;
  ASSERT_GE(snap.samples.frame_count(), 2u);
  const ToolResult r = Call(*f.tools, "frames", R"({"index":1})");
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
  EXPECT_EQ(Call(*f.tools, "frames", R"({"step":)" + step + "}").content, r.content);
}

// ---- critical_path ----------------------------------------------------------------------

TEST(AnalysisTools, CriticalPathIsTheGraphCommands) {
  std::vector<Fixture> inputs;
  inputs.push_back(Load(Example("touchdesigner_feedback"), "td.json"));
  inputs.push_back(Load(Example("pytorch_model"), "pt.json"));
  inputs.push_back(Load(Trace("kineto_nccl_rank0_5steps.json.gz"), "trace.json.gz"));
  for (const Fixture& f : inputs) {
    SCOPED_TRACE(f.judged->snapshot.info.name);
    const ToolResult r = Call(*f.tools, "critical_path", "");
    ASSERT_FALSE(r.error) << r.content.substr(0, 300);
    // `cookgraph graph --format json`'s "critical_path", compact.
    const ordered_json graph = ordered_json::parse(
        RenderGraph(GraphFormat::kJson, "in.json", f.judged->snapshot, f.judged->analysis));
    EXPECT_EQ(r.content, Compact(graph["critical_path"]));
    EXPECT_FALSE(graph["critical_path"]["nodes"].empty());
  }
  // A trace's step by position or number: its event path.
  const Fixture& t = inputs.back();
  const ToolResult step = Call(*t.tools, "critical_path", R"({"index":1})");
  ASSERT_FALSE(step.error) << step.content.substr(0, 300);
  const json path = Parsed(step);
  EXPECT_TRUE(path["events"].is_array());
  EXPECT_FALSE(path["nodes"].empty());
  const std::string number = std::to_string(t.judged->snapshot.samples.frame_index()[1]);
  EXPECT_EQ(Call(*t.tools, "critical_path", R"({"step":)" + number + "}").content, step.content);
  // The network's path has no steps.
  const ToolResult td = Call(*inputs[0].tools, "critical_path", R"({"index":1})");
  EXPECT_TRUE(td.error);
  EXPECT_NE(td.content.find("a step's is for traces"), std::string::npos) << td.content;
}

// ---- container --------------------------------------------------------------------------

TEST(AnalysisTools, ContainerHoldsItsContainersAndNodes) {
  Fixture f = Load(Example("touchdesigner_feedback"), "td.json");
  const ToolResult r = Call(*f.tools, "container", R"({"path":"/project1/fx/"})");
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
  const json top = Parsed(Call(*f.tools, "container", R"({"path":""})"));
  ASSERT_FALSE(top["containers"].empty());
  EXPECT_EQ(top["containers"][0]["id"], "/project1");
  // Unknown.
  const ToolResult unknown = Call(*f.tools, "container", R"({"path":"/nowhere"})");
  EXPECT_TRUE(unknown.error);
  EXPECT_NE(unknown.content.find("container: no container '/nowhere'"), std::string::npos) << unknown.content;
  EXPECT_NE(unknown.content.find("/project1"), std::string::npos) << unknown.content;
  // The PyTorch example's module paths.
  Fixture p = Load(Example("pytorch_model"), "pt.json");
  const json layer = Parsed(Call(*p.tools, "container", R"({"path":"resnet50/layer1.0"})"));
  EXPECT_FALSE(layer["containers"].empty()) << layer.dump();
}

// ---- gpu_breakdown, launches, threads ---------------------------------------------------

TEST(AnalysisTools, GpuBreakdownLaunchesAndThreadsAreScoresSections) {
  Fixture t = Load(Trace("kineto_alexnet_sync.json.gz"), "trace.json.gz");
  const std::string text = ScoreText(*t.judged, SortKey::kScore);
  const ordered_json snap = ordered_json::parse(text)["snapshots"][0];
  ASSERT_TRUE(snap["gpu"].is_object());
  ordered_json gpu = snap["gpu"];
  const ordered_json launches = gpu["launches"];
  gpu.erase("launches");
  const ToolResult breakdown = Call(*t.tools, "gpu_breakdown", "");
  ASSERT_FALSE(breakdown.error) << breakdown.content;
  EXPECT_EQ(breakdown.content, Compact(gpu));
  const ToolResult launched = Call(*t.tools, "launches", "{}");
  ASSERT_FALSE(launched.error) << launched.content;
  EXPECT_EQ(OrderedParsed(launched), launches);
  EXPECT_NE(text.find("\"launches\":" + launched.content), std::string::npos) << launched.content;
  EXPECT_TRUE(Call(*t.tools, "launches", R"({"top":1})").error);
  // A GStreamer recording's threads: score's members "threads" to "latency_ms".
  Fixture g = Load(Recording(), "tee_bin");
  const std::string gst_text = ScoreText(*g.judged, SortKey::kScore);
  const json gst = json::parse(gst_text)["snapshots"][0];
  const ToolResult r = Call(*g.tools, "threads", "");
  ASSERT_FALSE(r.error) << r.content;
  const json threads = Parsed(r);
  ASSERT_FALSE(threads["threads"].empty());
  EXPECT_TRUE(threads.contains("bottleneck_thread"));
  for (const auto& [key, value] : threads.items()) EXPECT_EQ(value, gst[key]) << key;
  EXPECT_NE(gst_text.find(r.content.substr(1, r.content.size() - 2)), std::string::npos);
}

// ---- whatif -----------------------------------------------------------------------------

TEST(AnalysisTools, WhatIfIsTheWhatIfCommandsDocument) {
  for (const auto& [example, first, second] :
       {std::tuple{"touchdesigner_feedback", "/project1/control/script_osc", "/project1/fx/trails/blur_fb"},
        std::tuple{"gstreamer_pipeline", "/pipeline0/bin_record/x264enc8", "/pipeline0/bin_webrtc/vp8enc0"},
        std::tuple{"pytorch_model", "resnet50/layer1.0/conv1/aten::conv2d",
                   "resnet50/layer3.4/conv1/aten::conv2d/aten::convolution"}}) {
    const std::string name = example, id = first, other = second;
    SCOPED_TRACE(name);
    Fixture f = Load(Example(name), name);
    const Snapshot& snap = f.judged->snapshot;
    // `cookgraph whatif NAME ... --format json`, from an analysis without gains.
    const Analysis plain = Analyse(snap);
    const WhatIf model = WhatIf::Build(snap, plain);
    auto command = [&](std::span<const WhatIfChange> changes, size_t top) {
      return Compact(ordered_json::parse(RenderWhatIf(WhatIfFormat::kJson, name, snap, model, changes, top)));
    };
    const NodeIndex n = *snap.network.Find(id), m = *snap.network.Find(other);
    for (double factor : {0.5, 0.0, 2.0}) {
      const ToolResult r = Call(*f.tools, "whatif", json{{"id", id}, {"factor", factor}}.dump());
      ASSERT_FALSE(r.error) << r.content.substr(0, 300);
      EXPECT_EQ(r.nodes, std::vector<std::string>{id});
      const WhatIfChange change{.node = n, .factor = factor};
      // --node ID=F: the whole document, series included.
      EXPECT_EQ(r.content, command(std::span(&change, 1), 0));
      EXPECT_TRUE(Parsed(r).contains("series"));
    }
    // The default factor is 0.5.
    EXPECT_EQ(Call(*f.tools, "whatif", json{{"id", id}}.dump()).content,
              Call(*f.tools, "whatif", json{{"id", id}, {"factor", 0.5}}.dump()).content);
    // Several changes: together, and each alone (--node ID=F --node ID2=F2).
    const std::vector<WhatIfChange> two = {{.node = n, .factor = 0.5}, {.node = m, .factor = 0.0}};
    const ToolResult both = Call(*f.tools, "whatif",
                                 json{{"changes", json::array({{{"id", id}}, {{"id", other}, {"factor", 0}}})}}.dump());
    ASSERT_FALSE(both.error) << both.content.substr(0, 300);
    EXPECT_EQ(both.content, command(two, 0));
    EXPECT_EQ(both.nodes, (std::vector<std::string>{id, other}));
    // No node: the largest savings, as --top N gives them (default 10).
    const ToolResult gains = Call(*f.tools, "whatif", "");
    ASSERT_FALSE(gains.error) << gains.content.substr(0, 300);
    EXPECT_EQ(gains.content, command({}, 10));
    EXPECT_EQ(Parsed(gains)["nodes"].size(), 10u);
    EXPECT_EQ(Call(*f.tools, "whatif", R"({"top":3})").content, command({}, 3));
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
      {"node", "{", "not valid JSON"},
      {"node", "{\"id\": \"a\",}", "not valid JSON"},
      {"node", "NaN", "not valid JSON"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":NaN})", "not valid JSON"},
      {"node", "[]", "must be a JSON object, not an array"},
      {"node", "null", "must be a JSON object, not null"},
      {"node", "42", "must be a JSON object"},
      {"node", "\"id\"", "must be a JSON object, not a string"},
      {"node", deep, "nest more than 16 levels"},
      {"node", deep_object, "nest more than 16 levels"},
      {"node", R"({"id":{"id":"x"}})", "'id' must be a string, not an object"},
      {"node", R"({"id":["/project1"]})", "'id' must be a string, not an array"},
      {"node", R"({"id":5})", "'id' must be a string, not an integer"},
      {"node", "{\"id\":\"" + mb + "\"}", "the arguments are 1048585 bytes"},
      {"node", "{\"id\":\"" + std::string(5000, 'y') + "\"}", "'id' is 5000 bytes; at most 4096"},
      {"node", R"({"id":"/project1/nope"})", "node: no node has the id '/project1/nope'"},
      {"node", R"({"id":"/project1/control/script_os"})", "did you mean '/project1/control/script_osc'"},
      {"node", R"({})", "node: argument 'id' is missing"},
      {"node", R"({"id":"/project1/control","pattern":"x"})", "unknown argument 'pattern'; it takes id"},
      {"node", R"({"id":"/project1/control","limit":5})", "unknown argument 'limit'"},
      {"node", R"({"id":"/project1/control","path":"/etc/passwd"})", "unknown argument 'path'"},
      {"node", "{\"id\":\"\xff\xfe\"}", "not valid JSON"},
      {"container", R"({"path":"/project1","limit":0})", "'limit' must be an integer >= 1, not 0"},
      {"container", R"({"path":"/project1","limit":-3})", "'limit' must be an integer >= 1"},
      {"frames", R"({"limit":1.5})", "'limit' must be an integer >= 1"},
      {"findings", R"({"limit":"5"})", "'limit' must be an integer >= 1, not a string"},
      {"top_nodes", R"({"top":0})", "'top' must be an integer >= 1, not 0"},
      {"top_nodes", R"({"limit":5})", "unknown argument 'limit'"},
      {"top_nodes", R"({"sort":"fastest"})", "'sort' must be one of score, avg, p95, max, per-frame, gpu, upstream, gain, not 'fastest'"},
      {"top_nodes", R"({"type":null,"family":[1]})", "'family' must be a string, not an array"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":-0.5})",
       "'factor' must be a finite number >= 0, not -0.5"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":1e400})",
       "not valid JSON: number overflow"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":"0.5"})",
       "'factor' must be a finite number >= 0, not a string"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":true})", "not a boolean"},
      {"whatif", R"({"factor":0.5})", "'factor' goes with 'id'"},
      {"whatif", R"({"id":"nope"})", "whatif: no node has the id 'nope'"},
      {"whatif", R"({"changes":{"id":"/project1/control/script_osc"}})", "'changes' must be an array"},
      {"whatif", R"({"changes":[{"id":"/project1/control/script_osc","factor":-1}]})", "each of 'changes'"},
      {"whatif", R"({"changes":[{"node":"/project1/control/script_osc"}]})", "each of 'changes'"},
      {"whatif", R"({"changes":[{"id":"nope"}]})", "whatif: no node has the id 'nope'"},
      {"whatif", R"({"top":0})", "'top' must be an integer >= 1, not 0"},
      {"frames", R"({"index":-1})", "'index' must be an integer from 0 to 299, not -1"},
      {"frames", R"({"index":18446744073709551615})", "'index' must be an integer from 0 to 299"},
      {"frames", R"({"frame":1e300})", "'frame' must be an integer"},
      {"frames", R"({"frame":99999})", "frames: no frame numbered 99999 in td.json; its frames are numbered 36000 to 36299"},
      {"frames", R"({"over_budget":1})", "'over_budget' must be a boolean, not an integer"},
      {"critical_path", R"({"frame":3})", "unknown argument 'frame'"},
      {"critical_path", R"({"index":1})", "a step's is for traces"},
      {"findings", R"({"severity":"fatal"})", "'severity' must be info, warning or critical, not 'fatal'"},
      {"findings", R"({"node":"/project1/nope"})", "findings: no node has the id '/project1/nope'"},
      {"summary", R"({"id":"/project1"})", "summary: unknown argument 'id'"},
      {"container", R"({})", "container: argument 'path' is missing"},
      {"container", R"({"path":7})", "'path' must be a string"},
      {"gpu_breakdown", "{}", "is no trace with GPU kernels"},
      {"get_node", R"({"id":"/project1/control"})", "unknown tool 'get_node'; the tools are summary, top_nodes, node"},
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
  EXPECT_FALSE(Call(*f.tools, "top_nodes", R"({"type":null,"top":null})").error);
  EXPECT_FALSE(Call(*f.tools, "top_nodes", "").error);
  EXPECT_FALSE(Call(*f.tools, "top_nodes", "  \n").error);
  EXPECT_FALSE(Call(*f.tools, "summary", R"({})").error);
  // A huge top is cut to the most a list gives, and the result says so.
  Fixture p = Load(Example("pytorch_model"), "pt.json");
  ASSERT_GT(p.judged->snapshot.network.size(), AnalysisTools::kMaxLimit);
  const json all = Parsed(Call(*p.tools, "top_nodes", R"({"top":99999999999})"));
  EXPECT_EQ(all["nodes"].size(), AnalysisTools::kMaxLimit);
  EXPECT_EQ(all["total"], p.judged->snapshot.network.size());
  EXPECT_EQ(all["truncated"], true);
  EXPECT_EQ(all["note"], "top 99999999999 is more than a list gives: at most 500 rows");
  size_t counted = 0;
  for (double ms : p.judged->analysis.frames.frame_ms) counted += IsMissing(ms) ? 0 : 1;
  ASSERT_GT(counted, 20u);
  EXPECT_EQ(Parsed(Call(*p.tools, "frames", R"({"limit":99999999999})"))["frames"].size(),
            std::min<size_t>(AnalysisTools::kMaxLimit, counted));
}

// ---- Budgets ----------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> SomeCalls() {
  return {
      {"summary", ""},
      {"top_nodes", R"({"name":"*","top":500})"},
      {"node", R"({"id":"/project1/fx/trails/blur_fb"})"},
      {"findings", R"({"limit":500})"},
      {"frames", R"({"index":7,"limit":500})"},
      {"frames", R"({"limit":500})"},
      {"critical_path", ""},
      {"container", R"({"path":"/project1/scene","limit":500})"},
      {"container", R"({"path":""})"},
      {"whatif", R"({"id":"/project1/control/script_osc","factor":0})"},
      {"whatif", R"({"top":500})"},
      {"top_nodes", R"({"family":"top","top":500})"},
      {"node", R"({"id":"nope"})"},
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
        for (const char* key : {"nodes", "containers", "frames", "findings"}) {
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
  const ToolResult r = Call(*f.tools, "top_nodes", R"({"top":500})", 400);
  ASSERT_FALSE(r.error) << r.content;
  const json doc = Parsed(r);
  EXPECT_EQ(doc["truncated"], true);
  EXPECT_EQ(doc["total"], f.judged->snapshot.network.size());
  EXPECT_GE(doc["nodes"].size(), 1u);
  EXPECT_LE(Estimator().Count(r.content), 400u);
  EXPECT_EQ(r.listed.size(), doc["nodes"].size());
  // One node with less detail when its full object does not fit.
  const ToolResult full = Call(*f.tools, "node", R"({"id":"/project1/fx/trails/blur_fb"})");
  const size_t need = Estimator().Count(full.content);
  const ToolResult brief = Call(*f.tools, "node", R"({"id":"/project1/fx/trails/blur_fb"})", need - 1);
  ASSERT_FALSE(brief.error) << brief.content;
  EXPECT_LT(brief.content.size(), full.content.size());
  EXPECT_EQ(Parsed(brief)["avg_ms"], Parsed(full)["avg_ms"]);
  EXPECT_EQ(brief.nodes, std::vector<std::string>{"/project1/fx/trails/blur_fb"});
  // Not even the statistics: a short error.
  const ToolResult none = Call(*f.tools, "node", R"({"id":"/project1/fx/trails/blur_fb"})", 30);
  EXPECT_TRUE(none.error);
  EXPECT_TRUE(none.nodes.empty());
  // A what-if that does not fit leaves out its per-frame series first, and
  // then fits the largest budget `ask` gives a result.
  const std::string args = R"({"id":"/project1/control/script_osc","factor":0})";
  const ToolResult whole = Call(*f.tools, "whatif", args);
  ordered_json shorter = OrderedParsed(whole);
  ASSERT_TRUE(shorter.contains("series"));
  shorter.erase("series");
  const ToolResult cut = Call(*f.tools, "whatif", args, Estimator().Count(whole.content) - 1);
  ASSERT_FALSE(cut.error) << cut.content;
  EXPECT_EQ(cut.content, Compact(shorter));
  EXPECT_EQ(Call(*f.tools, "whatif", args, 1500).content, cut.content);
  EXPECT_TRUE(Call(*f.tools, "whatif", args, 40).error);
}

// ---- Determinism and threads ------------------------------------------------------------

TEST(AnalysisTools, SameCallSameBytes) {
  Fixture f = Load(Example("pytorch_model"), "pt.json");
  Fixture g = Load(Example("pytorch_model"), "pt.json");
  for (const auto& [name, args] :
       std::vector<std::pair<std::string, std::string>>{
           {"summary", ""},
           {"top_nodes", R"({"name":"resnet50/layer2*","top":20})"},
           {"node", R"({"id":"resnet50/layer1.0/conv1/aten::conv2d"})"},
           {"findings", ""},
           {"frames", R"({"index":42})"},
           {"frames", ""},
           {"critical_path", ""},
           {"container", R"({"path":"resnet50"})"},
           {"whatif", R"({"id":"resnet50/layer1.0/conv1/aten::conv2d","factor":0.25})"},
           {"whatif", ""},
           {"top_nodes", R"({"family":"kernel","sort":"gain"})"}}) {
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
      {"whatif", ""},
      {"container", R"({"path":"/pipeline0"})"},
      {"top_nodes", R"({"name":"*enc*"})"},
      {"node", R"({"id":"/pipeline0/bin_record/x264enc8"})"},
      {"frames", R"({"index":3})"},
      {"frames", ""},
      {"findings", ""},
      {"summary", ""},
      {"top_nodes", R"({"family":"queue"})"},
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
    EXPECT_EQ(want.find("\"error\""), std::string::npos) << calls[c].first << ": " << want;
    for (size_t t = 0; t < kThreads; ++t) EXPECT_EQ(got[t][c], want) << calls[c].first;
  }
}

}  // namespace
}  // namespace cookgraph
