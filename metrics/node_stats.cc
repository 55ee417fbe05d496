#include "metrics/node_stats.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include "metrics/percentile.h"

namespace cookgraph {
namespace {

// The series of `node` for `metric`, cut to the frames of the snapshot: empty
// when the samples have no such node or series. A short series is read as
// missing in the frames past its end (see Samples::SetSeries).
std::span<const double> FrameSeries(const Samples& samples, NodeIndex node, Metric metric) {
  if (node >= samples.node_count()) return {};
  std::span<const double> values = samples.series(node, metric);
  return values.first(std::min(values.size(), samples.frame_count()));
}

// Mean over the values that are present; nullopt when none is.
std::optional<double> MeanOfPresent(std::span<const double> values) {
  double sum = 0;
  size_t count = 0;
  for (double v : values) {
    if (IsMissing(v)) continue;
    sum += v;
    ++count;
  }
  if (count == 0) return std::nullopt;
  return sum / static_cast<double>(count);
}

// The mean and population standard deviation of `values` (none missing).
// Two passes (mean, then squared deviations) keep the variance accurate when
// the values are large and close together; the second term corrects the
// rounding of the mean (the "corrected two-pass" algorithm).
std::pair<double, double> MeanAndStd(std::span<const double> values, double sum) {
  const auto count = static_cast<double>(values.size());
  const double mean = sum / count;
  double squares = 0, deviations = 0;
  for (double v : values) {
    const double d = v - mean;
    squares += d * d;
    deviations += d;
  }
  const double variance = (squares - deviations * deviations / count) / count;
  return {mean, variance > 0 ? std::sqrt(variance) : 0.0};
}

}  // namespace

NodeStats ComputeNodeStats(const Samples& samples, NodeIndex node, double mean_frame_ms,
                           size_t counted_frames) {
  NodeStats stats;
  const size_t frame_count = samples.frame_count();
  if (frame_count == 0) return stats;
  const auto frames = static_cast<double>(counted_frames > 0 ? counted_frames : frame_count);

  // The cooked values, gathered once for the percentiles and max.
  // One scratch buffer per thread, so ranking 100k nodes does not allocate per node.
  thread_local std::vector<double> cooked;
  cooked.clear();
  double sum = 0;
  for (double v : FrameSeries(samples, node, Metric::kCookMs)) {
    if (IsMissing(v)) continue;
    cooked.push_back(v);
    sum += v;
  }
  stats.cooked_frames = cooked.size();

  if (!cooked.empty()) {
    std::tie(stats.avg_ms, stats.std_ms) = MeanAndStd(cooked, sum);
    stats.score = stats.avg_ms * (1 + stats.std_ms);

    static constexpr double kPs[] = {50, 95, 99, 100};
    double at[std::size(kPs)];
    Percentiles(cooked, kPs, at);
    stats.p50_ms = at[0];
    stats.p95_ms = at[1];
    stats.p99_ms = at[2];
    stats.max_ms = at[3];
    stats.per_frame_ms = sum / frames;
    stats.share = mean_frame_ms > 0 ? stats.per_frame_ms / mean_frame_ms : 0.0;
  }

  if (std::span<const double> cooks = FrameSeries(samples, node, Metric::kCooks); !cooks.empty()) {
    double total = 0;
    for (double c : cooks) {
      if (!IsMissing(c)) total += c;  // a frame without a count cooked nothing
    }
    stats.cooks_per_frame = total / frames;
  } else {
    // Without a cooks series, each frame with a cook_ms value counts one cook.
    stats.cooks_per_frame = static_cast<double>(stats.cooked_frames) / frames;
  }

  stats.gpu_avg_ms = MeanOfPresent(FrameSeries(samples, node, Metric::kGpuMs));
  if (stats.gpu_avg_ms) {
    double gpu = 0;
    for (double v : FrameSeries(samples, node, Metric::kGpuMs)) {
      if (!IsMissing(v)) gpu += v;
    }
    stats.gpu_per_frame_ms = gpu / frames;
    stats.gpu_share = mean_frame_ms > 0 ? gpu / frames / mean_frame_ms : 0.0;
  }
  stats.cpu_mem_mb = MeanOfPresent(FrameSeries(samples, node, Metric::kCpuMemMb));
  stats.gpu_mem_mb = MeanOfPresent(FrameSeries(samples, node, Metric::kGpuMemMb));
  stats.inclusive_avg_ms = MeanOfPresent(FrameSeries(samples, node, Metric::kInclusiveMs));

  // The tracer's own times, where cook_ms is the work alone.
  std::vector<double> latency;
  double latency_sum = 0;
  for (double v : FrameSeries(samples, node, Metric::kLatencyMs)) {
    if (IsMissing(v)) continue;
    latency.push_back(v);
    latency_sum += v;
  }
  if (!latency.empty()) {
    const auto [mean, std] = MeanAndStd(latency, latency_sum);
    stats.latency_avg_ms = mean;
    stats.latency_std_ms = std;
    stats.latency_max_ms = *std::max_element(latency.begin(), latency.end());
  }
  return stats;
}

}  // namespace cookgraph
