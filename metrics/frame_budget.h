#ifndef COOKGRAPH_METRICS_FRAME_BUDGET_H_
#define COOKGRAPH_METRICS_FRAME_BUDGET_H_

// Frame times and the frame budget (docs/architecture.md#frame-time-and-the-frame-budget):
// each frame's time and which frames are over it. Where the budget comes
// from (FrameBudgetMs) is the model's: model/snapshot.h.

#include <cstddef>
#include <optional>
#include <vector>

#include "model/samples.h"

namespace cookgraph {

/// Mean, p95 (metrics/percentile.h) and max of `values`, as the frame statistics
/// take them: the mean sums in the order given. `values` is not empty and
/// holds no NaN; it is reordered.
struct MeanP95Max {
  double mean = 0, p95 = 0, max = 0;
};
MeanP95Max MeanP95MaxOf(std::vector<double>& values);

struct FrameSummary {
  /// Per frame (ms): the measured frame_ms when the frame has one, else the sum
  /// of cook_ms over all nodes in that frame; NaN for a frame without work
  /// (Samples::unmeasured_frames_idle).
  std::vector<double> frame_ms;
  /// The frames the statistics are over: all of them, less those without work.
  /// Per-frame costs, shares and over-budget percentages divide by it.
  size_t counted = 0;
  bool measured = false;  // true when the input gave frame_ms
  /// Over the counted frames; 0 when there are none.
  double mean_ms = 0, p95_ms = 0, max_ms = 0;
  double budget_ms = 0;    // 0 when there is no budget
  bool has_budget = true;  // false: steps without a budget; over_budget is empty
  // Positions (0-based, ascending) of frames with frame time > budget.
  std::vector<size_t> over_budget;
};

/// `budget_ms` nullopt: no budget (training steps), so no frame is over one.
FrameSummary SummariseFrames(const Samples& samples, std::optional<double> budget_ms);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_FRAME_BUDGET_H_
