#ifndef COOKGRAPH_ADVISOR_JUDGE_H_
#define COOKGRAPH_ADVISOR_JUDGE_H_

// One snapshot analysed and judged by its knowledge pack: what `ask`,
// `report`, the explorer's views and the Python module's `findings()` and
// `prompt()` start from (docs/architecture.md#knowledge-packs-and-findings).

#include <optional>
#include <string>
#include <vector>

#include "advisor/findings.h"
#include "advisor/pack.h"
#include "base/error.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

/// A snapshot with its analysis and the findings of its knowledge pack.
struct Judged {
  Snapshot snapshot;
  Analysis analysis;
  KnowledgePack pack;
  std::vector<Finding> findings;
  /// The nodes that pay most to fix (advisor/gains.h); empty unless the
  /// analysis has gains (AnalysisOptions::gains).
  TopGains gains;
};

/// Loads `pack_path` (or, when it is "", the engine's built-in pack) and
/// evaluates it on `judged`, whose analysis is already made. When the analysis
/// has gains (docs/architecture.md#advice-ordered-by-impact) one what-if model
/// is built for the findings' predicted gains and `judged.gains`. The Error of
/// a pack that cannot be loaded; `judged` is then left as it was.
Status ApplyPack(Judged& judged, const std::string& pack_path);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_JUDGE_H_
