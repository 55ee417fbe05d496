#ifndef COOKGRAPH_MODEL_GSTREAMER_THREADS_H_
#define COOKGRAPH_MODEL_GSTREAMER_THREADS_H_

// The streaming threads of a GStreamer recording and the pipeline's latency
// (docs/formats.md#gstreamer, "Threads, work and latency"): what the GStreamer
// reader measures beside the per-element samples. A pipeline runs one
// streaming thread per source and per queue; the thread whose elements need
// the most of its buffer period limits the pipeline.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/network.h"

namespace cookgraph {

/// One streaming thread: a thread that logged element-latency records.
struct StreamingThread {
  std::string thread;  // the thread pointer as logged, "0x55d0..." (lower case)
  /// What the thread runs, as users name it (NameThreads): "theoraenc0
  /// thread" after its costliest work element, else after its first element;
  /// "thread 0x55d0..." without elements.
  std::string name;
  /// Its first and last elements, "queue0 → … → oggmux0" ("queue0 →
  /// theoraenc0" for two, the one id for one, empty for none).
  std::string route;
  /// Elements with a cook this thread ran, in order of their first such cook.
  std::vector<NodeIndex> elements;
  /// Per element of `elements`: its time is work (not a queue or a mixer).
  std::vector<bool> work;
  /// Per element of `elements`: the summed ms of its cooks in this thread.
  std::vector<double> element_ms;
  /// Per element of `elements`: its cooks in this thread in order, the k-th
  /// for the thread's k-th buffer (ms; NaN where the log gives no time): what
  /// the what-if model scales (metrics/whatif.h).
  std::vector<std::vector<double>> element_cooks;
  size_t buffers = 0;             // the most cooks of any one element in this thread
  double busy_ms_per_buffer = 0;  // summed ms of the work elements' cooks / buffers
  /// From the caps of the thread's first element with a rate (video
  /// framerate, audio rate and samples per buffer); none when unknown.
  std::optional<double> buffer_period_ms;
  std::optional<double> cpu_ms;        // thread-rusage: CPU time at its last record
  std::optional<double> cpu_load_pct;  // thread-rusage: CPU time / wall time over its records
  /// thread-rusage: [ms since the tracer's start, load %] about every 100 ms.
  std::vector<std::pair<double, double>> cpu_load_over_time;
  /// Its buffers are frames: false for a thread at a known rate other than
  /// the bottleneck thread's (audio beside video), which does not set the
  /// frame time (docs/formats.md#gstreamer, `frame_ms`).
  bool sets_frame = true;

  /// busy_ms_per_buffer / buffer_period_ms, when the period is known.
  std::optional<double> utilisation() const {
    if (!buffer_period_ms || *buffer_period_ms <= 0) return std::nullopt;
    return busy_ms_per_buffer / *buffer_period_ms;
  }
  /// The work element with the most summed ms in this thread, if any.
  std::optional<NodeIndex> costliest() const;
  /// "theoraenc0 thread (queue0 → … → oggmux0)": how a thread is shown.
  std::string label() const {
    std::string shown = name.empty() ? "thread " + thread : name;
    return route.empty() ? shown : shown + " (" + route + ")";
  }
};

/// Statistics of the pipeline's `latency` records (source -> sink).
struct LatencyStats {
  size_t records = 0;  // readable, non-negative records
  double mean_ms = 0, p95_ms = 0, max_ms = 0;
};

/// "No thread" in Streaming::cook_thread.
inline constexpr uint32_t kNoStreamingThread = UINT32_MAX;

struct Streaming {
  std::vector<StreamingThread> threads;  // in order of their first record in the log
  /// When each element's k-th cook began (its buffer entered the element:
  /// element-latency's ts - time), in ms since the earliest such entry, and
  /// the thread that ran it (an index into `threads`): [node][k], as long as
  /// the node's cooks; NaN / kNoStreamingThread where the log does not say.
  /// Empty without a readable entry time. What the explorer's timeline draws.
  std::vector<std::vector<double>> cook_start_ms;
  std::vector<std::vector<uint32_t>> cook_thread;
  std::optional<double> process_cpu_load_pct;  // proc-rusage: % of one core
  std::optional<size_t> bottleneck;            // index into threads
  std::optional<LatencyStats> latency;
  /// Rate changes along the pipeline, one line each ("thread 0x.. runs at
  /// 33.333 ms per buffer, ... at 23.220").
  std::vector<std::string> notes;
};

/// Sets each thread's name and route from `net`'s ids. Two threads that would
/// share a name (one element's cooks on two threads) get "#2", "#3" after it
/// in the order of `threads`.
void NameThreads(std::vector<StreamingThread>& threads, const Network& net);

/// Per node of a network of `node_count`: true for an element whose cooks
/// all ran in threads that do not set the frame (StreamingThread::sets_frame):
/// its k-th cook is not part of frame k, so spikes are not attributed to it.
std::vector<bool> OffFrameNodes(const Streaming& streaming, size_t node_count);

/// The bottleneck among `threads`: the largest utilisation when every thread
/// with work has a period, else the largest busy_ms_per_buffer (ties: the
/// earlier thread); none when no thread has work.
std::optional<size_t> BottleneckThread(const std::vector<StreamingThread>& threads);

}  // namespace cookgraph

#endif  // COOKGRAPH_MODEL_GSTREAMER_THREADS_H_
