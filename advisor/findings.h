#ifndef COOKGRAPH_ADVISOR_FINDINGS_H_
#define COOKGRAPH_ADVISOR_FINDINGS_H_

// Findings: the offline answer (docs/architecture.md#knowledge-packs-and-findings). A knowledge pack's rules are
// evaluated against a snapshot and its analysis; each match is a finding with
// the numbers that triggered it and a concrete suggestion.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "graph/network.h"
#include "metrics/analysis.h"
#include "metrics/snapshot.h"

namespace cookgraph {

enum class Severity : uint8_t { kInfo, kWarning, kCritical };

/// "info", "warning", "critical".
std::string_view SeverityName(Severity severity);

struct Finding {
  std::string rule;      // the rule's id, e.g. "feedback-loop"
  Severity severity = Severity::kInfo;
  std::string title;     // one line, e.g. "Feedback loop costs 4.36 ms per frame (26% of frame time)"
  std::vector<NodeIndex> nodes;  // the nodes concerned, most important first
  /// The evidence: name (with unit) -> value, in the order the rule lists them,
  /// e.g. {"per_frame_ms", 4.358}, {"share", 0.26}.
  std::vector<std::pair<std::string, double>> numbers;
  std::string suggestion;  // what to change, in the pack's words with the numbers filled in
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_FINDINGS_H_
