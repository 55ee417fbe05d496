// The event critical path's edges on the GPU (event_critical_path.h): the
// launch queues, the launch and kernel-kernel delays of each stream, and the
// CUDA synchronisation edges.

#include <algorithm>

#include "metrics/event_critical_path_builder.h"

namespace cookgraph {
namespace event_path_internal {
namespace {

// KERNEL_KERNEL_DELAY_THRESHOLD_US: a gap between two kernels of a stream of
// this much or more is not a kernel-kernel delay (HTA takes it for a
// dependency it does not see); in ns.
constexpr int64_t kKernelKernelDelayThresholdNs = 1'500'000;

}  // namespace

// hta/analyzers/trace_counters.py, _get_queue_length_time_series_for_rank, on
// the whole trace: each launch call (with index_correlation > 0) adds one to
// the queue of the stream of each GPU-side row of its correlation, each such
// row takes one off when it starts; by time, launches first at equal times,
// then file order. The queue length after each of them.
//
// Kernels() reads the queue length of the window's GPU-side rows and of
// their launch calls only, all starting by the window's `horizon`. An
// event's items are at its start, and the queue after an item depends on
// the items before it in that order only, so the items after the horizon
// change none of the lengths read: the walk over the sorted items goes as
// far as the horizon of the furthest window so far, and a later window with
// a nearer one reads lengths that are already final.
void Builder::QueueLengths() {
  if (trace_.shared || trace_.queue_items.empty()) return;  // every length is final
  int64_t horizon = INT64_MIN;
  for (uint32_t e : window_) {
    horizon = std::max(horizon, t_.events[e].start_ns);
    if (const uint32_t call = Row(Ic(e)); call != kNoIndex) {
      horizon = std::max(horizon, t_.events[call].start_ns);
    }
  }
  WalkQueues(horizon);
}

void Builder::WalkQueues(int64_t horizon) {
  std::vector<QueueItem>& items = trace_.queue_items;
  size_t& next = trace_.queue_next;
  for (; next < items.size() && items[next].ts <= horizon; ++next) {
    const QueueItem& it = items[next];
    int32_t& q = trace_.queue_running[it.stream];
    q += it.delta;
    trace_.queue[it.event] = q;
  }
  if (next == items.size()) {  // every length is final: the items can go
    items = {};
    next = 0;
  }
}

void Builder::SortQueueItems() {
  trace_.queue.assign(t_.events.size(), INT32_MIN);
  // A launch call's items: one per GPU-side row of its correlation (a call
  // with index_correlation > 0 has one), in file order; then the GPU-side
  // rows' own. The two lists on two cores in a large trace.
  auto launch = [&](uint32_t e) {
    return (trace_.flags[e] & kRow) && (Flags(e) & kLaunchCall) && Ic(e) > 0;
  };
  std::vector<QueueItem> starts;
  auto launches = [&] {
    for (uint32_t e : trace_.file_order) {
      if (!launch(e)) continue;
      for (uint32_t g : SameCorrelation(e)) {
        if ((trace_.flags[g] & kRow) && Stream(g) != -1) {
          trace_.queue_items.push_back({t_.events[e].start_ns, e, 1, Stream(g)});
        }
      }
    }
  };
  auto gpu_starts = [&] {
    for (uint32_t e : trace_.file_order) {
      if (!(trace_.flags[e] & kRow) || Stream(e) == -1) continue;
      const auto same = SameCorrelation(e);
      if (std::none_of(same.begin(), same.end(), launch)) continue;
      starts.push_back({t_.events[e].start_ns, e, -1, Stream(e)});
    }
  };
  RunBothIf(parallel_, launches, gpu_starts);
  trace_.queue_items.reserve(trace_.queue_items.size() + starts.size());
  trace_.queue_items.insert(trace_.queue_items.end(), starts.begin(), starts.end());
  std::vector<QueueItem>().swap(starts);
  // By time, then the order they were added in.
  ParallelStableSort(trace_.queue_items,
                     [](const QueueItem& a, const QueueItem& b) { return a.ts < b.ts; });
}

// CPGraph._get_cuda_runtime_calls_df: the launch calls by start (stable),
// whose index_correlation is a GPU-side row (stream != -1) with an
// index_correlation > 0; each with its kernel's stream and GPU.
void Builder::RuntimeCalls() {
  for (uint32_t e : trace_.file_order) {
    if (!(trace_.flags[e] & kRow) || !(Flags(e) & kLaunchCall) || Ic(e) <= 0) continue;
    const uint32_t k = Row(Ic(e));
    if (k == kNoIndex || Stream(k) == -1 || Ic(k) <= 0) continue;
    trace_.launches.push_back({e, k, Stream(k)});
  }
  std::stable_sort(trace_.launches.begin(), trace_.launches.end(),
                   [&](const Launch& a, const Launch& b) {
                     return t_.events[a.event].start_ns < t_.events[b.event].start_ns;
                   });
}

// CPGraph._get_cuda_event_record_df: for each cudaEventRecord that a row
// with wait_on_stream > -1 waits on (its wait_on_cuda_event_record_corr_id
// names the record's correlation; it gives the stream and, by its pid, the
// GPU), the last launch to that GPU and stream at or before the record, from
// any thread. Only when the trace has a cudaEventRecord.
void Builder::EventRecords() {
  struct Where {
    int64_t stream;
    const std::string* pid;
  };
  std::unordered_map<int64_t, Where> recorded;  // record correlation -> where
  for (const WaitArgs& w : t_.waits) {
    if (w.event >= t_.events.size() || !(trace_.flags[w.event] & kRow) || w.wait_on_stream <= -1)
      continue;
    const Where where{w.wait_on_stream, &t_.tracks[t_.events[w.event].track].pid};
    auto [it, added] = recorded.try_emplace(w.wait_on_record, where);
    if (!added && (it->second.stream != where.stream || *it->second.pid != *where.pid)) {
      // merge(..., validate="one_to_one") raises in HTA.
      trace_.records_error = fmt::format(
          "cudaEventRecord correlation {} is waited on for two streams", w.wait_on_record);
      return;
    }
  }
  if (recorded.empty()) return;
  // Launches by GPU and stream, in launch order (by start).
  std::vector<uint32_t> by_where(trace_.launches.size());
  for (uint32_t i = 0; i < by_where.size(); ++i) by_where[i] = i;
  auto pid_of = [&](const Launch& l) -> const std::string& {
    return t_.tracks[t_.events[l.kernel].track].pid;
  };
  std::stable_sort(by_where.begin(), by_where.end(), [&](uint32_t a, uint32_t b) {
    const int c = pid_of(trace_.launches[a]).compare(pid_of(trace_.launches[b]));
    if (c != 0) return c < 0;
    return trace_.launches[a].stream < trace_.launches[b].stream;
  });
  std::vector<uint32_t> records;
  for (uint32_t e : trace_.file_order) {
    if ((trace_.flags[e] & kRow) && (Flags(e) & kEventRecord) && recorded.count(Correlation(e))) {
      records.push_back(e);
    }
  }
  std::stable_sort(records.begin(), records.end(), [&](uint32_t a, uint32_t b) {
    return t_.events[a].start_ns < t_.events[b].start_ns;
  });
  for (uint32_t r : records) {
    const Where& where = recorded.at(Correlation(r));
    const int64_t ts = t_.events[r].start_ns;
    // The group's launches, then the last one starting at or before ts.
    auto lo =
        std::lower_bound(by_where.begin(), by_where.end(), where, [&](uint32_t i, const Where& w) {
          const int c = pid_of(trace_.launches[i]).compare(*w.pid);
          return c != 0 ? c < 0 : trace_.launches[i].stream < w.stream;
        });
    auto hi = std::upper_bound(lo, by_where.end(), where, [&](const Where& w, uint32_t i) {
      const int c = w.pid->compare(pid_of(trace_.launches[i]));
      return c != 0 ? c < 0 : w.stream < trace_.launches[i].stream;
    });
    auto after = std::partition_point(
        lo, hi, [&](uint32_t i) { return t_.events[trace_.launches[i].event].start_ns <= ts; });
    trace_.prev_launch[Correlation(r)] =
        after == lo ? -1 : int64_t{t_.events[trace_.launches[*(after - 1)].event].source};
  }
}

// The launches by (thread, stream), then start, for NextLaunch.
void Builder::SortLaunchesByThread() {
  std::vector<uint32_t>& by_thread = trace_.by_thread;
  const std::vector<Launch>& launches = trace_.launches;
  by_thread.resize(launches.size());
  for (uint32_t i = 0; i < by_thread.size(); ++i) by_thread[i] = i;
  std::stable_sort(by_thread.begin(), by_thread.end(), [&](uint32_t a, uint32_t b) {
    const uint32_t ta = t_.events[launches[a].event].track;
    const uint32_t tb = t_.events[launches[b].event].track;
    return ta != tb ? ta < tb : launches[a].stream < launches[b].stream;
  });
}

// CPGraph._get_cuda_stream_wait_event_df, for one cudaStreamWaitEvent
// (traceEvents index `call`): the first launch after it from its thread
// into the stream of its GPU-side "Stream Wait Event"; -1 when none; nullopt
// when the call has no entry in HTA's table.
std::optional<int64_t> Builder::NextLaunch(int64_t call) {
  if (!trace_.has_waits) return std::nullopt;
  const uint32_t w = Row(call);
  if (w == kNoIndex || !(Flags(w) & kStreamWaitCall) || Ic(w) <= 0) return std::nullopt;
  const uint32_t g = Row(Ic(w));
  if (g == kNoIndex || Stream(g) == -1 || Ic(g) <= 0) return std::nullopt;
  if (!trace_.shared && trace_.by_thread.empty() && !trace_.launches.empty()) {
    SortLaunchesByThread();
  }
  const uint32_t track = t_.events[w].track;
  const int64_t stream = Stream(g);
  const int64_t ts = t_.events[w].start_ns;
  auto key = [&](uint32_t i) {
    return std::pair<uint32_t, int64_t>{t_.events[trace_.launches[i].event].track,
                                        trace_.launches[i].stream};
  };
  const std::pair<uint32_t, int64_t> want{track, stream};
  auto lo = std::partition_point(trace_.by_thread.begin(), trace_.by_thread.end(),
                                 [&](uint32_t i) { return key(i) < want; });
  auto hi =
      std::partition_point(lo, trace_.by_thread.end(), [&](uint32_t i) { return key(i) == want; });
  auto next = std::partition_point(
      lo, hi, [&](uint32_t i) { return t_.events[trace_.launches[i].event].start_ns <= ts; });
  return next == hi ? -1 : int64_t{t_.events[trace_.launches[*next].event].source};
}

// CPGraph's tables of runtime calls and event records, the same for every
// window: built by the first that needs them (a trace with event records or
// stream waits).
void Builder::LaunchTables() {
  if (trace_.shared) return;  // built by Share
  if ((trace_.has_records || trace_.has_waits) && !trace_.launches_ready) {
    trace_.launches_ready = true;
    RuntimeCalls();
    if (trace_.has_records) EventRecords();
  }
}

void Builder::Share() {
  if (trace_.shared) return;
  WalkQueues(INT64_MAX);
  LaunchTables();
  if (trace_.has_waits && trace_.by_thread.empty() && !trace_.launches.empty()) {
    SortLaunchesByThread();
  }
  trace_.shared = true;
}

// CPGraph._construct_graph_from_kernels: the GPU-side rows of the window,
// by start (cuda_sync events by end).
void Builder::Kernels() {
  QueueLengths();
  LaunchTables();
  if (!trace_.records_error.empty()) fatal_ = trace_.records_error;
  if (!fatal_.empty()) return;

  std::vector<uint32_t> rows;
  for (uint32_t e : window_) {
    if ((Stream(e) != -1 || (Flags(e) & (kEventSync | kContextSync))) && Ic(e) >= 0) {
      rows.push_back(e);
    }
  }
  auto key = [&](uint32_t e) {
    const TimelineEvent& ev = t_.events[e];
    return ev.kind == EventKind::kGpuSync ? ev.end_ns() : ev.start_ns;
  };
  std::sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) {
    const int64_t ka = key(a), kb = key(b);
    return ka != kb ? ka < kb : t_.events[a].source < t_.events[b].source;
  });

  std::vector<std::pair<int64_t, uint32_t>>
      last_node;                                     // (stream, kernel whose end), first seen first
  std::unordered_map<int64_t, size_t> last_at;       // stream -> position in last_node
  std::unordered_map<int64_t, int64_t> kernel_sync;  // dest kernel -> src kernel (traceEvents)
  for (uint32_t e : rows) {
    const TimelineEvent& ev = t_.events[e];
    if (ev.kind == EventKind::kGpuSync) {
      Sync(e, last_node, last_at, kernel_sync);
      continue;
    }
    const int64_t stream = Stream(e);
    AddEdge(e, false, e, true, EventEdgeKind::kOperator, false, e);
    const int64_t runtime = Ic(e);
    const uint32_t runtime_row = Row(runtime);
    const int32_t ql_runtime = runtime_row == kNoIndex ? INT32_MIN : trace_.queue[runtime_row];
    const int32_t ql = trace_.queue[e];
    // A cudaStreamWaitEvent made this kernel wait for another one.
    int64_t ks = -1;
    int64_t ks_end_ts = 0;
    bool edge_added = false, launch_added = false;
    if (auto it = kernel_sync.find(ev.source); it != kernel_sync.end()) {
      if (SourceHasNodes(it->second)) {
        ks = it->second;
        const uint32_t src = Row(ks);
        ks_end_ts = t_.events[src].end_ns();
        AddEdge(src, true, e, false, EventEdgeKind::kSync);
        edge_added = true;
      }
      kernel_sync.erase(it);
    }
    auto prev_at = last_at.find(stream);
    const uint32_t prev = prev_at == last_at.end() ? kNoIndex : last_node[prev_at->second].second;
    const int64_t prev_ts = prev == kNoIndex ? 0 : t_.events[prev].end_ns();
    if (ql_runtime == 1 && ql == 0 && runtime_row != kNoIndex &&
        (prev == kNoIndex || prev_ts < t_.events[runtime_row].start_ns) &&
        (ks < 0 || ks_end_ts < t_.events[runtime_row].start_ns)) {
      // Launch delay: the stream was idle when the kernel was launched.
      if (SourceHasNodes(runtime)) {
        AddEdge(runtime_row, false, e, false, EventEdgeKind::kLaunchDelay);
        edge_added = launch_added = true;
      } else {
        Warn(kNoLaunchNode, fmt::format("the launch call traceEvents[{}] of kernel traceEvents[{}] "
                                        "is not in the window: no launch edge (HTA fails here)",
                                        runtime, ev.source));
      }
    } else if (prev != kNoIndex && ev.start_ns - prev_ts < kKernelKernelDelayThresholdNs &&
               (ks < 0 || ks_end_ts < prev_ts)) {
      // Kernel-kernel delay: the kernel waited for the one before it on its
      // stream, less than KERNEL_KERNEL_DELAY_THRESHOLD_US after it ended.
      AddEdge(prev, true, e, false, EventEdgeKind::kKernelKernelDelay);
      edge_added = true;
    }
    if (!edge_added) {
      Warn(kNoIncomingEdge,
           fmt::format("kernel traceEvents[{}] on stream {} has no edge into its start", ev.source,
                       stream));
    }
    // CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE.
    if (o_->zero_weight_launch_edges && !launch_added && SourceHasNodes(runtime)) {
      AddEdge(runtime_row, false, e, false, EventEdgeKind::kLaunchDelay, true);
    }
    if (prev_at == last_at.end()) {
      last_at.emplace(stream, last_node.size());
      last_node.emplace_back(stream, e);
    } else {
      last_node[prev_at->second].second = e;
    }
    if (!fatal_.empty()) return;
  }
}

// CPGraph handle_cuda_sync (in _construct_graph_from_kernels).
void Builder::Sync(uint32_t e, const std::vector<std::pair<int64_t, uint32_t>>& last_node,
                   const std::unordered_map<int64_t, size_t>& last_at,
                   std::unordered_map<int64_t, int64_t>& kernel_sync) {
  const TimelineEvent& ev = t_.events[e];
  const uint16_t f = Flags(e);
  const int64_t call = Ic(e);
  // _add_gpu_cpu_sync_edge: the GPU's point -> the end of the CPU call waiting.
  auto gpu_cpu_sync = [&](uint32_t gpu_event) {
    if (!SourceHasNodes(call)) {
      Warn(kNoSyncCall,
           fmt::format("the CPU call traceEvents[{}] of the sync event traceEvents[{}] "
                       "is not in the window: no sync edge (HTA fails here)",
                       call, ev.source));
      return;
    }
    AddEdge(gpu_event, true, Row(call), true, EventEdgeKind::kSync);
  };
  if (f & (kStreamWait | kEventSync)) {
    // _check_event_sync_helper: the kernel launched last before the
    // cudaEventRecord this waits on.
    int64_t launch = -1;
    if (trace_.has_records) {
      if (auto it = trace_.prev_launch.find(WaitRecord(e)); it != trace_.prev_launch.end())
        launch = it->second;
    }
    if (launch == -1) return;
    const uint32_t launch_row = Row(launch);
    const int64_t src = launch_row == kNoIndex ? -1 : Ic(launch_row);
    if (f & kStreamWait) {
      // The kernel launched next into the waiting stream waits for it.
      const std::optional<int64_t> next = NextLaunch(call);
      if (!next) {
        Warn(kNoWaitEntry,
             fmt::format("Stream Wait Event traceEvents[{}] has no cudaStreamWaitEvent "
                         "entry (HTA fails here)",
                         ev.source));
        return;
      }
      if (*next < 0) return;
      kernel_sync[Ic(Row(*next))] = src;
    } else if (SourceHasNodes(src)) {
      // Event Sync: the CPU call waits for that kernel.
      gpu_cpu_sync(Row(src));
    }
    return;
  }
  if (f & kStreamSync) {
    if (auto it = last_at.find(Stream(e)); it != last_at.end()) {
      gpu_cpu_sync(last_node[it->second].second);
    }
    return;
  }
  if (f & kContextSync) {
    for (const auto& [stream, kernel] : last_node) gpu_cpu_sync(kernel);
    return;
  }
  Warn(kUnknownSync, fmt::format("unknown cuda_sync event '{}' at traceEvents[{}] (HTA fails here)",
                                 t_.name(ev), ev.source));
}

int64_t Builder::WaitRecord(uint32_t e) const {
  auto it = std::lower_bound(t_.waits.begin(), t_.waits.end(), e,
                             [](const WaitArgs& w, uint32_t x) { return w.event < x; });
  return it != t_.waits.end() && it->event == e ? it->wait_on_record : -1;
}

}  // namespace event_path_internal
}  // namespace cookgraph
