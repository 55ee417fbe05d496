#include "metrics/snapshot.h"

namespace cookgraph {

double SnapshotInfo::budget_ms() const { return FrameBudgetMs(frame_budget_ms, fps); }

}  // namespace cookgraph
