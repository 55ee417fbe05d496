// The HTML and Markdown reports: their sections, numbers that are the
// Analysis's own, and escaping of whatever the input's strings hold.

#include "advisor/report/report_renderers.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "adapters/native/snapshot_reader.h"
#include "base/text.h"

namespace cookgraph {
namespace {

// A small network whose ids try to break out of HTML and Markdown: the costliest
// node is named like a script element, another holds & " ' and a '|'.
const char* kSnapshot = R"({
  "cookgraph": 1, "engine": "touchdesigner", "name": "demo <b>bold</b>", "fps": 100,
  "nodes": [
    {"id": "<script>alert(1)</script>", "type": "noiseTOP", "family": "TOP"},
    {"id": "/p/a&\"'b|c", "type": "levelTOP", "family": "TOP", "inputs": ["<script>alert(1)</script>"]},
    {"id": "/p/fb", "type": "feedbackTOP", "family": "TOP", "inputs": ["/p/a&\"'b|c"], "feedback": ["/p/comp"]},
    {"id": "/p/comp", "type": "compositeTOP", "family": "TOP", "inputs": ["/p/fb"]},
    {"id": "/p/lfo", "type": "lfoCHOP", "family": "CHOP"},
    {"id": "/p/out", "type": "nullTOP", "family": "TOP", "inputs": ["/p/comp"], "output": true}
  ],
  "frames": {
    "index": [10, 11, 12, 13],
    "series": {
      "<script>alert(1)</script>": {"cook_ms": [4.0, 5.0, 12.0, 4.5]},
      "/p/a&\"'b|c": {"cook_ms": [1.0, 1.25, 1.0, null]},
      "/p/fb": {"cook_ms": [0.5, 0.5, 0.5, 0.5]},
      "/p/comp": {"cook_ms": [0.75, 0.75, 0.75, 0.75]},
      "/p/lfo": {"cook_ms": [0.1, 0.1, 0.1, 0.1]}
    }
  }
})";

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Snapshot> parsed = ParseSnapshot(kSnapshot, Spelling::kJson, "net.json");
    ASSERT_TRUE(parsed) << parsed.error().Format();
    snapshot_ = std::move(*parsed);
    analysis_ = Analyse(snapshot_);
    Finding finding;
    finding.rule = "heavy-top";
    finding.severity = Severity::kWarning;
    finding.title = "Heavy TOP <img src=x> costs 5.5 ms";
    finding.nodes = {*snapshot_.network.Find("<script>alert(1)</script>")};
    finding.numbers = {{"per_frame_ms", 5.875}, {"share", 0.7}};
    finding.suggestion = "Halve the resolution & use \"8-bit\" 'fixed'";
    findings_ = {finding};
  }

  ReportInput Input(std::string advice = "") const {
    return ReportInput{.file = "net.json",
                       .snapshot = snapshot_,
                       .analysis = analysis_,
                       .findings = findings_,
                       .advice = std::move(advice),
                       .advice_note = "LLM advice: none (offline report)."};
  }

  NodeIndex Top() const { return Rank(analysis_, SortKey::kScore).front(); }

  Snapshot snapshot_;
  Analysis analysis_;
  std::vector<Finding> findings_;
};

TEST_F(ReportTest, HtmlHasEverySection) {
  const std::string html = RenderReportHtml(Input());
  for (const char* id : {"summary", "frame-time", "top-nodes", "families", "loops", "critical-path",
                         "findings", "advice"}) {
    EXPECT_NE(html.find(fmt::format("<section id=\"{}\">", id)), std::string::npos) << id;
  }
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);  // no URL: nothing loads from the network
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("javascript:"), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex(" on[a-z]+=")));  // no event handlers
  EXPECT_NE(html.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(html.find("<polyline class=\"series\""), std::string::npos);
  EXPECT_NE(html.find("<line class=\"budget\""), std::string::npos);
  EXPECT_NE(html.find("<rect class=\"bar"), std::string::npos);
}

TEST_F(ReportTest, HtmlNumbersAreTheAnalysis) {
  const std::string html = RenderReportHtml(Input());
  const NodeStats& top = analysis_.stats[Top()];
  // The top node's row: rank 1, its escaped id, score, avg, p95, max, per-frame.
  const std::string row = fmt::format(
      "<tr><td class=\"n\">1</td><td class=\"id\">&lt;script&gt;alert(1)&lt;/script&gt;</td>"
      "<td class=\"name\">noiseTOP</td><td class=\"n\">{:.3f}</td><td class=\"n\">{:.3f}</td>"
      "<td class=\"n\">{:.3f}</td><td class=\"n\">{:.3f}</td><td class=\"n\">{:.3f}</td>",
      top.score, top.avg_ms, top.p95_ms, top.max_ms, top.per_frame_ms);
  EXPECT_NE(html.find(row), std::string::npos) << row;
  EXPECT_EQ(fmt::format("{:.3f}", top.per_frame_ms), "6.375");
  EXPECT_NE(html.find(fmt::format("mean {:.3f} ms, p95 {:.3f} ms, max {:.3f} ms",
                                  analysis_.frames.mean_ms, analysis_.frames.p95_ms,
                                  analysis_.frames.max_ms)),
            std::string::npos);
  // Budget 10 ms (100 fps): one frame (12) is over it.
  EXPECT_NE(html.find("1 of 4 frames (25.0%)"), std::string::npos);
  EXPECT_NE(html.find("10.000 ms"), std::string::npos);
  ASSERT_EQ(analysis_.loops.size(), 1u);
  EXPECT_NE(html.find(fmt::format("{:.3f}", analysis_.loops[0].per_frame_ms)), std::string::npos);
}

TEST_F(ReportTest, HtmlEscapesEveryInputString) {
  const std::string html = RenderReportHtml(Input("Try <b>this</b> & \"that\"\nsecond line"));
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("/p/a&amp;&quot;&#39;b|c"), std::string::npos);
  EXPECT_NE(html.find("demo &lt;b&gt;bold&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("Heavy TOP &lt;img src=x&gt; costs 5.5 ms"), std::string::npos);
  EXPECT_NE(html.find("Halve the resolution &amp; use &quot;8-bit&quot; &#39;fixed&#39;"),
            std::string::npos);
  EXPECT_NE(html.find("<p>Try &lt;b&gt;this&lt;/b&gt; &amp; &quot;that&quot;\nsecond line</p>"),
            std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST_F(ReportTest, HtmlShowsFindingsAndTheAdviceNote) {
  const std::string html = RenderReportHtml(Input());
  EXPECT_NE(html.find("<div class=\"finding warning\">"), std::string::npos);
  EXPECT_NE(html.find("<code>per_frame_ms</code> = 5.875, <code>share</code> = 0.7"),
            std::string::npos);
  EXPECT_NE(html.find("LLM advice: none (offline report)."), std::string::npos);
}

TEST_F(ReportTest, HtmlWithoutFramesOrFindingsStillRenders) {
  Result<Snapshot> empty = ParseSnapshot(
      R"({"cookgraph": 1, "nodes": [{"id": "a"}], "frames": {"index": [], "series": {}}})",
      Spelling::kJson, "empty.json");
  ASSERT_TRUE(empty) << empty.error().Format();
  Analysis analysis = Analyse(*empty);
  std::vector<Finding> none;
  const std::string html = RenderReportHtml(
      {.file = "empty.json", .snapshot = *empty, .analysis = analysis, .findings = none});
  EXPECT_NE(html.find("no frames"), std::string::npos);
  EXPECT_NE(html.find("No node cooked in any frame."), std::string::npos);
  EXPECT_NE(html.find("No rule of the knowledge pack matched."), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST_F(ReportTest, HtmlEmbedsTheHeatmapAsInlineSvg) {
  Result<Heatmap> heatmap = DrawHeatmap("net.json", snapshot_, analysis_);
  ASSERT_TRUE(heatmap) << heatmap.error().Format();
  ReportInput input = Input();
  input.heatmap = &*heatmap;
  const std::string html = RenderReportHtml(input);
  const size_t section = html.find("<section id=\"heatmap\"><h2>Network heatmap</h2>");
  ASSERT_NE(section, std::string::npos);
  const size_t svg = html.find("<svg width=\"", html.find("<div class=\"heatmap\">", section));
  ASSERT_NE(svg, std::string::npos);
  EXPECT_LT(svg, html.find("</section>", section));
  EXPECT_NE(html.find("Showing 6 of 6 nodes."), std::string::npos);
  EXPECT_NE(html.find("showing 6 of 6 nodes</text>", svg), std::string::npos);
  // Graphviz escaped the ids; the prolog and namespace URLs are gone.
  EXPECT_NE(html.find("xlink:title=\"&lt;script&gt;alert(1)&lt;/script&gt; (noiseTOP)", svg),
            std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<?xml"), std::string::npos);
  EXPECT_EQ(html.find("<!DOCTYPE svg"), std::string::npos);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_FALSE(std::regex_search(html, std::regex(" on[a-z]+=")));
}

TEST_F(ReportTest, HtmlWithoutHeatmapSaysWhy) {
  ReportInput input = Input();
  input.heatmap_note = "The heatmap could not be drawn: <reason>";
  const std::string html = RenderReportHtml(input);
  EXPECT_NE(html.find("<section id=\"heatmap\"><h2>Network heatmap</h2>\n<p class=\"muted\">The "
                      "heatmap could not be drawn: &lt;reason&gt;</p></section>"),
            std::string::npos);
  EXPECT_EQ(html.find("<div class=\"heatmap\">"), std::string::npos);
}

// Cells of a Markdown table row: split at '|' not preceded by a backslash.
size_t Cells(const std::string& line) {
  size_t bars = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++bars;
  }
  return bars - 1;
}

TEST_F(ReportTest, MarkdownHasEverySectionAndWellFormedTables) {
  const std::string md = RenderReportMarkdown(Input());
  for (const char* heading :
       {"## Summary", "## Frame time", "## Top nodes", "## Per-family breakdown",
        "## Feedback loops", "## Critical path", "## Findings", "## LLM advice"}) {
    EXPECT_NE(md.find(std::string("\n") + heading + "\n"), std::string::npos) << heading;
  }
  // Every table: a header, an alignment row, and rows with the header's cell count.
  std::istringstream lines(md);
  std::string line, previous;
  size_t columns = 0, tables = 0;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] != '|') {
      columns = 0;
    } else if (columns == 0) {
      columns = Cells(line);
      ++tables;
      ASSERT_TRUE(std::getline(lines, line));
      EXPECT_EQ(line.find_first_not_of("|-: "), std::string::npos) << line;
      EXPECT_EQ(Cells(line), columns) << line;
    } else {
      EXPECT_EQ(Cells(line), columns) << line;
    }
    EXPECT_EQ(line.find('\t'), std::string::npos);
  }
  EXPECT_EQ(tables, 4u);  // summary, top nodes, families, loops
}

TEST_F(ReportTest, MarkdownEscapesAndKeepsTheNumbers) {
  const std::string md = RenderReportMarkdown(Input());
  const NodeStats& top = analysis_.stats[Top()];
  EXPECT_NE(md.find(fmt::format("| 1 | \\<script\\>alert(1)\\</script\\> | noiseTOP | {:.3f} | "
                                "{:.3f} | {:.3f} | {:.3f} | {:.3f} |",
                                top.score, top.avg_ms, top.p95_ms, top.max_ms, top.per_frame_ms)),
            std::string::npos);
  EXPECT_NE(md.find("/p/a\\&\"'b\\|c"), std::string::npos);
  EXPECT_NE(md.find("# cookgraph report: touchdesigner snapshot demo \\<b\\>bold\\</b\\>"),
            std::string::npos);
  EXPECT_FALSE(std::regex_search(md, std::regex(R"((^|[^\\])<)")));  // every < escaped
  EXPECT_NE(md.find("- evidence: per\\_frame\\_ms = 5.875, share = 0.7"), std::string::npos);
  EXPECT_NE(md.find("Over-budget frames: 12 (14.350 ms)."), std::string::npos);
}

// The answer is Markdown: the report shows it so (it was once a block of
// raw text), with nothing in it that runs, loads or links.
const char* kMarkdownAdvice =
    "# Plan\n\n1. **Halve** `noise1` (saves 2 ms)\n2. Read [the docs](https://docs.example/top)"
    " or <https://docs.example/auto>\n\n```cpp\nstd::vector<int> v;\n```\n\n"
    "<script>alert(1)</script>\n\n"
    "Then <img src=x onerror=alert(2)> and [x](javascript:alert(3)) and "
    "![pixel](https://tracker.example/p.png) and <b onclick=alert(4)>bold</b>.\n";

TEST_F(ReportTest, HtmlRendersTheAdviceAsMarkdownAndNothingInItRuns) {
  const std::string html = RenderReportHtml(Input(kMarkdownAdvice));
  const size_t begin = html.find("<section id=\"advice\">");
  ASSERT_NE(begin, std::string::npos);
  const std::string advice = html.substr(begin, html.find("</section>", begin) - begin);
  // Markdown, rendered; headings under the section's own.
  EXPECT_NE(advice.find("<h3>Plan</h3>"), std::string::npos) << advice;
  EXPECT_NE(advice.find("<ol>\n<li><strong>Halve</strong> <code>noise1</code> (saves 2 ms)</li>"),
            std::string::npos) << advice;
  EXPECT_NE(advice.find("<pre><code class=\"language-cpp\">std::vector&lt;int&gt; v;\n</code></pre>"),
            std::string::npos) << advice;
  // Links are their text and web URL, as text; raw HTML is text.
  EXPECT_NE(advice.find("Read the docs (https://docs.example/top) or https://docs.example/auto</li>"),
            std::string::npos) << advice;
  EXPECT_NE(advice.find("<pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>"),
            std::string::npos) << advice;
  EXPECT_NE(advice.find("Then &lt;img src=x onerror=alert(2)&gt; and x and pixel (image: "
                        "https://tracker.example/p.png) and &lt;b onclick=alert(4)&gt;bold&lt;/b&gt;."),
            std::string::npos) << advice;
  for (const char* live : {"<script", "<img", "<a ", "href", "src=\"", "<b ", "javascript:"}) {
    EXPECT_EQ(advice.find(live), std::string::npos) << live << " in " << advice;
  }
  EXPECT_FALSE(std::regex_search(advice, std::regex("<[a-z0-9]+ on[a-z]+=")));
}

TEST_F(ReportTest, MarkdownAdviceIsMarkdownThatHoldsNoHtml) {
  const std::string md = RenderReportMarkdown(Input(kMarkdownAdvice));
  const std::string advice = md.substr(md.find("## LLM advice\n\n"));
  EXPECT_EQ(advice.find("```text"), std::string::npos) << advice;  // not fenced as text
  EXPECT_NE(advice.find("\n### Plan\n"), std::string::npos) << advice;
  EXPECT_NE(advice.find("1.  **Halve** `noise1` (saves 2 ms)"), std::string::npos) << advice;
  EXPECT_NE(advice.find("``` cpp\nstd::vector<int> v;\n```"), std::string::npos) << advice;
  // Raw HTML is code or, outside code, has every '<' escaped, so no renderer
  // takes it for HTML.
  EXPECT_NE(advice.find("\n<script>alert(1)</script>\n```\n"), std::string::npos) << advice;
  EXPECT_NE(advice.find("Then \\<img src=x onerror=alert(2)\\> and x and pixel"), std::string::npos)
      << advice;
  EXPECT_EQ(advice.find("](") , std::string::npos) << advice;  // no link or image syntax
  EXPECT_EQ(advice.find("javascript:"), std::string::npos) << advice;
  EXPECT_NE(advice.find("\\<b onclick=alert(4)\\>bold\\</b\\>."), std::string::npos) << advice;
}

// A single thing is counted in the singular everywhere (it was "1 findings",
// "1 nodes").
TEST(ReportCounts, OneOfEachIsSingular) {
  Result<Snapshot> one = ParseSnapshot(
      R"({"cookgraph": 1, "fps": 100, "nodes": [{"id": "a", "type": "noiseTOP"}],
          "frames": {"index": [7], "series": {"a": {"cook_ms": [20]}}}})",
      Spelling::kJson, "one.json");
  ASSERT_TRUE(one) << one.error().Format();
  const Analysis analysis = Analyse(*one);
  Result<Heatmap> heatmap = DrawHeatmap("one.json", *one, analysis);
  ASSERT_TRUE(heatmap) << heatmap.error().Format();
  std::vector<Finding> findings(1);
  findings[0].title = "one";
  ReportInput input{.file = "one.json", .snapshot = *one, .analysis = analysis,
                    .findings = findings, .heatmap = &*heatmap};
  const std::string html = RenderReportHtml(input);
  const std::string md = RenderReportMarkdown(input);
  for (const std::string* text : {&html, &md}) {
    EXPECT_NE(text->find("1 (1 cooked), 0 edges"), std::string::npos);
    EXPECT_NE(text->find("1 of 1 frame (100.0%)"), std::string::npos);
    EXPECT_NE(text->find("The costliest of 1 cooked node by score"), std::string::npos);
    EXPECT_NE(text->find("1 node, 20.000 ms per frame"), std::string::npos);
    std::smatch plural;
    EXPECT_FALSE(std::regex_search(
        *text, plural,
        std::regex(R"(\b1 (nodes|frames|edges|findings|columns|events|steps|records|loops))")))
        << plural.str();
  }
  EXPECT_NE(html.find("against the budget of 10.000 ms; 1 of 1 frame over budget"), std::string::npos);
  EXPECT_NE(html.find("frames (1 shown as 1 column)"), std::string::npos);
  EXPECT_NE(html.find("of the top 1 node</title>"), std::string::npos);
  EXPECT_NE(html.find("Showing 1 of 1 node."), std::string::npos);
  EXPECT_NE(html.find("showing 1 of 1 node</text>"), std::string::npos);
}

// Names of any length (a kernel's signature) never squeeze a table: cut in the
// middle with the whole name on hover, in every table, and the name columns
// keep a minimum width while numbers never wrap.
TEST(ReportNames, TablesHoldNamesOfAnyLength) {
  const std::string kernel = "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(" +
                             std::string(240, 'x') + ")";
  const std::string text = fmt::format(
      R"({{"cookgraph": 1, "fps": 60, "nodes": [{{"id": "{0}", "type": "kernel {0}"}}, {{"id": "b"}}],
          "frames": {{"index": [1, 2], "series": {{"{0}": {{"cook_ms": [{1}, {1}]}},
          "b": {{"cook_ms": [1, 1]}}}}}}}})",
      kernel, 4);
  Result<Snapshot> before = ParseSnapshot(text, Spelling::kJson, "before.json");
  ASSERT_TRUE(before) << before.error().Format();
  Result<Snapshot> after = ParseSnapshot(text, Spelling::kJson, "after.json");
  ASSERT_TRUE(after) << after.error().Format();
  const Analysis before_analysis = Analyse(*before), analysis = Analyse(*after);
  const SnapshotDiff diff = CompareSnapshots(*before, before_analysis, *after, analysis);
  std::vector<Finding> none;
  const std::string html = RenderReportHtml({.file = "after.json", .snapshot = *after,
                                             .analysis = analysis, .findings = none,
                                             .comparison = &diff, .baseline_file = "before.json"});
  const std::string cut = TruncateMiddle(kernel, 48);
  // The top nodes' id and type, the comparison's id: cut, whole in the title.
  const std::string cell = "<span title=\"" + EscapeHtml(kernel) + "\">" + EscapeHtml(cut) + "</span>";
  EXPECT_NE(html.find("<td class=\"id\">" + cell + "</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"id\">" + cell + "</td><td class=\"n\">4.000</td>"),
            std::string::npos);  // the comparison's row
  EXPECT_NE(html.find("<td class=\"name\"><span title=\"kernel " + EscapeHtml(kernel) + "\">"),
            std::string::npos);
  EXPECT_EQ(html.find(" nowrap\""), std::string::npos);  // names wrap when they must
  EXPECT_EQ(html.find("\"nowrap\""), std::string::npos);
  EXPECT_NE(html.find("td.id, td.name { min-width: 16ch; }"), std::string::npos);
  EXPECT_NE(html.find("td.n, th.n { text-align: right; white-space: nowrap; }"), std::string::npos);
}

// The heatmap scales to its box and keeps its viewBox; a toggle shows it at
// its own size (the picture of the TouchDesigner example, 3424 × 3505 pt, was
// once shown at that size in a fixed box: its empty top-left corner).
TEST_F(ReportTest, HtmlHeatmapFitsItsBoxWithTheFullSizeOneClickAway) {
  Result<Heatmap> heatmap = DrawHeatmap("net.json", snapshot_, analysis_);
  ASSERT_TRUE(heatmap) << heatmap.error().Format();
  std::smatch size;
  ASSERT_TRUE(std::regex_search(heatmap->svg, size,
                                std::regex(R"re(<svg width="(\d+)pt" height="(\d+)pt")re")));
  EXPECT_EQ(heatmap->width_pt, std::stod(size[1]));
  EXPECT_EQ(heatmap->height_pt, std::stod(size[2]));
  ReportInput input = Input();
  input.heatmap = &*heatmap;
  const std::string html = RenderReportHtml(input);
  const double w = heatmap->width_pt * 4 / 3, h = heatmap->height_pt * 4 / 3;
  const std::string fit = fmt::format(
      "<div class=\"heatmap\"><div class=\"heatmap-fit\" style=\"--fit: max(min(100%, {0:.0f}px, "
      "{1:.2f}vh), {2:.0f}px); --full: {0:.0f}px; aspect-ratio: {0:.0f} / {3:.0f}\"><svg width=",
      w, 80 * w / h, std::min(w, 240 * std::max(1.0, w / h)), h);
  const size_t box = html.find(fit);
  ASSERT_NE(box, std::string::npos) << fit;
  const size_t toggle = html.find("<details class=\"heatmap-size\"><summary>");
  ASSERT_NE(toggle, std::string::npos);
  EXPECT_LT(toggle, box);
  EXPECT_NE(html.find("viewBox=\"", box), std::string::npos);
  EXPECT_NE(html.find(".heatmap-fit svg { display: block; width: 100%; height: 100%; }"),
            std::string::npos);
  EXPECT_NE(html.find(".heatmap-size[open] ~ .heatmap .heatmap-fit { width: var(--full); }"),
            std::string::npos);

  // A long chain: 53,219 × 2,000 pt keeps 240 px of height, and the box scrolls.
  Heatmap wide;
  wide.svg = R"(<svg width="53219pt" height="2000pt" viewBox="0.00 0.00 53219.00 2000.00"></svg>)";
  wide.width_pt = 53219;
  wide.height_pt = 2000;
  input.heatmap = &wide;
  EXPECT_NE(RenderReportHtml(input).find(
                "--fit: max(min(100%, 70959px, 2128.76vh), 6386px); --full: 70959px; "
                "aspect-ratio: 70959 / 2667"),
            std::string::npos);
}

// The answer is input too: control characters (a terminal's escape sequences,
// NUL) become '?' in both reports; line breaks stay.
TEST_F(ReportTest, ControlCharactersOfTheAdviceNeverReachTheFile) {
  const std::string advice = std::string("red \x1b[31mtext\x1b]0;title\x07\nnul ") + '\0' +
                             " end\r\n\xc2\x9b"
                             "2J";
  const std::string md = RenderReportMarkdown(Input(advice));
  EXPECT_NE(md.find("## LLM advice\n\nred ?\\[31mtext?\\]0;title?\nnul ? end?\n?2J\n"),
            std::string::npos)
      << md;
  const std::string html = RenderReportHtml(Input(advice));
  EXPECT_NE(html.find("<div class=\"advice\">\n<p>red ?[31mtext?]0;title?\nnul ? end?\n?2J</p>"),
            std::string::npos);
  for (const std::string* text : {&md, &html}) {
    EXPECT_EQ(text->find('\x1b'), std::string::npos);
    EXPECT_EQ(text->find('\0'), std::string::npos);
    EXPECT_EQ(text->find("\xc2\x9b"), std::string::npos);
  }
}

}  // namespace
}  // namespace cookgraph
