#ifndef COOKGRAPH_METRICS_NODE_STATS_H_
#define COOKGRAPH_METRICS_NODE_STATS_H_

// Per-node statistics, exactly as docs/architecture.md#node-statistics defines them.

#include <cstddef>
#include <optional>

#include "model/samples.h"

namespace cookgraph {

/// Statistics of one node. All times in ms. When cooked_frames == 0 every
/// cook_ms statistic is 0 and the node is not ranked.
struct NodeStats {
  size_t cooked_frames = 0;  // |C|: frames with a cook_ms value
  double avg_ms = 0;         // mean of cook_ms over C
  double std_ms = 0;         // population standard deviation over C
  double score = 0;          // avg_ms * (1 + std_ms)
  double p50_ms = 0, p95_ms = 0, p99_ms = 0;  // NumPy-linear percentiles over C
  double max_ms = 0;
  double per_frame_ms = 0;     // sum of cook_ms over C / |F|
  double share = 0;            // per_frame_ms / mean frame time (0 when that is 0)
  double cooks_per_frame = 0;  // sum of cooks over F / |F|; |C| / |F| without a cooks series
  /// GPU time per frame as per_frame_ms is cook time per frame (the gpu_ms
  /// series summed over the frames / |F|), and that over the mean frame time
  /// (0 when that is 0); nullopt without a gpu_ms series.
  std::optional<double> gpu_per_frame_ms, gpu_share;
  std::optional<double> gpu_avg_ms;  // means over the frames that have a value;
  std::optional<double> cpu_mem_mb;  // nullopt when the metric has none
  std::optional<double> gpu_mem_mb;
  /// The latency_ms series (GStreamer's element-latency, waiting included,
  /// where cook_ms is the work): mean, population standard deviation and
  /// largest over the frames that have a value; nullopt without one.
  std::optional<double> latency_avg_ms, latency_std_ms, latency_max_ms;
  /// The inclusive_ms series' mean over the frames that have a value (self
  /// time and the calls made, as PyTorch's profiler's "CPU total" per step);
  /// none without it.
  std::optional<double> inclusive_avg_ms;
};

/// Statistics of `node`; `mean_frame_ms` is the mean frame time used for share.
/// `counted_frames` (0 = every frame) is what per-frame values divide by: the
/// frames of FrameSummary::counted, when frames without work are left out.
NodeStats ComputeNodeStats(const Samples& samples, NodeIndex node, double mean_frame_ms,
                           size_t counted_frames = 0);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_NODE_STATS_H_
