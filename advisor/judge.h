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
#include "metrics/snapshot.h"

namespace cookgraph {

/// A snapshot with its analysis and the findings of its knowledge pack.
struct Judged {
  Snapshot snapshot;
  Analysis analysis;
  KnowledgePack pack;
  std::vector<Finding> findings;
};

/// Analyses `judged.snapshot` (with `budget_ms` when given) and evaluates
/// `pack_path` (or, when it is "", the engine's built-in pack) into `judged`.
/// The Error of a pack that cannot be loaded.
Status Judge(Judged& judged, std::optional<double> budget_ms, const std::string& pack_path);

/// Loads `pack_path` (or, when it is "", the engine's built-in pack) and
/// evaluates it on `judged`, whose analysis is already made. The Error of a
/// pack that cannot be loaded; `judged` is then left as it was.
Status ApplyPack(Judged& judged, const std::string& pack_path);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_JUDGE_H_
