// The event-level critical path (docs/architecture.md#event-critical-path),
// following hta/analyzers/critical_path_analysis.py at commit f4d0062 (CPGraph
// and CriticalPathAnalysis.critical_path_analysis) and the HTA functions it
// calls, each cited where its rule is applied. Since commit 009fc81, which
// this file followed before, HTA added the CUDA runtime lock (RuntimeLock,
// SharesLock), the backward thread walked as the forward one (CallStacks)
// and the kernel-kernel threshold (Kernels).
//
// HTA works on a DataFrame of "rows": the trace's events that have a dur and
// a cat other than "Trace". Here a row is a Timeline event (the reader already
// drops Kineto's "Trace" span), less the gpu_user_annotation copies HTA
// drops. An event is identified as HTA identifies it, by its index in the
// file's traceEvents (TimelineEvent::source), which matters: HTA stores links
// between events as such indexes, with 0 where there is none, and then reads
// the event at index 0 (see IndexCorrelation).
//
// Cost: a few vectors indexed by event or by traceEvents index, sorts of the
// launch calls and GPU events, O(E log E) for the whole trace, once however
// many windows are asked for (ForEachEventCriticalPath); then per window its
// graph, O(W log W) for W events in it (plus the trace's "Stream Wait Event"s,
// which are in every window).
//
// The Builder that does it is declared in event_critical_path_builder.h and
// defined by concept over the event_critical_path*.cc files (that header
// lists them); this one holds HTA's DataFrame (its rows, their
// index_correlation, the multi-step filter) and the public functions.

#include "metrics/event_critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#ifndef COOKGRAPH_SINGLE_THREAD
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#endif

#include "metrics/event_critical_path_builder.h"

namespace cookgraph {
namespace event_path_internal {
namespace {

// hta/common/trace_symbol_table.py, get_runtime_launch_events_mask: CUDA,
// ROCm, MTIA and XPU launch calls.
constexpr std::array<std::string_view, 28> kGraphLaunchCalls = {
    "cudaMemsetAsync",
    "cudaMemcpyAsync",
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cuLaunchKernelEx",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipMemcpyAsync",
    "hipMemsetAsync",
    "hipMemcpyWithStream",
    "urEnqueueUSMFill",
    "urEnqueueUSMFill2D",
    "urEnqueueUSMMemcpy",
    "urEnqueueUSMMemcpy2D",
    "urEnqueueKernelLaunch",
    "urEnqueueKernelLaunchExp",
    "urEnqueueKernelLaunchCustomExp",
    "urEnqueueKernelLaunchWithArgsExp",
    "urEnqueueCooperativeKernelLaunchExp",
    "urEnqueueMemBufferFill",
    "urEnqueueMemBufferRead",
    "urEnqueueMemBufferWrite",
    "urEnqueueMemBufferCopy",
    "urUSMHostAlloc",
    "urUSMSharedAlloc",
    "urUSMDeviceAlloc"};

// CPGraph.BLOCKING_SYNC_CALLS: the edge into the end of one of these weighs 0
// (the time is the GPU's, which a sync edge brings in).
constexpr std::array<std::string_view, 6> kBlockingCalls = {"cudaDeviceSynchronize",
                                                            "cudaStreamSynchronize",
                                                            "cudaEventQuery",
                                                            "cudaEventSynchronize",
                                                            "cudaMemcpy",
                                                            "cudaMemcpyAsync"};

// CUDA_RUNTIME_EVENTS: the calls that hold the CUDA runtime's lock, so that
// only one of them, on any thread, makes progress at a time.
constexpr std::array<std::string_view, 3> kRuntimeLockCalls = {"cudaHostAlloc", "cudaLaunchKernel",
                                                               "cudaMemcpyAsync"};

uint16_t FlagsOf(std::string_view name) {
  uint16_t f = 0;
  if (std::find(kGraphLaunchCalls.begin(), kGraphLaunchCalls.end(), name) != kGraphLaunchCalls.end()) {
    f |= kLaunchCall;
  }
  if (std::find(kBlockingCalls.begin(), kBlockingCalls.end(), name) != kBlockingCalls.end()) {
    f |= kBlockingCall;
  }
  if (name == "Event Sync") f |= kEventSync;
  if (name == "Context Sync") f |= kContextSync;
  if (name == "Stream Sync") f |= kStreamSync;
  if (name == "Stream Wait Event") f |= kStreamWait;
  if (name == "cudaEventRecord") f |= kEventRecord;
  if (name == "cudaStreamWaitEvent") f |= kStreamWaitCall;
  if (IsProfilerStep(name)) f |= kProfilerStep;
  if (std::find(kRuntimeLockCalls.begin(), kRuntimeLockCalls.end(), name) !=
      kRuntimeLockCalls.end()) {
    f |= kRuntimeLock;
  }
  if (name.find("forward") != std::string_view::npos) f |= kForwardName;
  if (name.find("autograd") != std::string_view::npos) f |= kAutogradName;
  return f;
}

}  // namespace

void Builder::Prepare() {
  const size_t n = t_.events.size();
  trace_.name_flags.resize(t_.names.size());
  for (size_t i = 0; i < t_.names.size(); ++i) trace_.name_flags[i] = FlagsOf(t_.names[i]);
  trace_.flags.assign(n, 0);
  uint32_t max_source = 0;
  for (const TimelineEvent& e : t_.events) max_source = std::max(max_source, e.source);
  trace_.by_source.assign(n == 0 ? 0 : size_t{max_source} + 1, kNoIndex);
  trace_.name_used.assign(t_.names.size(), 0);
  for (uint32_t e = 0; e < n; ++e) {
    const TimelineEvent& ev = t_.events[e];
    trace_.by_source[ev.source] = e;
    // hta/common/trace_parser.py keeps the events with dur and cat; the
    // critical path drops the annotations' copies on GPU streams.
    if (ev.kind == EventKind::kGpuAnnotation) continue;
    trace_.flags[e] = kHtaRow | kRow;
    trace_.name_used[ev.name] = 1;
    const bool gpu_side =
        (Stream(e) >= 0 && Correlation(e) >= 0) || (Flags(e) & (kEventSync | kContextSync));
    if (gpu_side) trace_.flags[e] |= kGpuSide;
  }
  // The rows in file order (HTA's DataFrame order before the filter).
  trace_.file_order.reserve(n);
  for (uint32_t e : trace_.by_source) {
    if (e != kNoIndex && (trace_.flags[e] & kHtaRow)) trace_.file_order.push_back(e);
  }
  trace_.has_records = Symbol(kEventRecord);
  trace_.has_waits = Symbol(kStreamWaitCall) && Symbol(kStreamWait);
}

bool Builder::Symbol(uint16_t flag) const {
  for (size_t i = 0; i < trace_.name_flags.size(); ++i) {
    if ((trace_.name_flags[i] & flag) && trace_.name_used[i]) return true;
  }
  return false;
}

// hta/common/trace.py, transform_correlation_to_index: every CPU-side row and
// every GPU-side row of the same correlation point at each other, the last
// one in file order winning; a row with a correlation and no partner gets 0
// (min(correlation, 0)), one without a correlation -1. Done before the
// multi-step filter, on every row.
void Builder::IndexCorrelation() {
  trace_.ic.assign(t_.events.size(), kNoIndex);
  // The rows with a correlation, grouped by it (file order within a group):
  // sorted once here, read again by FilterSteps and SortQueueItems. Read in
  // the events' order, which reads them one after the other (file order
  // jumps across the table); each group is put in file order after.
  struct Row {
    uint32_t correlation, source, event;
  };
  std::vector<Row> by_corr;
  uint32_t max_corr = 0;
  for (uint32_t e = 0; e < t_.events.size(); ++e) {
    const TimelineEvent& ev = t_.events[e];
    if (ev.correlation == kNoIndex || !(trace_.flags[e] & kHtaRow)) continue;
    by_corr.push_back({ev.correlation, ev.source, e});
    max_corr = std::max(max_corr, ev.correlation);
  }
  // Kineto numbers correlations from 1 up: a table of them, where it is not
  // much larger than the rows, groups them in one pass (a counting sort);
  // else a sort does.
  if (!by_corr.empty() && max_corr / 4 <= by_corr.size()) {
    std::vector<uint32_t> at(size_t{max_corr} + 2, 0);
    for (const Row& row : by_corr) ++at[size_t{row.correlation} + 1];
    for (size_t c = 1; c < at.size(); ++c) at[c] += at[c - 1];
    std::vector<Row> grouped(by_corr.size());
    for (const Row& row : by_corr) grouped[at[row.correlation]++] = row;
    by_corr = std::move(grouped);
  } else {
    std::sort(by_corr.begin(), by_corr.end(),
              [](const Row& a, const Row& b) { return a.correlation < b.correlation; });
  }
  trace_.corr_rows.reserve(by_corr.size());
  trace_.group_of.assign(t_.events.size(), kNoIndex);
  for (size_t lo = 0; lo < by_corr.size();) {
    size_t hi = lo;
    while (hi < by_corr.size() && by_corr[hi].correlation == by_corr[lo].correlation) ++hi;
    // File order within the group (a handful of rows: a launch and its kernels).
    std::sort(by_corr.begin() + static_cast<std::ptrdiff_t>(lo),
              by_corr.begin() + static_cast<std::ptrdiff_t>(hi),
              [](const Row& a, const Row& b) { return a.source < b.source; });
    uint32_t last_gpu = kNoIndex, last_cpu = kNoIndex;
    const auto group = static_cast<uint32_t>(trace_.group_at.size());
    trace_.group_at.push_back(static_cast<uint32_t>(lo));
    for (size_t k = lo; k < hi; ++k) {
      const uint32_t e = by_corr[k].event;
      ((trace_.flags[e] & kGpuSide) ? last_gpu : last_cpu) = by_corr[k].source;
      trace_.corr_rows.push_back(e);
      trace_.group_of[e] = group;
    }
    for (size_t k = lo; k < hi; ++k) {
      const uint32_t e = by_corr[k].event;
      const uint32_t partner = (trace_.flags[e] & kGpuSide) ? last_cpu : last_gpu;
      trace_.ic[e] = partner == kNoIndex ? 0 : partner;
    }
    lo = hi;
  }
  trace_.group_at.push_back(static_cast<uint32_t>(trace_.corr_rows.size()));
}

// hta/common/trace.py, Trace._filter_irrelevant_gpu_kernels (load_traces
// with include_last_profiler_step=False): with two or more ProfilerStep#N
// names, the CPU-side rows from the last step's start on go, and the
// GPU-side rows whose correlation no CPU-side row kept has. The DataFrame
// then holds the GPU-side rows first.
void Builder::FilterSteps() {
  size_t steps = 0;
  for (size_t i = 0; i < trace_.name_flags.size(); ++i) {
    if ((trace_.name_flags[i] & kProfilerStep) && trace_.name_used[i]) ++steps;
  }
  if (steps < 2) return;  // trace_.order stays empty: Order() is trace_.file_order
  trace_.filtered = true;
  int64_t last_step = INT64_MIN, first_cpu = INT64_MAX;
  for (uint32_t e : trace_.file_order) {
    if (trace_.flags[e] & kGpuSide) continue;
    first_cpu = std::min(first_cpu, t_.events[e].start_ns);
    if (Flags(e) & kProfilerStep) last_step = std::max(last_step, t_.events[e].start_ns);
  }
  const int64_t last = last_step != INT64_MIN ? last_step : first_cpu == INT64_MAX ? 0 : first_cpu;
  bool kept_without = false;  // a CPU-side row without a correlation is kept
  for (uint32_t e : trace_.file_order) {
    if (trace_.flags[e] & kGpuSide) continue;
    if (t_.events[e].start_ns < last) {
      kept_without = kept_without || Correlation(e) < 0;
    } else {
      trace_.flags[e] &= static_cast<uint8_t>(~kRow);
    }
  }
  // A GPU-side row stays when a CPU-side row of its correlation (or, without
  // one, any CPU-side row without one) stays.
  auto kept = [&](uint32_t gpu) {
    if (Correlation(gpu) < 0) return kept_without;
    for (uint32_t e : SameCorrelation(gpu)) {
      if (!(trace_.flags[e] & kGpuSide) && (trace_.flags[e] & kRow)) return true;
    }
    return false;
  };
  for (uint32_t e : trace_.file_order) {
    if (!(trace_.flags[e] & kGpuSide)) continue;
    if (!kept(e)) {
      trace_.flags[e] &= static_cast<uint8_t>(~kRow);
    } else {
      trace_.order.push_back(e);
    }
  }
  for (uint32_t e : trace_.file_order) {
    if (!(trace_.flags[e] & kGpuSide) && (trace_.flags[e] & kRow)) trace_.order.push_back(e);
  }
}

}  // namespace event_path_internal

using event_path_internal::Builder;

std::string_view EventEdgeKindName(EventEdgeKind kind) {
  switch (kind) {
    case EventEdgeKind::kOperator:
      return "operator";
    case EventEdgeKind::kDependency:
      return "dependency";
    case EventEdgeKind::kLaunchDelay:
      return "launch_delay";
    case EventEdgeKind::kKernelKernelDelay:
      return "kernel_kernel_delay";
    case EventEdgeKind::kSync:
      return "sync_dependency";
  }
  return "operator";
}

Result<EventPath> EventCriticalPath(const Timeline& timeline, const EventPathOptions& options) {
  Builder builder(timeline, std::span(&options, 1));
  return builder.Run(0);
}

namespace {

#ifndef COOKGRAPH_SINGLE_THREAD
// The windows on two cores: `first` runs the even ones on this thread and
// `second` the odd ones on a worker; each thread then hands its result to
// `each` when its turn comes, so that `each` gets them in order, one call at
// a time, and its work is shared too. Each thread holds at most one result
// waiting for its turn. When a window's Run or `each` throws, the windows
// before it are still handed over and none after it is, as on one thread:
// the exception of the first such window reaches the caller. A worker that
// cannot be started leaves every window to `first`.
void ForEachOnTwoCores(Builder& first, Builder& second, size_t n,
                       const std::function<void(size_t, Result<EventPath>)>& each) {
  std::mutex mu;
  std::condition_variable turn_changed;
  size_t turn = 0;              // the window `each` takes next
  size_t failed_at = SIZE_MAX;  // the first window, in order, that threw
  std::exception_ptr failure;   // its exception
  auto fail = [&](size_t i) {
    const std::lock_guard lock(mu);
    if (i < failed_at) {
      failed_at = i;
      failure = std::current_exception();
    }
    turn_changed.notify_all();
  };
  auto walk = [&](Builder& builder, size_t from) {
    for (size_t i = from; i < n; i += 2) {
      {
        const std::lock_guard lock(mu);
        if (failed_at < i) return;
      }
      std::optional<Result<EventPath>> path;
      try {
        path.emplace(builder.Run(i));
      } catch (...) {
        fail(i);
        return;
      }
      {
        // This thread did its windows before i, the other those up to i - 1
        // unless one threw: the turn comes, or a failure before i.
        std::unique_lock lock(mu);
        turn_changed.wait(lock, [&] { return turn == i || failed_at < i; });
        if (failed_at < i) return;
      }
      // The other thread waits for turn i + 1: this call is the only one.
      try {
        each(i, std::move(*path));
      } catch (...) {
        fail(i);
        return;
      }
      const std::lock_guard lock(mu);
      turn = i + 1;
      turn_changed.notify_all();
    }
  };
  std::thread worker;
  try {
    worker = std::thread(walk, std::ref(second), size_t{1});
  } catch (const std::system_error&) {
    for (size_t i = 0; i < n; ++i) each(i, first.Run(i));
    return;
  }
  walk(first, 0);
  worker.join();
  if (failure) std::rethrow_exception(failure);
}
#endif

}  // namespace

void ForEachEventCriticalPath(const Timeline& timeline, std::span<const EventPathOptions> windows,
                              const std::function<void(size_t, Result<EventPath>)>& each) {
  if (windows.empty()) return;
  Builder builder(timeline, windows);
#ifndef COOKGRAPH_SINGLE_THREAD
  // A large trace's windows on two cores: a second builder reads the first's
  // tables of the whole trace, which Share() finishes first; each builder
  // has its own per-window state (two vectors of the trace's length).
  if (windows.size() >= 2 && timeline.events.size() >= kParallelTraceItems && HaveSecondCore()) {
    builder.Share();
    Builder second(Builder::SecondOf{builder});
    ForEachOnTwoCores(builder, second, windows.size(), each);
    return;
  }
#endif
  for (size_t i = 0; i < windows.size(); ++i) each(i, builder.Run(i));
}

std::vector<Result<EventPath>> EventCriticalPaths(const Timeline& timeline,
                                                  std::span<const EventPathOptions> windows) {
  std::vector<Result<EventPath>> out;
  out.reserve(windows.size());
  ForEachEventCriticalPath(timeline, windows,
                           [&](size_t, Result<EventPath> path) { out.push_back(std::move(path)); });
  return out;
}

std::vector<std::pair<uint32_t, int64_t>> PathTimePerNode(const Timeline& timeline,
                                                          const EventPath& path) {
  std::unordered_map<uint32_t, int64_t> sum;
  for (uint32_t i : path.path) {
    const EventEdge& edge = path.edges[i];
    const uint32_t node = timeline.events[edge.to].node;
    if (node != kNoIndex) sum[node] += edge.weight_ns;
  }
  std::vector<std::pair<uint32_t, int64_t>> out(sum.begin(), sum.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return out;
}

}  // namespace cookgraph
