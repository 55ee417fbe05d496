#ifndef COOKGRAPH_LIVE_FRAME_RECORD_H_
#define COOKGRAPH_LIVE_FRAME_RECORD_H_

// What one live message says about one frame (docs/commands.md#cookgraph-watch,
// protocol): the engine's frame number, optionally the measured frame time,
// and the numbers of the nodes that cooked in it. Both wire forms (JSON lines,
// OSC bundles) decode to this.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "model/samples.h"

namespace cookgraph {

/// One node's numbers in one frame, indexed by Metric (ms, MB, a count);
/// NaN = not given.
using MetricValues = std::array<double, kMetricCount>;

/// MetricValues with every entry missing.
inline MetricValues NoValues() {
  MetricValues values;
  values.fill(kMissing);
  return values;
}

struct NodeSample {
  std::string id;
  MetricValues values = NoValues();
};

/// One message: all of a frame, or one part of it when `more` is set.
struct FrameRecord {
  int64_t frame = 0;           // the engine's frame number
  double frame_ms = kMissing;  // ms; NaN = not measured
  bool more = false;           // further parts of this frame follow
  std::vector<NodeSample> nodes;
};

/// Largest value a live message may carry (as in snapshots).
inline constexpr double kMaxLiveValue = 1e12;

}  // namespace cookgraph

#endif  // COOKGRAPH_LIVE_FRAME_RECORD_H_
