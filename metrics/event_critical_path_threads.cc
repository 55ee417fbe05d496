// The event critical path's edges on the CPU threads (event_critical_path.h):
// the CUDA runtime lock that calls on different threads share, and the walk
// of each thread's call stack.

#include <algorithm>
#include <charconv>

#include "metrics/event_critical_path_builder.h"

namespace cookgraph {
namespace event_path_internal {
namespace {

ThreadKey KeyOf(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!s.empty() && ec == std::errc() && end == s.data() + s.size()) return {false, v, {}};
  return {true, 0, s};
}

}  // namespace

// CPGraph._construct_graph_from_cuda_runtime_events, before the call
// stacks: the points of the window's lock-holding calls (every thread's)
// by (time, traceEvents index). The lock goes to the call that ends first:
// at each end, every start seen and not yet taken leads to it (the call's
// own start by an operator edge, its span; another call's by a weight-0
// dependency), and so does the end before it, when the point before was
// an end (the lock passed from call to call).
void Builder::RuntimeLock() {
  std::vector<std::tuple<int64_t, uint32_t, bool, uint32_t>> points;  // (ts, source, end, e)
  for (uint32_t e : window_) {
    if (!Locks(e)) continue;
    const TimelineEvent& ev = t_.events[e];
    points.emplace_back(ev.start_ns, ev.source, false, e);
    points.emplace_back(ev.end_ns(), ev.source, true, e);
  }
  if (points.empty()) return;
  std::sort(points.begin(), points.end());
  std::vector<uint32_t> starts;
  uint32_t last = kNoIndex;
  bool last_end = false;
  for (const auto& [ts, source, end, e] : points) {
    if (!end) {
      starts.push_back(e);
    } else {
      while (!starts.empty()) {
        const uint32_t s = starts.back();
        starts.pop_back();
        if (s == e) {
          AddEdge(s, false, e, true, EventEdgeKind::kOperator, false, e);
        } else {
          AddEdge(s, false, e, true, EventEdgeKind::kDependency);
        }
      }
      if (last != kNoIndex && last_end) AddEdge(last, true, e, true, EventEdgeKind::kDependency);
    }
    last = e;
    last_end = end;
  }
}

// CPGraph._construct_graph_from_call_stacks: per CPU thread (pandas' order
// of (pid, tid); a thread whose events all have stream < 0, as
// call_stack.py infer_device_type says CPU), a depth-first walk of its call
// stack. When the window has one thread with operators or user annotations
// named "...forward..." and one, another, with "...autograd..."
// (_get_fwd_tid, _get_bwd_tid; a thread id 0 counts as none), every thread
// with the autograd thread's id (in any process) is walked as the forward
// thread of its process (CallGraph's remapped_tids), so that the path goes
// from the forward pass through the backward pass.
void Builder::CallStacks() {
  struct Thread {
    ThreadKey pid, tid;
    uint32_t lo, hi;  // window_[lo, hi)
  };
  const std::optional<ThreadKey> fwd = ThreadNaming(kForwardName);
  const std::optional<ThreadKey> bwd = ThreadNaming(kAutogradName);
  const bool merge = fwd && bwd && *fwd != *bwd;
  std::vector<Thread> threads;
  for (uint32_t lo = 0; lo < window_.size();) {
    const uint32_t track = t_.events[window_[lo]].track;
    uint32_t hi = lo;
    for (; hi < window_.size() && t_.events[window_[hi]].track == track; ++hi) {
    }
    ThreadKey tid = KeyOf(t_.tracks[track].tid);
    if (merge && tid == *bwd) tid = *fwd;
    threads.push_back({KeyOf(t_.tracks[track].pid), tid, lo, hi});
    lo = hi;
  }
  std::stable_sort(threads.begin(), threads.end(), [](const Thread& a, const Thread& b) {
    return std::tie(a.pid, a.tid) < std::tie(b.pid, b.tid);
  });
  std::vector<uint32_t> starts, ends, stack, walk;
  for (size_t g = 0; g < threads.size();) {
    size_t h = g + 1;
    while (h < threads.size() && threads[h].pid == threads[g].pid &&
           threads[h].tid == threads[g].tid) {
      ++h;
    }
    starts.clear();
    for (size_t k = g; k < h; ++k) {
      starts.insert(starts.end(), window_.begin() + threads[k].lo, window_.begin() + threads[k].hi);
    }
    g = h;
    if (!std::all_of(starts.begin(), starts.end(), [&](uint32_t e) { return Stream(e) < 0; })) {
      continue;
    }
    // hta/common/call_stack.py: the events' starts and ends sorted by
    // compare_events (by time; an end before a start; starts longer first
    // then by index, ends shorter first then by index, descending). A start
    // nests under the top of the stack; an end pops the top, whichever
    // event it is. A track's order in the Timeline is the starts' order;
    // threads merged into one are sorted again.
    std::sort(starts.begin(), starts.end(), [&](uint32_t a, uint32_t b) {
      const TimelineEvent& x = t_.events[a];
      const TimelineEvent& y = t_.events[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      if (x.dur_ns != y.dur_ns) return x.dur_ns > y.dur_ns;
      return x.source < y.source;
    });
    ends = starts;
    std::sort(ends.begin(), ends.end(), [&](uint32_t a, uint32_t b) {
      const TimelineEvent& x = t_.events[a];
      const TimelineEvent& y = t_.events[b];
      if (x.end_ns() != y.end_ns()) return x.end_ns() < y.end_ns();
      if (x.dur_ns != y.dur_ns) return x.dur_ns < y.dur_ns;
      return x.source > y.source;
    });
    // CPGraph._construct_graph_from_call_stack, the walk (CallStackGraph.dfs_traverse):
    // a depth-first walk visits the starts in this order, and leaves an event
    // just before the first start outside it, so the walk is replayed here
    // with `walk` the path from the root to the event last entered.
    stack.clear();
    walk.clear();
    state_ = {};
    size_t j = 0;
    for (uint32_t e : starts) {
      const int64_t ts = t_.events[e].start_ns;
      for (; j < ends.size() && t_.events[ends[j]].end_ns() <= ts; ++j) {
        if (!stack.empty()) stack.pop_back();
      }
      const uint32_t parent = stack.empty() ? kNoIndex : stack.back();
      while (!walk.empty() && walk.back() != parent) {
        Exit(walk.back());
        walk.pop_back();
      }
      Enter(e);
      walk.push_back(e);
      stack.push_back(e);
    }
    while (!walk.empty()) {
      Exit(walk.back());
      walk.pop_back();
    }
  }
}

// _get_tid_for_event: the thread id of the window's operators and user
// annotations (step markers too) whose name has `flag`'s word, when they
// are all on threads of one id and it is not 0.
std::optional<ThreadKey> Builder::ThreadNaming(uint16_t flag) const {
  std::optional<ThreadKey> found;
  for (uint32_t e : window_) {
    const TimelineEvent& ev = t_.events[e];
    if (!(Flags(e) & flag)) continue;
    const bool op_or_annotation = ev.kind == EventKind::kCpuOp || ev.kind == EventKind::kMarker ||
                                  (ev.kind == EventKind::kAnnotation && !ev.python_function);
    if (!op_or_annotation) continue;
    const ThreadKey tid = KeyOf(t_.tracks[ev.track].tid);
    if (found && *found != tid) return std::nullopt;
    found = tid;
  }
  if (found && !found->text && found->number == 0) return std::nullopt;
  return found;
}

}  // namespace event_path_internal
}  // namespace cookgraph
