// What the rules of a knowledge pack fire on (advisor/rules.cc): the
// subjects of each scope with their facts (rule_subjects.cc), and the
// conditions a rule tests them with (rule_conditions.cc). Not a public header.

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "advisor/gains.h"
#include "advisor/pack.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph::rules_internal {

using Facts = std::vector<std::optional<double>>;

// One thing a rule may fire on: a node, a loop, the critical path, the frames.
struct Subject {
  Facts facts;                                                 // parallel to ScopeFacts(scope)
  std::vector<std::pair<std::string_view, std::string>> text;  // text placeholders
  const Node* node = nullptr;                                  // node scope: for params
  std::vector<NodeIndex> nodes;
  size_t order = 0;  // position among subjects of the scope, for ties
  // What the predicted gain changes (docs/architecture.md#advice-ordered-by-impact),
  // and how the sentence names it; empty = no prediction (a rank's GPU time).
  std::vector<NodeIndex> gain_nodes;
  GainSubject gain_subject;
};

// The number `s` spells, whole or nothing.
std::optional<double> ParseNumber(std::string_view s);

// Whether subject `s` meets condition `c` (a rule's `when`).
bool Holds(const Condition& c, const Subject& s);

// The subjects of the scopes other than nodes, in their order.
std::vector<Subject> ThreadSubjects(const Snapshot& snapshot, const Analysis& a,
                                    const std::string& engine);
std::vector<Subject> LoopSubjects(const Snapshot& snapshot, const Analysis& a,
                                  const std::string& engine);
std::vector<Subject> PathSubjects(const Snapshot& snapshot, const Analysis& a,
                                  const std::string& engine);
std::vector<Subject> FrameSubjects(const Snapshot& snapshot, const Analysis& a,
                                   const std::string& engine);
std::vector<Subject> GpuSubjects(const Analysis& a, const std::string& engine);

}  // namespace cookgraph::rules_internal
