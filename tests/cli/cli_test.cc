// End-to-end runs of the cookgraph executable: exit codes, messages, output
// formats, batches, and the facts planted in the examples.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/cli_run.h"
#include "tests/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cookgraph::testing::CliRun;
using cookgraph::testing::Cookgraph;
using cookgraph::testing::kBinary;
using cookgraph::testing::kSource;
using cookgraph::testing::Lines;
using cookgraph::testing::Slurp;
using cookgraph::testing::TempDir;

const char* kExamples[] = {"examples/touchdesigner_feedback.json", "examples/gstreamer_pipeline.json",
                           "examples/pytorch_model.json"};

json Facts(const std::string& example) {
  // examples/NAME.json -> tests/data/examples/NAME.facts.json
  std::string name = fs::path(example).stem();
  return json::parse(Slurp(kSource + "/tests/data/examples/" + name + ".facts.json"));
}

const json& NodeById(const json& snapshot, const std::string& id) {
  for (const json& node : snapshot["nodes"]) {
    if (node["id"] == id) return node;
  }
  static const json kNone;
  ADD_FAILURE() << "no node " << id;
  return kNone;
}

TEST(Cli, HelpAndVersion) {
  CliRun help = Cookgraph("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("score"), std::string::npos);
  CliRun sub = Cookgraph("score --help");
  EXPECT_EQ(sub.exit_code, 0);
  EXPECT_NE(sub.out.find("Examples:"), std::string::npos);
  CliRun version = Cookgraph("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("cookgraph "), std::string::npos);
}

TEST(Cli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(Cookgraph("").exit_code, 2);
  EXPECT_EQ(Cookgraph("frobnicate").exit_code, 2);
  EXPECT_EQ(Cookgraph("score").exit_code, 2);
  EXPECT_EQ(Cookgraph("score examples --sort speed").exit_code, 2);
  CliRun shard = Cookgraph("score examples --shard 3/2");
  EXPECT_EQ(shard.exit_code, 2);
  EXPECT_NE(shard.err.find("--shard"), std::string::npos);
}

TEST(Cli, ScoreTablePrintsARankedTable) {
  CliRun run = Cookgraph("score examples/touchdesigner_feedback.json --top 5");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("examples/touchdesigner_feedback.json"), std::string::npos);
  EXPECT_NE(run.out.find("\n1  /project1/control/script_osc"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("\033["), std::string::npos) << "no colour when not a terminal";
  EXPECT_NE(run.out.find("more nodes"), std::string::npos);
}

// Runs cookgraph under a pseudo-terminal (util-linux `script`), as a user at a
// terminal would; standard output and error arrive mixed.
std::string OnTerminal(const std::string& args, const std::string& env = "") {
  TempDir dir;
  std::string command = "cd '" + kSource + "' && " + env + " script -qfec \"'" + kBinary + "' " +
                        args + "\" /dev/null >'" + dir / "out" + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return Slurp(dir / "out");
}

TEST(Cli, ColourAndProgressOnlyOnATerminal) {
  std::string tty = OnTerminal("score examples --top 2", "TERM=xterm");
  EXPECT_NE(tty.find("\033["), std::string::npos);
  EXPECT_NE(tty.find("[##############################] 3/3"), std::string::npos) << tty;
  std::string no_color = OnTerminal("score examples/pytorch_model.json --top 2", "NO_COLOR=1 TERM=xterm");
  EXPECT_EQ(no_color.find("\033["), std::string::npos);
  // A single input shows no progress bar.
  EXPECT_EQ(no_color.find("1/1"), std::string::npos);
  CliRun piped = Cookgraph("score examples --top 2");
  EXPECT_EQ(piped.out.find("\033["), std::string::npos);
  EXPECT_EQ(piped.err.find("3/3"), std::string::npos);
}

TEST(Cli, ScoreJsonHoldsEveryExample) {
  CliRun run = Cookgraph("score examples --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json doc = json::parse(run.out);
  EXPECT_EQ(doc["cookgraph"], 1);
  ASSERT_EQ(doc["snapshots"].size(), 3u);
  EXPECT_TRUE(doc["errors"].empty());
  for (const json& s : doc["snapshots"]) {
    json facts = Facts(s["file"].get<std::string>());
    EXPECT_EQ(s["nodes"].size(), facts["node_count"].get<size_t>()) << s["file"];
    EXPECT_EQ(s["frames"], facts["frame_count"]) << s["file"];
    EXPECT_EQ(s["over_budget_frames"], facts["over_budget_frames"].size()) << s["file"];
    EXPECT_NEAR(s["frame_ms"]["mean"].get<double>(), facts["mean_frame_ms"].get<double>(), 1e-5);
  }
}

TEST(Cli, TouchDesignerExampleShowsThePlantedFacts) {
  const std::string file = "examples/touchdesigner_feedback.json";
  json facts = Facts(file);
  const json& planted = facts["planted"];
  CliRun run = Cookgraph("score " + file + " --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json s = json::parse(run.out)["snapshots"][0];

  // The costly feedback loop is the costliest loop, with exactly its members.
  const json& loop = s["loops"][0];
  EXPECT_EQ(loop["kind"], "feedback");
  std::set<std::string> members(loop["nodes"].begin(), loop["nodes"].end());
  std::set<std::string> expected(planted["feedback_loop"]["nodes"].begin(),
                                 planted["feedback_loop"]["nodes"].end());
  EXPECT_EQ(members, expected);
  EXPECT_NEAR(loop["per_frame_ms"].get<double>(), planted["feedback_loop"]["per_frame_ms"].get<double>(), 1e-4);
  // The ref cycle and the self-loop are reported too.
  bool cycle = false, self_loop = false;
  for (const json& l : s["loops"]) {
    cycle |= l["kind"] == "cycle" && l["nodes"].size() == 2;
    self_loop |= l["kind"] == "self-loop" && l["nodes"][0] == planted["self_loop"];
  }
  EXPECT_TRUE(cycle);
  EXPECT_TRUE(self_loop);

  // The spiky node leads the spike attribution and the ranking by score.
  EXPECT_EQ(s["spikes"][0]["id"], planted["spiky_node"]["id"]);
  EXPECT_EQ(s["spikes"][0]["frames"], planted["spiky_node"]["spike_frames"].size());
  EXPECT_EQ(s["nodes"][0]["id"], planted["spiky_node"]["id"]);
  EXPECT_GT(NodeById(s, planted["spiky_node"]["id"])["max_ms"].get<double>(), 12.0);

  // The dead cook is the only one; outputs are not dead.
  EXPECT_EQ(NodeById(s, planted["dead_node"])["dead"], true);
  size_t dead = 0;
  for (const json& node : s["nodes"]) dead += node["dead"].get<bool>();
  EXPECT_EQ(dead, facts["dead_nodes"].size());
  for (const json& id : planted["outputs"]) EXPECT_EQ(NodeById(s, id)["dead"], false) << id;

  // The node cooking twice per frame.
  EXPECT_DOUBLE_EQ(NodeById(s, planted["twice_cooking_node"])["cooks_per_frame"].get<double>(), 2.0);

  // Never-cooked nodes come after every ranked node, with null ranks.
  bool seen_unranked = false;
  for (const json& node : s["nodes"]) {
    if (node["rank"].is_null()) seen_unranked = true;
    else EXPECT_FALSE(seen_unranked) << "ranked node after an unranked one";
  }
  EXPECT_EQ(NodeById(s, facts["never_cooked_nodes"][0])["cooked_frames"], 0);
}

TEST(Cli, TouchDesignerExampleHasHeavyTopsWithResolutions) {
  json snapshot = json::parse(Slurp(kSource + "/examples/touchdesigner_feedback.json"));
  int heavy = 0;
  for (const json& node : snapshot["nodes"]) {
    if (node.value("family", "") != "TOP" || !node.contains("params")) continue;
    const json& p = node["params"];
    if (p.contains("resolutionw") && std::stoi(p["resolutionw"].get<std::string>()) >= 1920) ++heavy;
  }
  EXPECT_GE(heavy, 3);
}

TEST(Cli, OtherExamplesHaveTheirShapes) {
  // A wide pipeline: many sinks; a deep operator graph: a long critical path.
  CliRun wide = Cookgraph("graph examples/gstreamer_pipeline.json --format json");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  json g = json::parse(wide.out);
  EXPECT_GE(Facts("examples/gstreamer_pipeline.json")["outputs"].size(), 8u);
  EXPECT_GE(g["nodes"].get<int>(), 200);
  CliRun deep = Cookgraph("graph examples/pytorch_model.json --format json");
  ASSERT_EQ(deep.exit_code, 0) << deep.err;
  json d = json::parse(deep.out);
  EXPECT_GE(d["critical_path"]["nodes"].size(), 30u);
  std::set<std::string> kinds;
  for (const json& e : d["edges"]) kinds.insert(e["kind"].get<std::string>());
  EXPECT_TRUE(kinds.count("call") && kinds.count("launch") && kinds.count("data"));
}

TEST(Cli, NestedOpsAndKernelsOfLiveOpsAreNotDeadCooks) {
  const std::string file = "examples/pytorch_model.json";
  json facts = Facts(file);
  CliRun run = Cookgraph("score " + file + " --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::string> dead;
  const json doc = json::parse(run.out);  // outlives the loop (range-for keeps no temporary)
  for (const json& node : doc["snapshots"][0]["nodes"]) {
    if (node["dead"].get<bool>()) dead.insert(node["id"].get<std::string>());
  }
  std::set<std::string> planted(facts["planted"]["dead_debug_ops"].begin(),
                                facts["planted"]["dead_debug_ops"].end());
  EXPECT_EQ(dead, planted);
}

TEST(Cli, GraphOrderRespectsEveryEdgeOutsideALoop) {
  for (const char* example : kExamples) {
    CliRun run = Cookgraph(std::string("graph ") + example + " --format json");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    json g = json::parse(run.out);
    std::map<std::string, size_t> position;
    for (size_t i = 0; i < g["order"].size(); ++i) position[g["order"][i]] = i;
    EXPECT_EQ(position.size(), g["nodes"].get<size_t>());
    std::map<std::string, int> component;
    int c = 0;
    for (const json& comp : g["components"]) {
      ++c;
      for (const json& id : comp) component[id] = c;
    }
    for (const json& e : g["edges"]) {
      if (e["kind"] == "feedback") continue;
      std::string from = e["from"], to = e["to"];
      if (component.count(from) && component.count(to) && component[from] == component[to]) continue;
      if (from == to) continue;
      EXPECT_LT(position[from], position[to]) << example << ": " << from << " -> " << to;
    }
  }
}

TEST(Cli, GraphDotDrawsFeedbackDashed) {
  CliRun run = Cookgraph("graph examples/touchdesigner_feedback.json --format dot");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("digraph", 0), 0u);
  EXPECT_NE(run.out.find("dashed"), std::string::npos);
  CliRun text = Cookgraph("graph examples/touchdesigner_feedback.json");
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("feedback"), std::string::npos);
}

TEST(Cli, GraphSvgGoesToStandardOutputOrAFileAndIsTheSameBothWays) {
  CliRun out = Cookgraph("graph examples/touchdesigner_feedback.json --format svg");
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.err, "");
  EXPECT_EQ(out.out.rfind("<?xml", 0), 0u);
  EXPECT_NE(out.out.find("</svg>"), std::string::npos);
  EXPECT_NE(out.out.find("showing 364 of 364 nodes"), std::string::npos);
  TempDir dir;
  CliRun file =
      Cookgraph("graph examples/touchdesigner_feedback.json --format svg -o " + dir / "net.svg");
  ASSERT_EQ(file.exit_code, 0) << file.err;
  EXPECT_EQ(file.out, "");
  EXPECT_EQ(Slurp(dir / "net.svg"), out.out);  // deterministic, and written whole
}

TEST(Cli, GraphSvgMaxNodesReducesTheNetwork) {
  CliRun run = Cookgraph("graph examples/pytorch_model.json --format svg --max-nodes 60");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("showing 60 of 639 nodes"), std::string::npos);
  EXPECT_EQ(Cookgraph("graph examples/pytorch_model.json --format svg --max-nodes 0").exit_code, 2);
}

TEST(Cli, GraphOutputIntoAMissingFolderIsOneLineNamingTheFile) {
  CliRun run = Cookgraph(
      "graph examples/touchdesigner_feedback.json --format svg -o /nonexistent-dir/net.svg");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(Lines(run.err), 1u) << run.err;
  EXPECT_NE(run.err.find("/nonexistent-dir/net.svg"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(Cli, CsvAndMarkdown) {
  CliRun csv = Cookgraph("score examples --format csv");
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  size_t nodes = 0;
  for (const char* e : kExamples) nodes += Facts(e)["node_count"].get<size_t>();
  EXPECT_EQ(Lines(csv.out), nodes + 1);  // a header, then one row per (file, node)
  EXPECT_EQ(csv.out.rfind("file,", 0), 0u);
  CliRun md = Cookgraph("score examples/pytorch_model.json --format md --top 3");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("| ---"), std::string::npos);
}

// CSV injection, end to end: text cells a spreadsheet would take for a
// formula are written as "'..." in every CSV (nodes, --baseline, --group-by);
// numbers, the negative changes against the baseline too, stay numbers.
TEST(Cli, CsvCellsThatLookLikeFormulasAreText) {
  TempDir dir;
  auto snapshot = [](double scale) {
    json s = {
        {"cookgraph", 1},
        {"engine", "@SUM(1+1)"},
        {"name", "=HYPERLINK(\"http://x\",\"y\")"},
        {"nodes",
         {{{"id", "=1+2"}, {"type", "+cmd|' /C calc'!A0"}, {"family", "-fam"}, {"parent", "@c"}},
          {{"id", "\tx"}, {"type", "\rt"}, {"parent", "@c"}},
          {{"id", "-5"}, {"type", "t"}, {"inputs", {"=1+2"}}, {"output", true}}}},
        {"frames",
         {{"index", {1, 2, 3, 4}},
          {"series",
           {{"=1+2", {{"cook_ms", {2 * scale, 2 * scale, 2 * scale, 2 * scale}}}},
            {"\tx", {{"cook_ms", {0.5, 0.5, 0.5, 0.5}}}},
            {"-5", {{"cook_ms", {1.0, 1.0, 1.0, 1.0}}}}}}}}};
    return s.dump();
  };
  std::ofstream(dir / "now.json") << snapshot(1);
  std::ofstream(dir / "before.json") << snapshot(2);
  const std::string now = dir / "now.json";
  const CliRun nodes = Cookgraph("score '" + now + "' --format csv");
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  const std::string prefix =
      "," + std::string("\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",\"'@SUM(1+1)\",");
  EXPECT_NE(nodes.out.find(prefix + "\"'=1+2\",\"'+cmd|' /C calc'!A0\",\"'-fam\",1,"),
            std::string::npos)
      << nodes.out;
  EXPECT_NE(nodes.out.find(prefix + "\"'-5\",t,,"), std::string::npos) << nodes.out;
  EXPECT_NE(nodes.out.find(prefix + "\"'\tx\",\"'\rt\",,"), std::string::npos) << nodes.out;

  const CliRun containers = Cookgraph("score '" + now + "' --format csv --group-by container");
  ASSERT_EQ(containers.exit_code, 0) << containers.err;
  EXPECT_NE(containers.out.find(",\"'@c\",1,2,2,"), std::string::npos) << containers.out;
  EXPECT_NE(containers.out.find(",\"'=1+2\"\n"), std::string::npos) << "costliest";

  const CliRun baseline =
      Cookgraph("score '" + now + "' --format csv --baseline '" + dir / "before.json" + "'");
  ASSERT_EQ(baseline.exit_code, 0) << baseline.err;
  // =1+2 halved: avg, p95, per-frame and score changes are negative numbers.
  const size_t row = baseline.out.find("\"'=1+2\"");
  ASSERT_NE(row, std::string::npos) << baseline.out;
  const std::string line = baseline.out.substr(row, baseline.out.find('\n', row) - row);
  EXPECT_NE(line.find(",-50,-50,-50,"), std::string::npos) << line;
  EXPECT_EQ(line.find("\"'-50"), std::string::npos) << line;
}

TEST(Cli, GroupByContainer) {
  CliRun run = Cookgraph("score examples/touchdesigner_feedback.json --group-by container --format json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json s = json::parse(run.out)["snapshots"][0];
  ASSERT_TRUE(s.contains("containers"));
  bool trails = false;
  for (const json& c : s["containers"]) trails |= c["id"] == "/project1/fx/trails";
  EXPECT_TRUE(trails);
  CliRun table = Cookgraph("score examples/touchdesigner_feedback.json --group-by container");
  EXPECT_EQ(table.exit_code, 0);
  EXPECT_NE(table.out.find("/project1/fx"), std::string::npos);
}

TEST(Cli, SortTopAndBudget) {
  CliRun run = Cookgraph("score examples/pytorch_model.json --format json --sort max --top 4 --budget-ms 1000");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json s = json::parse(run.out)["snapshots"][0];
  ASSERT_EQ(s["nodes"].size(), 4u);
  EXPECT_EQ(s["frame_budget_ms"], 1000.0);
  EXPECT_EQ(s["over_budget_frames"], 0);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_GE(s["nodes"][i - 1]["max_ms"].get<double>(), s["nodes"][i]["max_ms"].get<double>());
  }
}

TEST(Cli, StandardInput) {
  CliRun run = Cookgraph("score - --format json", kSource + "/examples/pytorch_model.json");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json::parse(run.out)["snapshots"][0]["file"], "-");
}

TEST(Cli, JobsAndShardsGiveTheSameResults) {
  CliRun one = Cookgraph("score examples --format json -j 1");
  CliRun two = Cookgraph("score examples --format json -j 2");
  ASSERT_EQ(one.exit_code, 0);
  EXPECT_EQ(one.out, two.out);
  std::vector<std::string> files;
  for (int k = 1; k <= 2; ++k) {
    CliRun shard = Cookgraph("score examples --format json --shard " + std::to_string(k) + "/2");
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    const json doc = json::parse(shard.out);
    for (const json& s : doc["snapshots"]) files.push_back(s["file"]);
  }
  std::vector<std::string> all;
  const json doc = json::parse(one.out);
  for (const json& s : doc["snapshots"]) all.push_back(s["file"]);
  EXPECT_EQ(files, all);
}

TEST(Cli, MoreShardsThanFilesGiveEmptyShardsNotErrors) {
  CliRun empty = Cookgraph("score examples/pytorch_model.json --format json --shard 1/8");
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_TRUE(json::parse(empty.out)["snapshots"].empty());
  CliRun last = Cookgraph("score examples/pytorch_model.json --format json --shard 8/8");
  EXPECT_EQ(json::parse(last.out)["snapshots"].size(), 1u);
  // 4294967297 would wrap to 1 in a 32-bit read: it must be refused.
  EXPECT_EQ(Cookgraph("score examples --shard 1/4294967297").exit_code, 2);
  EXPECT_EQ(Cookgraph("score examples --shard 1/x").exit_code, 2);
}

TEST(Cli, BudgetMustBePositiveWithAShortMessage) {
  CliRun zero = Cookgraph("score examples --budget-ms 0");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_LE(zero.err.size(), 200u) << zero.err;
  EXPECT_NE(zero.err.find("must be a number of milliseconds > 0"), std::string::npos) << zero.err;
}

TEST(Cli, ControlCharactersFromTheInputNeverReachTheTerminal) {
  TempDir dir;
  std::ofstream(dir / "evil.json") << R"({"cookgraph": 1, "bad\nkey\u001b[31m": 1, "nodes": [{"id": "a\u001b[2J", "inputs": ["b\u001b]0;x\u0007"]}]})";
  CliRun run = Cookgraph("score " + dir / "evil.json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find('\a'), std::string::npos) << run.err;
  EXPECT_EQ(Lines(run.err), 1u) << run.err;
}

TEST(Cli, ConvertRoundTripGivesIdenticalScores) {
  TempDir dir;
  const std::string file = "examples/touchdesigner_feedback.json";
  CliRun yaml = Cookgraph("convert " + file + " -o " + dir / "a.yaml");
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  ASSERT_EQ(Cookgraph("convert " + dir / "a.yaml" + " -o " + dir / "b.json.gz").exit_code, 0);
  ASSERT_EQ(Cookgraph("convert " + dir / "b.json.gz" + " -o " + dir / "c.json").exit_code, 0);
  auto score = [&](const std::string& path) {
    json s = json::parse(Cookgraph("score " + path + " --format json").out)["snapshots"][0];
    s.erase("file");
    return s.dump();
  };
  std::string original = score(file);
  EXPECT_EQ(score(dir / "a.yaml"), original);
  EXPECT_EQ(score(dir / "b.json.gz"), original);
  EXPECT_EQ(score(dir / "c.json"), original);
  // Converting the converted file again changes nothing.
  ASSERT_EQ(Cookgraph("convert " + dir / "c.json" + " -o " + dir / "d.json").exit_code, 0);
  EXPECT_EQ(Slurp(dir / "c.json"), Slurp(dir / "d.json"));
}

TEST(Cli, ConvertKeepsProfilerMs) {
  TempDir dir;
  std::ofstream(dir / "p.json") << R"({"cookgraph": 1, "nodes": [{"id": "/p/a", "output": true}],
    "frames": {"index": [1, 2], "frame_ms": [4, 6], "profiler_ms": [0.5, null],
               "series": {"/p/a": {"cook_ms": [3, 5]}}}})";
  ASSERT_EQ(Cookgraph("convert " + dir / "p.json" + " -o " + dir / "a.yaml").exit_code, 0);
  ASSERT_EQ(Cookgraph("convert " + dir / "a.yaml" + " -o " + dir / "b.json").exit_code, 0);
  EXPECT_NE(Slurp(dir / "a.yaml").find("\n  profiler_ms: [0.5, null]\n"), std::string::npos);
  auto profiler = [&](const std::string& path) {
    return json::parse(Cookgraph("score " + path + " --format json").out)["snapshots"][0]
        .value("profiler_ms", json())
        .dump();
  };
  EXPECT_EQ(profiler(dir / "p.json"),
            R"({"frames":1,"max":0.5,"mean":0.5,"p95":0.5,"share_of_frame":0.1})");
  EXPECT_EQ(profiler(dir / "a.yaml"), profiler(dir / "p.json"));
  EXPECT_EQ(profiler(dir / "b.json"), profiler(dir / "p.json"));
}

TEST(Cli, ConvertFailureLeavesNoFile) {
  TempDir dir;
  CliRun run = Cookgraph("convert tests/data/bad/negative.json -o " + dir / "out.json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Every file at the top of the bad-input corpus (the first fourteen; the
// others, in folders, are the cases of tests/data/bad/cases.tsv): exit 2, at
// most three lines, naming the file.
TEST(CliBadInput, EveryBadFileIsAOneLineErrorNamingIt) {
  size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(kSource + "/tests/data/bad")) {
    std::string name = entry.path().filename();
    if (!entry.is_regular_file() || name == "README.md" || name == "cases.tsv") continue;
    std::string path = "tests/data/bad/" + name;
    CliRun run = Cookgraph("score " + path);
    EXPECT_EQ(run.exit_code, 2) << path;
    EXPECT_GE(Lines(run.err), 1u) << path;
    EXPECT_LE(Lines(run.err), 3u) << path << ": " << run.err;
    EXPECT_NE(run.err.find(path), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("json.exception"), std::string::npos) << run.err;
    CliRun graph = Cookgraph("graph " + path);
    EXPECT_EQ(graph.exit_code, 2) << path;
    ++checked;
  }
  EXPECT_EQ(checked, 14u);
}

TEST(CliBadInput, SyntaxErrorsGiveLineAndColumn) {
  CliRun json_run = Cookgraph("score tests/data/bad/malformed.json");
  EXPECT_NE(json_run.err.find("tests/data/bad/malformed.json:2:"), std::string::npos) << json_run.err;
  CliRun yaml_run = Cookgraph("score tests/data/bad/malformed.yaml");
  EXPECT_NE(yaml_run.err.find("tests/data/bad/malformed.yaml:4:"), std::string::npos) << yaml_run.err;
}

TEST(CliBadInput, MissingFileAndDirectoryWithoutSnapshots) {
  TempDir dir;
  CliRun missing = Cookgraph("score " + dir / "nope.json");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find(dir / "nope.json"), std::string::npos);
  CliRun empty = Cookgraph("score " + dir.path());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("directory holds nothing cookgraph reads"), std::string::npos);
}

TEST(CliBadInput, AnUnreadableFolderInABatchIsAnErrorNotAGap) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run cookgraph as another user (setpriv)";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);
  fs::create_directories(dir / "ok");
  fs::create_directories(dir / "locked");
  fs::copy_file(kSource + "/examples/pytorch_model.json", dir / "ok/a.json");
  fs::copy_file(kSource + "/examples/pytorch_model.json", dir / "locked/b.json");
  fs::permissions(dir / "locked", fs::perms::owner_all);
  // A copy the other user can surely run, whatever the checkout's permissions.
  fs::copy_file(kBinary, dir / "cookgraph");
  fs::permissions(dir / "cookgraph", fs::perms::all);
  std::string command = "setpriv --reuid=65534 --regid=65534 --clear-groups '" + dir / "cookgraph" +
                        "' score --format json '" + dir.path() + "' >'" + dir / "out" + "' 2>'" +
                        dir / "err" + "'";
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(Slurp(dir / "err").find(dir / "locked: cannot read directory"), std::string::npos);
  EXPECT_EQ(json::parse(Slurp(dir / "out"))["snapshots"].size(), 1u);
  fs::permissions(dir / "locked", fs::perms::all);
}

// A folder's entries that are named as inputs but are not regular files are
// each an error naming the entry and why (exit 2, the rest still scored); a
// FIFO is never opened (the run would block on it: `timeout` ends the test
// instead of hanging it); a link to a folder, not followed, is a warning.
// Before, each of them was passed over in silence with exit 0.
TEST(CliBadInput, EveryEntryAFolderSearchPassesOverIsNamed) {
  TempDir dir, out;
  const std::string batch = dir / "batch";
  fs::create_directories(batch + "/sub");
  fs::create_directories(dir / "elsewhere");
  fs::copy_file(kSource + "/examples/pytorch_model.json", batch + "/good.json");
  fs::copy_file(kSource + "/examples/pytorch_model.json", dir / "elsewhere/far.json");
  fs::create_symlink("missing.json", batch + "/dangling.json");
  fs::create_symlink("loop.yaml", batch + "/loop.yaml");
  fs::create_symlink(dir / "elsewhere", batch + "/linked");
  fs::create_symlink("good.json", batch + "/alias.json");  // a link to a file is read
  ASSERT_EQ(mkfifo((batch + "/sub/pipe.json").c_str(), 0644), 0);
  ASSERT_EQ(mkfifo((batch + "/sub/pipeline.dot").c_str(), 0644), 0);
  std::ofstream(batch + "/notes.txt") << "not an input, by its name\n";
  auto timed = [&](const std::string& args) {
    const std::string command = "cd '" + kSource + "' && NO_COLOR=1 timeout -k 5 30 '" + kBinary +
                                "' " + args + " </dev/null >'" + out / "out" + "' 2>'" +
                                out / "err" + "'";
    const int status = std::system(command.c_str());
    return CliRun{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                  .out = Slurp(out / "out"),
                  .err = Slurp(out / "err")};
  };
  const CliRun run = timed("score '" + batch + "' --format json");
  ASSERT_EQ(run.exit_code, 2) << run.err;
  const std::vector<std::pair<std::string, std::string>> named = {
      {"/dangling.json", "passed over: a symbolic link to a missing file (missing.json)"},
      {"/loop.yaml", "passed over: a symbolic link that loops"},
      {"/sub/pipe.json",
       "passed over: not a regular file but a FIFO (never opened: reading it could block)"},
      {"/sub/pipeline.dot",
       "passed over: not a regular file but a FIFO (never opened: reading it could block)"}};
  const json doc = json::parse(run.out);
  ASSERT_EQ(doc["errors"].size(), named.size()) << doc["errors"].dump(1);
  for (size_t i = 0; i < named.size(); ++i) {
    EXPECT_EQ(doc["errors"][i]["file"], batch + named[i].first);
    EXPECT_EQ(doc["errors"][i]["message"], batch + named[i].first + ": " + named[i].second);
    EXPECT_NE(run.err.find("cookgraph: error: " + batch + named[i].first + ": " + named[i].second +
                           "\n"),
              std::string::npos)
        << run.err;
  }
  EXPECT_NE(run.err.find("cookgraph: warning: " + batch +
                         "/linked: passed over: a symbolic link to a folder, not followed (name "
                         "the folder itself to read it)\n"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(Lines(run.err), named.size() + 1) << run.err;  // nothing else, notes.txt unnamed
  ASSERT_EQ(doc["snapshots"].size(), 2u);
  EXPECT_EQ(doc["snapshots"][0]["file"], batch + "/alias.json");
  EXPECT_EQ(doc["snapshots"][1]["file"], batch + "/good.json");

  // A folder holding only a FIFO: its error alone, not "holds nothing" besides.
  const CliRun fifo_only = timed("score '" + batch + "/sub'");
  EXPECT_EQ(fifo_only.exit_code, 2);
  EXPECT_EQ(Lines(fifo_only.err), 2u) << fifo_only.err;
  EXPECT_EQ(fifo_only.err.find("holds nothing"), std::string::npos) << fifo_only.err;

  // A recording's folder reads every file: a log that is a FIFO is an error
  // naming it, not a recording silently without its samples.
  const std::string recording = dir / "recording";
  fs::create_directories(recording);
  fs::copy_file(kSource + "/tests/data/gstreamer/tee_bin.dot", recording + "/pipeline.dot");
  ASSERT_EQ(mkfifo((recording + "/trace.log").c_str(), 0644), 0);
  for (const std::string& command : {std::string("score"), std::string("graph")}) {
    const CliRun gst = timed(command + " '" + recording + "'");
    EXPECT_EQ(gst.exit_code, 2) << command << ": " << gst.err;
    EXPECT_EQ(gst.err, "cookgraph: error: " + recording +
                           "/trace.log: cannot be read: not a regular file but a FIFO (never "
                           "opened: reading it could block); every file of a recording's folder "
                           "is read, so give the .dot dump and the tracer log by name instead\n")
        << command;
  }
}

// `history` on a write-ahead-log database in a folder the user may not write
// (SQLite cannot make its -shm there, and a plain read-only open fails with
// "attempt to write a readonly database"): read as an unchanging file, with
// one warning line; `score --store` on it fails with one line. As root, whom
// permissions do not bind, cookgraph runs as nobody (setpriv).
TEST(Cli, HistoryReadsAWalDatabaseItMayNotWrite) {
  const bool root = geteuid() == 0;
  if (root && std::system("setpriv --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "running as root, whom permissions do not bind, and setpriv (util-linux) is "
                    "missing to run cookgraph as another user";
  }
  TempDir dir;
  fs::permissions(dir.path(), fs::perms::all);
  const std::string folder = dir / "ro", db = dir / "ro/runs.db";
  fs::create_directories(folder);
  for (int run = 1; run <= 2; ++run) {
    const CliRun stored = Cookgraph("score examples/touchdesigner_feedback.json --store '" + db +
                                    "' --label run-" + std::to_string(run) + " --format json");
    ASSERT_EQ(stored.exit_code, 0) << stored.err;
  }
  ASSERT_FALSE(fs::exists(db + "-wal"));  // the last writer checkpointed it away
  ASSERT_FALSE(fs::exists(db + "-shm"));
  ASSERT_EQ(Slurp(db).substr(18, 2), std::string("\x02\x02"));  // WAL: file format 2
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  std::string binary = kBinary, as_user;
  if (root) {
    // A copy the other user can surely run, whatever the checkout's permissions.
    binary = dir / "cookgraph";
    fs::copy_file(kBinary, binary);
    fs::permissions(binary, fs::perms::all);
    as_user = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  auto run = [&](const std::string& args) {
    const std::string command = "cd '" + dir.path() + "' && NO_COLOR=1 " + as_user + "'" + binary +
                                "' " + args + " </dev/null >'" + dir / "out" + "' 2>'" +
                                dir / "err" + "'";
    const int status = std::system(command.c_str());
    return CliRun{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
                  .out = Slurp(dir / "out"),
                  .err = Slurp(dir / "err")};
  };
  const CliRun history = run("history ro/runs.db --format json");
  ASSERT_EQ(history.exit_code, 0) << history.err;
  EXPECT_EQ(history.err,
            "cookgraph: warning: ro/runs.db: opened read-only (no write permission for its "
            "folder, so SQLite cannot make ro/runs.db-shm): read as an unchanging file, without "
            "locks\n");
  const json doc = json::parse(history.out);
  EXPECT_EQ(doc["stored_runs"], 2);
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][1]["label"], "run-2");
  EXPECT_EQ(doc["runs"][1]["complete"], true);

  const CliRun store = run("score " + kSource +
                           "/examples/touchdesigner_feedback.json --store ro/runs.db");
  EXPECT_EQ(store.exit_code, 2) << store.err;
  EXPECT_EQ(store.err,
            "cookgraph: error: ro/runs.db: cannot store runs here: no write permission for the "
            "file (SQLite opened it read-only); `cookgraph history` can still read it\n");
  EXPECT_TRUE(store.out.empty());
  fs::permissions(folder, fs::perms::owner_all);
  EXPECT_FALSE(fs::exists(db + "-shm"));
  EXPECT_FALSE(fs::exists(db + "-wal"));
}

TEST(CliBadInput, ABatchWithOneBadFileStillReportsTheGoodOnes) {
  CliRun run = Cookgraph("score examples tests/data/bad/unknown_id.json --format json");
  EXPECT_EQ(run.exit_code, 2);
  json doc = json::parse(run.out);
  EXPECT_EQ(doc["snapshots"].size(), 3u);
  ASSERT_EQ(doc["errors"].size(), 1u);
  EXPECT_EQ(doc["errors"][0]["file"], "tests/data/bad/unknown_id.json");
  EXPECT_NE(doc["errors"][0]["message"].get<std::string>().find("did you mean"), std::string::npos);
  EXPECT_EQ(Lines(run.err), 1u) << run.err;
  // The table and CSV still carry the good files too.
  CliRun table = Cookgraph("score examples tests/data/bad/unknown_id.json --top 1");
  EXPECT_EQ(table.exit_code, 2);
  for (const char* e : kExamples) EXPECT_NE(table.out.find(e), std::string::npos) << e;
}

// The event critical path's window (docs/commands.md#cookgraph-score): by
// default the slowest step but the last; --step N, or HTA's --annotation and
// --instance. The lengths are HTA's own (tests/data/hta/critical_path.json).
TEST(Cli, StepOrAnnotationChoosesTheCriticalPathsWindow) {
  const std::string trace = kSource + "/tests/data/fixtures/traces/kineto_resnet50_workers4.json.gz";
  auto path = [&](const std::string& options) {
    CliRun graph = Cookgraph("graph '" + trace + "' --format json " + options);
    EXPECT_EQ(graph.exit_code, 0) << options << graph.err;
    return json::parse(graph.out)["critical_path"];
  };
  const json slowest = path("");
  EXPECT_EQ(slowest["step"], 5);
  EXPECT_NEAR(slowest["length_ms"].get<double>(), 151.117, 1e-9);
  const json step8 = path("--step 8");
  EXPECT_EQ(step8["step"], 8);
  EXPECT_NEAR(step8["length_ms"].get<double>(), 121.756, 1e-9);
  const json instance3 = path("--annotation ProfilerStep --instance 3");
  EXPECT_TRUE(instance3["step"].is_null());
  EXPECT_EQ(instance3["window"]["annotation"], "ProfilerStep");
  EXPECT_EQ(instance3["window"]["instance"], 3);
  EXPECT_NEAR(instance3["length_ms"].get<double>(), 121.756, 1e-9);
  EXPECT_EQ(path("--annotation ProfilerStep#8")["step"], 8);
  CliRun table = Cookgraph("score '" + trace + "' --annotation ProfilerStep --instance 3");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("instance 3 of 'ProfilerStep' (rank 0): 121.756 ms of its 124.117 ms, "
                           "3850 events (963 on the GPU)"),
            std::string::npos)
      << table.out;
  CliRun missing = Cookgraph("graph '" + trace + "' --step 99");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("the trace has no step 99 (its steps are 5 to 10)"), std::string::npos)
      << missing.err;
  CliRun last = Cookgraph("graph '" + trace + "' --step 10");
  EXPECT_EQ(last.exit_code, 2);
  EXPECT_NE(last.err.find("step 10 is the trace's last, which Holistic Trace Analysis leaves out"),
            std::string::npos)
      << last.err;
  EXPECT_EQ(Cookgraph("score '" + trace + "' --instance 2").exit_code, 2);
}

// score's table leads with what fixes the problem (docs/commands.md#cookgraph-score):
// on the TouchDesigner example the spiky script, whose removal saves all 15
// over-budget frames, not blur_fb, the largest mean saving, which saves none;
// on a trace without a budget, the node whatif says saves the most mean step
// time; the same line in Markdown, none in JSON.
TEST(Cli, ScoreLeadsWithTheFirstFix) {
  const CliRun td = Cookgraph("score examples/touchdesigner_feedback.json --top 3");
  ASSERT_EQ(td.exit_code, 0) << td.err;
  const std::string second = td.out.substr(td.out.find('\n') + 1, td.out.find('\n', td.out.find('\n') + 1) - td.out.find('\n') - 1);
  EXPECT_EQ(second,
            "what to change first: /project1/control/script_osc: removing or caching it saves 15 "
            "of 15 over-budget frames and ~1.12 ms per frame; halving it saves ~0.56 ms per frame");
  const CliRun md = Cookgraph("score examples/touchdesigner_feedback.json --top 3 --format md");
  EXPECT_NE(md.out.find("**What to change first**: /project1/control/script\\_osc: removing or caching "
                        "it saves 15 of 15 over-budget frames"),
            std::string::npos)
      << md.out;
  const CliRun js = Cookgraph("score examples/touchdesigner_feedback.json --top 3 --format json");
  EXPECT_EQ(js.out.find("change first"), std::string::npos);
  const std::string trace = "tests/data/fixtures/traces/kineto_resnet50_workers4.json.gz";
  const CliRun steps = Cookgraph("score " + trace + " --top 1");
  const CliRun whatif = Cookgraph("whatif " + trace + " --format json");
  ASSERT_EQ(whatif.exit_code, 0) << whatif.err;
  const json w = json::parse(whatif.out);
  // The first fix of a trace without a budget saves the most mean time halved.
  std::string best;
  double most = -1;
  for (const json& row : w["nodes"]) {
    if (row["factor"].get<double>() != 0.5) continue;
    const double saved = row["saved_ms"].get<double>();
    if (saved > most) most = saved, best = row["id"].get<std::string>();
  }
  EXPECT_NE(steps.out.find("\nwhat to change first: " + best + ": removing or caching it saves "),
            std::string::npos)
      << best << "\n" << steps.out;
  EXPECT_NE(steps.out.find(" ms per step\n"), std::string::npos) << steps.out;
}

// Steps are not frames (docs/architecture.md#steps-are-not-frames): no real
// training or inference trace gets a budget, an over-budget column or a
// budget finding unless --budget-ms gives one; then it does.
TEST(Cli, TrainingTracesHaveNoBudgetUnlessOneIsGiven) {
  const std::string traces = kSource + "/tests/data/fixtures/traces";
  for (const auto& entry : fs::directory_iterator(traces)) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".json") && !path.ends_with(".json.gz") && !entry.is_directory()) continue;
    // score's JSON: CliInputs.EveryRealTraceFixtureIsScored; each report
    // without a budget: engine_words.check (in the normal build).
    // No loop that is not a real cycle; no critical path longer than its step.
    CliRun graph = Cookgraph("graph '" + path + "' --format json");
    ASSERT_EQ(graph.exit_code, 0) << path << graph.err;
    const json g = json::parse(graph.out);
    EXPECT_TRUE(g["loops"].empty()) << path;
    if (g["critical_path"].contains("length_ms")) {
      EXPECT_LE(g["critical_path"]["length_ms"].get<double>(),
                g["critical_path"]["window_ms"].get<double>() + 1e-9)
          << path;
      EXPECT_FALSE(g["critical_path"]["events"].empty()) << path;
    }
  }
  TempDir dir;
  const std::string trace = traces + "/kineto_resnet50_workers4.json.gz";
  CliRun report = Cookgraph("report '" + trace + "' -o '" + dir / "r.md" + "' --no-llm --budget-ms 50");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(Slurp(dir / "r.md").find("mean-over-budget"), std::string::npos);
}

// A folder of the ranks of one job is one job: per-rank step times and a
// straggler per step (docs/formats.md#one-job-many-ranks).
TEST(Cli, AFolderOfRanksScoresAsOneJob) {
  CliRun run = Cookgraph("score tests/data/fixtures/traces/hta_two_ranks --format json --top 3");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json doc = json::parse(run.out);
  ASSERT_EQ(doc["snapshots"].size(), 1u);
  const json& s = doc["snapshots"][0];
  EXPECT_EQ(s["name"], "hta_two_ranks");
  ASSERT_EQ(s["ranks"].size(), 2u);
  EXPECT_EQ(s["ranks"][0]["steps"], json::parse("[551, 552]"));
  EXPECT_EQ(s["ranks"][1]["step_ms"], json::parse("[607.904, 630.639]"));
  // Rank 1 is slower in both steps: by half the gap to rank 0 (the median of two).
  EXPECT_EQ(s["ranks"][0]["straggler"], json::parse("[null, null]"));
  EXPECT_NEAR(s["ranks"][1]["straggler"][0].get<double>(), 0.296, 1e-9);
  EXPECT_NEAR(s["ranks"][1]["straggler"][1].get<double>(), 3.8555, 1e-9);
  ASSERT_EQ(s["gpu"]["ranks"].size(), 2u);
  // The same job from its two files, and through the report.
  CliRun files = Cookgraph(
      "score tests/data/fixtures/traces/hta_two_ranks/rank-0.json.gz "
      "tests/data/fixtures/traces/hta_two_ranks/rank-1.json.gz --format json --top 3");
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(json::parse(files.out)["snapshots"][0]["ranks"], s["ranks"]);
  TempDir dir;
  CliRun report = Cookgraph("report tests/data/fixtures/traces/hta_two_ranks -o '" + dir / "r.html" + "' --no-llm");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(Slurp(dir / "r.html").find("id=\"gpu-time\""), std::string::npos);
}

TEST(Cli, TracesThatRepeatARankAreScoredOneByOneWithAWarning) {
  // Two runs of rank 0 (of 128: HTA's fixture) side by side are not one job:
  // each trace is its own snapshot, and standard error says why.
  TempDir dir;
  const std::string rank0 = kSource + "/tests/data/fixtures/traces/hta_two_ranks/rank-0.json.gz";
  std::filesystem::copy_file(rank0, dir / "run-a.json.gz");
  std::filesystem::copy_file(rank0, dir / "run-b.json.gz");
  CliRun run = Cookgraph("score '" + dir.path() + "' --format json --top 1");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(json::parse(run.out)["snapshots"].size(), 2u);
  EXPECT_NE(run.err.find("cookgraph: warning: " + dir.path() + ": " + dir / "run-a.json.gz" +
                         " and " + dir / "run-b.json.gz" +
                         " both say they are rank 0 of 128: these 2 traces are not read as one "
                         "job; each is scored on its own"),
            std::string::npos)
      << run.err;
  // With rank 1 instead of the second copy they are one job, and nothing is said.
  std::filesystem::remove(dir / "run-b.json.gz");
  std::filesystem::copy_file(kSource + "/tests/data/fixtures/traces/hta_two_ranks/rank-1.json.gz",
                             dir / "run-b.json.gz");
  CliRun job = Cookgraph("score '" + dir.path() + "' --format json --top 1");
  ASSERT_EQ(job.exit_code, 0) << job.err;
  EXPECT_EQ(json::parse(job.out)["snapshots"].size(), 1u);
  EXPECT_EQ(job.err.find("both say they are rank"), std::string::npos) << job.err;
}

// GPU beside CPU (issue 36): where nodes have GPU time, the table shows it per
// frame and as a share, as ms/frame and share show the cook time; the
// Markdown report's top nodes too. The figures are the gpu_ms series summed
// over all frames / the frames, from the snapshot itself.
TEST(Cli, TheTableAndTheReportShowGpuTimeBesideCookTime) {
  const std::string path = kSource + "/examples/touchdesigner_feedback.json";
  const json snap = json::parse(Slurp(path));
  double gpu = 0;
  size_t frames = 0;
  for (const json& v : snap["frames"]["series"]["/project1/fx/trails/blur_fb"]["gpu_ms"]) {
    if (v.is_number()) gpu += v.get<double>();
    ++frames;
  }
  const json scored = json::parse(Cookgraph("score '" + path + "' --format json").out);
  const double mean_frame = scored["snapshots"][0]["frame_ms"]["mean"].get<double>();
  auto fixed = [](double v, int digits) {
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(digits);
    out << v;
    return out.str();
  };
  const std::string per_frame = fixed(gpu / static_cast<double>(frames), 3);
  const std::string share = fixed(100 * gpu / static_cast<double>(frames) / mean_frame, 1) + "%";
  CliRun table = Cookgraph("score '" + path + "' --sort gpu --top 3");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("share  gpu ms/f  gpu share"), std::string::npos) << table.out;
  std::string first_row;
  for (size_t at = table.out.find("\n1  "); at != std::string::npos;) {
    first_row = table.out.substr(at + 1, table.out.find('\n', at + 1) - at - 1);
    break;
  }
  EXPECT_NE(first_row.find("/project1/fx/trails/blur_fb"), std::string::npos) << first_row;
  EXPECT_NE(first_row.find(per_frame), std::string::npos) << per_frame << " in " << first_row;
  EXPECT_NE(first_row.find(share), std::string::npos) << share << " in " << first_row;
  TempDir dir;
  ASSERT_EQ(Cookgraph("report '" + path + "' --no-llm -o '" + dir / "r.md" + "'").exit_code, 0);
  const std::string md = Slurp(dir / "r.md");
  EXPECT_NE(md.find("| gpu per-frame | gpu share |"), std::string::npos);
  EXPECT_NE(md.find("| " + per_frame + " | " + share + " |"), std::string::npos);
  // A trace without GPU time has no GPU column.
  CliRun cpu = Cookgraph("score '" + kSource + "/tests/data/fixtures/traces/kineto_cpu_only.json.gz' --top 3");
  EXPECT_EQ(cpu.out.find("gpu ms/f"), std::string::npos);
}

}  // namespace
