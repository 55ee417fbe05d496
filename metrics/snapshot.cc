#include "metrics/snapshot.h"

#include <cmath>

namespace cookgraph {

double SnapshotInfo::budget_ms() const {
  // A budget or rate that is zero, negative or not finite cannot describe a
  // frame; fall through to the next source rather than flag every frame.
  if (frame_budget_ms && std::isfinite(*frame_budget_ms) && *frame_budget_ms > 0) {
    return *frame_budget_ms;
  }
  if (fps && std::isfinite(*fps) && *fps > 0) return 1000.0 / *fps;
  return kDefaultBudgetMs;
}

}  // namespace cookgraph
