#include "adapters/native/snapshot_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

// The example of docs/formats.md#native-snapshot-format.
constexpr const char* kDesignExample = R"({
  "cookgraph": 1,
  "engine": "touchdesigner",
  "name": "feedback_demo",
  "captured": "2026-11-21T12:00:00Z",
  "fps": 60,
  "frame_budget_ms": 16.667,
  "nodes": [
    {"id": "/project1/ramp1",     "type": "rampTOP",     "family": "TOP", "params": {"resolutionw": "1920", "resolutionh": "1080"}},
    {"id": "/project1/lfo1",      "type": "lfoCHOP",     "family": "CHOP"},
    {"id": "/project1/noise1",    "type": "noiseTOP",    "family": "TOP", "inputs": ["/project1/ramp1"], "refs": ["/project1/lfo1"]},
    {"id": "/project1/feedback1", "type": "feedbackTOP", "family": "TOP", "inputs": ["/project1/noise1"], "feedback": ["/project1/comp1"]},
    {"id": "/project1/comp1",     "type": "compositeTOP","family": "TOP", "inputs": ["/project1/feedback1", "/project1/noise1"]},
    {"id": "/project1/out1",      "type": "nullTOP",     "family": "TOP", "inputs": ["/project1/comp1"], "output": true}
  ],
  "frames": {
    "index": [1200, 1201, 1202],
    "frame_ms": [16.1, 17.9, 16.4],
    "profiler_ms": [0.42, 0.40, 0.44],
    "series": {
      "/project1/noise1": {"cook_ms": [0.61, 0.65, null], "gpu_ms": [0.55, 0.58, null], "cooks": [1, 1, 0]},
      "/project1/comp1":  {"cook_ms": [1.20, 4.80, 1.19], "gpu_mem_mb": [7.9, 7.9, 7.9]}
    }
  }
})";

Result<Snapshot> Json(const std::string& text) { return ParseSnapshot(text, Spelling::kJson, "net.json"); }
Result<Snapshot> Yaml(const std::string& text) { return ParseSnapshot(text, Spelling::kYaml, "net.yaml"); }

std::string ErrorOf(const Result<Snapshot>& r) {
  return r ? std::string("(no error)") : r.error().Format();
}

// A minimal valid snapshot with `nodes` and `frames` spliced in.
std::string Snap(const std::string& nodes, const std::string& frames = "") {
  std::string s = R"({"cookgraph": 1, "nodes": [)" + nodes + "]";
  if (!frames.empty()) s += R"(, "frames": )" + frames;
  return s + "}";
}

TEST(SnapshotReader, ReadsTheDesignExample) {
  auto r = Json(kDesignExample);
  ASSERT_TRUE(r) << ErrorOf(r);
  const Snapshot& s = *r;
  EXPECT_EQ(s.info.engine, "touchdesigner");
  EXPECT_EQ(s.info.name, "feedback_demo");
  EXPECT_EQ(s.info.captured, "2026-11-21T12:00:00Z");
  EXPECT_EQ(s.info.fps, 60);
  EXPECT_EQ(s.info.frame_budget_ms, 16.667);
  ASSERT_EQ(s.network.size(), 6u);
  EXPECT_EQ(s.network.node(0).params.size(), 2u);
  EXPECT_EQ(s.network.node(0).params[0].first, "resolutionw");
  EXPECT_EQ(s.network.node(0).params[0].second, "1920");
  EXPECT_EQ(s.network.node(0).parent, "/project1");
  EXPECT_TRUE(s.network.node(5).output);
  // inputs, refs, feedback in node order: ramp->noise, lfo->noise, noise->feedback,
  // comp->feedback (feedback), feedback->comp, noise->comp, comp->out.
  ASSERT_EQ(s.network.edges().size(), 7u);
  EXPECT_EQ(s.network.edges()[1].kind, EdgeKind::kRef);
  EXPECT_EQ(s.network.edges()[3].kind, EdgeKind::kFeedback);
  EXPECT_EQ(s.network.edges()[3].from, 4u);
  EXPECT_EQ(s.network.edges()[3].to, 3u);
  ASSERT_EQ(s.samples.frame_count(), 3u);
  EXPECT_EQ(s.samples.frame_index()[2], 1202);
  ASSERT_EQ(s.samples.profiler_ms().size(), 3u);
  EXPECT_EQ(s.samples.profiler_ms()[2], 0.44);
  auto cook = s.samples.series(2, Metric::kCookMs);
  ASSERT_EQ(cook.size(), 3u);
  EXPECT_EQ(cook[1], 0.65);
  EXPECT_TRUE(std::isnan(cook[2]));
  EXPECT_TRUE(s.samples.has_series(4, Metric::kGpuMemMb));
  EXPECT_FALSE(s.samples.has_series(0, Metric::kCookMs));
  EXPECT_TRUE(s.warnings.empty());
}

TEST(SnapshotReader, YamlSpellingReadsTheSame) {
  auto r = Yaml(R"(
cookgraph: 1
engine: touchdesigner
fps: 60
nodes:
  - id: /project1/ramp1
    type: rampTOP
    params: {resolutionw: 1920, format: rgba32float, bypass: false}
  - id: /project1/out1
    inputs: [/project1/ramp1]
    output: true
frames:
  index: [1, 2]
  series:
    /project1/ramp1: {cook_ms: [0.5, ~], cooks: [1, 0]}
)");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->network.size(), 2u);
  EXPECT_EQ(r->network.node(0).params[0].second, "1920");
  EXPECT_EQ(r->network.node(0).params[2].second, "false");
  EXPECT_EQ(r->network.edges().size(), 1u);
  EXPECT_EQ(r->samples.series(0, Metric::kCookMs)[0], 0.5);
  EXPECT_TRUE(std::isnan(r->samples.series(0, Metric::kCookMs)[1]));
}

TEST(SnapshotReader, ProfilerMsIsReadBesideFrameMsWithNulls) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0, 1, 2], "frame_ms": [16, 17, 18],
                                           "profiler_ms": [0.25, null, 0]})"));
  ASSERT_TRUE(r) << ErrorOf(r);
  ASSERT_TRUE(r->samples.has_profiler_ms());
  auto profiler = r->samples.profiler_ms();
  ASSERT_EQ(profiler.size(), 3u);
  EXPECT_EQ(profiler[0], 0.25);
  EXPECT_TRUE(std::isnan(profiler[1]));
  EXPECT_EQ(profiler[2], 0.0);
  // frame_ms is its own list: the profiler's time is not added to it.
  EXPECT_EQ(std::vector<double>(r->samples.frame_ms().begin(), r->samples.frame_ms().end()),
            (std::vector<double>{16, 17, 18}));
  EXPECT_TRUE(r->warnings.empty());
}

TEST(SnapshotReader, ProfilerMsInYaml) {
  auto r = Yaml(
      "cookgraph: 1\nnodes: [{id: a}]\nframes:\n  index: [0, 1]\n"
      "  profiler_ms: [0.5, ~]\n");
  ASSERT_TRUE(r) << ErrorOf(r);
  auto profiler = r->samples.profiler_ms();
  ASSERT_EQ(profiler.size(), 2u);
  EXPECT_EQ(profiler[0], 0.5);
  EXPECT_TRUE(std::isnan(profiler[1]));
  EXPECT_FALSE(r->samples.has_frame_ms());
}

TEST(SnapshotReader, WithoutProfilerMsThereIsNone) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0, 1], "frame_ms": [16, 17]})"));
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_FALSE(r->samples.has_profiler_ms());
  EXPECT_TRUE(r->samples.profiler_ms().empty());
}

TEST(SnapshotReader, AnUnknownKeyBesideProfilerMsStaysAWarning) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0], "profiler_us": [250]})"));
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_FALSE(r->samples.has_profiler_ms());
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->warnings[0], "unknown key 'profiler_us' in frames (at line 1): ignored");
}

TEST(SnapshotReader, TheExtensionUnderGzNamesTheSpelling) {
  // Flow-style YAML starts like JSON but is not JSON: only the name tells.
  const std::string flow = "{cookgraph: 1, nodes: [{id: /p/a}, {id: /p/b, inputs: [/p/a]}]}\n";
  cookgraph::testing::TempDir dir;
  for (const char* name : {"flow.yaml.gz", "flow.yml.gz"}) {
    gzFile gz = gzopen((dir / name).c_str(), "wb");
    ASSERT_NE(gz, nullptr);
    ASSERT_EQ(gzwrite(gz, flow.data(), static_cast<unsigned>(flow.size())),
              static_cast<int>(flow.size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
    auto r = ReadSnapshotFile(dir / name);
    ASSERT_TRUE(r) << name << ": " << ErrorOf(r);
    EXPECT_EQ(r->network.edges().size(), 1u) << name;
  }
}

TEST(SnapshotReader, YamlStandardTagsGiveTheType) {
  auto r = Yaml("cookgraph: !!int 1\nnodes: [{id: !!str 12, params: {w: !!str 1920}}]\n"
                "frames: {index: [0], series: {\"12\": {cook_ms: [!!float 2]}}}\n");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->network.node(0).id, "12");
  EXPECT_EQ(r->samples.series(0, Metric::kCookMs)[0], 2.0);
  auto bad = Yaml("cookgraph: !!int one\nnodes: [{id: a}]\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "the value does not match its tag !!int");
}

TEST(SnapshotReader, DeclaredEdgesOfEveryKind) {
  auto r = Json(Snap(R"({"id": "a"}, {"id": "b", "edges": [{"from": "a", "kind": "call"},
      {"from": "a", "kind": "launch"}, {"from": "a", "kind": "flow"}]})"));
  ASSERT_TRUE(r) << ErrorOf(r);
  ASSERT_EQ(r->network.edges().size(), 3u);
  EXPECT_EQ(r->network.edges()[0].kind, EdgeKind::kCall);
  EXPECT_EQ(r->network.edges()[1].kind, EdgeKind::kLaunch);
  EXPECT_EQ(r->network.edges()[2].kind, EdgeKind::kFlow);
}

TEST(SnapshotReader, NodesMayComeAfterFrames) {
  auto r = Json(R"({"frames": {"series": {"a": {"cook_ms": [1, 2]}}, "index": [0, 1]},
                    "nodes": [{"id": "a"}], "cookgraph": 1})");
  ASSERT_TRUE(r) << ErrorOf(r);
  EXPECT_EQ(r->samples.series(0, Metric::kCookMs)[1], 2);
}

TEST(SnapshotReader, UnknownKeysAreWarningsWithCountAndLine) {
  auto r = Json("{\"cookgraph\": 1, \"comment\": {\"deep\": [1, {\"x\": 2}]},\n\"nodes\": ["
                "{\"id\": \"a\", \"colour\": \"red\"},\n{\"id\": \"b\", \"colour\": [1]}]}");
  ASSERT_TRUE(r) << ErrorOf(r);
  // The two unknown keys, after the warning that there are no frames.
  ASSERT_EQ(r->warnings.size(), 3u);
  EXPECT_EQ(r->warnings[1], "unknown key 'colour' in a node (2 times, first at line 2): ignored");
  EXPECT_EQ(r->warnings[2], "unknown key 'comment' in the snapshot (at line 1): ignored");
}

TEST(SnapshotReader, NoFramesIsAWarning) {
  auto r = Json(Snap(R"({"id": "a"})"));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_EQ(r->samples.frame_count(), 0u);
}

// ---- Bad input: every case names the file and the place. ----

TEST(SnapshotReaderBadInput, MalformedJsonGivesLineAndColumn) {
  auto r = Json("{\"cookgraph\": 1,\n  \"nodes\": [{\"id\": \"a\",}]}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "net.json");
  EXPECT_EQ(r.error().line, 2);
  EXPECT_GT(r.error().column, 0);
  EXPECT_NE(r.error().message.find("invalid JSON"), std::string::npos) << ErrorOf(r);
}

TEST(SnapshotReaderBadInput, TruncatedJson) {
  auto r = Json("{\"cookgraph\": 1, \"nodes\": [");
  ASSERT_FALSE(r);
  EXPECT_NE(ErrorOf(r).find("net.json:1:"), std::string::npos) << ErrorOf(r);
}

TEST(SnapshotReaderBadInput, MalformedYamlGivesLineAndColumn) {
  auto r = Yaml("cookgraph: 1\nnodes:\n  - id: a\n   bad: [1, 2\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().file, "net.yaml");
  EXPECT_GE(r.error().line, 3);
  EXPECT_GT(r.error().column, 0);
  EXPECT_NE(r.error().message.find("invalid YAML"), std::string::npos) << ErrorOf(r);
}

TEST(SnapshotReaderBadInput, WrongFormatVersionNamesBoth) {
  auto r = Json(R"({"cookgraph": 2, "nodes": [{"id": "a"}]})");
  ASSERT_FALSE(r);
  EXPECT_EQ(ErrorOf(r),
            "net.json:1:15: snapshot format version 2 is not supported: this cookgraph reads "
            "version 1");
}

TEST(SnapshotReaderBadInput, MissingVersionIsNotASnapshot) {
  auto r = Json(R"({"nodes": [{"id": "a"}]})");
  ASSERT_FALSE(r);
  EXPECT_NE(ErrorOf(r).find("not a cookgraph snapshot"), std::string::npos);
}

TEST(SnapshotReaderBadInput, UnknownInputIdSuggestsTheClosest) {
  auto r = Json(Snap(R"({"id": "/project1/noise1"}, {"id": "/project1/out1", "inputs": ["/project1/nois1"]})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "node '/project1/out1': inputs");
  EXPECT_EQ(r.error().message, "unknown node id '/project1/nois1' (did you mean '/project1/noise1'?)");
  EXPECT_EQ(r.error().line, 1);
}

TEST(SnapshotReaderBadInput, UnknownSeriesId) {
  auto r = Json(Snap(R"({"id": "blur1"})", R"({"index": [0], "series": {"blur2": {"cook_ms": [1]}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "frames.series");
  EXPECT_EQ(r.error().message, "unknown node id 'blur2' (did you mean 'blur1'?)");
}

TEST(SnapshotReaderBadInput, SeriesOfTheWrongLength) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0, 1, 2], "series": {"a": {"cook_ms": [1, 2]}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "series 'a'");
  EXPECT_EQ(r.error().message, "cook_ms has 2 values but frames.index has 3");
}

TEST(SnapshotReaderBadInput, FrameMsAndProfilerMsOfTheWrongLengthNameBothCounts) {
  for (const std::string key : {"frame_ms", "profiler_ms"}) {
    auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0, 1, 2], ")" + key + R"(": [3, null]})"));
    ASSERT_FALSE(r) << key;
    EXPECT_EQ(r.error().file, "net.json");
    EXPECT_EQ(r.error().line, 1);
    EXPECT_EQ(r.error().where, "frames." + key);
    EXPECT_EQ(r.error().message, "has 2 values but frames.index has 3");
  }
}

TEST(SnapshotReaderBadInput, ProfilerMsMustBeFiniteAndNotNegative) {
  auto negative = Json(Snap(R"({"id": "a"})", R"({"index": [0, 1], "profiler_ms": [1, -0.5]})"));
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().where, "frames.profiler_ms");
  EXPECT_EQ(negative.error().message,
            "profiler_ms[1] is -0.5: profiler times must be finite, >= 0 and <= 1e12");
  auto large = Json(Snap(R"({"id": "a"})", R"({"index": [0], "profiler_ms": [1.7e308]})"));
  ASSERT_FALSE(large);
  EXPECT_EQ(large.error().message,
            "profiler_ms[0] is 1.7e308: profiler times must be finite, >= 0 and <= 1e12");
  auto inf = Yaml(
      "cookgraph: 1\nnodes: [{id: a}]\nframes:\n  index: [0, 1]\n"
      "  profiler_ms: [0.5, .inf]\n");
  ASSERT_FALSE(inf);
  EXPECT_EQ(inf.error().Format(),
            "net.yaml:5:22: frames.profiler_ms: profiler_ms[1] is .inf: profiler times must be "
            "finite, >= 0 and <= 1e12");
}

TEST(SnapshotReaderBadInput, ProfilerMsGivenTwice) {
  auto r =
      Json(Snap(R"({"id": "a"})", R"({"index": [0], "profiler_ms": [1], "profiler_ms": [2]})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "frames");
  EXPECT_EQ(r.error().message, "duplicate key 'profiler_ms'");
}

TEST(SnapshotReaderBadInput, NegativeValue) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0, 1], "series": {"a": {"cook_ms": [1, -0.5]}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "series 'a'");
  EXPECT_EQ(r.error().message, "cook_ms[1] is -0.5: values must be finite, >= 0 and <= 1e12");
}

TEST(SnapshotReaderBadInput, NonFiniteValueInYaml) {
  auto r = Yaml("cookgraph: 1\nnodes: [{id: a}]\nframes:\n  index: [0]\n  series:\n    a: {gpu_ms: [.inf]}\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().line, 6);
  EXPECT_EQ(r.error().message, "gpu_ms[0] is .inf: values must be finite, >= 0 and <= 1e12");
  auto nan = Yaml("cookgraph: 1\nnodes: [{id: a}]\nframes: {index: [0], frame_ms: [.nan]}\n");
  ASSERT_FALSE(nan);
  EXPECT_EQ(nan.error().where, "frames.frame_ms");
}

TEST(SnapshotReaderBadInput, OverflowingNumberIsNotFinite) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": {"cook_ms": [1e999]}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().line, 1);
  EXPECT_EQ(r.error().message, "invalid JSON: number overflow parsing '1e999'");
}

TEST(SnapshotReaderBadInput, NumberPlacesPointAtTheirStartOnAnyLine) {
  auto r = Json("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\"}], \"frames\": {\"index\": [0],\n"
                "  \"series\": {\"a\": {\"cook_ms\": [\n   -12.5\n]}}}}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().line, 3);
  EXPECT_EQ(r.error().column, 4);
}

TEST(SnapshotReaderBadInput, NonPositiveFps) {
  auto r = Json(R"({"cookgraph": 1, "fps": 0, "nodes": [{"id": "a"}]})");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "fps must be a number > 0 and <= 1e12, got 0");
}

TEST(SnapshotReaderBadInput, ImplausiblyLargeValue) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": {"cook_ms": [1.7e308]}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cook_ms[0] is 1.7e308: values must be finite, >= 0 and <= 1e12");
}

TEST(SnapshotReaderBadInput, LongValuesAreShortenedInMessages) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": {"cook_ms": [-)" +
                         std::string(400, '1') + "]}}}"));
  ASSERT_FALSE(r);
  EXPECT_LE(r.error().message.size(), 200u) << r.error().message;
}

TEST(SnapshotReaderBadInput, DuplicateParamAndEdgeKeys) {
  auto param = Json(Snap(R"({"id": "a", "params": {"w": "1", "w": "2"}})"));
  ASSERT_FALSE(param);
  EXPECT_EQ(param.error().where, "node 'a': params");
  EXPECT_EQ(param.error().message, "duplicate key 'w'");
  auto edge = Json(Snap(R"({"id": "a"}, {"id": "b", "edges": [{"from": "a", "from": "b", "kind": "call"}]})"));
  ASSERT_FALSE(edge);
  EXPECT_EQ(edge.error().message, "duplicate key 'from'");
}

TEST(SnapshotReaderBadInput, FractionalCooks) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": {"cooks": [1.5]}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cooks[0] is 1.5: a count of cooks is a whole number");
}

TEST(SnapshotReaderBadInput, DuplicateIdNamesTheFirst) {
  auto r = Json("{\"cookgraph\": 1, \"nodes\": [\n{\"id\": \"a\"},\n{\"id\": \"a\"}]}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "node 'a'");
  EXPECT_EQ(r.error().message, "duplicate id (first defined at line 2)");
  EXPECT_EQ(r.error().line, 3);
}

TEST(SnapshotReaderBadInput, DuplicateSeries) {
  auto r = Json(Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": {"cook_ms": [1]}, "a": {}}})"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "duplicate series for node 'a'");
}

TEST(SnapshotReaderBadInput, WrongTypes) {
  struct Case {
    std::string text;
    std::string where;
    std::string message;
  };
  const Case cases[] = {
      {R"({"cookgraph": 1, "nodes": {"id": "a"}})", "nodes", "expected a list of nodes, got an object"},
      {R"({"cookgraph": "1", "nodes": [{"id": "a"}]})", "cookgraph",
       "the format version must be the number 1, got the string \"1\""},
      {Snap(R"({"id": 7})"), "nodes[0]: id", "expected a string, got a number"},
      {Snap(R"({"id": "a", "inputs": "b"})"), "node 'a': inputs", "expected a list of node ids, got a string"},
      {Snap(R"({"id": "a", "inputs": [3]})"), "node 'a'", "expected a node id (a string), got a number"},
      {Snap(R"({"id": "a", "output": "yes"})"), "node 'a': output", "expected true or false, got a string"},
      {Snap(R"({"id": "a", "params": {"x": [1]}})"), "node 'a': params.x", "expected a string or number, got a list"},
      {Snap(R"({"id": "a"})", R"({"index": [0.5]})"), "frames.index", "index[0] is 0.5: frame numbers are whole numbers"},
      {Snap(R"({"id": "a"})", R"({"index": [0], "profiler_ms": 0.5})"), "frames.profiler_ms",
       "expected a list, got a number"},
      {Snap(R"({"id": "a"})", R"({"index": [0], "profiler_ms": ["0.5"]})"), "frames.profiler_ms",
       "expected a number or null, got a string"},
      {Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": {"cook_ms": ["1"]}}})"), "series 'a'",
       "expected a number or null in cook_ms, got a string"},
      {Snap(R"({"id": "a"})", R"({"index": [0], "series": {"a": [1]}})"), "series 'a'",
       "expected an object of metrics, got a list"},
      {Snap(R"({"id": "a", "edges": [{"from": "a", "kind": "wire"}]})"), "node 'a': edges[0]",
       "unknown edge kind 'wire' (data, ref, feedback, call, launch or flow)"},
      {Snap(R"({"id": "a", "edges": [{"kind": "call"}]})"), "node 'a': edges[0]", "edge has no \"from\""},
      {Snap(R"({"type": "noiseTOP"})"), "nodes[0]", "node has no \"id\""},
      {R"([{"name": "x", "ph": "X"}])", "", "expected an object at the top of a snapshot, got a list"},
  };
  for (const Case& c : cases) {
    auto r = Json(c.text);
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().file, "net.json") << c.text;
    EXPECT_EQ(r.error().where, c.where) << c.text;
    EXPECT_EQ(r.error().message, c.message) << c.text;
    EXPECT_GT(r.error().line, 0) << c.text;
  }
}

TEST(SnapshotReaderBadInput, EmptyNetwork) {
  auto r = Json(R"({"cookgraph": 1, "nodes": []})");
  ASSERT_FALSE(r);
  EXPECT_EQ(ErrorOf(r), "net.json: nodes: the network is empty: a snapshot needs at least one node");
}

TEST(SnapshotReaderBadInput, YamlAliasesAreRefused) {
  auto r = Yaml("cookgraph: 1\nnodes:\n  - &n {id: a}\n  - *n\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().line, 3);
}

TEST(SnapshotReaderBadInput, YamlWithTwoDocuments) {
  auto r = Yaml("cookgraph: 1\nnodes: [{id: a}]\n---\ncookgraph: 1\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("more than one YAML document"), std::string::npos);
}

TEST(SnapshotReaderBadInput, MissingFile) {
  auto r = ReadSnapshotFile("/nonexistent/net.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(ErrorOf(r), "/nonexistent/net.json: cannot open: No such file or directory");
}

TEST(SnapshotReaderBadInput, DirectoryGivenAsFile) {
  auto r = ReadSnapshotFile("/tmp");
  ASSERT_FALSE(r);
  EXPECT_EQ(ErrorOf(r), "/tmp: is a directory, not a snapshot file");
}

}  // namespace
}  // namespace cookgraph
