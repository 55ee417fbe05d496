#ifndef COOKGRAPH_ADVISOR_TOKEN_BUDGET_H_
#define COOKGRAPH_ADVISOR_TOKEN_BUDGET_H_

// The prompt's token budget (docs/architecture.md#the-prompt-and-its-token-budget):
// what goes into the prompt in which order, and how much of it fits.
//
// The budget counts the whole request as the server counts prompt tokens:
// every message's role and content plus the chat framing (CountChatTokens).
// The role, persona, summary and question always go in (a budget too small for
// them is an error). Then, in this order: the predicted gains row by row
// (docs/architecture.md#advice-ordered-by-impact; a few short lines that say
// what pays most), the five gravest findings, the
// loops, the critical path, the top 10 nodes, the other findings, the
// guidelines paragraph by paragraph, then the other nodes by rank. What goes in
// is always a prefix of that list, so node k is listed only when nodes 1..k-1
// are. The request is counted whole at the end and trimmed until it fits, so
// its count never exceeds the budget by the counter given.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace cookgraph {

/// The default of `--budget-tokens`.
inline constexpr size_t kDefaultBudgetTokens = 20000;

/// One thing that can go into the prompt: the `index`-th finding (in the
/// findings' order), loop (by cost), guideline paragraph, ranked node or
/// predicted gain (by gain), or the critical path.
struct PromptUnit {
  enum class Kind : uint8_t { kFinding, kLoop, kPath, kNode, kGuideline, kGain };
  Kind kind;
  size_t index;
};

/// What is included, by count of each list's leading entries.
struct PromptSelection {
  size_t findings = 0;
  size_t loops = 0;
  bool path = false;
  size_t nodes = 0;
  size_t guidelines = 0;
  size_t gains = 0;
};

/// The order in which things go in, for lists of these lengths.
std::vector<PromptUnit> PriorityList(size_t findings, size_t loops, bool path, size_t nodes,
                                     size_t guidelines, size_t gains = 0);

/// What the first `taken` units of `units` include.
PromptSelection SelectPrefix(const std::vector<PromptUnit>& units, size_t taken);

/// How many leading units go in, and the request's count with them.
struct BudgetFit {
  size_t taken = 0;
  size_t tokens = 0;
};

/// The longest prefix of `unit_count` units whose request fits `budget`.
/// `base_tokens` is the request with no unit (it must fit); `unit_cost(i)`
/// counts unit i alone; `count_request(n)` counts the whole request with the
/// first n units. Units go in while their own counts fit in what is left; then
/// the whole request is counted, and trimmed when over (pieces counted apart
/// need not add up to the whole) or filled further when the pieces' counts
/// were pessimistic. Three rounds at most; the last one trims.
BudgetFit FitPrefix(size_t unit_count, size_t base_tokens, size_t budget,
                    const std::function<size_t(size_t unit)>& unit_cost,
                    const std::function<size_t(size_t taken)>& count_request);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOKEN_BUDGET_H_
