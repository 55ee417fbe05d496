#ifndef COOKGRAPH_METRICS_EVENT_CRITICAL_PATH_H_
#define COOKGRAPH_METRICS_EVENT_CRITICAL_PATH_H_

// The critical path of one rank's events, as Holistic Trace Analysis (HTA)
// computes it (docs/architecture.md#event-critical-path): a graph with a node
// at the start and one at the end of every CPU operator, CUDA runtime call and
// GPU kernel of an analysis window, edges for operator spans and nesting,
// kernel launches, kernels following each other on a stream and CUDA
// synchronisation, edges for the CUDA runtime lock that launch calls on
// different threads share, and its longest path. HTA's
// hta/analyzers/critical_path_analysis.py (CPGraph, at commit f4d0062) is
// followed rule by rule; the .cc cites the function each rule comes from.
// tests/tools/critical_path_check.py is an independent reading of the raw file
// that the tests compare against, edge by edge.
//
// Not to be confused with graph/network_critical_path.h, the heaviest path through
// the node graph: this one is over events, in time.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "model/timeline.h"

namespace cookgraph {

/// HTA's CPEdgeType, all five of it.
enum class EventEdgeKind : uint8_t {
  kOperator,           // an event's span, or the step from one point of a thread to the next
  kDependency,         // a thread's next top-level event after the previous one ended (weight 0)
  kLaunchDelay,        // a launch call's start -> its kernel's start, the stream being idle
  kKernelKernelDelay,  // the previous kernel of a stream ends -> the next one starts
  kSync,               // CUDA synchronisation: a kernel -> the call or kernel that waits (weight 0)
};

/// "operator", "dependency", "launch_delay", "kernel_kernel_delay", "sync_dependency".
std::string_view EventEdgeKindName(EventEdgeKind kind);

struct EventPathOptions {
  /// The window: the events whose name contains this text (HTA's annotation,
  /// a substring), "" for the whole trace.
  std::string annotation = "ProfilerStep";
  /// Which of them, counted from 0 in file order (nested ones count too).
  size_t instance = 0;
  /// With a value, instances `instance` to `last_instance` (inclusive, as
  /// HTA's (start, end) tuple; past the last one means up to the last one).
  std::optional<size_t> last_instance;
  /// HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE: a weight-0 launch edge to
  /// every kernel that got no weighted one (so the path can always go from the
  /// CPU to the GPU). Off by default, as in HTA.
  bool zero_weight_launch_edges = false;
};

/// One edge between two points of events: the start (`*_end` false) or the end
/// of Timeline::events[from] and [to].
struct EventEdge {
  uint32_t from = kNoIndex;
  uint32_t to = kNoIndex;
  bool from_end = false;
  bool to_end = false;
  EventEdgeKind kind = EventEdgeKind::kOperator;
  int64_t weight_ns = 0;  // >= 0: negative ones (clock skew between CPU and GPU) are made 0
  /// An operator edge's time is one event's own time (self time): a kernel's
  /// span, or on a CPU thread the stretch up to an event's end (that event's)
  /// or up to a nested event's start (the enclosing event's). kNoIndex for
  /// the other kinds and for the stretch between top-level events. What the
  /// what-if model scales (metrics/whatif.h).
  uint32_t owner = kNoIndex;
};

struct EventPath {
  std::vector<EventEdge> edges;  // the whole graph, in the order HTA adds the edges
  std::vector<uint32_t> path;    // edges (indexes into `edges`) on the path, first to last
  std::vector<uint32_t> events;  // Timeline::events on the path, by their first point on it
  int64_t length_ns = 0;         // the sum of the path's weights
  int64_t window_start_ns = 0, window_end_ns = 0;
  size_t window_events = 0;  // events in the window (HTA's clipped trace)
  size_t nodes = 0;          // points of the graph (events' starts and ends that an edge touches)
  size_t clamped = 0;        // edges whose negative weight was made 0
  /// Where HTA would stop with an exception (a kernel's launch call outside the
  /// window, an unknown cuda_sync event, ...), the edge is left out and said here,
  /// one line per kind with how often.
  std::vector<std::string> warnings;
};

/// The critical path of `timeline` in the window `options` chooses. An Error
/// when the annotation is in no event name, the instance does not exist, or the
/// graph cannot give a path (HTA fails the same way: a cycle, a sync edge
/// within one stream, a path of fewer than two points).
Result<EventPath> EventCriticalPath(const Timeline& timeline, const EventPathOptions& options);

/// The critical paths of many windows of one timeline (a what-if model wants
/// every step's): `each(i, path)` gets what EventCriticalPath(timeline,
/// windows[i]) gives, the same edges, path, warnings and errors, for each i in
/// order, one call at a time. The work that is the same for every window (the
/// rows, their correlations, the multi-step filter, the launch queues) is done
/// once; each window then costs about its own events (times a log), not the
/// whole trace's. A large trace's windows are built on two cores, every other
/// one on a second thread, which also makes its windows' calls of `each` (in
/// their turn, never two at once): `each` must not care which thread calls
/// it. An exception from `each` stops the walk and is rethrown here.
/// EventCriticalPath is this with one window.
void ForEachEventCriticalPath(const Timeline& timeline, std::span<const EventPathOptions> windows,
                              const std::function<void(size_t, Result<EventPath>)>& each);

/// ForEachEventCriticalPath's results, all kept (every window's graph at once).
std::vector<Result<EventPath>> EventCriticalPaths(const Timeline& timeline,
                                                  std::span<const EventPathOptions> windows);

/// The path's time per node (TimelineEvent::node), largest first (ties by node):
/// each edge of the path counts for the event it leads to, so an event's
/// span, its launch delay or the wait for the kernel before it are the event's
/// node's, and the sums add up to length_ns (less the time that leads to
/// events of no node, which is left out).
std::vector<std::pair<uint32_t, int64_t>> PathTimePerNode(const Timeline& timeline,
                                                          const EventPath& path);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_EVENT_CRITICAL_PATH_H_
