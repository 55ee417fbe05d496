// The report of a trace: the GPU time and the timeline of the slowest step,
// names of any length elided in the middle with the full text on hover, and
// every name from the trace escaped.

#include <gtest/gtest.h>

#include <string>

#include "adapters/chrome/chrome_trace.h"
#include "advisor/report/report_renderers.h"
#include "advisor/pack.h"
#include "advisor/rules.h"

namespace cookgraph {
namespace {

// Two steps; the second is slower. A kernel with a hostile name of 300 characters.
const std::string kLongName = "<script>alert(1)</script>void kernel<" + std::string(260, 'x') + ">(int)";

std::string Trace() {
  std::string events;
  for (int step = 0; step < 2; ++step) {
    const int t0 = step * 1000, len = step == 0 ? 400 : 900;
    events += "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" +
              std::to_string(step) + "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(t0) +
              ", \"dur\": " + std::to_string(len) + "},\n";
    events += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": " +
              std::to_string(t0 + 10) + ", \"dur\": " + std::to_string(len - 100) + "},\n";
    events += "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
              "\"ts\": " + std::to_string(t0 + 20) + ", \"dur\": 5, \"args\": {\"correlation\": " +
              std::to_string(step + 1) + "}},\n";
    events += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm<&>\", \"pid\": 0, \"tid\": 7, \"ts\": " +
              std::to_string(t0 + 30) + ", \"dur\": 50, \"args\": {\"correlation\": " +
              std::to_string(step + 1) + ", \"stream\": 7}},\n";
  }
  events += "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + kLongName +
            "\", \"pid\": 0, \"tid\": 7, \"ts\": 1200, \"dur\": 300, \"args\": {\"correlation\": 2}}\n";
  return "{\"schemaVersion\": 1, \"traceEvents\": [\n" + events + "]}";
}

TEST(ReportTrace, GpuTimeTimelineAndLongNames) {
  auto snapshot = ParseChromeTrace(Trace(), {}, "t.json");
  ASSERT_TRUE(snapshot) << snapshot.error().message;
  const Analysis analysis = Analyse(*snapshot);
  ASSERT_TRUE(analysis.trace);
  ASSERT_TRUE(analysis.trace->slowest);
  EXPECT_EQ(analysis.trace->slowest->step, 1);
  auto pack = BuiltinPack("pytorch");
  ASSERT_TRUE(pack);
  const std::vector<Finding> findings = Evaluate(*pack, *snapshot, analysis);
  ReportInput in{.file = "t.json", .snapshot = *snapshot, .analysis = analysis, .findings = findings};
  const std::string html = RenderReportHtml(in);
  EXPECT_NE(html.find("id=\"gpu-time\""), std::string::npos);
  EXPECT_NE(html.find("id=\"timeline\""), std::string::npos);
  EXPECT_NE(html.find("Step 1: 0.900 ms"), std::string::npos);
  EXPECT_NE(html.find("none (steps of a trace"), std::string::npos);
  // Nothing from the trace is markup.
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  // The long name: cut in the middle in the table, whole in its title.
  const size_t title = html.find("<span title=\"&lt;script&gt;alert(1)&lt;/script&gt;void kernel&lt;xxx");
  ASSERT_NE(title, std::string::npos);
  const size_t shown = html.find("\">", title);
  ASSERT_NE(shown, std::string::npos);
  const size_t end = html.find("</span>", shown);
  const std::string cut = html.substr(shown + 2, end - shown - 2);
  EXPECT_NE(cut.find("…"), std::string::npos) << cut;
  EXPECT_LT(cut.size(), 120u) << cut;
  EXPECT_NE(html.substr(title, shown - title).find(std::string(260, 'x')), std::string::npos);
  EXPECT_NE(html.find("gemm&lt;&amp;&gt;"), std::string::npos);
}

}  // namespace
}  // namespace cookgraph
