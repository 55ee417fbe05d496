#include "advisor/token_budget.h"

#include <algorithm>

namespace cookgraph {
namespace {

constexpr size_t kFindingsFirst = 5;   // the gravest findings go in first,
constexpr size_t kTopNodesFirst = 10;  // then loops, the critical path and the top nodes

}  // namespace

std::vector<PromptUnit> PriorityList(size_t findings, size_t loops, bool path, size_t nodes,
                                     size_t guidelines, size_t gains) {
  using Kind = PromptUnit::Kind;
  std::vector<PromptUnit> units;
  units.reserve(gains + findings + loops + 1 + nodes + guidelines);
  const size_t first_findings = std::min(kFindingsFirst, findings);
  const size_t top = std::min(kTopNodesFirst, nodes);
  for (size_t i = 0; i < gains; ++i) units.push_back({Kind::kGain, i});
  for (size_t i = 0; i < first_findings; ++i) units.push_back({Kind::kFinding, i});
  for (size_t i = 0; i < loops; ++i) units.push_back({Kind::kLoop, i});
  if (path) units.push_back({Kind::kPath, 0});
  for (size_t i = 0; i < top; ++i) units.push_back({Kind::kNode, i});
  for (size_t i = first_findings; i < findings; ++i) units.push_back({Kind::kFinding, i});
  for (size_t i = 0; i < guidelines; ++i) units.push_back({Kind::kGuideline, i});
  for (size_t i = top; i < nodes; ++i) units.push_back({Kind::kNode, i});
  return units;
}

PromptSelection SelectPrefix(const std::vector<PromptUnit>& units, size_t taken) {
  PromptSelection s;
  for (size_t i = 0; i < taken; ++i) {
    switch (units[i].kind) {
      case PromptUnit::Kind::kFinding: ++s.findings; break;
      case PromptUnit::Kind::kLoop: ++s.loops; break;
      case PromptUnit::Kind::kPath: s.path = true; break;
      case PromptUnit::Kind::kNode: ++s.nodes; break;
      case PromptUnit::Kind::kGuideline: ++s.guidelines; break;
      case PromptUnit::Kind::kGain:
        ++s.gains;
        break;
    }
  }
  return s;
}

BudgetFit FitPrefix(size_t unit_count, size_t base_tokens, size_t budget,
                    const std::function<size_t(size_t unit)>& unit_cost,
                    const std::function<size_t(size_t taken)>& count_request) {
  size_t taken = 0;
  size_t tokens = base_tokens;
  for (int round = 0; round < 3; ++round) {
    if (round > 0 && taken == unit_count) break;
    size_t used = tokens;
    while (taken < unit_count) {
      const size_t cost = unit_cost(taken);
      if (used + cost > budget) break;
      used += cost;
      ++taken;
    }
    tokens = count_request(taken);
    while (tokens > budget) {
      // Several units at a time when far over: a node line is ~40 tokens.
      taken -= std::min(taken, std::max<size_t>(1, (tokens - budget) / 64));
      tokens = count_request(taken);
    }
    if (budget - tokens < 16) break;
  }
  return {taken, tokens};
}

}  // namespace cookgraph
