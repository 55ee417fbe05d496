#ifndef COOKGRAPH_METRICS_HTA_BREAKDOWN_H_
#define COOKGRAPH_METRICS_HTA_BREAKDOWN_H_

// Where the GPU's time goes, from the timeline of a trace, as Holistic Trace
// Analysis (HTA) computes it (docs/architecture.md#gpu-time): the temporal
// breakdown per rank (kernel span, idle, compute, non-compute), the idle time
// of each stream split into host wait, kernel wait and other, kernel launch
// statistics, and how much communication overlaps computation.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/timeline.h"

namespace cookgraph {

/// HTA's kernel types (hta/utils/utils.py get_kernel_type).
enum class KernelType : uint8_t { kComputation, kCommunication, kMemory };

/// The type of a GPU event named `name`, by its name only as HTA decides it:
/// communication when it starts with "nccl" or holds "gloo:", memory when it
/// holds "Memcpy" or "Memset", else computation. `kind` is not used.
KernelType KernelTypeOf(std::string_view name, EventKind kind);

/// HTA's default threshold for kernel wait: a gap between two kernels of one
/// stream shorter than this is the GPU waiting for the previous kernel's
/// work to drain, not for the host.
inline constexpr int64_t kKernelWaitNs = 30'000;

/// A launch shorter than this is a "tiny kernel" (most of its cost is launch).
inline constexpr int64_t kTinyKernelNs = 10'000;

struct StreamTime {
  uint32_t track = kNoIndex;  // Timeline::tracks
  int64_t stream = -1;
  std::string label;
  size_t kernels = 0;
  double kernel_ms = 0;  // sum of its GPU events' durations
  double idle_ms = 0;    // the gaps between consecutive GPU events
  double idle_host_wait_ms = 0, idle_kernel_wait_ms = 0, idle_other_ms = 0;
};

/// CPU work during the GPU's host wait: what the host was doing instead of
/// launching.
struct HostWaitOp {
  std::string name;
  double ms = 0;  // its overlap with the host-wait gaps
};

/// The temporal breakdown of the GPU events of one step: those whose launch
/// call ran in it (they may run past its end).
struct StepGpuTime {
  int64_t step = 0;  // its number
  size_t kernels = 0;
  double kernel_span_ms = 0, idle_ms = 0, compute_ms = 0, non_compute_ms = 0;
};

struct RankGpuTime {
  uint32_t rank = 0;
  size_t kernels = 0;
  double kernel_span_ms = 0;  // last GPU event end - first GPU event start
  double busy_ms = 0;         // union of all GPU events
  double idle_ms = 0;         // span - busy
  double compute_ms = 0;      // union of computation kernels
  double non_compute_ms = 0;  // span - compute - idle
  double communication_ms = 0;  // union of communication kernels
  double memory_ms = 0;         // union of copies and memsets
  std::vector<StreamTime> streams;
  std::vector<StepGpuTime> steps;  // per step with GPU events, in step order
  /// The top-level CPU events (ops, annotations, runtime calls; step markers
  /// aside) on the launching threads that ran during host-wait gaps, by their
  /// overlap with the union of the gaps, most first (up to 5).
  std::vector<HostWaitOp> host_wait_ops;
  double host_wait_ms() const;
  double kernel_wait_ms() const;
  double other_wait_ms() const;
};

/// Statistics over GPU events and the runtime calls that launched them.
struct LaunchStats {
  size_t count = 0;  // launched GPU events with their launch call in the trace
  double delay_mean_ms = 0, delay_p50_ms = 0, delay_p95_ms = 0, delay_max_ms = 0;
  double cpu_ms = 0;  // time in the launch calls
  size_t kernels = 0;             // all GPU events counted
  size_t kernels_under_10us = 0;  // launched ones shorter than kTinyKernelNs
  size_t unlaunched = 0;          // GPU events whose launch call is not in the trace
  /// The launches the statistics are over, by rank then the GPU events'
  /// order: `timeline` indexes the analysed timelines, `kernel` and `call`
  /// its events; delay_ns = kernel start - call end, clipped at 0.
  struct Launch {
    uint32_t timeline = 0, kernel = 0, call = 0;
    int64_t delay_ns = 0;
  };
  std::vector<Launch> list;
};

struct Overlap {
  double communication_ms = 0;  // union of communication kernels, all ranks summed
  double overlapped_ms = 0;     // the part of it that overlaps computation kernels
};

struct GpuTime {
  std::vector<RankGpuTime> ranks;  // ranks with GPU events, by rank
  /// Per analysed timeline (same order): the GPU events the analyses count
  /// (HTA's, the last step left out: trace.py _filter_irrelevant_gpu_kernels).
  std::vector<std::vector<uint32_t>> counted;
  LaunchStats launches;
  Overlap overlap;
  bool empty() const { return ranks.empty(); }
};

/// The GPU time of the timelines (one per rank). Empty when no timeline has a
/// GPU event.
GpuTime AnalyseGpuTime(const std::vector<Timeline>& timelines);

/// Total length of the union of [start, end) intervals (sorted or not), ns.
int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> intervals);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_HTA_BREAKDOWN_H_
