#ifndef COOKGRAPH_ADVISOR_RULES_H_
#define COOKGRAPH_ADVISOR_RULES_H_

// Evaluates a knowledge pack's rules (docs/formats.md#knowledge-packs) against one snapshot and
// its analysis: the offline findings of `cookgraph report` and the prompt.

#include <vector>

#include "advisor/findings.h"
#include "advisor/pack.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"
#include "metrics/whatif.h"

namespace cookgraph {

/// What Evaluate may use beyond the snapshot and its analysis.
struct EvaluateOptions {
  /// The what-if model of the snapshot (WhatIf::Build(snapshot, analysis)),
  /// built once by the caller; null = no predicted gains.
  const WhatIf* whatif = nullptr;
};

/// Every finding of `pack`'s rules on `snapshot` / `analysis` (which must be
/// Analyse(snapshot)). Per rule at most `limit` findings, the candidates with
/// the largest `order_by` fact first (ties: lower NodeIndex / earlier loop).
/// The result is ordered by severity (critical first), then per_frame_ms of
/// the finding's subject (largest first), then share, then rule id, then the
/// first node: the same inputs always give the same list.
///
/// A finding's `numbers` are the rule's evidence facts (name -> raw value:
/// ms, shares as fractions, counts), leaving out facts without a value. Its
/// `nodes`: node scope, the node (then `downstream` for a queue with one);
/// loop scope, the loop's nodes costliest first; critical_path, the path in
/// order; frames, the nodes that spiked most in over-budget frames.
///
/// A rule's snippet, filled in, goes into `snippet` and the suggestion. With
/// `options.whatif` (docs/architecture.md#advice-ordered-by-impact) each
/// finding with a subject to change gets its predicted `gain` (advisor/gains.h)
/// and its suggestion says it, and the list is then ordered by the gain of the
/// fix (PredictedGain::ms, largest first; without a gain as 0), ties keeping
/// the order above.
std::vector<Finding> Evaluate(const KnowledgePack& pack, const Snapshot& snapshot,
                              const Analysis& analysis, const EvaluateOptions& options = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_RULES_H_
