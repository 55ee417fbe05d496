#ifndef COOKGRAPH_METRICS_TRACE_SUMMARY_H_
#define COOKGRAPH_METRICS_TRACE_SUMMARY_H_

// What a trace's timelines say beyond the per-node statistics
// (docs/architecture.md#traces-steps-ranks-and-memory): the GPU time
// (hta_breakdown.h), memory peaks per device, each rank's step times and the
// straggler of each step, and the slowest step with what made it slow.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/event_critical_path.h"
#include "metrics/hta_breakdown.h"
#include "metrics/intra_op.h"
#include "metrics/outside_nodes.h"
#include "model/samples.h"
#include "model/timeline.h"

namespace cookgraph {

struct StepMemory {
  int64_t step = 0;
  double peak_allocated_mb = 0, peak_reserved_mb = 0;
};

struct MemoryPeak {
  uint32_t rank = 0;
  std::string device;  // "cpu", "cuda:0", or "devtypeT:N" for other device types
  double peak_allocated_mb = 0, peak_reserved_mb = 0;
  double total_mb = 0;  // the device's memory (deviceProperties); 0 = not given
  /// Per step with [memory] events in its span [start, end), the peaks there.
  std::vector<StepMemory> steps;
};

struct RankSteps {
  uint32_t rank = 0;
  std::vector<int64_t> steps;    // step numbers (ProfilerStep#N), in order
  std::vector<double> step_ms;   // each step's marker span
  /// Per step: when this rank is the step's straggler (the slowest of two or
  /// more ranks with that step; ties to the lower rank), by how much its step
  /// is longer than the median of the ranks; nullopt otherwise.
  std::vector<std::optional<double>> straggler_ms;
};

/// A node's growth in one step.
struct NodeExcess {
  uint32_t node = kNoIndex;
  double ms = 0;  // its time in the step minus its mean per step
};

struct SlowestStep {
  size_t frame = 0;  // position in the snapshot's frames
  int64_t step = 0;  // its number
  double ms = 0;
  double mean_ms = 0;             // the mean step
  std::vector<NodeExcess> nodes;  // the nodes that grew most in it, most first (up to 5)
};

/// The event-level critical path of one step (metrics/event_critical_path.h), in the
/// terms output needs.
struct StepPath {
  uint32_t rank = 0;
  std::string annotation;  // the window: the step's marker name, or "" = the whole trace
  size_t instance = 0;
  std::optional<int64_t> step;  // the step's number, when the window is a step
  double length_ms = 0;
  double window_ms = 0;  // the step's span (the marker's), or the whole trace's
  struct Event {
    uint32_t event = kNoIndex;  // Timeline::events of `rank`'s timeline
    std::string name, track;
    double ts_us = 0, dur_us = 0;  // on the trace's own clock, as the file spells them
    bool gpu = false;
  };
  std::vector<Event> events;                             // in path order
  std::vector<std::pair<uint32_t, double>> per_node_ms;  // largest first
  std::vector<NodeIndex> nodes;                          // by first appearance on the path
  size_t graph_nodes = 0, graph_edges = 0;
  std::vector<std::string> warnings;
};

/// How output names a path's window: "step 5", "the whole trace", or
/// "instance 3 of 'ProfilerStep'" for an annotation's that is no one step.
std::string PathWindowLabel(const StepPath& path);

/// Which window the event critical path is of (`--step`, or `--annotation`
/// with `--instance`, as HTA's critical_path_analysis chooses it); neither:
/// the slowest step but the last, or the whole trace without step markers.
struct PathWindow {
  std::optional<int64_t> step;            // a step's number (ProfilerStep#N's N)
  std::optional<std::string> annotation;  // HTA's annotation ("" = the whole trace) ...
  size_t instance = 0;                    // ... and which of its events, from 0 in file order
  bool chosen() const { return step || annotation; }
};

/// HTA's window (the annotation and its instance) of the step whose marker is
/// Timeline::events[marker]; the whole trace for kNoIndex.
EventPathOptions StepWindow(const Timeline& timeline, uint32_t marker);

/// The critical path of the step at position `frame` on the rank whose step
/// is longest there (the straggler), or of the whole trace when the trace has
/// no step markers. nullopt when there is no event to build a path from; an
/// analysis that fails (HTA's failures) is said in `warning`.
std::optional<StepPath> StepCriticalPath(const std::vector<Timeline>& timelines,
                                         std::optional<size_t> frame, std::string& warning);

/// The critical path of the first rank in HTA's window `annotation` and
/// `instance`; nullopt, the reason in `warning`, when there is none.
std::optional<StepPath> AnnotationCriticalPath(const std::vector<Timeline>& timelines,
                                               const std::string& annotation, size_t instance,
                                               std::string& warning);

struct TraceSummary {
  GpuTime gpu;
  std::vector<MemoryPeak> memory;  // by rank, then device
  std::vector<RankSteps> ranks;    // by rank; one for a single trace
  std::optional<SlowestStep> slowest;
  std::optional<StepPath> path;  // of the slowest step but the last (or the only one)
  std::vector<std::string> warnings;  // for the analysis's warnings
  /// ONNX Runtime: the time of each run in which no node ran (metrics/outside_nodes.h).
  std::optional<OutsideNodes> outside;
  /// ONNX Runtime: the intra-op threads per node (metrics/intra_op.h).
  std::optional<IntraOp> intra_op;
  bool job() const { return ranks.size() > 1; }
};

/// The summary of `timelines` (one per rank). `samples` (the snapshot's, steps
/// as frames) give the slowest step's nodes; `window` the critical path's.
TraceSummary SummariseTrace(const std::vector<Timeline>& timelines, const Samples& samples,
                            const std::vector<double>& frame_ms, const PathWindow& window = {});

/// "cpu" for c10::DeviceType 0, "cuda:N" for 1, "devtypeT:N" else.
std::string DeviceName(int32_t device_type, int32_t device);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_TRACE_SUMMARY_H_
