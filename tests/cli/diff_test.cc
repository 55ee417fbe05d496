// End-to-end runs of `cookgraph diff`, `score --baseline` and `report
// --baseline` on a small hand-made pair: output formats, exit codes and the
// refusals. The statistics at scale are checked by tests/tools/diff_check.py.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_run.h"
#include "tests/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using cookgraph::testing::TempDir;
using nlohmann::json;

using cookgraph::testing::kBinary;
using cookgraph::testing::Lines;
using cookgraph::testing::Slurp;

// A CSV line without quoted fields, split at the commas.
std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

// 20 frames alternating mean - spread, mean + spread, as a JSON array.
std::string Series(double mean, double spread) {
  std::string out = "[";
  for (int f = 0; f < 20; ++f) {
    out += (f ? ", " : "") + std::to_string(mean + (f % 2 ? spread : -spread));
  }
  return out + "]";
}

// A snapshot with the given nodes and cook_ms series; the first node is the
// output (so that no warning about outputs is printed).
std::string Snapshot(const std::vector<std::pair<std::string, std::string>>& nodes) {
  std::string ids, series, index = "[";
  for (int f = 0; f < 20; ++f) index += (f ? ", " : "") + std::to_string(100 + f);
  index += "]";
  for (size_t i = 0; i < nodes.size(); ++i) {
    ids += std::string(i ? ",\n" : "") + "    {\"id\": \"" + nodes[i].first +
           "\", \"type\": \"levelTOP\", \"family\": \"TOP\"" +
           (i == 0 ? ", \"output\": true}" : "}");
    series += std::string(i ? ",\n" : "") + "      \"" + nodes[i].first +
              "\": {\"cook_ms\": " + nodes[i].second + "}";
  }
  return "{\n  \"cookgraph\": 1, \"engine\": \"touchdesigner\", \"name\": \"pair\", \"fps\": 60,\n"
         "  \"nodes\": [\n" +
         ids + "\n  ],\n  \"frames\": {\"index\": " + index + ", \"series\": {\n" + series +
         "\n  }}\n}\n";
}

class DiffCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // /p/slow +50%, /p/same unchanged, /p/gone removed, /p/new added.
    Write("before.json", Snapshot({{"/p/slow", Series(1.0, 0.05)},
                                   {"/p/same", Series(2.0, 0.1)},
                                   {"/p/gone", Series(0.5, 0.01)}}));
    Write("after.json", Snapshot({{"/p/slow", Series(1.5, 0.05)},
                                  {"/p/same", Series(2.0, 0.1)},
                                  {"/p/new", Series(0.5, 0.01)}}));
    Write("bad.json", "{\"cookgraph\": 1, \"nodes\": [\n  {\"id\": }\n]}\n");
  }

  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string Path(const std::string& name) const { return dir_ / name; }

  // Runs `cookgraph ARGS` in the temporary folder; keeps standard output and error.
  int Run(const std::string& args) {
    const std::string command = "cd '" + dir_.path() +
                                "' && env -u OPENAI_BASE_URL -u COOKGRAPH_BASE_URL -u "
                                "OPENAI_API_KEY -u COOKGRAPH_MODEL HOME=. XDG_CONFIG_HOME=. "
                                "NO_COLOR=1 '" +
                                kBinary + "' " + args + " </dev/null >out.txt 2>err.txt";
    const int status = std::system(command.c_str());
    out_ = Slurp(Path("out.txt"));
    err_ = Slurp(Path("err.txt"));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  static const json& Node(const json& nodes, const std::string& id) {
    for (const json& n : nodes) {
      if (n["id"] == id) return n;
    }
    static const json kNone;
    ADD_FAILURE() << "no node " << id;
    return kNone;
  }

  TempDir dir_;
  std::string out_, err_;
};

TEST_F(DiffCli, JsonHasTheIssuesKeysAndFlagsTheSlowNode) {
  ASSERT_EQ(Run("diff before.json after.json --format json"), 0) << err_;
  const json doc = json::parse(out_);
  for (const char* key : {"nodes", "added", "removed", "frame_ms"}) {
    EXPECT_TRUE(doc.contains(key)) << key;
  }
  const json& slow = Node(doc["nodes"], "/p/slow");
  for (const char* key : {"id", "before", "after", "change_pct", "p_value", "regression"}) {
    EXPECT_TRUE(slow.contains(key)) << key;
  }
  EXPECT_TRUE(slow["regression"].get<bool>());
  EXPECT_NEAR(slow["change_pct"].get<double>(), 50.0, 1e-9);
  EXPECT_NEAR(slow["before"]["avg_ms"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(slow["after"]["avg_ms"].get<double>(), 1.5, 1e-12);
  EXPECT_LT(slow["p_value"].get<double>(), 1e-12);
  EXPECT_FALSE(Node(doc["nodes"], "/p/same")["regression"].get<bool>());
  EXPECT_EQ(doc["added"], json::array({"/p/new"}));
  EXPECT_EQ(doc["removed"], json::array({"/p/gone"}));
  // Frame time: 1 + 2 + 0.5 = 3.5 ms before, 1.5 + 2 + 0.5 = 4 ms after.
  EXPECT_NEAR(doc["frame_ms"]["before"]["mean"].get<double>(), 3.5, 1e-12);
  EXPECT_NEAR(doc["frame_ms"]["after"]["mean"].get<double>(), 4.0, 1e-12);
  EXPECT_NEAR(doc["frame_ms"]["change_pct"].get<double>(), 100.0 / 7.0, 1e-9);
  EXPECT_TRUE(doc["regressed"].get<bool>());
  EXPECT_TRUE(err_.empty()) << err_;
}

TEST_F(DiffCli, TableAndMarkdownNameTheRegression) {
  ASSERT_EQ(Run("diff before.json after.json"), 0) << err_;
  EXPECT_NE(out_.find("frame time: mean 3.500 → 4.000 ms (+14.3%)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("1 regressed, 0 improved; 1 added, 1 removed"), std::string::npos) << out_;
  EXPECT_NE(out_.find("/p/slow"), std::string::npos);
  EXPECT_NE(out_.find("+50.0%"), std::string::npos);
  EXPECT_NE(out_.find("regression"), std::string::npos);
  EXPECT_NE(out_.find("added (1): /p/new"), std::string::npos) << out_;
  EXPECT_NE(out_.find("removed (1): /p/gone"), std::string::npos) << out_;
  ASSERT_EQ(Run("diff before.json after.json --format md"), 0) << err_;
  EXPECT_NE(out_.find("| /p/slow | 1.000 | 1.500 | +50.0% |"), std::string::npos) << out_;
  EXPECT_NE(out_.find("| regression |"), std::string::npos) << out_;
}

TEST_F(DiffCli, CsvHasARowPerMatchedAddedAndRemovedNodeWithJsonsValues) {
  ASSERT_EQ(Run("diff before.json after.json --format json"), 0) << err_;
  const json doc = json::parse(out_);
  ASSERT_EQ(Run("diff before.json after.json --format csv"), 0) << err_;
  std::stringstream lines(out_);
  std::string line;
  std::getline(lines, line);
  const std::vector<std::string> header = Split(line);
  ASSERT_EQ(line,
            "id,status,before_cooked_frames,before_avg_ms,before_p95_ms,before_per_frame_ms,"
            "before_score,after_cooked_frames,after_avg_ms,after_p95_ms,after_per_frame_ms,"
            "after_score,avg_change_pct,p95_change_pct,per_frame_change_pct,score_change_pct,"
            "p_value,t,df,regression,improvement,note");
  std::vector<std::vector<std::string>> rows;
  while (std::getline(lines, line)) rows.push_back(Split(line));
  ASSERT_EQ(rows.size(), 4u) << out_;  // two matched, then one added, one removed
  auto cell = [&](size_t row, const std::string& column) {
    const size_t c = std::find(header.begin(), header.end(), column) - header.begin();
    return rows[row].at(c);
  };
  // Matched rows in the JSON's order, with its numbers written shortest round-trip.
  for (size_t r = 0; r < 2; ++r) {
    const json& node = doc["nodes"][r];
    EXPECT_EQ(cell(r, "id"), node["id"]);
    EXPECT_EQ(cell(r, "status"), "matched");
    EXPECT_EQ(std::stod(cell(r, "after_avg_ms")), node["after"]["avg_ms"].get<double>());
    EXPECT_EQ(std::stod(cell(r, "df")), node["df"].get<double>());
    EXPECT_EQ(cell(r, "regression"), node["regression"].get<bool>() ? "true" : "false");
  }
  EXPECT_EQ(cell(0, "id"), "/p/slow");
  EXPECT_EQ(std::stod(cell(0, "avg_change_pct")), 50.0);
  EXPECT_EQ(cell(1, "note"), "");
  EXPECT_EQ(cell(2, "id"), "/p/new");
  EXPECT_EQ(cell(2, "status"), "added");
  EXPECT_EQ(cell(3, "id"), "/p/gone");
  EXPECT_EQ(cell(3, "status"), "removed");
  for (size_t r = 2; r < 4; ++r) {
    EXPECT_EQ(cell(r, "before_avg_ms"), "");
    EXPECT_EQ(cell(r, "p_value"), "");
    EXPECT_EQ(cell(r, "regression"), "false");
  }
}

TEST_F(DiffCli, FailOnRegressionExitsFourOnlyWhenSomethingRegressed) {
  EXPECT_EQ(Run("diff before.json after.json --fail-on-regression"), 4);
  EXPECT_NE(out_.find("/p/slow"), std::string::npos) << "the results are still written";
  EXPECT_EQ(Lines(err_), 1u) << err_;
  EXPECT_NE(err_.find("1 node regressed"), std::string::npos) << err_;
  EXPECT_EQ(Run("diff before.json before.json --fail-on-regression"), 0) << err_;
  EXPECT_EQ(Run("diff after.json before.json --fail-on-regression"), 0) << "a speedup passes";
  // The threshold as a value: +50% is under 60%, over 40%.
  EXPECT_EQ(Run("diff before.json after.json --fail-on-regression=60"), 0) << err_;
  EXPECT_EQ(Run("diff before.json after.json --fail-on-regression=40"), 4) << err_;
  EXPECT_EQ(Run("diff before.json after.json --min-change 60 --fail-on-regression"), 0) << err_;
}

TEST_F(DiffCli, AFrameTimeRegressionAloneFailsTheGate) {
  // No matched node is slower, but a new node costs 5 ms a frame: 3.5 -> 8 ms.
  Write("grown.json", Snapshot({{"/p/slow", Series(1.0, 0.05)},
                                {"/p/same", Series(2.0, 0.1)},
                                {"/p/new", Series(5.0, 0.01)}}));
  EXPECT_EQ(Run("diff before.json grown.json --fail-on-regression --format json"), 4);
  const json doc = json::parse(out_);
  EXPECT_EQ(doc["regressions"], 0);
  EXPECT_TRUE(doc["frame_ms"]["regression"].get<bool>());
  EXPECT_EQ(err_, "cookgraph: the frame time regressed (--fail-on-regression)\n");
}

TEST_F(DiffCli, MissingFileIsOneLineNamingIt) {
  EXPECT_EQ(Run("diff before.json no_such.json"), 2);
  EXPECT_EQ(Lines(err_), 1u) << err_;
  EXPECT_NE(err_.find("no_such.json"), std::string::npos) << err_;
  EXPECT_TRUE(out_.empty());
  EXPECT_EQ(Run("diff no_such.json after.json"), 2);
  EXPECT_NE(err_.find("no_such.json"), std::string::npos) << err_;
}

TEST_F(DiffCli, BadFileIsOneLineNamingItAndThePlace) {
  EXPECT_EQ(Run("diff before.json bad.json"), 2);
  EXPECT_EQ(Lines(err_), 1u) << err_;
  EXPECT_NE(err_.find("bad.json:2:"), std::string::npos) << err_;
  EXPECT_TRUE(out_.empty());
}

TEST_F(DiffCli, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(Run("diff before.json"), 2);
  EXPECT_EQ(Run("diff before.json after.json --alpha 2"), 2);
  EXPECT_EQ(Run("diff before.json after.json --format xml"), 2);
  EXPECT_EQ(Run("diff before.json after.json --fail-on-regression=much"), 2);
  EXPECT_EQ(Lines(err_), 1u) << err_;
  EXPECT_NE(err_.find("--fail-on-regression: expected a percentage"), std::string::npos) << err_;
  EXPECT_EQ(Run("diff before.json after.json --fail-on-regression=10 --min-change 5"), 2);
  EXPECT_NE(err_.find("give it once"), std::string::npos) << err_;
}

TEST_F(DiffCli, ScoreBaselineAddsTheChangeColumnsInEveryFormat) {
  ASSERT_EQ(Run("score after.json --baseline before.json"), 0) << err_;
  EXPECT_NE(out_.find("Δavg"), std::string::npos) << out_;
  EXPECT_NE(out_.find("+50.0%"), std::string::npos) << out_;
  EXPECT_NE(out_.find("compared with the baseline before.json"), std::string::npos) << out_;
  EXPECT_NE(out_.find("removed: /p/gone"), std::string::npos) << out_;

  ASSERT_EQ(Run("score after.json --baseline before.json --format json"), 0) << err_;
  const json snap = json::parse(out_)["snapshots"][0];
  const json& slow = Node(snap["nodes"], "/p/slow");
  EXPECT_NEAR(slow["baseline"]["avg_ms"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(slow["baseline"]["avg_change_pct"].get<double>(), 50.0, 1e-9);
  EXPECT_TRUE(slow["baseline"]["regression"].get<bool>());
  EXPECT_TRUE(Node(snap["nodes"], "/p/new")["baseline"].is_null());
  EXPECT_EQ(snap["baseline"]["file"], "before.json");
  EXPECT_EQ(snap["baseline"]["removed"], json::array({"/p/gone"}));
  EXPECT_EQ(snap["baseline"]["regressions"], 1);

  ASSERT_EQ(Run("score after.json --baseline before.json --format csv"), 0) << err_;
  const std::string header = out_.substr(0, out_.find('\n'));
  EXPECT_NE(header.find(",latency_max_ms,inclusive_avg_ms,baseline_avg_ms,baseline_p95_ms,"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find(",p_value,regression,improvement,baseline_note"), std::string::npos);
  const size_t row = out_.find(",/p/slow,");
  ASSERT_NE(row, std::string::npos) << out_;
  const size_t row_start = out_.rfind('\n', row) + 1;
  const std::vector<std::string> names = Split(header);
  const std::vector<std::string> cells =
      Split(out_.substr(row_start, out_.find('\n', row) - row_start));
  ASSERT_EQ(cells.size(), names.size());
  auto cell = [&](const std::string& name) {
    return cells[std::find(names.begin(), names.end(), name) - names.begin()];
  };
  EXPECT_NEAR(std::stod(cell("avg_change_pct")), 50.0, 1e-9);
  EXPECT_NEAR(std::stod(cell("baseline_avg_ms")), 1.0, 1e-12);
  EXPECT_EQ(cell("regression"), "true");
  EXPECT_EQ(cell("improvement"), "false");

  ASSERT_EQ(Run("score after.json --baseline before.json --format md"), 0) << err_;
  EXPECT_NE(out_.find("| Δavg |"), std::string::npos) << out_;

  ASSERT_EQ(Run("score after.json"), 0) << err_;
  EXPECT_EQ(out_.find("Δavg"), std::string::npos) << "no change columns without a baseline";
}

TEST_F(DiffCli, ScoreBaselineRefusals) {
  EXPECT_EQ(Run("score after.json --baseline no_such.json"), 2);
  EXPECT_EQ(Lines(err_), 1u) << err_;
  EXPECT_NE(err_.find("no_such.json"), std::string::npos) << err_;
  EXPECT_EQ(Run("score after.json --baseline before.json --group-by container"), 2);
  EXPECT_NE(err_.find("--baseline"), std::string::npos) << err_;
}

TEST_F(DiffCli, ReportBaselineAddsAComparisonSection) {
  ASSERT_EQ(Run("report after.json -o r.html --no-llm --baseline before.json"), 0) << err_;
  const std::string html = Slurp(Path("r.html"));
  const size_t begin = html.find("<section id=\"comparison\">");
  ASSERT_NE(begin, std::string::npos);
  const std::string section = html.substr(begin, html.find("</section>", begin) - begin);
  EXPECT_NE(section.find("<span class=\"id\">before.json</span>"), std::string::npos) << section;
  EXPECT_NE(section.find("<td class=\"id\">/p/slow</td><td class=\"n\">1.000</td><td "
                         "class=\"n\">1.500</td><td class=\"n\">+50.0%</td>"),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("regression</td>"), std::string::npos);
  EXPECT_NE(section.find("Removed (1): <span class=\"id\">/p/gone</span>"), std::string::npos);

  ASSERT_EQ(Run("report after.json -o r.md --no-llm --baseline before.json"), 0) << err_;
  const std::string md = Slurp(Path("r.md"));
  EXPECT_NE(md.find("## Comparison with the baseline"), std::string::npos);
  EXPECT_NE(md.find("| /p/slow | 1.000 | 1.500 | +50.0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("**regression**"), std::string::npos);

  ASSERT_EQ(Run("report after.json -o plain.md --no-llm"), 0) << err_;
  EXPECT_EQ(Slurp(Path("plain.md")).find("Comparison with the baseline"), std::string::npos);
}

TEST_F(DiffCli, ReportBaselineThatCannotBeReadWritesNothing) {
  EXPECT_EQ(Run("report after.json -o r.html --no-llm --baseline bad.json"), 2);
  EXPECT_EQ(Lines(err_), 1u) << err_;
  EXPECT_NE(err_.find("bad.json:2:"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(Path("r.html")));
}

}  // namespace

namespace cookgraph {
namespace {

TEST_F(DiffCli, StepsComparesOnlyTheFramesNumberedSo) {
  // Frames are numbered 100..119: --steps 104:113 keeps ten of each.
  ASSERT_EQ(Run("diff before.json after.json --steps 104:113 --format json"), 0) << err_;
  const json doc = json::parse(out_);
  EXPECT_EQ(doc["frame_ms"]["before"]["frames"], 10);
  EXPECT_EQ(doc["frame_ms"]["after"]["frames"], 10);
  EXPECT_EQ(Node(doc["nodes"], "/p/slow")["before"]["cooked_frames"], 10);
  EXPECT_TRUE(Node(doc["nodes"], "/p/slow")["regression"].get<bool>());
  ASSERT_EQ(Run("diff before.json after.json --step 107 --format json"), 0) << err_;
  EXPECT_EQ(json::parse(out_)["frame_ms"]["after"]["frames"], 1);
  EXPECT_EQ(Run("diff before.json after.json --steps 5:9"), 2);
  EXPECT_EQ(err_,
            "cookgraph: error: before.json: --steps 5:9: no frame or step numbered so (it has 20 "
            "frames, numbered 100 to 119)\n");
  EXPECT_EQ(Run("diff before.json after.json --steps 9:5"), 2);
  EXPECT_EQ(err_,
            "cookgraph: error: --steps: expected FIRST:LAST or N, whole numbers with FIRST <= "
            "LAST, got '9:5'\n");
}

}  // namespace
}  // namespace cookgraph
