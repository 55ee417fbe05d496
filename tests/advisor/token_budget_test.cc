// What goes into the prompt, in which order, and how much of it fits
// (advisor/token_budget.h), on made-up costs where every count is known.
#include "advisor/token_budget.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cookgraph {
namespace {

std::string Kinds(const std::vector<PromptUnit>& units) {
  std::string out;
  for (const PromptUnit& u : units) {
    switch (u.kind) {
      case PromptUnit::Kind::kFinding: out += 'F'; break;
      case PromptUnit::Kind::kLoop: out += 'L'; break;
      case PromptUnit::Kind::kPath: out += 'P'; break;
      case PromptUnit::Kind::kNode: out += 'N'; break;
      case PromptUnit::Kind::kGuideline: out += 'G'; break;
      case PromptUnit::Kind::kGain:
        out += 'W';
        break;  // what-if
    }
    out += std::to_string(u.index);
  }
  return out;
}

TEST(PriorityList, GraveFindingsLoopsPathTopNodesThenTheRest) {
  // 7 findings, 2 loops, a path, 12 nodes, 2 guideline paragraphs.
  EXPECT_EQ(Kinds(PriorityList(7, 2, true, 12, 2)),
            "F0F1F2F3F4L0L1P0N0N1N2N3N4N5N6N7N8N9F5F6G0G1N10N11");
  EXPECT_EQ(Kinds(PriorityList(1, 0, false, 3, 1)), "F0N0N1N2G0");
  EXPECT_EQ(Kinds(PriorityList(0, 0, false, 0, 0)), "");
}

TEST(PriorityList, PredictedGainsGoInBeforeEverythingElse) {
  // 3 predicted gains (docs/architecture.md#advice-ordered-by-impact), then as above.
  EXPECT_EQ(Kinds(PriorityList(7, 2, true, 12, 2, 3)),
            "W0W1W2F0F1F2F3F4L0L1P0N0N1N2N3N4N5N6N7N8N9F5F6G0G1N10N11");
  const PromptSelection s = SelectPrefix(PriorityList(7, 2, true, 12, 2, 3), 4);
  EXPECT_EQ(s.gains, 3u);
  EXPECT_EQ(s.findings, 1u);
}

TEST(SelectPrefix, CountsEachListsLeadingEntries) {
  const std::vector<PromptUnit> units = PriorityList(7, 2, true, 12, 2);
  const PromptSelection none = SelectPrefix(units, 0);
  EXPECT_EQ(none.findings + none.loops + none.nodes + none.guidelines, 0u);
  EXPECT_FALSE(none.path);
  const PromptSelection some = SelectPrefix(units, 10);  // F0-F4 L0 L1 P0 N0 N1
  EXPECT_EQ(some.findings, 5u);
  EXPECT_EQ(some.loops, 2u);
  EXPECT_TRUE(some.path);
  EXPECT_EQ(some.nodes, 2u);
  EXPECT_EQ(some.guidelines, 0u);
}

TEST(FitPrefix, UnitsGoInWhileTheyFit) {
  // Base 100, each unit 10, the whole request exactly the sum: 9 units fit 190.
  const BudgetFit fit = FitPrefix(
      20, 100, 190, [](size_t) { return size_t{10}; },
      [](size_t taken) { return 100 + 10 * taken; });
  EXPECT_EQ(fit.taken, 9u);
  EXPECT_EQ(fit.tokens, 190u);
}

TEST(FitPrefix, EverythingWhenTheBudgetIsLarge) {
  const BudgetFit fit = FitPrefix(
      5, 100, 100000, [](size_t) { return size_t{10}; },
      [](size_t taken) { return 100 + 10 * taken; });
  EXPECT_EQ(fit.taken, 5u);
  EXPECT_EQ(fit.tokens, 150u);
}

TEST(FitPrefix, TheWholeRequestIsTrimmedWhenPiecesUndercount) {
  // Units counted alone take 10, but each adds 12 to the whole: the pieces
  // promise 9 units within 190, the whole says 208; trimming leaves 7 (184).
  const BudgetFit fit = FitPrefix(
      20, 100, 190, [](size_t) { return size_t{10}; },
      [](size_t taken) { return 100 + 12 * taken; });
  EXPECT_LE(fit.tokens, 190u);
  EXPECT_EQ(fit.taken, 7u);
  EXPECT_EQ(fit.tokens, 184u);
}

TEST(FitPrefix, MoreGoesInWhenPiecesOvercount) {
  // Units counted alone take 20 (a pessimistic estimator), the whole only 10
  // more each: a second round fills what the first left over.
  const BudgetFit fit = FitPrefix(
      50, 100, 400, [](size_t) { return size_t{20}; },
      [](size_t taken) { return 100 + 10 * taken; });
  EXPECT_LE(fit.tokens, 400u);
  EXPECT_GT(fit.taken, 15u);  // one round alone would stop at 15
}

TEST(FitPrefix, NothingFitsButTheBase) {
  const BudgetFit fit = FitPrefix(
      3, 100, 105, [](size_t) { return size_t{10}; },
      [](size_t taken) { return 100 + 10 * taken; });
  EXPECT_EQ(fit.taken, 0u);
  EXPECT_EQ(fit.tokens, 100u);
}

}  // namespace
}  // namespace cookgraph
