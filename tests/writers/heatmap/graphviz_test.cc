#include "writers/heatmap/graphviz.h"

#include <graphviz/cgraph.h>
#include <gtest/gtest.h>

#include <string>

namespace cookgraph {
namespace {

char* C(const char* s) { return const_cast<char*>(s); }

TEST(RenderDotSvg, LaysOutAndRendersWhatTheBuilderMade) {
  Result<DotRendering> out = RenderDotSvg("net.json", [](Agraph_t* g) {
    Agnode_t* a = agnode(g, C("a"), 1);
    Agnode_t* b = agnode(g, C("b"), 1);
    agedge(g, a, b, nullptr, 1);
  });
  ASSERT_TRUE(out) << out.error().Format();
  EXPECT_NE(out->svg.find("<svg"), std::string::npos);
  EXPECT_NE(out->svg.find("<title>a&#45;&gt;b</title>"), std::string::npos);
  EXPECT_TRUE(out->warnings.empty());
}

TEST(RenderDotSvg, GraphvizMessagesBecomeWarningsNotStderr) {
  ::testing::internal::CaptureStderr();
  Result<DotRendering> out = RenderDotSvg("net.json", [](Agraph_t* g) {
    Agnode_t* a = agnode(g, C("a"), 1);
    // A malformed HTML-like label: Graphviz complains and draws the text.
    char* html = agstrdup_html(g, C("<TABLE><TR><TD>x</TD></TABLE>"));
    agsafeset(a, C("label"), html, C(""));
    agstrfree(g, html);
  });
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(out) << out.error().Format();
  EXPECT_EQ(stderr_text, "");
  ASSERT_FALSE(out->warnings.empty());
  // Graphviz 2.42's words, without its "Error: " prefix.
  EXPECT_EQ(out->warnings.front(), "mismatched tag in line 1");
}

}  // namespace
}  // namespace cookgraph
