#include "advisor/pack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace cookgraph {
namespace {

bool HasRule(const KnowledgePack& pack, const std::string& id) {
  for (const auto& r : pack.rules) {
    if (r.id == id) return true;
  }
  return false;
}

TEST(PackTest, EveryBuiltinPackLoads) {
  for (const char* engine : {"touchdesigner", "gstreamer", "pytorch", "generic"}) {
    auto pack = BuiltinPack(engine);
    ASSERT_TRUE(pack.ok()) << engine << ": " << pack.error().Format();
    EXPECT_EQ(pack->engine, engine);
    EXPECT_FALSE(pack->guidelines.empty()) << engine;
    EXPECT_FALSE(pack->rules.empty()) << engine;
  }
}

TEST(PackTest, EnginesMapToPacks) {
  EXPECT_EQ(PackNameForEngine("touchdesigner"), "touchdesigner");
  EXPECT_EQ(PackNameForEngine("GStreamer"), "gstreamer");
  EXPECT_EQ(PackNameForEngine("tensorflow"), "pytorch");
  EXPECT_EQ(PackNameForEngine("onnxruntime"), "pytorch");
  EXPECT_EQ(PackNameForEngine("chrome-trace"), "pytorch");
  EXPECT_EQ(PackNameForEngine("my-engine"), "generic");
  auto pack = BuiltinPack("my-engine");
  ASSERT_TRUE(pack.ok()) << pack.error().Format();
  EXPECT_EQ(pack->engine, "generic");
}

TEST(PackTest, EnginePacksExtendGenericAndOverrideById) {
  auto td = BuiltinPack("touchdesigner");
  ASSERT_TRUE(td.ok()) << td.error().Format();
  // Generic rules come along; the engine's own rules are added.
  for (const char* id : {"dominant-node", "spiky-node", "costly-feedback-loop", "dead-cook",
                         "double-cook", "back-pressure", "long-critical-path", "heavy-top"}) {
    EXPECT_TRUE(HasRule(*td, id)) << id;
  }
  size_t loops = 0;
  for (const auto& r : td->rules) loops += r.id == "costly-feedback-loop";
  EXPECT_EQ(loops, 1u);  // replaced in place, not duplicated
  EXPECT_EQ(td->files.size(), 2u);
  // Disabled in engines whose counts per frame are not repeated work.
  auto gst = BuiltinPack("gstreamer");
  ASSERT_TRUE(gst.ok()) << gst.error().Format();
  EXPECT_FALSE(HasRule(*gst, "double-cook"));
  EXPECT_TRUE(HasRule(*gst, "back-pressure"));
  auto pt = BuiltinPack("pytorch");
  ASSERT_TRUE(pt.ok()) << pt.error().Format();
  EXPECT_FALSE(HasRule(*pt, "double-cook"));
}

TEST(PackTest, KeyParamsForATop) {
  auto td = BuiltinPack("touchdesigner");
  ASSERT_TRUE(td.ok());
  Node blur{"/p/blur1", "blurTOP", "TOP", "/p", {}, false};
  const auto params = KeyParamsFor(*td, blur);
  ASSERT_GE(params.size(), 3u);
  EXPECT_EQ(params[0], "resolutionw");
  EXPECT_NE(std::find(params.begin(), params.end(), "format"), params.end());
  EXPECT_NE(std::find(params.begin(), params.end(), "size"), params.end());
}

TEST(PackTest, BadYamlNamesFileAndLine) {
  auto pack = ParsePack("engine: x\nrules:\n  - id: a\n    title: [unclosed\n", "bad.yaml");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().file, "bad.yaml");
  EXPECT_GE(pack.error().line, 4);
  EXPECT_NE(pack.error().message.find("bad YAML"), std::string::npos) << pack.error().Format();
}

constexpr const char* kRuleHead =
    "engine: test\n"
    "rules:\n"
    "  - id: r1\n"
    "    severity: warning\n"
    "    scope: node\n"
    "    title: t\n"
    "    suggestion: s\n";

TEST(PackTest, UnknownFactSuggestsClosest) {
  const std::string text = std::string(kRuleHead) + "    when:\n      - {fact: shar, gt: 0.25}\n";
  auto pack = ParsePack(text, "user.yaml");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().file, "user.yaml");
  EXPECT_EQ(pack.error().line, 9);
  EXPECT_EQ(pack.error().Format(),
            "user.yaml:9:16: rule 'r1'.when[0]: unknown fact 'shar' for scope node (did you mean "
            "'share'?)");
}

TEST(PackTest, MissingIdIsAnError) {
  auto pack = ParsePack("rules:\n  - severity: info\n    scope: node\n", "p.yaml");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().Format(), "p.yaml:2:5: rules[0]: rule has no id");
}

TEST(PackTest, BadSeverityIsAnError) {
  std::string text = kRuleHead;
  text.replace(text.find("warning"), 7, "urgent");
  auto pack = ParsePack(text, "p.yaml");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().line, 4);
  EXPECT_EQ(pack.error().Format(),
            "p.yaml:4:15: rule 'r1': bad severity 'urgent' (expected info, warning or critical)");
}

TEST(PackTest, UnknownKeyAndPlaceholderAreErrors) {
  auto key = ParsePack(std::string(kRuleHead) + "    limt: 3\n", "p.yaml");
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(key.error().Format(),
            "p.yaml:8:5: rule 'r1': unknown key 'limt' (did you mean 'limit'?)");
  std::string text = kRuleHead;
  text.replace(text.find("title: t"), 8, "title: \"{nod} is slow\"");
  auto placeholder = ParsePack(text, "p.yaml");
  ASSERT_FALSE(placeholder.ok());
  EXPECT_EQ(placeholder.error().line, 6);
  EXPECT_NE(placeholder.error().message.find("unknown placeholder '{nod}' (did you mean 'node'?)"),
            std::string::npos)
      << placeholder.error().Format();
}

// A limit is a whole number within 1..1e9: one past size_t's range would not
// convert (32 bits in the WebAssembly build).
TEST(PackTest, ALimitIsAWholeNumberWithinRange) {
  EXPECT_TRUE(ParsePack(std::string(kRuleHead) + "    limit: 1000000000\n", "p.yaml").ok());
  for (const char* bad : {"0", "2.5", "1e12", "18446744073709551616", "-1"}) {
    auto pack = ParsePack(std::string(kRuleHead) + "    limit: " + bad + "\n", "p.yaml");
    ASSERT_FALSE(pack.ok()) << bad;
    EXPECT_NE(pack.error().message.find("limit must be a whole number from 1 to 1000000000"),
              std::string::npos)
        << pack.error().Format();
  }
}

TEST(PackTest, LoopFactsAreCheckedAgainstTheirScope) {
  std::string text = kRuleHead;
  text.replace(text.find("scope: node"), 11, "scope: loop");
  text += "    when: [{fact: dead, is: true}]\n";
  auto pack = ParsePack(text, "p.yaml");
  ASSERT_FALSE(pack.ok());
  EXPECT_NE(pack.error().message.find("unknown fact 'dead' for scope loop"), std::string::npos);
}

TEST(PackTest, AFixHasAFactorBelowOneAndASnippetTemplate) {
  auto pack =
      ParsePack(std::string(kRuleHead) +
                    "    fix:\n      factor: 0.25\n"
                    "      snippet: \"op('{node}').par.resolutionw = {half:resolutionw}\"\n",
                "p.yaml");
  ASSERT_TRUE(pack.ok()) << pack.error().Format();
  EXPECT_EQ(pack->rules[0].fix_factor, 0.25);
  EXPECT_EQ(pack->rules[0].snippet, "op('{node}').par.resolutionw = {half:resolutionw}");
  auto factor = ParsePack(std::string(kRuleHead) + "    fix: {factor: 1.5}\n", "p.yaml");
  ASSERT_FALSE(factor.ok());
  EXPECT_EQ(factor.error().Format(),
            "p.yaml:8:19: rule 'r1'.fix: factor must be at least 0 (removed or cached) and below 1 "
            "(as measured)");
  auto key = ParsePack(std::string(kRuleHead) + "    fix: {snipet: x}\n", "p.yaml");
  ASSERT_FALSE(key.ok());
  EXPECT_NE(key.error().message.find("unknown key 'snipet' (did you mean 'snippet'?)"),
            std::string::npos)
      << key.error().Format();
  // {half:NAME} reads a node's parameter: node scope only.
  std::string loop = kRuleHead;
  loop.replace(loop.find("scope: node"), 11, "scope: loop");
  auto half = ParsePack(loop + "    fix: {snippet: \"{half:resolutionw}\"}\n", "p.yaml");
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().message.find("unknown placeholder '{half:resolutionw}'"),
            std::string::npos)
      << half.error().Format();
}

// {param:NAME|TEXT} and {double:NAME|N}: what stands where the snapshot does
// not give NAME (a GStreamer dump lists only properties away from their
// defaults); N must be a positive number.
TEST(PackTest, ParameterPlaceholdersMayGiveTheDefault) {
  auto ok = ParsePack(std::string(kRuleHead) +
                          "    fix: {snippet: \"x key-int-max={double:key-int-max|250} "
                          "q={param:speed-preset|medium, the default}\"}\n",
                      "p.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().Format();
  auto either = ParsePack(std::string(kRuleHead) + "    fix: {snippet: \"{param:input_dims;input_type_shape|none}\"}\n",
                         "p.yaml");
  ASSERT_TRUE(either.ok()) << either.error().Format();
  for (const char* bad : {"{double:key-int-max|fast}", "{half:key-int-max|0}", "{double:|4}",
                          "{param:|medium}", "{param:a;|x}", "{param:;b}", "{half:q|1}",
                          "{double:q|inf}"}) {
    auto pack = ParsePack(std::string(kRuleHead) + "    fix: {snippet: \"" + bad + "\"}\n", "p.yaml");
    ASSERT_FALSE(pack.ok()) << bad;
    EXPECT_NE(pack.error().message.find(std::string("unknown placeholder '") + bad + "'"),
              std::string::npos)
        << pack.error().Format();
  }
}

TEST(PackTest, EnginePacksLabelTheirSnippets) {
  for (auto [engine, label] :
       {std::pair{"touchdesigner", "Textport"}, std::pair{"gstreamer", "gst-launch-1.0"},
        std::pair{"pytorch", "PyTorch"}, std::pair{"generic", ""}}) {
    auto pack = BuiltinPack(engine);
    ASSERT_TRUE(pack.ok()) << pack.error().Format();
    EXPECT_EQ(pack->snippet_label, label) << engine;
  }
}

// Every built-in snippet names the documentation it relies on (fix.docs), and
// a user's pack may name some too.
TEST(PackTest, BuiltinSnippetsNameTheirDocumentation) {
  size_t snippets = 0;
  for (const char* engine : {"touchdesigner", "gstreamer", "pytorch", "generic"}) {
    auto pack = BuiltinPack(engine);
    ASSERT_TRUE(pack.ok()) << pack.error().Format();
    for (const Rule& r : pack->rules) {
      if (r.snippet.empty()) continue;
      ++snippets;
      EXPECT_TRUE(r.snippet_docs.starts_with("https://")) << engine << " " << r.id;
    }
  }
  EXPECT_GE(snippets, 14u);
  auto own = ParsePack(std::string(kRuleHead) +
                           "    fix: {snippet: \"x\", docs: \"https://example.org/x\"}\n",
                       "p.yaml");
  ASSERT_TRUE(own.ok()) << own.error().Format();
  EXPECT_EQ(own->rules.back().snippet_docs, "https://example.org/x");
}

TEST(PackTest, UserPackFileExtendsABuiltinPack) {
  const auto dir = std::filesystem::temp_directory_path() / "cookgraph_pack_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "mine.yaml").string();
  {
    std::ofstream out(path);
    out << "engine: touchdesigner\nextends: touchdesigner\nrules:\n"
           "  - {id: dead-cook, enabled: false}\n"
           "  - id: my-rule\n    severity: info\n    scope: node\n"
           "    when: [{fact: avg_ms, gt: 1}]\n    title: \"{node}\"\n    suggestion: s\n";
  }
  auto pack = LoadPack(path);
  ASSERT_TRUE(pack.ok()) << pack.error().Format();
  EXPECT_TRUE(HasRule(*pack, "my-rule"));
  EXPECT_TRUE(HasRule(*pack, "heavy-top"));
  EXPECT_FALSE(HasRule(*pack, "dead-cook"));
  std::filesystem::remove_all(dir);
}

TEST(PackTest, MissingFileIsAnError) {
  auto pack = LoadPack("/nonexistent/pack.yaml");
  ASSERT_FALSE(pack.ok());
  EXPECT_EQ(pack.error().file, "/nonexistent/pack.yaml");
}

TEST(PackTest, PatternsAreGlobsOrRegexes) {
  EXPECT_TRUE(PatternMatches(Pattern{"*TOP", std::nullopt}, "blurtop"));
  EXPECT_TRUE(PatternMatches(Pattern{"Gst?ueue", std::nullopt}, "GstQueue"));
  EXPECT_FALSE(PatternMatches(Pattern{"*queue", std::nullopt}, "queue2x"));
  auto pack = ParsePack(
      "rules:\n  - id: r\n    severity: info\n    scope: node\n    title: t\n    suggestion: s\n"
      "    match: {type: \"re:^x26[45]\"}\n",
      "p.yaml");
  ASSERT_TRUE(pack.ok()) << pack.error().Format();
  ASSERT_EQ(pack->rules.size(), 1u);
  EXPECT_TRUE(PatternMatches(pack->rules[0].match.type[0], "X264enc"));
  auto bad = ParsePack(
      "rules:\n  - id: r\n    severity: info\n    scope: node\n    title: t\n    suggestion: s\n"
      "    match: {type: \"re:([\"}\n",
      "p.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().line, 7);
}

}  // namespace
}  // namespace cookgraph
