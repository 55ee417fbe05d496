#ifndef COOKGRAPH_MODEL_TIMELINE_H_
#define COOKGRAPH_MODEL_TIMELINE_H_

// The timeline of a trace (docs/architecture.md#the-timeline): every event of
// one rank, on its track (a CPU thread or a GPU stream), with its node, start,
// duration, nesting parent and correlation (a launch call and the kernel it
// launched). The aggregated nodes say what costs; the timeline says when and
// why (metrics/hta_breakdown.h, metrics/event_critical_path.h).
//
// Compact: one TimelineEvent (56 bytes) per event, names interned once.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cookgraph {

/// "No event", "no node", "no frame" in the timeline's indexes.
inline constexpr uint32_t kNoIndex = UINT32_MAX;

/// HTA's step names: "ProfilerStep#" and a number, matched at the start (its
/// types.py; the ProfilerStepGroupingPattern ^ProfilerStep#\d+ of its critical
/// path). The step analyses (metrics/hta_breakdown.h, metrics/event_critical_path.h) use it.
inline bool IsProfilerStep(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  return name.size() > kPrefix.size() && name.starts_with(kPrefix) && name[kPrefix.size()] >= '0' &&
         name[kPrefix.size()] <= '9';
}

/// What an event is, as the tools of its engine classify it (Kineto's
/// categories; docs/formats.md#pytorch-kineto).
enum class EventKind : uint8_t {
  kCpuOp,          // an operator (cpu_op, TensorFlow's ops, ONNX Runtime's nodes)
  kRuntime,        // a CUDA runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, ...)
  kAnnotation,     // a CPU range the user or a library named (user_annotation, python_function)
  kMarker,         // a step marker (ProfilerStep#N, model_run): a frame
  kKernel,         // a GPU kernel
  kMemcpy,         // a GPU copy
  kMemset,         // a GPU memset
  kGpuAnnotation,  // an annotation's copy on a GPU stream: not work
  kGpuSync,        // a GPU-side wait (Kineto's cuda_sync): not work
  kOther,          // anything else on a CPU thread
};

/// True for the kinds that run on a GPU stream.
inline bool IsGpuKind(EventKind kind) {
  return kind == EventKind::kKernel || kind == EventKind::kMemcpy ||
         kind == EventKind::kMemset || kind == EventKind::kGpuAnnotation ||
         kind == EventKind::kGpuSync;
}

/// True for GPU work: kernels, copies and memsets (HTA's GPU kernels).
inline bool IsGpuWork(EventKind kind) {
  return kind == EventKind::kKernel || kind == EventKind::kMemcpy || kind == EventKind::kMemset;
}

/// One thread or stream.
struct Track {
  std::string pid, tid;  // as the trace spells them
  bool gpu = false;      // a GPU stream (pid = device, tid = stream in Kineto)
  int64_t stream = -1;   // GPU streams: the stream number; -1 = not a number
  int64_t device = -1;   // GPU streams: the device number; -1 = not a number
  /// How the track is named in output: "thread 12 (pid 7)" or "stream 7 (GPU 0)".
  std::string label;
};

struct TimelineEvent {
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  uint32_t name = kNoIndex;    // Timeline::names
  uint32_t node = kNoIndex;    // the node it counts for; kNoIndex = not a node (markers, ...)
  uint32_t track = kNoIndex;   // Timeline::tracks
  uint32_t parent = kNoIndex;  // the enclosing event on its track (CPU tracks only)
  uint32_t link = kNoIndex;    // a GPU event: its launch call; a launch call: its first GPU event
  uint32_t frame = kNoIndex;   // the step it counts in; kNoIndex = outside every step
  uint32_t source = 0;         // index in the file's traceEvents: the event's identity
  uint32_t correlation = kNoIndex;  // args.correlation as given (launch calls and GPU events)
  EventKind kind = EventKind::kOther;
  /// A kAnnotation of Kineto's category python_function (HTA tells those from
  /// user_annotation ones: metrics/event_critical_path.cc's backward-thread merge).
  bool python_function = false;

  int64_t end_ns() const { return start_ns + dur_ns; }
};

/// An allocation or free the profiler recorded (Kineto's [memory] events).
struct MemoryEvent {
  int64_t ts_ns = 0;
  int64_t bytes = 0;            // > 0 allocated, < 0 freed
  int64_t total_allocated = 0;  // on the device after it
  int64_t total_reserved = 0;
  int32_t device_type = -1;     // PyTorch's c10::DeviceType: 0 CPU, 1 CUDA; -1 = not given
  int32_t device = -1;          // "Device Id" (-1 for the CPU)
  uint32_t op = kNoIndex;       // the enclosing CPU op on its thread (an event index)
};

/// What a wait on a CUDA event waits on (the args of cudaStreamWaitEvent,
/// cudaEventSynchronize and their GPU-side records).
struct WaitArgs {
  uint32_t event = kNoIndex;   // Timeline::events
  int64_t wait_on_stream = -1;  // the stream the event was recorded on
  int64_t wait_on_record = -1;  // the correlation of the cudaEventRecord it waits for
};

/// An ONNX Runtime node's intra-op thread pool counters (its event's
/// args.thread_scheduling_stats; docs/formats.md#onnx-runtime).
struct PoolArgs {
  uint32_t event = kNoIndex;       // Timeline::events
  uint32_t pool = 0;               // Timeline::pool_names: its pool ("session-1-intra-op")
  int64_t run_us = 0;              // the node's own thread running its share of parallel sections
  int64_t wait_us = 0;             // ... waiting for the helpers to finish theirs
  int64_t distribution_us = 0;     // ... handing the work out
  uint32_t parallel_sections = 0;  // parallel sections the node ran
  uint32_t helpers = 0;            // the pool's helper threads
  int64_t helper_runs = 0;         // work items they ran since profiling began, all summed
};

/// A GPU as `deviceProperties` describes it.
struct Device {
  int64_t id = -1;
  std::string name;
  int64_t total_memory = 0;  // bytes; 0 = not given
};

/// One rank's events.
struct Timeline {
  uint32_t rank = 0;
  std::optional<uint32_t> world_size;  // from distributedInfo
  std::string file;                    // the trace it was read from
  std::vector<Device> devices;
  std::vector<Track> tracks;
  std::vector<std::string> names;      // distinct event names
  std::vector<TimelineEvent> events;   // by track, then start (outer first), then file order
  std::vector<MemoryEvent> memory;     // by time
  std::vector<WaitArgs> waits;         // by event
  std::vector<PoolArgs> pools;         // by event
  std::vector<std::string> pool_names;
  std::vector<uint32_t> markers;       // per frame: its marker event, or kNoIndex
  std::vector<int64_t> steps;          // per frame: its number (ProfilerStep#N's N)

  const std::string& name(const TimelineEvent& e) const { return names[e.name]; }
  bool empty() const { return events.empty(); }
};

/// Bytes to the MB cookgraph shows (MiB, as the memory columns).
inline double BytesToMb(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

}  // namespace cookgraph

#endif  // COOKGRAPH_MODEL_TIMELINE_H_
