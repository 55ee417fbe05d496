#ifndef COOKGRAPH_ADAPTERS_CHROME_BUILD_H_
#define COOKGRAPH_ADAPTERS_CHROME_BUILD_H_

// The steps of stage 3 of the Chrome trace reader that decide what each slice
// is: which producer wrote the trace, which slices are frame markers, nodes or
// noise, and which frame each node slice belongs to. Internal to adapters/.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "adapters/chrome/records.h"
#include "model/timeline.h"

namespace cookgraph::chrome {

// kPyTorchLegacy: PyTorch's autograd-profiler export, written when PyTorch has
// no Kineto (docs/formats.md#pytorch-legacy-export); engine "pytorch" too.
enum class Producer : uint8_t { kKineto, kTensorFlow, kOnnxRuntime, kGeneric, kPyTorchLegacy };

/// SnapshotInfo.engine: "pytorch", "tensorflow", "onnxruntime", "chrome-trace".
std::string_view EngineName(Producer producer);
/// What the producer's frames are called (SnapshotInfo::frame_word): "step"
/// for a training or inference trace, else "frame".
std::string_view FrameWordOf(Producer producer);

/// The node family of a slice of category `cat` ("" = none) from `producer`.
std::string FamilyOf(Producer producer, std::string_view cat);

/// True for families that run on a device stream (kernel, gpu_memcpy, ...).
bool IsGpuFamily(std::string_view family);

/// True for GPU-side families that are not work: an annotation's copy on a
/// stream, a stream waiting (docs/formats.md#pytorch-kineto).
bool IsGpuNonWork(std::string_view family);

enum class Role : uint8_t {
  kNode,      // an operator's slice
  kMarker,    // a frame marker (ProfilerStep#N, model_run, the user's regex)
  kTimeline,  // on the timeline but not work, so not a node: annotations' copies on a
              // GPU stream (gpu_user_annotation, markers' copies too), GPU-side waits (cuda_sync)
  kIgnored,   // the profiler's own spans, fences, session phases
};

struct Classified {
  Producer producer = Producer::kGeneric;
  std::vector<Role> role;                             // per slice
  std::vector<bool> gpu;                              // per slice: a GPU-side family
  std::vector<uint32_t> markers;                      // slices that are frame markers, in no order
  std::vector<std::optional<int64_t>> marker_number;  // per marker: its frame number, if named
  std::string marker_what;   // e.g. "ProfilerStep#N"; names the markers in messages
  bool user_marker = false;  // marker_what is ChromeTraceOptions::frame_marker
  std::vector<std::string> warnings;
  /// TensorFlow 1's GPU tracer: per interned thread ("pid\x1Ftid") of a
  /// per-stream process, its device and stream numbers (-1 when not a number).
  std::unordered_map<uint32_t, std::pair<int64_t, int64_t>> tf_streams;
};

/// When a time in `records` is a fraction of a µs: with `round` on, each
/// slice's start up and end down to a whole µs (an end before its start made
/// the start) and each [memory] event's time up, as HTA does, and says so;
/// with it off, a line that says the times stay exact and how to get HTA's.
/// nullopt when every `ts` is a whole µs (HTA then rounds nothing either).
std::optional<std::string> RoundLikeHta(TraceRecords& records, bool round);

/// Detects the producer and gives every slice its role. In a TensorFlow 1
/// GPU timeline the GPU tracer's slices get the category of their kind
/// (`kernel`, `gpu_memcpy`) and its copies (`stream:all`, `memcpy`) are
/// ignored, with a warning in Classified::warnings
/// (docs/formats.md#tensorflow). Fails only for a frame_marker that is not a
/// valid regular expression.
Result<Classified> ClassifySlices(TraceRecords& records, const ChromeTraceOptions& options,
                                  const std::string& file);

struct Frames {
  std::vector<int64_t> index;      // per frame: the engine's frame number
  std::vector<double> frame_ms;    // per frame: the marker's span, ms
  std::vector<int64_t> start_ns;   // per frame: when it starts (the trace's clock)
  std::vector<uint32_t> of_slice;  // per slice: its frame; kNone = outside, or not a node
  std::vector<std::string> warnings;
};

/// Frames from the markers (or one frame for the whole trace) and the frame of
/// every node slice: by its start, or a launched GPU slice by its launcher's.
/// `launcher` (per slice: the CPU slice that launched it, or kNone) comes from
/// Launchers().
Frames AssignFrames(const TraceRecords& records, const Classified& classified,
                    const std::vector<uint32_t>& launcher, bool keep_warmup);

/// TensorFlow 1: a GPU slice on a per-stream process was launched by the host
/// op of the same node (args.name), the last one that started at or before
/// it, else the first; those links are added to `links` (TensorFlow's own
/// timeline pairs them by name the same way, for its op_time "gpu" and "all").
void AddTensorFlowLaunches(const TraceRecords& records, const Classified& classified,
                           std::vector<FlowLink>& links);

/// Per slice: the CPU-side slice that launched it (GPU-side slices only), or
/// kNone. By args.correlation, as HTA pairs them (a CUDA runtime call and the
/// GPU work with its correlation id); else by a flow from a CPU-side slice.
/// Kernels launched before profiling began have no launcher.
std::vector<uint32_t> Launchers(const TraceRecords& records, const Classified& classified,
                                const std::vector<FlowLink>& links);

/// The timeline's first step (BuildTimeline makes its events): its tracks,
/// each event's index and the launch links between events. `event_of` gets,
/// per slice, its event (kNoIndex = none). `order` holds the slices that are
/// not Role::kIgnored by (thread, start, end descending, file order):
/// Nesting::visible_order. `launcher` and `order` are taken and freed here,
/// before the events are made: a large trace's memory peaks as they are
/// complete.
struct TimelinePlan {
  Timeline timeline;               // its tracks, devices, rank; no events yet
  std::vector<uint32_t> track_of;  // per interned thread: its track (kNoIndex: none)
  uint32_t events = 0;
  std::vector<std::pair<uint32_t, uint32_t>> links;  // (launch call, GPU event), file order
};
TimelinePlan PlanTimeline(const TraceRecords& records, const Classified& classified,
                          std::vector<uint32_t> launcher, std::vector<uint32_t> order,
                          const std::string& file, std::vector<uint32_t>& event_of);

/// The timeline of the trace (model/timeline.h): every slice that is a node,
/// a marker or a GPU-side annotation, with its track, nesting parent, launch
/// link and frame, plus the [memory] events and the distributedInfo /
/// deviceProperties of the trace, from PlanTimeline's `plan` and `event_of`.
/// Events' nodes are left for the caller, which numbers the nodes (it may do
/// so at the same time, on another thread).
Timeline BuildTimeline(const TraceRecords& records, const Classified& classified,
                       const Frames& frames, TimelinePlan plan,
                       const std::vector<uint32_t>& event_of);

}  // namespace cookgraph::chrome

#endif  // COOKGRAPH_ADAPTERS_CHROME_BUILD_H_
