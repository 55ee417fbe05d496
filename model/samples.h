#ifndef COOKGRAPH_MODEL_SAMPLES_H_
#define COOKGRAPH_MODEL_SAMPLES_H_

// Per-frame samples, stored column-wise: one contiguous series per node and
// metric, frame after frame. A missing value is NaN and means "did not cook in
// that frame"; it is never zero. A series is a span into memory the samples
// share with their copies: its own vector, or a reader's SeriesStore.

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "graph/network.h"

namespace cookgraph {

enum class Metric : uint8_t {
  kCookMs,    // ms; time of the node's cooks in that frame (the scored metric)
  kGpuMs,     // ms; GPU time of those cooks
  kCpuMemMb,  // MB; CPU memory held by the node
  kGpuMemMb,  // MB; GPU memory held by the node
  kCooks,     // count of cooks in that frame
  /// ms; the engine tracer's own time of those cooks where it counts waiting
  /// as well as work, and cook_ms is the work alone (GStreamer's
  /// element-latency, docs/architecture.md#work-and-waiting-in-a-gstreamer-pipeline)
  kLatencyMs,
  /// ms; the whole time of those cooks, the calls they made included (self
  /// time is cook_ms), where the engine nests calls (Chrome traces).
  kInclusiveMs,
};
inline constexpr int kMetricCount = 7;

/// "cook_ms", "gpu_ms", "cpu_mem_mb", "gpu_mem_mb", "cooks", "latency_ms", "inclusive_ms".
std::string_view MetricName(Metric metric);
/// The metric named `name`, or nullopt.
std::optional<Metric> ParseMetric(std::string_view name);

/// The sentinel for "no value in this frame".
inline constexpr double kMissing = NAN;
inline bool IsMissing(double v) { return std::isnan(v); }

class Samples {
 public:
  Samples() = default;
  /// Room for `node_count` nodes; no series yet.
  explicit Samples(size_t node_count);

  size_t node_count() const { return columns_[0].size(); }
  size_t frame_count() const { return frame_index_.size(); }

  /// The engine's frame numbers, one per frame.
  const std::vector<int64_t>& frame_index() const { return frame_index_; }
  void SetFrameIndex(std::vector<int64_t> index) { frame_index_ = std::move(index); }

  /// Measured frame time per frame (ms; NaN = not measured), or empty when the
  /// input gives none.
  std::span<const double> frame_ms() const { return frame_ms_; }
  bool has_frame_ms() const { return !frame_ms_.empty(); }
  /// `values` is empty or has frame_count() entries.
  void SetFrameMs(std::vector<double> values) { frame_ms_ = std::move(values); }

  /// The profiler's own time per frame (ms; NaN = not measured), or empty when
  /// the input gives none: time the engine's main thread spent in the exporter,
  /// which is in neither frame_ms nor any node's cook_ms
  /// (docs/formats.md#native-snapshot-format).
  std::span<const double> profiler_ms() const { return profiler_ms_; }
  bool has_profiler_ms() const { return !profiler_ms_.empty(); }
  /// `values` is empty or has frame_count() entries.
  void SetProfilerMs(std::vector<double> values) { profiler_ms_ = std::move(values); }

  /// How a frame without a frame_ms value counts: by default as not measured
  /// (its time is the sum of its nodes' cook_ms); when set (GStreamer: no
  /// streaming thread worked on that buffer, only queues passed it on), as a
  /// frame without work, left out of the frame statistics.
  bool unmeasured_frames_idle() const { return unmeasured_frames_idle_; }
  void SetUnmeasuredFramesIdle(bool idle) { unmeasured_frames_idle_ = idle; }

  /// The series of `node` for `metric`: frame_count() values, or empty when the
  /// input has no such series.
  std::span<const double> series(NodeIndex node, Metric metric) const {
    return columns_[static_cast<size_t>(metric)][node];
  }
  bool has_series(NodeIndex node, Metric metric) const { return !series(node, metric).empty(); }
  /// `values` has frame_count() entries (NaN = missing). Replaces any earlier
  /// one (whose values the samples still hold).
  void SetSeries(NodeIndex node, Metric metric, std::vector<double> values);
  /// Keeps `owner` (a SeriesStore, say) as long as these samples or a copy
  /// of them, for SetHeldSeries.
  void Hold(std::shared_ptr<const void> owner);
  /// SetSeries for `values` in memory an owner given to Hold() keeps.
  void SetHeldSeries(NodeIndex node, Metric metric, std::span<const double> values);

  /// True when some node has a series of `metric`.
  bool any_series(Metric metric) const;

  /// These samples with only the frames at `positions` (ascending, each <
  /// frame_count()): every series, frame_ms and profiler_ms cut alike.
  Samples KeepFrames(std::span<const size_t> positions) const;

 private:
  std::vector<int64_t> frame_index_;
  std::vector<double> frame_ms_;
  std::vector<double> profiler_ms_;
  bool unmeasured_frames_idle_ = false;
  std::array<std::vector<std::span<const double>>, kMetricCount> columns_;  // [metric][node][frame]
  // What the series point into: a vector of SetSeries each, or Hold()'s.
  std::vector<std::shared_ptr<const void>> owners_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_MODEL_SAMPLES_H_
