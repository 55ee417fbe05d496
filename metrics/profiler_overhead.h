#ifndef COOKGRAPH_METRICS_PROFILER_OVERHEAD_H_
#define COOKGRAPH_METRICS_PROFILER_OVERHEAD_H_

// The profiler's own time per frame (Samples::profiler_ms): what measuring
// cost the engine's main thread, reported apart from the network's cost. It is
// in neither the frame time nor any node's cook_ms
// (docs/formats.md#native-snapshot-format), so nothing else depends on it.

#include <cstddef>
#include <optional>

#include "metrics/frame_budget.h"
#include "model/samples.h"

namespace cookgraph {

/// The profiler's own time per frame, summarised (Analysis::profiler).
struct ProfilerOverhead {
  size_t frames = 0;  // frames with a value (profiler_ms not null)
  /// ms over those frames, taken as FrameSummary's; NaN when no frame has one.
  MeanP95Max ms{.mean = kMissing, .p95 = kMissing, .max = kMissing};
  /// ms.mean / the mean frame time, when the input measured frame_ms and that
  /// mean is > 0; nullopt otherwise.
  std::optional<double> share_of_frame;
};

/// nullopt when `samples` has no profiler_ms. `frames` is SummariseFrames'
/// result for the same samples.
std::optional<ProfilerOverhead> SummariseProfiler(const Samples& samples,
                                                  const FrameSummary& frames);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_PROFILER_OVERHEAD_H_
