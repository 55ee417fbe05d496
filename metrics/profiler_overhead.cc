#include "metrics/profiler_overhead.h"

#include <algorithm>
#include <span>
#include <vector>

namespace cookgraph {

std::optional<ProfilerOverhead> SummariseProfiler(const Samples& samples,
                                                  const FrameSummary& frames) {
  if (!samples.has_profiler_ms()) return std::nullopt;
  // Values past frame_count() belong to no frame (Samples::SetSeries).
  std::span<const double> values = samples.profiler_ms();
  values = values.first(std::min(values.size(), samples.frame_count()));
  std::vector<double> measured;
  measured.reserve(values.size());
  for (double v : values) {
    if (!IsMissing(v)) measured.push_back(v);
  }
  ProfilerOverhead overhead{.frames = measured.size()};
  if (measured.empty()) return overhead;
  overhead.ms = MeanP95MaxOf(measured);
  if (frames.measured && frames.mean_ms > 0)
    overhead.share_of_frame = overhead.ms.mean / frames.mean_ms;
  return overhead;
}

}  // namespace cookgraph
