// The reports' gain column and "What pays to fix" (docs/commands.md#cookgraph-report):
// the what-if model's numbers (metrics/whatif.h), worked out by hand on three
// nodes that cook one after another, and the chart of the frames without the
// first node, with its id escaped wherever it goes.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "adapters/native/snapshot_reader.h"
#include "advisor/gains.h"
#include "advisor/report/report_renderers.h"
#include "base/text.h"

namespace cookgraph {
namespace {

// 100 fps: a budget of 10 ms. Frames (the sums): 6, 6, 13, 6 ms, the third
// over budget because `spiky` spikes to 9 ms there.
const char* kSerial = R"({
  "cookgraph": 1, "engine": "touchdesigner", "name": "serial", "fps": 100,
  "nodes": [
    {"id": "<img src=x onerror=alert(1)>|spiky", "type": "scriptCHOP", "family": "CHOP"},
    {"id": "/p/steady", "type": "blurTOP", "family": "TOP", "inputs": ["<img src=x onerror=alert(1)>|spiky"]},
    {"id": "/p/out", "type": "nullTOP", "family": "TOP", "inputs": ["/p/steady"], "output": true}
  ],
  "frames": {
    "index": [1, 2, 3, 4],
    "series": {
      "<img src=x onerror=alert(1)>|spiky": {"cook_ms": [2, 2, 9, 2]},
      "/p/steady": {"cook_ms": [3, 3, 3, 3]},
      "/p/out": {"cook_ms": [1, 1, 1, 1]}
    }
  }
})";

const std::string kSpiky = "<img src=x onerror=alert(1)>|spiky";
const std::string kGainHeader =
    "<th class=\"n\" title=\"predicted mean frame ms saved if this node cooked twice as "
    "fast\">gain</th>";

class ReportWhatIfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Snapshot> parsed = ParseSnapshot(kSerial, Spelling::kJson, "serial.json");
    ASSERT_TRUE(parsed) << parsed.error().Format();
    snapshot_ = std::move(*parsed);
    analysis_ = Analyse(snapshot_, AnalysisOptions{.gains = true});
    whatif_ = WhatIf::Build(snapshot_, analysis_);
    gains_ = PredictTopGains(whatif_, analysis_, kTopGainsCount);
  }

  ReportInput Input() const {
    return ReportInput{.file = "serial.json",
                       .snapshot = snapshot_,
                       .analysis = analysis_,
                       .findings = findings_,
                       .advice_note = "offline",
                       .gains = &gains_,
                       .whatif = &whatif_};
  }

  // The text of `html`'s section `id`.
  static std::string Section(const std::string& html, const std::string& id) {
    const size_t at = html.find("<section id=\"" + id + "\">");
    if (at == std::string::npos) return "";
    return html.substr(at, html.find("</section>", at) - at);
  }

  Snapshot snapshot_;
  Analysis analysis_;
  WhatIf whatif_;
  TopGains gains_;
  std::vector<Finding> findings_;
};

TEST_F(ReportWhatIfTest, TheTopNodesTableHasTheGainColumn) {
  // Halving spiky (2, 2, 9, 2) saves its mean half: 1.875 ms.
  ASSERT_EQ(fmt::format("{:.3f}", analysis_.gain_ms[0]), "1.875");
  const std::string top = Section(RenderReportHtml(Input()), "top-nodes");
  EXPECT_NE(top.find("<th class=\"n\">share</th>" + kGainHeader + "<th>flags</th>"),
            std::string::npos);
  EXPECT_NE(top.find("<td class=\"n\">1.875</td><td>"), std::string::npos);
  EXPECT_NE(top.find("<td class=\"n\">1.500</td><td>"), std::string::npos);  // steady: 3 / 2

  const std::string md = RenderReportMarkdown(Input());
  EXPECT_NE(md.find("| share | gain | flags |\n| ---: | --- | --- | ---: | ---: | ---: | ---: | "
                    "---: | ---: | ---: | --- |"),
            std::string::npos);
  EXPECT_NE(md.find(" | 1.875 | "), std::string::npos);
  EXPECT_NE(md.find("gain = the predicted mean frame ms saved if this node cooked twice as fast."),
            std::string::npos);
}

TEST_F(ReportWhatIfTest, WhatPaysToFixListsTheGainsHalvedAndRemoved) {
  const std::string html = RenderReportHtml(Input());
  const std::string s = Section(html, "what-pays");
  ASSERT_FALSE(s.empty());
  EXPECT_NE(s.find("Predicted by the serial frames model"), std::string::npos);
  // spiky halved: frames 5, 5, 8.5, 5 (mean 5.875, p95 7.975, none over);
  // removed: 4, 4, 4, 4. Before: mean 7.75, p95 11.95, one over.
  const std::string spiky =
      "<tr><td class=\"id\">&lt;img src=x onerror=alert(1)&gt;|spiky</td><td class=\"n\">1.875</td>"
      "<td class=\"n\">3.975</td><td class=\"n\">1</td><td class=\"n\">3.750</td><td "
      "class=\"n\">7.950</td>"
      "<td class=\"n\">1</td></tr>";
  // steady halved: 4.5, 4.5, 11.5, 4.5 (still over); removed: 3, 3, 10, 3 (10 is not over 10).
  const std::string steady =
      "<tr><td class=\"id\">/p/steady</td><td class=\"n\">1.500</td><td class=\"n\">1.500</td>"
      "<td class=\"n\">0</td><td class=\"n\">3.000</td><td class=\"n\">3.000</td><td "
      "class=\"n\">1</td></tr>";
  ASSERT_NE(s.find(spiky), std::string::npos) << s;
  ASSERT_NE(s.find(steady), std::string::npos);
  EXPECT_LT(s.find(spiky), s.find(steady));  // by the gain column
  EXPECT_LT(s.find(steady), s.find("/p/out"));
  EXPECT_NE(
      s.find("Without <span class=\"id\">&lt;img src=x onerror=alert(1)&gt;|spiky</span>: mean "
             "7.750 → 4.000 ms, p95 11.950 → 4.000 ms, 1 → 0 frames over budget."),
      std::string::npos);

  const std::string md = RenderReportMarkdown(Input());
  EXPECT_NE(md.find("\n## What pays to fix\n\nPredicted by the serial frames model"),
            std::string::npos);
  EXPECT_NE(md.find("| " + MarkdownText(kSpiky) + " | 1.875 | 3.975 | 1 | 3.750 | 7.950 | 1 |\n"),
            std::string::npos);
  EXPECT_NE(md.find("| /p/steady | 1.500 | 1.500 | 0 | 3.000 | 3.000 | 1 |\n"), std::string::npos);
  // The frames as measured (6, 6, 13, 6) and without spiky (4 each), scaled to 13 ms.
  EXPECT_NE(md.find("(scaled to 13.000 ms):\n\n```text\n▄▄█▄\n▃▃▃▃\n```\n"), std::string::npos);
  EXPECT_FALSE(std::regex_search(md, std::regex(R"((^|[^\\])<)")));  // every < escaped
}

TEST_F(ReportWhatIfTest, TheChartDrawsTheFramesWithoutTheFirstNodeOverTheMeasuredOnes) {
  const std::string s = Section(RenderReportHtml(Input()), "what-pays");
  const size_t svg = s.find("<svg class=\"chart\"");
  ASSERT_NE(svg, std::string::npos);
  EXPECT_NE(
      s.find("aria-labelledby=\"whatif-chart-title\">\n<title id=\"whatif-chart-title\">Frame time "
             "per frame (ms) as measured and predicted without &lt;img src=x "
             "onerror=alert(1)&gt;|spiky"
             "</title>"),
      std::string::npos);
  const size_t before = s.find("<polyline class=\"series before\"", svg);
  const size_t after = s.find("<polyline class=\"series after\"", svg);
  ASSERT_NE(before, std::string::npos);
  ASSERT_NE(after, std::string::npos);
  EXPECT_LT(before, after);  // the prediction on top
  // Every frame predicted under budget: no over-budget mark in this chart,
  // while the frame-time chart marks frame 3.
  EXPECT_EQ(s.find("<circle class=\"over\"", svg), std::string::npos);
  const std::string html = RenderReportHtml(Input());
  EXPECT_NE(Section(html, "frame-time").find("<circle class=\"over\""), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST_F(ReportWhatIfTest, WithoutTheModelOrTheGainsTheReportIsAsBefore) {
  ReportInput input = Input();
  input.whatif = nullptr;
  EXPECT_EQ(RenderReportHtml(input).find("what-pays"), std::string::npos);
  EXPECT_EQ(RenderReportMarkdown(input).find("What pays"), std::string::npos);
  const Analysis plain = Analyse(snapshot_);
  const ReportInput without{
      .file = "serial.json", .snapshot = snapshot_, .analysis = plain, .findings = findings_};
  EXPECT_EQ(RenderReportHtml(without).find(kGainHeader), std::string::npos);
  EXPECT_EQ(RenderReportMarkdown(without).find("| gain |"), std::string::npos);
}

TEST_F(ReportWhatIfTest, StepsWithoutABudgetHaveNoOverBudgetColumns) {
  std::string json = kSerial;
  const std::string td = R"("engine": "touchdesigner", "name": "serial", "fps": 100)";
  json.replace(json.find(td), td.size(), R"("engine": "pytorch", "name": "serial")");
  Result<Snapshot> steps = ParseSnapshot(json, Spelling::kJson, "steps.json");
  ASSERT_TRUE(steps) << steps.error().Format();
  const Analysis analysis = Analyse(*steps, AnalysisOptions{.gains = true});
  ASSERT_FALSE(analysis.has_budget);
  const WhatIf whatif = WhatIf::Build(*steps, analysis);
  const TopGains gains = PredictTopGains(whatif, analysis, kTopGainsCount);
  const ReportInput input{.file = "steps.json",
                          .snapshot = *steps,
                          .analysis = analysis,
                          .findings = findings_,
                          .gains = &gains,
                          .whatif = &whatif};
  const std::string s = Section(RenderReportHtml(input), "what-pays");
  EXPECT_NE(s.find("in mean and p95 step ms; ranked by the gain column."), std::string::npos);
  EXPECT_NE(s.find("<th colspan=\"2\">halved</th><th colspan=\"2\">removed</th>"),
            std::string::npos);
  EXPECT_EQ(s.find("over budget"), std::string::npos);
  EXPECT_NE(s.find("<td class=\"n\">1.875</td><td class=\"n\">3.975</td><td class=\"n\">3.750</td>"
                   "<td class=\"n\">7.950</td></tr>"),
            std::string::npos);
  const std::string md = RenderReportMarkdown(input);
  EXPECT_NE(
      md.find("| id | halved: mean ms | halved: p95 ms | removed: mean ms | removed: p95 ms |\n"
              "| --- | ---: | ---: | ---: | ---: |\n"),
      std::string::npos);
  EXPECT_NE(md.find(" | 1.875 | 3.975 | 3.750 | 7.950 |\n"), std::string::npos);
}

TEST_F(ReportWhatIfTest, NothingToGainSaysSo) {
  TopGains none{.model = "serial frames"};
  ReportInput input = Input();
  input.gains = &none;
  EXPECT_NE(Section(RenderReportHtml(input), "what-pays")
                .find("<p>No node is predicted to save time.</p>"),
            std::string::npos);
  EXPECT_NE(RenderReportMarkdown(input).find("No node is predicted to save time.\n"),
            std::string::npos);
}

}  // namespace
}  // namespace cookgraph
