#ifndef COOKGRAPH_METRICS_FRAMES_H_
#define COOKGRAPH_METRICS_FRAMES_H_

// Frame times and the frame budget (DESIGN.md §4 "frame time", "over-budget frame").

#include <cstddef>
#include <vector>

#include "metrics/samples.h"

namespace cookgraph {

struct FrameSummary {
  /// Per frame (ms): the measured frame_ms when the frame has one, else the sum
  /// of cook_ms over all nodes in that frame.
  std::vector<double> frame_ms;
  bool measured = false;  // true when the input gave frame_ms
  double mean_ms = 0, p95_ms = 0, max_ms = 0;  // 0 when there are no frames
  double budget_ms = 0;
  std::vector<size_t> over_budget;  // positions (0-based) of frames with frame time > budget
};

FrameSummary SummariseFrames(const Samples& samples, double budget_ms);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_FRAMES_H_
