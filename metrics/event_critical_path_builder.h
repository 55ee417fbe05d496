#ifndef COOKGRAPH_METRICS_EVENT_CRITICAL_PATH_BUILDER_H_
#define COOKGRAPH_METRICS_EVENT_CRITICAL_PATH_BUILDER_H_

// Internal to metrics/: not a public header, include it only from the
// event_critical_path*.cc files. The Builder of the event critical path
// (event_critical_path.h) and what its parts share. Its member functions are
// defined by concept: HTA's DataFrame and the public functions in
// event_critical_path.cc, the windows in event_critical_path_windows.cc, the
// CPU threads' edges (the runtime lock, the call stacks) in
// event_critical_path_threads.cc, the GPU's (launches, kernels, syncs) in
// event_critical_path_kernels.cc, the longest path and the result in
// event_critical_path_longest.cc. What is called per event or per edge is
// defined here, in the class, to stay inline.

#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/parallel.h"
#include "metrics/event_critical_path.h"

namespace cookgraph {
namespace event_path_internal {

// What HTA decides by an event's name, once per distinct name.
enum NameFlag : uint16_t {
  kLaunchCall = 1 << 0,      // trace_symbol_table.py get_runtime_launch_events_mask
  kBlockingCall = 1 << 1,    // CPGraph.BLOCKING_SYNC_CALLS
  kEventSync = 1 << 2,       // cuda_sync "Event Sync"
  kContextSync = 1 << 3,     // cuda_sync "Context Sync"
  kStreamSync = 1 << 4,      // cuda_sync "Stream Sync"
  kStreamWait = 1 << 5,      // cuda_sync "Stream Wait Event"
  kEventRecord = 1 << 6,     // cudaEventRecord
  kStreamWaitCall = 1 << 7,  // cudaStreamWaitEvent
  kProfilerStep = 1 << 8,    // ProfilerStep#N
  kRuntimeLock = 1 << 9,     // CUDA_RUNTIME_EVENTS: calls that take the CUDA runtime's lock
  kForwardName = 1 << 10,    // "forward" in the name (CPGraph._get_fwd_tid)
  kAutogradName = 1 << 11,   // "autograd" in the name (CPGraph._get_bwd_tid)
};

// pandas' order of groupby keys (pid, tid): numbers before strings. No
// defaulted <=>: the WebAssembly build's libc++ 13 has none for string_view.
struct ThreadKey {
  bool text = false;
  int64_t number = 0;
  std::string_view str;
  bool operator==(const ThreadKey&) const = default;
  bool operator<(const ThreadKey& o) const {
    return std::tie(text, number, str) < std::tie(o.text, o.number, o.str);
  }
};

// Per event, the same for every window (whether an event is in the
// window's clipped DataFrame is Builder::InWindow).
enum EventFlag : uint8_t {
  kHtaRow = 1 << 0,   // a row of HTA's DataFrame before the multi-step filter
  kRow = 1 << 1,      // ... and after it
  kGpuSide = 1 << 2,  // trace_filter.py _filter_gpu_kernels_with_cuda_sync
};

enum WarningKind : size_t {
  kNoSyncCall,
  kNoWaitEntry,
  kUnknownSync,
  kNoLaunchNode,
  kNoIncomingEdge,
  kWarningKinds,
};

struct EventGraphEdge {
  uint32_t u, v;     // graph nodes
  uint32_t next_in;  // the next edge into v (newest first), kNoIndex at the end
  EventEdgeKind kind;
  int64_t weight;
  uint32_t owner;  // EventEdge::owner
};

struct Launch {     // CPGraph._get_cuda_runtime_calls_df: one row
  uint32_t event;   // the launch call
  uint32_t kernel;  // the GPU event its index_correlation names
  int64_t stream;   // the kernel's
};

// What every window's graph reads of the whole trace: HTA's DataFrame (its
// rows, their index_correlation, the multi-step filter), the indexes that let
// a window find its events without a walk over the trace, the launch queues
// and CPGraph's tables of runtime calls and event records. The Builder's
// constructor builds the first part; the queues are walked and the tables
// built as windows need them, or all at once by Builder::Share, after which
// nothing writes them and several builders can read them at once. Anything
// a window builds into these tables must be built by Share too, and skipped
// once `shared` is set.
struct TraceTables {
  bool shared = false;  // Builder::Share has run: read-only from then on

  std::vector<uint16_t> name_flags;  // per name
  std::vector<uint8_t> name_used;    // per name: some row has it (TraceSymbolTable)
  std::vector<uint8_t> flags;        // per event: EventFlag
  std::vector<uint32_t> by_source;   // traceEvents index -> event
  std::vector<uint32_t> ic;          // per event: index_correlation (a traceEvents index)
  std::vector<uint32_t> corr_rows;   // rows with a correlation, by it, file order within
  std::vector<uint32_t> group_at;    // per correlation + 1: its rows' start in corr_rows
  std::vector<uint32_t> group_of;    // per event: its correlation's group, or kNoIndex
  std::vector<uint32_t> file_order;  // the rows before the filter, in file order
  std::vector<uint32_t> order;       // the rows after it, in DataFrame order, when filtered
  bool filtered = false;
  bool has_records = false, has_waits = false;  // the trace has event records, stream waits

  // IndexWindows: what Window() and Clip() look up.
  int64_t whole_start = INT64_MAX, whole_end = INT64_MIN;  // of every row
  std::vector<uint32_t> cpu_rows;      // the CPU-side rows lasting > 0, by track, then start
  std::vector<uint32_t> cpu_runs;      // per track + 1: where its rows begin in cpu_rows
  std::vector<uint32_t> stream_waits;  // the GPU-side "Stream Wait Event" rows
  std::unordered_map<std::string_view, std::vector<uint32_t>> holders;  // annotation -> names
  std::vector<uint32_t> slot_of_name;  // per name: its slot, kNoIndex when no annotation's
  std::vector<uint32_t> slot_at;       // per slot + 1: its range in slot_rows
  std::vector<uint32_t> slot_rows;     // per slot: its name's rows, in Order()

  // QueueLengths: the items by time, walked as far as queue_next so far.
  struct QueueItem {
    int64_t ts;
    uint32_t event;
    int32_t delta;
    int64_t stream;
  };
  std::vector<QueueItem> queue_items;
  size_t queue_next = 0;
  std::unordered_map<int64_t, int32_t> queue_running;  // stream -> queue length
  std::vector<int32_t> queue;  // per event: queue length; INT32_MIN = none (yet)

  // Kernels, on the first window that needs them.
  bool launches_ready = false;
  std::vector<Launch> launches;                      // CPGraph's runtime calls, by start
  std::vector<uint32_t> by_thread;                   // launches by (thread, stream), then start
  std::unordered_map<int64_t, int64_t> prev_launch;  // record correlation -> launch (traceEvents)
  std::string records_error;                         // EventRecords' failure, every window's
};

// One timeline's graphs, window after window. The constructor builds the
// tables of the whole trace that are the same for every window (TraceTables);
// CPGraph's tables of runtime calls and event records follow on the first
// window that needs them. Run(i) then builds window i's graph from its own
// events only, every per-window member reset first, so that each result is
// the one a Builder made for that window alone would give.
class Builder {
 public:
  Builder(const Timeline& t, std::span<const EventPathOptions> windows)
      : t_(t),
        windows_(windows),
        owned_(std::make_shared<TraceTables>()),
        trace_(*owned_),
        parallel_(t.events.size() >= kParallelTraceItems) {
    Prepare();
    IndexCorrelation();
    FilterSteps();
    // The windows' indexes and the launch queues read what is above, and
    // write apart: two cores in a large trace.
    auto index = [this] { IndexWindows(); };
    auto queues = [this] { SortQueueItems(); };
    RunBothIf(parallel_, index, queues);
    Fresh();
  }
  // A second builder of the same windows, reading `first`'s tables: once
  // first.Share() has run, the two may Run windows at the same time.
  struct SecondOf {
    const Builder& first;
  };
  explicit Builder(SecondOf second)
      : t_(second.first.t_),
        windows_(second.first.windows_),
        owned_(second.first.owned_),
        trace_(*owned_),
        parallel_(second.first.parallel_) {
    Fresh();
  }
  Builder(const Builder&) = delete;
  Builder& operator=(const Builder&) = delete;

  // Builds now what windows would build as they need it (the queue lengths,
  // the launch tables), so that Run writes nothing of the trace's tables.
  void Share();

  Result<EventPath> Run(size_t i) {
    Reset(windows_[i]);
    if (auto w = Window(); !w.ok()) return w.error();
    Clip();
    RuntimeLock();
    CallStacks();
    Kernels();
    if (fatal_.empty()) Validate();
    if (fatal_.empty()) LongestPath();
    if (!fatal_.empty()) return Error{.file = t_.file, .message = fatal_};
    Finish();
    return std::move(out_);
  }

 private:
  // ---- Facts per event ------------------------------------------------------------

  // The stream HTA reads from args.stream: the GPU track's for GPU-side
  // events, -1 for the rest (CPU events have no args.stream).
  int64_t Stream(uint32_t e) const {
    const TimelineEvent& ev = t_.events[e];
    return IsGpuKind(ev.kind) ? t_.tracks[ev.track].stream : -1;
  }
  uint16_t Flags(uint32_t e) const { return trace_.name_flags[t_.events[e].name]; }
  int64_t Correlation(uint32_t e) const {
    const uint32_t c = t_.events[e].correlation;
    return c == kNoIndex ? -1 : int64_t{c};
  }
  // The row at traceEvents index `source` (HTA's trace_df.loc), or kNoIndex.
  uint32_t Row(int64_t source) const {
    if (source < 0 || static_cast<uint64_t>(source) >= trace_.by_source.size()) return kNoIndex;
    const uint32_t e = trace_.by_source[static_cast<size_t>(source)];
    return e != kNoIndex && (trace_.flags[e] & kRow) ? e : kNoIndex;
  }
  int64_t Ic(uint32_t e) const { return trace_.ic[e] == kNoIndex ? -1 : int64_t{trace_.ic[e]}; }
  // CPGraph._create_event_nodes: a CPU operator or runtime call (by
  // category: cpu_op, cuda_runtime, cuda_driver), or a GPU-side event with a
  // correlation.
  bool HasNodes(uint32_t e) const {
    const EventKind k = t_.events[e].kind;
    return (k == EventKind::kCpuOp || k == EventKind::kRuntime) || (Stream(e) != -1 && Ic(e) >= 0);
  }
  // In the window's clipped DataFrame (Clip).
  bool InWindow(uint32_t e) const { return stamp_[e] == epoch_; }
  // The same for a traceEvents index: it must also be in the window.
  bool SourceHasNodes(int64_t source) const {
    const uint32_t e = Row(source);
    return e != kNoIndex && InWindow(e) && HasNodes(e);
  }

  // ---- HTA's DataFrame: its rows, their correlations (event_critical_path.cc) ----------

  void Prepare();
  bool Symbol(uint16_t flag) const;  // a row's name is one of these (TraceSymbolTable)
  void IndexCorrelation();
  // The rows sharing a correlation with row `e` (itself included), in file
  // order; none for a row without one.
  std::span<const uint32_t> SameCorrelation(uint32_t e) const {
    const uint32_t g = trace_.group_of[e];
    if (g == kNoIndex) return {};
    return std::span<const uint32_t>(trace_.corr_rows)
        .subspan(trace_.group_at[g], trace_.group_at[g + 1] - trace_.group_at[g]);
  }

  void FilterSteps();
  // A row's place in Order(): file order, the GPU-side rows first when filtered.
  uint64_t OrderKey(uint32_t e) const {
    const uint64_t cpu_after = trace_.filtered && !(trace_.flags[e] & kGpuSide) ? 1 : 0;
    return cpu_after << 32 | t_.events[e].source;
  }

  // ---- The windows (event_critical_path_windows.cc) --------------------------------

  void IndexWindows();
  // The rows whose name holds `annotation`, in Order().
  std::span<const uint32_t> Instances(std::string_view annotation);
  // Every per-window member back to empty (the trace-wide ones stay).
  void Reset(const EventPathOptions& o);
  Status Window();
  void Clip();

  // ---- The graph ----------------------------------------------------------------------

  uint32_t Node(uint32_t e, bool end) {
    uint32_t& id = node_of_[2 * size_t{local_[e]} + end];
    if (id == kNoIndex) {
      id = static_cast<uint32_t>(node_event_.size());
      node_event_.push_back(e);
      node_end_.push_back(end);
      in_head_.push_back(kNoIndex);
    }
    return id;
  }
  int64_t NodeTs(uint32_t node) const {
    const TimelineEvent& ev = t_.events[node_event_[node]];
    return node_end_[node] ? ev.end_ns() : ev.start_ns;
  }

  // CPGraph._add_edge_helper and networkx's add_edge: dependency and sync
  // edges weigh 0, so do `zero_weight` ones, the others the time between their
  // points; an edge added again keeps its place and takes the new kind and weight.
  void AddEdge(uint32_t from, bool from_end, uint32_t to, bool to_end, EventEdgeKind kind,
               bool zero_weight = false, uint32_t owner = kNoIndex) {
    const uint32_t u = Node(from, from_end);
    const uint32_t v = Node(to, to_end);
    if (u == v) {
      fatal_ = fmt::format("an edge from traceEvents[{}] to itself", t_.events[from].source);
      return;
    }
    const int64_t w =
        kind == EventEdgeKind::kDependency || kind == EventEdgeKind::kSync || zero_weight
            ? 0
            : NodeTs(v) - NodeTs(u);
    for (uint32_t i = in_head_[v]; i != kNoIndex; i = edges_[i].next_in) {
      if (edges_[i].u == u) {
        edges_[i].kind = kind;
        edges_[i].weight = w;
        edges_[i].owner = owner;
        return;
      }
    }
    edges_.push_back(EventGraphEdge{
        .u = u, .v = v, .next_in = in_head_[v], .kind = kind, .weight = w, .owner = owner});
    in_head_[v] = static_cast<uint32_t>(edges_.size() - 1);
  }

  void Warn(WarningKind kind, std::string text) {
    if (warnings_[kind].first++ == 0) warnings_[kind].second = std::move(text);
  }

  // Whether a point of event e is one of a call holding the CUDA runtime's lock.
  bool Locks(uint32_t e) const { return (Flags(e) & kRuntimeLock) && HasNodes(e); }

  // CPGraph._shares_cuda_runtime_lock: two points in a row of a thread's walk
  // are both of lock-holding calls, and not the end of one and the start of
  // the next (calls that do not overlap): the edge between them is left to
  // RuntimeLock.
  bool SharesLock(uint32_t a, bool a_end, uint32_t b, bool b_end) const {
    return (Flags(a) & kRuntimeLock) && (Flags(b) & kRuntimeLock) && (!a_end || b_end);
  }

  // ---- The CPU threads' edges (event_critical_path_threads.cc) ------------------------

  void RuntimeLock();
  void CallStacks();
  std::optional<ThreadKey> ThreadNaming(uint16_t flag) const;
  // enter_func: the thread goes from its last point to this start (a
  // weight-0 dependency from the end of the last top-level event when this
  // one is top-level), unless the two points share the runtime lock.
  void Enter(uint32_t e) {
    if (!HasNodes(e)) return;  // user annotations and markers are walked through
    if (state_.depth == 0 && state_.top != kNoIndex) {
      if (!SharesLock(state_.top, true, e, false)) {
        AddEdge(state_.top, true, e, false, EventEdgeKind::kDependency);
      }
    }
    ++state_.depth;
    if (state_.last != kNoIndex && !SharesLock(state_.last, state_.last_end, e, false)) {
      // The time before a start is the enclosing event's own.
      AddEdge(state_.last, state_.last_end, e, false, EventEdgeKind::kOperator, false,
              state_.open.empty() ? kNoIndex : state_.open.back());
    }
    state_.open.push_back(e);
    state_.last = e;
    state_.last_end = false;
  }
  // exit_func: the thread goes from its last point to this end (weight 0 into
  // a blocking call's end), unless the two points share the runtime lock.
  void Exit(uint32_t e) {
    if (!HasNodes(e)) return;
    --state_.depth;
    if (!state_.open.empty()) state_.open.pop_back();
    if (state_.last != kNoIndex && !SharesLock(state_.last, state_.last_end, e, true)) {
      // The time before an end is the event's own.
      AddEdge(state_.last, state_.last_end, e, true, EventEdgeKind::kOperator,
              (Flags(e) & kBlockingCall) != 0, e);
    }
    if (state_.depth == 0) {
      state_.last = kNoIndex;
      state_.top = e;
    } else {
      state_.last = e;
      state_.last_end = true;
    }
  }

  // ---- The GPU's edges (event_critical_path_kernels.cc) -------------------------------

  using QueueItem = TraceTables::QueueItem;
  void QueueLengths();
  void WalkQueues(int64_t horizon);  // the lengths of the items up to `horizon`
  void SortQueueItems();
  void LaunchTables();
  void SortLaunchesByThread();
  void RuntimeCalls();
  void EventRecords();
  std::optional<int64_t> NextLaunch(int64_t call);
  void Kernels();
  void Sync(uint32_t e, const std::vector<std::pair<int64_t, uint32_t>>& last_node,
            const std::unordered_map<int64_t, size_t>& last_at,
            std::unordered_map<int64_t, int64_t>& kernel_sync);
  // The wait_on_cuda_event_record_corr_id of event e; -1 when it has none.
  int64_t WaitRecord(uint32_t e) const;

  // ---- The longest path (event_critical_path_longest.cc) ------------------------------

  void Validate();
  void LongestPath();
  void Finish();

  // ---- The same for every window: built once -----------------------------------------

  const Timeline& t_;
  std::span<const EventPathOptions> windows_;

  // ForEachEventCriticalPath's second builder reads the first's tables.
  std::shared_ptr<TraceTables> owned_;
  TraceTables& trace_;
  const std::vector<uint32_t>& Order() const {
    return trace_.filtered ? trace_.order : trace_.file_order;
  }
  // A trace this large has its whole-trace tables built on two cores.
  const bool parallel_;

  // Instances()' cache, this builder's own (two builders never share it):
  // the rows of an annotation held by several names, merged, kept for the
  // next window of the same annotation.
  std::string_view merged_for_;   // the annotation they are for
  std::vector<uint32_t> merged_;  // its rows, in Order()

  // ---- Per window: reset by Reset() ---------------------------------------------------

  const EventPathOptions* o_ = nullptr;
  EventPath out_;
  std::string fatal_;  // what makes HTA fail, when it does

  // The per-event members below, once per builder (Reset does not redo them).
  void Fresh() {
    stamp_.assign(t_.events.size(), 0);
    local_.assign(t_.events.size(), kNoIndex);
  }
  // The window's events are those whose stamp is epoch_ (a new window, a new
  // epoch); local_ is read only for them, so neither is reset per window.
  std::vector<uint32_t> stamp_;  // per event
  uint32_t epoch_ = 0;
  std::vector<uint32_t> window_;  // the clipped rows, by event index
  std::vector<uint32_t> local_;   // per event in the window: its position in window_

  std::vector<uint32_t> node_of_;     // per window event: its start's and end's node
  std::vector<uint32_t> node_event_;  // per node
  std::vector<uint8_t> node_end_;     // per node
  std::vector<uint32_t> in_head_;     // per node: the newest edge into it
  std::vector<EventGraphEdge> edges_;

  struct WalkState {
    uint32_t last = kNoIndex;  // the thread's last point: an event ...
    bool last_end = false;     // ... its start or its end
    uint32_t top = kNoIndex;   // the end of the last top-level event
    int depth = 0;
    std::vector<uint32_t> open;  // the events entered and not left, outermost first
  } state_;
  std::array<std::pair<size_t, std::string>, kWarningKinds> warnings_{};
};

}  // namespace event_path_internal
}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_EVENT_CRITICAL_PATH_BUILDER_H_
