// End-to-end runs of `cookgraph report`: the files it writes, their numbers
// against `cookgraph score --format json`, the findings for the problems planted
// in the TouchDesigner example, and its refusals.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli/cli_run.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using cookgraph::testing::kBinary;
using cookgraph::testing::kSource;
using cookgraph::testing::Slurp;
const std::string kExample = "examples/touchdesigner_feedback.json";

// Milliseconds as the report writes them: three decimals.
std::string Ms(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", v);
  return text;
}

class ReportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cookgraph-report-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `cookgraph ARGS` from the source folder; returns the exit code and
  // keeps standard output and standard error.
  int Run(const std::string& args) {
    // No LLM settings from the machine: the reports here are offline.
    std::string command = "cd '" + kSource +
                          "' && env -u OPENAI_BASE_URL -u COOKGRAPH_BASE_URL -u OPENAI_API_KEY "
                          "-u COOKGRAPH_MODEL HOME='" + dir_ + "' XDG_CONFIG_HOME='" + dir_ +
                          "' NO_COLOR=1 '" + kBinary + "' " + args +
                          " </dev/null >'" + dir_ + "/out' 2>'" + dir_ + "/err'";
    int status = std::system(command.c_str());
    out_ = Slurp(dir_ + "/out");
    err_ = Slurp(dir_ + "/err");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // The `<section id="ID">` of an HTML report.
  static std::string Section(const std::string& html, const std::string& id) {
    const size_t begin = html.find("<section id=\"" + id + "\">");
    if (begin == std::string::npos) return "";
    return html.substr(begin, html.find("</section>", begin) - begin);
  }

  std::string dir_, out_, err_;
};

TEST_F(ReportCli, HtmlAndMarkdownNumbersMatchScoreJson) {
  ASSERT_EQ(Run("score " + kExample + " --format json --top 20"), 0) << err_;
  const json scored = json::parse(out_)["snapshots"][0];
  ASSERT_EQ(Run("report " + kExample + " -o " + Path("r.html")), 0) << err_;
  EXPECT_NE(err_.find("wrote " + Path("r.html")), std::string::npos) << err_;
  ASSERT_EQ(Run("report " + kExample + " -o " + Path("r.md") + " --no-llm"), 0) << err_;
  const std::string html = Slurp(Path("r.html"));
  const std::string md = Slurp(Path("r.md"));
  ASSERT_FALSE(html.empty());
  ASSERT_FALSE(md.empty());
  for (const json& node : scored["nodes"]) {
    auto ms = [&](const char* key) { return Ms(node[key].get<double>()); };
    const std::string id = node["id"];  // the example's ids need no HTML escaping
    const std::string rank = std::to_string(node["rank"].get<int>());
    const std::string type = node["type"];
    const std::string html_row = "<tr><td class=\"n\">" + rank + "</td><td class=\"id\">" + id +
                                 "</td><td class=\"name\">" + type + "</td><td class=\"n\">" + ms("score") +
                                 "</td><td class=\"n\">" + ms("avg_ms") + "</td><td class=\"n\">" +
                                 ms("p95_ms") + "</td><td class=\"n\">" + ms("max_ms") +
                                 "</td><td class=\"n\">" + ms("per_frame_ms") + "</td>";
    EXPECT_NE(html.find(html_row), std::string::npos) << html_row;
    std::string md_id;
    for (char c : id) md_id += c == '_' ? std::string("\\_") : std::string(1, c);
    const std::string md_row = "| " + rank + " | " + md_id + " | " + type + " | " + ms("score") +
                               " | " + ms("avg_ms") + " | " + ms("p95_ms") + " | " + ms("max_ms") +
                               " | " + ms("per_frame_ms") + " |";
    EXPECT_NE(md.find(md_row), std::string::npos) << md_row;
  }
  const json& frames = scored["frame_ms"];
  const std::string summary = "mean " + Ms(frames["mean"].get<double>()) + " ms, p95 " +
                              Ms(frames["p95"].get<double>()) + " ms, max " +
                              Ms(frames["max"].get<double>()) + " ms";
  EXPECT_NE(html.find(summary), std::string::npos) << summary;
  EXPECT_NE(md.find(summary), std::string::npos) << summary;
  const std::string over = std::to_string(scored["over_budget_frames"].get<int>()) + " of " +
                           std::to_string(scored["frames"].get<int>()) + " frames";
  EXPECT_NE(html.find(over), std::string::npos);
  EXPECT_NE(md.find(over), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  // Nothing is fetched: no attribute or style names a URL (the documentation a
  // fix relies on is named as text).
  for (const char* fetch : {"src=\"http", "href=\"http", "url(http", "src='http", "href='http"}) {
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
  }
  EXPECT_NE(md.find("LLM advice: off (--no-llm)"), std::string::npos);
}

// The performance problems planted by examples/generate.py. Its other planted
// features (a cheap ref cycle and self-loop, a bypassed layer, 30 fps clips in
// a 60 fps project) are benign and are not findings.
TEST_F(ReportCli, FindingsNameEveryPlantedProblemOfTheTouchDesignerExample) {
  ASSERT_EQ(Run("report " + kExample + " -o " + Path("r.html")), 0) << err_;
  const std::string findings = Section(Slurp(Path("r.html")), "findings");
  const json planted = json::parse(
      Slurp(kSource + "/tests/data/examples/touchdesigner_feedback.facts.json"))["planted"];
  std::vector<std::string> ids = {planted["spiky_node"]["id"], planted["dead_node"],
                                  planted["twice_cooking_node"], planted["leaking_cpu_mem_node"]};
  for (const json& id : planted["feedback_loop"]["nodes"]) ids.push_back(id);
  for (const std::string& id : ids) {
    EXPECT_NE(findings.find("<span class=\"id\">" + id + "</span>"), std::string::npos) << id;
  }
  for (const char* rule : {"costly-feedback-loop", "spiky-node", "dead-cook", "double-cook"}) {
    EXPECT_NE(findings.find(std::string("(") + rule + ")"), std::string::npos) << rule;
  }
  EXPECT_NE(findings.find("4.358 ms per frame"), std::string::npos);  // the loop's cost
}

TEST_F(ReportCli, AskWithoutAnEndpointWritesTheOfflineReportAndSaysHowToAddOne) {
  EXPECT_EQ(Run("report " + kExample + " -o " + Path("r.html") + " --ask 'why?'"), 0) << err_;
  EXPECT_NE(err_.find("warning: --ask: no LLM endpoint configured"), std::string::npos) << err_;
  EXPECT_NE(Slurp(Path("r.html")).find("no endpoint is configured. Set COOKGRAPH_BASE_URL"),
            std::string::npos);
}

TEST_F(ReportCli, UnknownExtensionNamesTheFile) {
  EXPECT_EQ(Run("report " + kExample + " -o " + Path("r.pdf")), 2);
  EXPECT_NE(err_.find(Path("r.pdf") + ": unknown report format"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(Path("r.pdf")));
}

TEST_F(ReportCli, MissingInputNamesTheFileAndWritesNothing) {
  EXPECT_EQ(Run("report no_such_file.json -o " + Path("r.md")), 2);
  EXPECT_NE(err_.find("no_such_file.json"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(Path("r.md")));
}

TEST_F(ReportCli, UnwritableOutputNamesTheFile) {
  EXPECT_EQ(Run("report " + kExample + " -o " + Path("missing/dir/r.html")), 2);
  EXPECT_NE(err_.find("missing/dir/r.html"), std::string::npos) << err_;
}

// One node, one frame, one finding: each in the singular (it said "1 findings").
TEST_F(ReportCli, CountsOfOneAreSingularInTheMessage) {
  std::ofstream(Path("one.json")) << R"({"cookgraph": 1, "nodes": [{"id": "a"}],
      "frames": {"index": [1], "series": {"a": {"cook_ms": [2.5]}}}})";
  std::ofstream(Path("pack.yaml")) << R"(engine: mine
rules:
  - id: any
    severity: info
    scope: node
    when:
      - {fact: per_frame_ms, gt: 0}
    title: "{node} cooks"
    suggestion: "none"
)";
  ASSERT_EQ(Run("report " + Path("one.json") + " -o " + Path("r.md") + " --no-llm --pack " +
                Path("pack.yaml")),
            0)
      << err_;
  EXPECT_NE(err_.find("wrote " + Path("r.md") + " (1 node, 1 frame, 1 finding)"), std::string::npos)
      << err_;
}

TEST_F(ReportCli, UserPackThatDoesNotExistIsAnInputError) {
  EXPECT_EQ(Run("report " + kExample + " -o " + Path("r.html") + " --pack nope.yaml"), 2);
  EXPECT_NE(err_.find("nope.yaml"), std::string::npos) << err_;
  EXPECT_FALSE(fs::exists(Path("r.html")));
}

}  // namespace
