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

#include "metrics/event_critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace cookgraph {
namespace {

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

// KERNEL_KERNEL_DELAY_THRESHOLD_US: a gap between two kernels of a stream of
// this much or more is not a kernel-kernel delay (HTA takes it for a
// dependency it does not see); in ns.
constexpr int64_t kKernelKernelDelayThresholdNs = 1'500'000;

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

ThreadKey KeyOf(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (!s.empty() && ec == std::errc() && end == s.data() + s.size()) return {false, v, {}};
  return {true, 0, s};
}

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

// One timeline's graphs, window after window. The constructor does what is
// the same for every window, once: HTA's DataFrame (its rows, their
// index_correlation, the multi-step filter) and indexes that let a window find
// its events without a walk over the trace; the launch queues and CPGraph's
// tables of runtime calls and event records follow on the first window that
// needs them. Run(i) then builds window i's graph from its own events only,
// every per-window member reset first, so that each result is the one a
// Builder made for that window alone would give.
class Builder {
 public:
  Builder(const Timeline& t, std::span<const EventPathOptions> windows) : t_(t), windows_(windows) {
    Prepare();
    IndexCorrelation();
    FilterSteps();
    IndexWindows();
  }

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
  uint16_t Flags(uint32_t e) const { return name_flags_[t_.events[e].name]; }
  int64_t Correlation(uint32_t e) const {
    const uint32_t c = t_.events[e].correlation;
    return c == kNoIndex ? -1 : int64_t{c};
  }
  // The row at traceEvents index `source` (HTA's trace_df.loc), or kNoIndex.
  uint32_t Row(int64_t source) const {
    if (source < 0 || static_cast<uint64_t>(source) >= by_source_.size()) return kNoIndex;
    const uint32_t e = by_source_[static_cast<size_t>(source)];
    return e != kNoIndex && (flags_[e] & kRow) ? e : kNoIndex;
  }
  int64_t Ic(uint32_t e) const { return ic_[e] == kNoIndex ? -1 : int64_t{ic_[e]}; }
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

  void Prepare() {
    const size_t n = t_.events.size();
    name_flags_.resize(t_.names.size());
    for (size_t i = 0; i < t_.names.size(); ++i) name_flags_[i] = FlagsOf(t_.names[i]);
    flags_.assign(n, 0);
    uint32_t max_source = 0;
    for (const TimelineEvent& e : t_.events) max_source = std::max(max_source, e.source);
    by_source_.assign(n == 0 ? 0 : size_t{max_source} + 1, kNoIndex);
    name_used_.assign(t_.names.size(), 0);
    for (uint32_t e = 0; e < n; ++e) {
      const TimelineEvent& ev = t_.events[e];
      by_source_[ev.source] = e;
      // hta/common/trace_parser.py keeps the events with dur and cat; the
      // critical path drops the annotations' copies on GPU streams.
      if (ev.kind == EventKind::kGpuAnnotation) continue;
      flags_[e] = kHtaRow | kRow;
      name_used_[ev.name] = 1;
      const bool gpu_side =
          (Stream(e) >= 0 && Correlation(e) >= 0) || (Flags(e) & (kEventSync | kContextSync));
      if (gpu_side) flags_[e] |= kGpuSide;
    }
    // The rows in file order (HTA's DataFrame order before the filter).
    file_order_.reserve(n);
    for (uint32_t e : by_source_) {
      if (e != kNoIndex && (flags_[e] & kHtaRow)) file_order_.push_back(e);
    }
    stamp_.assign(n, 0);
    local_.assign(n, kNoIndex);
    has_records_ = Symbol(kEventRecord);
    has_waits_ = Symbol(kStreamWaitCall) && Symbol(kStreamWait);
  }
  bool Symbol(uint16_t flag) const {  // a row's name is one of these (TraceSymbolTable)
    for (size_t i = 0; i < name_flags_.size(); ++i) {
      if ((name_flags_[i] & flag) && name_used_[i]) return true;
    }
    return false;
  }

  // hta/common/trace.py, transform_correlation_to_index: every CPU-side row and
  // every GPU-side row of the same correlation point at each other, the last
  // one in file order winning; a row with a correlation and no partner gets 0
  // (min(correlation, 0)), one without a correlation -1. Done before the
  // multi-step filter, on every row.
  void IndexCorrelation() {
    ic_.assign(t_.events.size(), kNoIndex);
    // The rows with a correlation, grouped by it (file order within a group):
    // sorted once here, read again by FilterSteps and SortQueueItems.
    std::vector<std::pair<uint32_t, uint32_t>> by_corr;  // (correlation, event) in file order
    for (uint32_t e : file_order_) {
      const uint32_t c = t_.events[e].correlation;
      if (c != kNoIndex) by_corr.emplace_back(c, e);
    }
    std::stable_sort(by_corr.begin(), by_corr.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    corr_rows_.reserve(by_corr.size());
    group_of_.assign(t_.events.size(), kNoIndex);
    for (size_t lo = 0; lo < by_corr.size();) {
      size_t hi = lo;
      uint32_t last_gpu = kNoIndex, last_cpu = kNoIndex;
      const auto group = static_cast<uint32_t>(group_at_.size());
      group_at_.push_back(static_cast<uint32_t>(lo));
      for (; hi < by_corr.size() && by_corr[hi].first == by_corr[lo].first; ++hi) {
        const uint32_t e = by_corr[hi].second;
        ((flags_[e] & kGpuSide) ? last_gpu : last_cpu) = t_.events[e].source;
        corr_rows_.push_back(e);
        group_of_[e] = group;
      }
      for (size_t k = lo; k < hi; ++k) {
        const uint32_t e = by_corr[k].second;
        const uint32_t partner = (flags_[e] & kGpuSide) ? last_cpu : last_gpu;
        ic_[e] = partner == kNoIndex ? 0 : partner;
      }
      lo = hi;
    }
    group_at_.push_back(static_cast<uint32_t>(corr_rows_.size()));
  }
  // The rows sharing a correlation with row `e` (itself included), in file
  // order; none for a row without one.
  std::span<const uint32_t> SameCorrelation(uint32_t e) const {
    const uint32_t g = group_of_[e];
    if (g == kNoIndex) return {};
    return std::span<const uint32_t>(corr_rows_).subspan(group_at_[g], group_at_[g + 1] - group_at_[g]);
  }

  // hta/common/trace.py, Trace._filter_irrelevant_gpu_kernels (load_traces
  // with include_last_profiler_step=False): with two or more ProfilerStep#N
  // names, the CPU-side rows from the last step's start on go, and the
  // GPU-side rows whose correlation no CPU-side row kept has. The DataFrame
  // then holds the GPU-side rows first.
  void FilterSteps() {
    size_t steps = 0;
    for (size_t i = 0; i < name_flags_.size(); ++i) {
      if ((name_flags_[i] & kProfilerStep) && name_used_[i]) ++steps;
    }
    if (steps < 2) return;  // order_ stays empty: Order() is file_order_
    filtered_ = true;
    int64_t last_step = INT64_MIN, first_cpu = INT64_MAX;
    for (uint32_t e : file_order_) {
      if (flags_[e] & kGpuSide) continue;
      first_cpu = std::min(first_cpu, t_.events[e].start_ns);
      if (Flags(e) & kProfilerStep) last_step = std::max(last_step, t_.events[e].start_ns);
    }
    const int64_t last = last_step != INT64_MIN   ? last_step
                         : first_cpu == INT64_MAX ? 0
                                                  : first_cpu;
    bool kept_without = false;  // a CPU-side row without a correlation is kept
    for (uint32_t e : file_order_) {
      if (flags_[e] & kGpuSide) continue;
      if (t_.events[e].start_ns < last) {
        kept_without = kept_without || Correlation(e) < 0;
      } else {
        flags_[e] &= static_cast<uint8_t>(~kRow);
      }
    }
    // A GPU-side row stays when a CPU-side row of its correlation (or, without
    // one, any CPU-side row without one) stays.
    auto kept = [&](uint32_t gpu) {
      if (Correlation(gpu) < 0) return kept_without;
      for (uint32_t e : SameCorrelation(gpu)) {
        if (!(flags_[e] & kGpuSide) && (flags_[e] & kRow)) return true;
      }
      return false;
    };
    for (uint32_t e : file_order_) {
      if (!(flags_[e] & kGpuSide)) continue;
      if (!kept(e)) {
        flags_[e] &= static_cast<uint8_t>(~kRow);
      } else {
        order_.push_back(e);
      }
    }
    for (uint32_t e : file_order_) {
      if (!(flags_[e] & kGpuSide) && (flags_[e] & kRow)) order_.push_back(e);
    }
  }

  // A row's place in Order(): file order, the GPU-side rows first when filtered.
  uint64_t OrderKey(uint32_t e) const {
    const uint64_t cpu_after = filtered_ && !(flags_[e] & kGpuSide) ? 1 : 0;
    return cpu_after << 32 | t_.events[e].source;
  }

  // What Window() and Clip() look up, so that a window finds its events
  // without a walk over the trace: the span of every row, the rows that Clip
  // may take, by thread and start, the "Stream Wait Event"s it always takes,
  // and for each annotation asked for the names holding it and their rows.
  // One pass over the events in their own order (by track, then start).
  void IndexWindows() {
    slot_of_name_.assign(t_.names.size(), kNoIndex);
    uint32_t slots = 0;
    for (const EventPathOptions& w : windows_) {
      if (w.annotation.empty()) continue;
      auto [it, added] = holders_.try_emplace(w.annotation);
      if (!added) continue;
      for (uint32_t n = 0; n < t_.names.size(); ++n) {
        if (!name_used_[n] || t_.names[n].find(w.annotation) == std::string::npos) continue;
        it->second.push_back(n);
        if (slot_of_name_[n] == kNoIndex) slot_of_name_[n] = slots++;
      }
    }
    std::vector<std::pair<uint32_t, uint32_t>> held;  // (slot, row)
    for (uint32_t e = 0; e < t_.events.size(); ++e) {
      if (!(flags_[e] & kRow)) continue;  // not in Order()
      const TimelineEvent& ev = t_.events[e];
      whole_start_ = std::min(whole_start_, ev.start_ns);
      whole_end_ = std::max(whole_end_, ev.end_ns());
      if (slots > 0 && slot_of_name_[ev.name] != kNoIndex) {
        held.emplace_back(slot_of_name_[ev.name], e);
      }
      if (Stream(e) != -1) {
        if (Flags(e) & kStreamWait) stream_waits_.push_back(e);
      } else if (ev.dur_ns > 0) {
        if (cpu_rows_.empty() || t_.events[cpu_rows_.back()].track != ev.track) {
          cpu_runs_.push_back(static_cast<uint32_t>(cpu_rows_.size()));
        }
        cpu_rows_.push_back(e);
      }
    }
    cpu_runs_.push_back(static_cast<uint32_t>(cpu_rows_.size()));
    // A track's events are by start in the timeline (model/timeline.h);
    // checked rather than assumed.
    auto by_start = [&](uint32_t a, uint32_t b) {
      return t_.events[a].start_ns < t_.events[b].start_ns;
    };
    for (size_t r = 0; r + 1 < cpu_runs_.size(); ++r) {
      const auto first = cpu_rows_.begin() + cpu_runs_[r],
                 last = cpu_rows_.begin() + cpu_runs_[r + 1];
      if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
    }
    // Per slot, its name's rows in Order().
    std::sort(held.begin(), held.end(), [&](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : OrderKey(a.second) < OrderKey(b.second);
    });
    slot_at_.assign(size_t{slots} + 1, 0);
    slot_rows_.reserve(held.size());
    for (const auto& [k, e] : held) {
      ++slot_at_[k + 1];
      slot_rows_.push_back(e);
    }
    for (size_t k = 0; k < slots; ++k) slot_at_[k + 1] += slot_at_[k];
  }

  // The rows whose name holds `annotation`, in Order().
  std::span<const uint32_t> Instances(std::string_view annotation) {
    const std::vector<uint32_t>& names = holders_.at(annotation);
    auto rows_of = [&](uint32_t name) {
      const uint32_t k = slot_of_name_[name];
      return std::span<const uint32_t>(slot_rows_)
          .subspan(slot_at_[k], slot_at_[k + 1] - slot_at_[k]);
    };
    if (names.empty()) return {};
    if (names.size() == 1) return rows_of(names[0]);
    // Several names: their rows merged, kept for the next window of the same
    // annotation (windows usually come annotation by annotation).
    if (merged_for_ != annotation) {
      merged_.clear();
      for (uint32_t n : names) {
        const std::span<const uint32_t> rows = rows_of(n);
        merged_.insert(merged_.end(), rows.begin(), rows.end());
      }
      std::sort(merged_.begin(), merged_.end(),
                [&](uint32_t a, uint32_t b) { return OrderKey(a) < OrderKey(b); });
      merged_for_ = annotation;
    }
    return merged_;
  }

  // Every per-window member back to empty (the trace-wide ones stay).
  void Reset(const EventPathOptions& o) {
    o_ = &o;
    out_ = EventPath{};
    fatal_.clear();
    window_.clear();
    node_of_.clear();
    node_event_.clear();
    node_end_.clear();
    in_head_.clear();
    edges_.clear();
    state_ = {};
    warnings_ = {};
    // A new stamp leaves every event out of the window, without a walk over them.
    if (++epoch_ == 0) {
      std::fill(stamp_.begin(), stamp_.end(), 0);
      epoch_ = 1;
    }
  }

  // CriticalPathAnalysis.critical_path_analysis: the window is the whole
  // trace for annotation "", else from the start of the chosen instances of
  // the rows whose name holds the annotation to their last end.
  Status Window() {
    if (Order().empty()) {
      return Error{.file = t_.file,
                   .message = "the trace has no events to find a critical path in"};
    }
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    if (o_->annotation.empty()) {
      lo = whole_start_;
      hi = whole_end_;
    } else {
      const std::span<const uint32_t> instances = Instances(o_->annotation);
      const size_t first = o_->instance;
      const size_t last = o_->last_instance.value_or(o_->instance);
      const size_t count = instances.size();
      if (count == 0) {
        return Error{
            .file = t_.file,
            .message = fmt::format("no event name contains the annotation '{}'", o_->annotation)};
      }
      if (first >= count || last < first) {
        return Error{.file = t_.file,
                     .message = fmt::format(
                         "the annotation '{}' has {} instance{} (0 to {}); there is no "
                         "instance {}",
                         o_->annotation, count, count == 1 ? "" : "s", count - 1,
                         o_->last_instance && last != first ? fmt::format("{}:{}", first, last)
                                                            : fmt::format("{}", first))};
      }
      for (size_t k = first; k < count && k <= last; ++k) {
        const TimelineEvent& ev = t_.events[instances[k]];
        lo = std::min(lo, ev.start_ns);
        hi = std::max(hi, ev.end_ns());
      }
    }
    out_.window_start_ns = lo;
    out_.window_end_ns = hi;
    return {};
  }

  // critical_path_analysis, the clipped DataFrame: CPU-side rows (stream -1)
  // that start inside the window and last > 0, GPU-side rows whose CPU-side
  // partner (a stream -1 row whose index_correlation names it) is such a row,
  // and every "Stream Wait Event" whenever it is.
  void Clip() {
    const int64_t lo = out_.window_start_ns, hi = out_.window_end_ns;
    auto take = [&](uint32_t e) {
      if (InWindow(e)) return;
      stamp_[e] = epoch_;
      window_.push_back(e);
    };
    auto before = [&](uint32_t e, int64_t ts) { return t_.events[e].start_ns < ts; };
    for (size_t r = 0; r + 1 < cpu_runs_.size(); ++r) {  // each thread's rows from lo to hi
      const auto last = cpu_rows_.begin() + cpu_runs_[r + 1];
      auto it = std::lower_bound(cpu_rows_.begin() + cpu_runs_[r], last, lo, before);
      for (; it != last && t_.events[*it].start_ns <= hi; ++it) {
        take(*it);
        const uint32_t partner = Row(Ic(*it));
        if (partner != kNoIndex && Stream(partner) != -1) take(partner);
      }
    }
    for (uint32_t e : stream_waits_) take(e);
    std::sort(window_.begin(), window_.end());  // by track, then start: as the walks want
    for (uint32_t i = 0; i < window_.size(); ++i) local_[window_[i]] = i;
    out_.window_events = window_.size();
    node_of_.assign(2 * window_.size(), kNoIndex);
  }

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

  // CPGraph._construct_graph_from_cuda_runtime_events, before the call
  // stacks: the points of the window's lock-holding calls (every thread's)
  // by (time, traceEvents index). The lock goes to the call that ends first:
  // at each end, every start seen and not yet taken leads to it (the call's
  // own start by an operator edge, its span; another call's by a weight-0
  // dependency), and so does the end before it, when the point before was
  // an end (the lock passed from call to call).
  void RuntimeLock() {
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
  void CallStacks() {
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
        starts.insert(starts.end(), window_.begin() + threads[k].lo,
                      window_.begin() + threads[k].hi);
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
  std::optional<ThreadKey> ThreadNaming(uint16_t flag) const {
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
  void QueueLengths() {
    if (!queue_sorted_) SortQueueItems();
    int64_t horizon = INT64_MIN;
    for (uint32_t e : window_) {
      horizon = std::max(horizon, t_.events[e].start_ns);
      if (const uint32_t call = Row(Ic(e)); call != kNoIndex) {
        horizon = std::max(horizon, t_.events[call].start_ns);
      }
    }
    for (; queue_next_ < queue_items_.size() && queue_items_[queue_next_].ts <= horizon;
         ++queue_next_) {
      const QueueItem& it = queue_items_[queue_next_];
      int32_t& q = queue_running_[it.stream];
      q += it.delta;
      queue_[it.event] = q;
    }
    if (queue_next_ == queue_items_.size()) {  // every length is final: the items can go
      queue_items_ = {};
      queue_next_ = 0;
    }
  }
  void SortQueueItems() {
    queue_sorted_ = true;
    queue_.assign(t_.events.size(), INT32_MIN);
    // A launch call's items: one per GPU-side row of its correlation (a call
    // with index_correlation > 0 has one), in file order.
    auto launch = [&](uint32_t e) {
      return (flags_[e] & kRow) && (Flags(e) & kLaunchCall) && Ic(e) > 0;
    };
    for (uint32_t e : file_order_) {
      if (!launch(e)) continue;
      for (uint32_t g : SameCorrelation(e)) {
        if ((flags_[g] & kRow) && Stream(g) != -1) {
          queue_items_.push_back({t_.events[e].start_ns, e, 1, Stream(g)});
        }
      }
    }
    for (uint32_t e : file_order_) {
      if (!(flags_[e] & kRow) || Stream(e) == -1) continue;
      const auto same = SameCorrelation(e);
      if (std::none_of(same.begin(), same.end(), launch)) continue;
      queue_items_.push_back({t_.events[e].start_ns, e, -1, Stream(e)});
    }
    // By time, then the order they were added in.
    std::stable_sort(queue_items_.begin(), queue_items_.end(),
                     [](const QueueItem& a, const QueueItem& b) { return a.ts < b.ts; });
  }

  // CPGraph._get_cuda_runtime_calls_df: the launch calls by start (stable),
  // whose index_correlation is a GPU-side row (stream != -1) with an
  // index_correlation > 0; each with its kernel's stream and GPU.
  void RuntimeCalls() {
    for (uint32_t e : file_order_) {
      if (!(flags_[e] & kRow) || !(Flags(e) & kLaunchCall) || Ic(e) <= 0) continue;
      const uint32_t k = Row(Ic(e));
      if (k == kNoIndex || Stream(k) == -1 || Ic(k) <= 0) continue;
      launches_.push_back({e, k, Stream(k)});
    }
    std::stable_sort(launches_.begin(), launches_.end(), [&](const Launch& a, const Launch& b) {
      return t_.events[a.event].start_ns < t_.events[b.event].start_ns;
    });
  }

  // CPGraph._get_cuda_event_record_df: for each cudaEventRecord that a row
  // with wait_on_stream > -1 waits on (its wait_on_cuda_event_record_corr_id
  // names the record's correlation; it gives the stream and, by its pid, the
  // GPU), the last launch to that GPU and stream at or before the record, from
  // any thread. Only when the trace has a cudaEventRecord.
  void EventRecords() {
    struct Where {
      int64_t stream;
      const std::string* pid;
    };
    std::unordered_map<int64_t, Where> recorded;  // record correlation -> where
    for (const WaitArgs& w : t_.waits) {
      if (w.event >= t_.events.size() || !(flags_[w.event] & kRow) || w.wait_on_stream <= -1)
        continue;
      const Where where{w.wait_on_stream, &t_.tracks[t_.events[w.event].track].pid};
      auto [it, added] = recorded.try_emplace(w.wait_on_record, where);
      if (!added && (it->second.stream != where.stream || *it->second.pid != *where.pid)) {
        // merge(..., validate="one_to_one") raises in HTA.
        records_error_ = fmt::format("cudaEventRecord correlation {} is waited on for two streams",
                                     w.wait_on_record);
        return;
      }
    }
    if (recorded.empty()) return;
    // Launches by GPU and stream, in launch order (by start).
    std::vector<uint32_t> by_where(launches_.size());
    for (uint32_t i = 0; i < by_where.size(); ++i) by_where[i] = i;
    auto pid_of = [&](const Launch& l) -> const std::string& {
      return t_.tracks[t_.events[l.kernel].track].pid;
    };
    std::stable_sort(by_where.begin(), by_where.end(), [&](uint32_t a, uint32_t b) {
      const int c = pid_of(launches_[a]).compare(pid_of(launches_[b]));
      if (c != 0) return c < 0;
      return launches_[a].stream < launches_[b].stream;
    });
    std::vector<uint32_t> records;
    for (uint32_t e : file_order_) {
      if ((flags_[e] & kRow) && (Flags(e) & kEventRecord) && recorded.count(Correlation(e))) {
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
      auto lo = std::lower_bound(by_where.begin(), by_where.end(), where,
                                 [&](uint32_t i, const Where& w) {
                                   const int c = pid_of(launches_[i]).compare(*w.pid);
                                   return c != 0 ? c < 0 : launches_[i].stream < w.stream;
                                 });
      auto hi = std::upper_bound(lo, by_where.end(), where, [&](const Where& w, uint32_t i) {
        const int c = w.pid->compare(pid_of(launches_[i]));
        return c != 0 ? c < 0 : w.stream < launches_[i].stream;
      });
      auto after = std::partition_point(
          lo, hi, [&](uint32_t i) { return t_.events[launches_[i].event].start_ns <= ts; });
      prev_launch_[Correlation(r)] =
          after == lo ? -1 : int64_t{t_.events[launches_[*(after - 1)].event].source};
    }
  }

  // CPGraph._get_cuda_stream_wait_event_df, for one cudaStreamWaitEvent
  // (traceEvents index `call`): the first launch after it from its thread
  // into the stream of its GPU-side "Stream Wait Event"; -1 when none; nullopt
  // when the call has no entry in HTA's table.
  std::optional<int64_t> NextLaunch(int64_t call) {
    if (!has_waits_) return std::nullopt;
    const uint32_t w = Row(call);
    if (w == kNoIndex || !(Flags(w) & kStreamWaitCall) || Ic(w) <= 0) return std::nullopt;
    const uint32_t g = Row(Ic(w));
    if (g == kNoIndex || Stream(g) == -1 || Ic(g) <= 0) return std::nullopt;
    if (by_thread_.empty() && !launches_.empty()) {
      by_thread_.resize(launches_.size());
      for (uint32_t i = 0; i < by_thread_.size(); ++i) by_thread_[i] = i;
      std::stable_sort(by_thread_.begin(), by_thread_.end(), [&](uint32_t a, uint32_t b) {
        const uint32_t ta = t_.events[launches_[a].event].track;
        const uint32_t tb = t_.events[launches_[b].event].track;
        return ta != tb ? ta < tb : launches_[a].stream < launches_[b].stream;
      });
    }
    const uint32_t track = t_.events[w].track;
    const int64_t stream = Stream(g);
    const int64_t ts = t_.events[w].start_ns;
    auto key = [&](uint32_t i) {
      return std::pair<uint32_t, int64_t>{t_.events[launches_[i].event].track, launches_[i].stream};
    };
    const std::pair<uint32_t, int64_t> want{track, stream};
    auto lo = std::partition_point(by_thread_.begin(), by_thread_.end(),
                                   [&](uint32_t i) { return key(i) < want; });
    auto hi =
        std::partition_point(lo, by_thread_.end(), [&](uint32_t i) { return key(i) == want; });
    auto next = std::partition_point(
        lo, hi, [&](uint32_t i) { return t_.events[launches_[i].event].start_ns <= ts; });
    return next == hi ? -1 : int64_t{t_.events[launches_[*next].event].source};
  }

  // CPGraph._construct_graph_from_kernels: the GPU-side rows of the window,
  // by start (cuda_sync events by end).
  void Kernels() {
    QueueLengths();
    if ((has_records_ || has_waits_) && !launches_ready_) {  // the same for every window: once
      launches_ready_ = true;
      RuntimeCalls();
      if (has_records_) EventRecords();
    }
    if (!records_error_.empty()) fatal_ = records_error_;
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
        last_node;                                // (stream, kernel whose end), first seen first
    std::unordered_map<int64_t, size_t> last_at;  // stream -> position in last_node
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
      const int32_t ql_runtime = runtime_row == kNoIndex ? INT32_MIN : queue_[runtime_row];
      const int32_t ql = queue_[e];
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
          Warn(kNoLaunchNode,
               fmt::format("the launch call traceEvents[{}] of kernel traceEvents[{}] "
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
             fmt::format("kernel traceEvents[{}] on stream {} has no edge into its start",
                         ev.source, stream));
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
  void Sync(uint32_t e, const std::vector<std::pair<int64_t, uint32_t>>& last_node,
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
      if (has_records_) {
        if (auto it = prev_launch_.find(WaitRecord(e)); it != prev_launch_.end())
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
    Warn(kUnknownSync,
         fmt::format("unknown cuda_sync event '{}' at traceEvents[{}] (HTA fails here)",
                     t_.name(ev), ev.source));
  }

  // The wait_on_cuda_event_record_corr_id of event e; -1 when it has none.
  int64_t WaitRecord(uint32_t e) const {
    auto it = std::lower_bound(t_.waits.begin(), t_.waits.end(), e,
                               [](const WaitArgs& w, uint32_t x) { return w.event < x; });
    return it != t_.waits.end() && it->event == e ? it->wait_on_record : -1;
  }

  // CPGraph._validate_graph: negative weights become 0; a sync edge within one
  // stream fails.
  void Validate() {
    for (EventGraphEdge& edge : edges_) {
      if (edge.weight < 0) {
        edge.weight = 0;
        ++out_.clamped;
      }
      if (edge.kind != EventEdgeKind::kSync) continue;
      const int64_t su = Stream(node_event_[edge.u]), sv = Stream(node_event_[edge.v]);
      if (su != -1 && su == sv) {
        fatal_ = fmt::format(
            "a CUDA sync edge between two events of stream {}: traceEvents[{}] -> "
            "traceEvents[{}]",
            su, t_.events[node_event_[edge.u]].source, t_.events[node_event_[edge.v]].source);
        return;
      }
    }
  }

  // CPGraph.critical_path: networkx.dag_longest_path. The topological order is
  // networkx's (Kahn's algorithm by generations, starting from the nodes of
  // in-degree 0 in the order they were added, successors in edge order); each
  // point's distance the largest over its predecessors in edge order (the
  // first one wins ties); the path ends at the first point in that order with
  // the largest distance.
  void LongestPath() {
    const size_t n = node_event_.size();
    out_.nodes = n;
    std::vector<uint32_t> succ_at(n + 1, 0), pred_at(n + 1, 0);
    for (const EventGraphEdge& edge : edges_) {
      ++succ_at[edge.u + 1];
      ++pred_at[edge.v + 1];
    }
    for (size_t i = 0; i < n; ++i) {
      succ_at[i + 1] += succ_at[i];
      pred_at[i + 1] += pred_at[i];
    }
    std::vector<uint32_t> succ(edges_.size()), pred(edges_.size());  // edge indexes
    {
      std::vector<uint32_t> s(succ_at.begin(), succ_at.end() - 1),
          p(pred_at.begin(), pred_at.end() - 1);
      for (uint32_t i = 0; i < edges_.size(); ++i) {
        succ[s[edges_[i].u]++] = i;
        pred[p[edges_[i].v]++] = i;
      }
    }
    std::vector<uint32_t> indegree(n), order;
    order.reserve(n);
    for (uint32_t v = 0; v < n; ++v) {
      indegree[v] = pred_at[v + 1] - pred_at[v];
      if (indegree[v] == 0) order.push_back(v);
    }
    for (size_t at = 0; at < order.size(); ++at) {  // a FIFO visits generation by generation
      const uint32_t u = order[at];
      for (uint32_t k = succ_at[u]; k < succ_at[u + 1]; ++k) {
        const uint32_t v = edges_[succ[k]].v;
        if (--indegree[v] == 0) order.push_back(v);
      }
    }
    if (order.size() != n) {
      fatal_ = "the critical path graph has a cycle";
      return;
    }
    if (n == 0) {
      fatal_ = "the window has no operator, runtime call or kernel to make a critical path of";
      return;
    }
    std::vector<int64_t> dist(n, 0);
    std::vector<uint32_t> via(n, kNoIndex);  // the edge the longest path comes in by
    for (uint32_t v : order) {
      for (uint32_t k = pred_at[v]; k < pred_at[v + 1]; ++k) {
        const EventGraphEdge& edge = edges_[pred[k]];
        const int64_t d = dist[edge.u] + edge.weight;
        if (via[v] == kNoIndex || d > dist[v]) {
          dist[v] = d;
          via[v] = pred[k];
        }
      }
    }
    uint32_t end = order[0];
    for (uint32_t v : order) {
      if (dist[v] > dist[end]) end = v;
    }
    out_.length_ns = dist[end];
    for (uint32_t v = end; via[v] != kNoIndex; v = edges_[via[v]].u) out_.path.push_back(via[v]);
    std::reverse(out_.path.begin(), out_.path.end());
    if (out_.path.empty()) {
      fatal_ = "the critical path has fewer than 2 points";
      return;
    }
  }

  void Finish() {
    out_.edges.reserve(edges_.size());
    for (const EventGraphEdge& edge : edges_) {
      out_.edges.push_back(EventEdge{.from = node_event_[edge.u],
                                     .to = node_event_[edge.v],
                                     .from_end = node_end_[edge.u] != 0,
                                     .to_end = node_end_[edge.v] != 0,
                                     .kind = edge.kind,
                                     .weight_ns = edge.weight,
                                     .owner = edge.owner});
    }
    std::vector<uint8_t> seen(window_.size(), 0);
    auto add = [&](uint32_t e) {
      if (!seen[local_[e]]) {
        seen[local_[e]] = 1;
        out_.events.push_back(e);
      }
    };
    add(out_.edges[out_.path.front()].from);
    for (uint32_t i : out_.path) add(out_.edges[i].to);
    for (size_t k = 0; k < kWarningKinds; ++k) {
      const auto& [count, text] = warnings_[k];
      if (count == 0) continue;
      out_.warnings.push_back(
          count == 1 ? text : fmt::format("{} (and {} more like it)", text, count - 1));
    }
  }

  // ---- The same for every window: built once -----------------------------------------

  const Timeline& t_;
  std::span<const EventPathOptions> windows_;

  std::vector<uint16_t> name_flags_;  // per name
  std::vector<uint8_t> name_used_;    // per name: some row has it (TraceSymbolTable)
  std::vector<uint8_t> flags_;        // per event: EventFlag
  std::vector<uint32_t> by_source_;   // traceEvents index -> event
  std::vector<uint32_t> ic_;          // per event: index_correlation (a traceEvents index)
  std::vector<uint32_t> corr_rows_;   // rows with a correlation, by it, file order within
  std::vector<uint32_t> group_at_;    // per correlation + 1: its rows' start in corr_rows_
  std::vector<uint32_t> group_of_;    // per event: its correlation's group, or kNoIndex
  std::vector<uint32_t> file_order_;  // the rows before the filter, in file order
  std::vector<uint32_t> order_;       // the rows after it, in DataFrame order, when filtered
  bool filtered_ = false;
  const std::vector<uint32_t>& Order() const { return filtered_ ? order_ : file_order_; }
  bool has_records_ = false, has_waits_ = false;  // the trace has event records, stream waits

  // IndexWindows: what Window() and Clip() look up.
  int64_t whole_start_ = INT64_MAX, whole_end_ = INT64_MIN;  // of every row
  std::vector<uint32_t> cpu_rows_;      // the CPU-side rows lasting > 0, by track, then start
  std::vector<uint32_t> cpu_runs_;      // per track + 1: where its rows begin in cpu_rows_
  std::vector<uint32_t> stream_waits_;  // the GPU-side "Stream Wait Event" rows
  std::unordered_map<std::string_view, std::vector<uint32_t>> holders_;  // annotation -> names
  std::vector<uint32_t> slot_of_name_;  // per name: its slot, kNoIndex when no annotation's
  std::vector<uint32_t> slot_at_;       // per slot + 1: its range in slot_rows_
  std::vector<uint32_t> slot_rows_;     // per slot: its name's rows, in Order()
  std::string_view merged_for_;         // the annotation of several names merged_ is for
  std::vector<uint32_t> merged_;        // its rows, in Order()

  // QueueLengths: the items by time, walked as far as queue_next_ so far.
  struct QueueItem {
    int64_t ts;
    uint32_t event;
    int32_t delta;
    int64_t stream;
  };
  bool queue_sorted_ = false;
  std::vector<QueueItem> queue_items_;
  size_t queue_next_ = 0;
  std::unordered_map<int64_t, int32_t> queue_running_;  // stream -> queue length
  std::vector<int32_t> queue_;  // per event: queue length; INT32_MIN = none (yet)

  // Kernels, on the first window that needs them.
  bool launches_ready_ = false;
  std::vector<Launch> launches_;                      // CPGraph's runtime calls, by start
  std::vector<uint32_t> by_thread_;                   // launches_ by (thread, stream), then start
  std::unordered_map<int64_t, int64_t> prev_launch_;  // record correlation -> launch (traceEvents)
  std::string records_error_;                         // EventRecords' failure, every window's

  // ---- Per window: reset by Reset() ---------------------------------------------------

  const EventPathOptions* o_ = nullptr;
  EventPath out_;
  std::string fatal_;  // what makes HTA fail, when it does

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

}  // namespace

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

void ForEachEventCriticalPath(const Timeline& timeline, std::span<const EventPathOptions> windows,
                              const std::function<void(size_t, Result<EventPath>)>& each) {
  if (windows.empty()) return;
  Builder builder(timeline, windows);
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
