// GPU time as Holistic Trace Analysis computes it (docs/architecture.md#gpu-time
// cites each HTA function this follows). Everything is in integer ns until
// the end, so the numbers agree exactly with an independent reading.

#include "metrics/hta_breakdown.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "metrics/percentile.h"

namespace cookgraph {
namespace {

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// Per name of `t`, whether it names a step marker (IsProfilerStep): decided
// once per name, not once per event.
std::vector<bool> StepNames(const Timeline& t) {
  std::vector<bool> step(t.names.size());
  for (size_t n = 0; n < t.names.size(); ++n) step[n] = IsProfilerStep(t.names[n]);
  return step;
}

// The launch calls HTA's kernel launch statistics pair with GPU events
// (cuda_kernel_analysis.py, with memory events included, its default).
constexpr std::array<std::string_view, 5> kStatsLaunchCalls = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "runFunction - job_prep_and_submit_for_execution",
    "cudaMemcpyAsync", "cudaMemsetAsync"};

// The GPU events HTA's analyses see on one rank (trace.py
// _filter_irrelevant_gpu_kernels): when the job has two or more step names,
// the CPU events of the last step onwards are dropped, and with them every GPU
// event whose launch call is not a CPU event kept (so also those launched
// before profiling began). Otherwise every GPU event counts.
std::vector<uint32_t> CountedGpuEvents(const Timeline& t, bool filter) {
  std::vector<uint32_t> out;
  int64_t last_start = INT64_MAX;
  if (filter) {
    const std::vector<bool> step = StepNames(t);
    int64_t first_cpu = INT64_MAX;
    int64_t last_step = INT64_MIN;
    for (const TimelineEvent& e : t.events) {
      if (t.tracks[e.track].gpu) continue;
      first_cpu = std::min(first_cpu, e.start_ns);
      if (step[e.name]) last_step = std::max(last_step, e.start_ns);
    }
    last_start = last_step != INT64_MIN ? last_step : first_cpu;
  }
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const TimelineEvent& e = t.events[i];
    if (!IsGpuWork(e.kind)) continue;
    if (filter && (e.link == kNoIndex || t.events[e.link].start_ns >= last_start)) continue;
    out.push_back(i);
  }
  return out;
}

// The top-level CPU events (ops and annotations a step holds directly) on
// `track` that overlap the gaps, by name, most overlap first.
std::vector<HostWaitOp> OpsDuring(const Timeline& t,
                                  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> gaps) {
  // Gaps of several streams launched from one thread overlap: their union per
  // thread, so that an op's time is counted once.
  std::sort(gaps.begin(), gaps.end());
  size_t kept = 0;
  for (size_t i = 0; i < gaps.size(); ++i) {
    if (kept > 0 && gaps[kept - 1].first == gaps[i].first &&
        gaps[i].second.first <= gaps[kept - 1].second.second) {
      gaps[kept - 1].second.second = std::max(gaps[kept - 1].second.second, gaps[i].second.second);
    } else {
      gaps[kept++] = gaps[i];
    }
  }
  gaps.resize(kept);
  std::unordered_map<uint32_t, int64_t> by_name;
  // Each event's outermost ancestor below the step marker, in one pass: a
  // parent always comes before its children (by track, start, outer first).
  std::vector<uint32_t> top(t.events.size());
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const uint32_t p = t.events[i].parent;
    top[i] = p == kNoIndex || p >= i || t.events[p].kind == EventKind::kMarker ? i : top[p];
  }
  // The events of each track are contiguous and by start: binary search per gap.
  for (const auto& entry : gaps) {
    // Plain names, not a structured binding: lambdas below capture them.
    const uint32_t track = entry.first;
    const std::pair<int64_t, int64_t> gap = entry.second;
    auto first = std::partition_point(t.events.begin(), t.events.end(), [&](const TimelineEvent& e) {
      return e.track < track;
    });
    auto last = std::partition_point(first, t.events.end(),
                                     [&](const TimelineEvent& e) { return e.track == track; });
    auto top_of = [&](uint32_t e) { return top[e]; };
    auto count = [&](uint32_t e) {
      const TimelineEvent& ev = t.events[e];
      if (ev.kind == EventKind::kMarker) return;
      const int64_t lo = std::max(ev.start_ns, gap.first), hi = std::min(ev.end_ns(), gap.second);
      if (hi > lo) by_name[ev.name] += hi - lo;
    };
    // Top-level events do not overlap one another: the one around the gap's
    // start and those starting inside it are all that can overlap it.
    auto inside = std::partition_point(first, last, [&](const TimelineEvent& e) {
      return e.start_ns < gap.first;
    });
    if (inside != first) count(top_of(static_cast<uint32_t>(inside - 1 - t.events.begin())));
    for (auto it = inside; it != last && it->start_ns < gap.second; ++it) {
      const uint32_t e = static_cast<uint32_t>(it - t.events.begin());
      if (top_of(e) == e) count(e);
    }
  }
  std::vector<HostWaitOp> out;
  for (const auto& [name, ns] : by_name) out.push_back({t.names[name], Ms(ns)});
  std::sort(out.begin(), out.end(), [](const HostWaitOp& a, const HostWaitOp& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.name < b.name;
  });
  if (out.size() > 5) out.resize(5);
  return out;
}

}  // namespace

double RankGpuTime::host_wait_ms() const {
  double sum = 0;
  for (const StreamTime& s : streams) sum += s.idle_host_wait_ms;
  return sum;
}
double RankGpuTime::kernel_wait_ms() const {
  double sum = 0;
  for (const StreamTime& s : streams) sum += s.idle_kernel_wait_ms;
  return sum;
}
double RankGpuTime::other_wait_ms() const {
  double sum = 0;
  for (const StreamTime& s : streams) sum += s.idle_other_ms;
  return sum;
}

KernelType KernelTypeOf(std::string_view name, EventKind kind) {
  // HTA decides by name only (utils.py get_kernel_type); TensorFlow 1's
  // copies (MEMCPYHtoD, ...) are known by their kind.
  if (name.starts_with("nccl") || name.find("gloo:") != std::string_view::npos) {
    return KernelType::kCommunication;
  }
  if (kind == EventKind::kMemcpy || kind == EventKind::kMemset ||
      name.find("Memcpy") != std::string_view::npos ||
      name.find("Memset") != std::string_view::npos) {
    return KernelType::kMemory;
  }
  return KernelType::kComputation;
}

namespace {

// Sorts `v`. Intervals gathered in the timeline's order come in a few
// ascending runs (one per GPU stream, by start): those are merged pairwise,
// n log(runs) where a sort takes n log n; more than 64 runs are sorted.
void SortRuns(std::vector<std::pair<int64_t, int64_t>>& v) {
  constexpr size_t kMostRuns = 64;
  std::vector<size_t> at{0};  // where each run starts, then the end
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] < v[i - 1] && at.size() == kMostRuns) {  // a 65th run begins
      std::sort(v.begin(), v.end());
      return;
    }
    if (v[i] < v[i - 1]) at.push_back(i);
  }
  at.push_back(v.size());
  const auto it = [&v](size_t k) { return v.begin() + static_cast<std::ptrdiff_t>(k); };
  while (at.size() > 2) {
    std::vector<size_t> merged;
    for (size_t r = 0; r + 1 < at.size(); r += 2) {
      merged.push_back(at[r]);
      if (r + 2 < at.size()) std::inplace_merge(it(at[r]), it(at[r + 1]), it(at[r + 2]));
    }
    merged.push_back(at.back());
    at = std::move(merged);
  }
}

}  // namespace

int64_t UnionLength(std::vector<std::pair<int64_t, int64_t>> v) {
  SortRuns(v);
  int64_t total = 0, lo = 0, hi = 0;
  bool open = false;
  for (const auto& [start, end] : v) {
    if (open && start <= hi) {
      hi = std::max(hi, end);
      continue;
    }
    if (open) total += hi - lo;
    lo = start;
    hi = end;
    open = true;
  }
  if (open) total += hi - lo;
  return total;
}

namespace {

// The union of `v` as disjoint sorted intervals.
std::vector<std::pair<int64_t, int64_t>> Merge(std::vector<std::pair<int64_t, int64_t>> v) {
  SortRuns(v);
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

int64_t Length(const std::vector<std::pair<int64_t, int64_t>>& merged) {
  int64_t total = 0;
  for (const auto& [a, b] : merged) total += b - a;
  return total;
}

int64_t IntersectionLength(const std::vector<std::pair<int64_t, int64_t>>& a,
                           const std::vector<std::pair<int64_t, int64_t>>& b) {
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int64_t lo = std::max(a[i].first, b[j].first);
    const int64_t hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return total;
}

// The filter applies when the whole job has two or more distinct step names.
bool JobHasSteps(const std::vector<Timeline>& timelines) {
  std::unordered_set<std::string_view> step_names;
  for (const Timeline& t : timelines) {
    const std::vector<bool> step = StepNames(t);
    std::vector<bool> seen(t.names.size());
    for (const TimelineEvent& e : t.events) {
      if (step[e.name] && !seen[e.name] && !t.tracks[e.track].gpu) {
        seen[e.name] = true;
        step_names.insert(t.name(e));
      }
    }
  }
  return step_names.size() >= 2;
}

// KernelTypeOf of each GPU event of `t`, by a table of its names: HTA
// decides by name, and by kind only for copies.
class KernelTypes {
 public:
  explicit KernelTypes(const Timeline& t) : by_name_(t.names.size()) {
    for (size_t n = 0; n < t.names.size(); ++n)
      by_name_[n] = KernelTypeOf(t.names[n], EventKind::kKernel);
  }
  KernelType operator()(const TimelineEvent& e) const {
    const KernelType by_name = by_name_[e.name];
    if (by_name != KernelType::kCommunication &&
        (e.kind == EventKind::kMemcpy || e.kind == EventKind::kMemset)) {
      return KernelType::kMemory;
    }
    return by_name;
  }

 private:
  std::vector<KernelType> by_name_;
};

// Per step: the same breakdown over the step's GPU events.
void AddStepBreakdown(const Timeline& t, const std::vector<uint32_t>& gpu, const KernelTypes& type,
                      RankGpuTime& rank) {
  std::vector<std::vector<uint32_t>> by_frame;
  // A GPU event is in the step its launch call ran in; without a launch
  // call, or without step markers, it is in no step.
  for (uint32_t i : gpu) {
    const uint32_t f = t.events[i].frame;
    if (f == kNoIndex || t.events[i].link == kNoIndex || f >= t.markers.size() ||
        t.markers[f] == kNoIndex) {
      continue;
    }
    if (f >= by_frame.size()) by_frame.resize(f + 1);
    by_frame[f].push_back(i);
  }
  for (size_t f = 0; f < by_frame.size(); ++f) {
    if (by_frame[f].empty()) continue;
    std::vector<std::pair<int64_t, int64_t>> all_step, compute_step;
    for (uint32_t i : by_frame[f]) {
      const TimelineEvent& e = t.events[i];
      all_step.emplace_back(e.start_ns, e.end_ns());
      if (type(e) == KernelType::kComputation) {
        compute_step.emplace_back(e.start_ns, e.end_ns());
      }
    }
    const int64_t lo = std::min_element(all_step.begin(), all_step.end())->first;
    int64_t hi = INT64_MIN;
    for (const auto& iv : all_step) hi = std::max(hi, iv.second);
    const int64_t busy_step = UnionLength(all_step);
    const int64_t compute_step_ns = UnionLength(std::move(compute_step));
    rank.steps.push_back(
        StepGpuTime{.step = f < t.steps.size() ? t.steps[f] : static_cast<int64_t>(f),
                    .kernels = by_frame[f].size(),
                    .kernel_span_ms = Ms(hi - lo),
                    .idle_ms = Ms(hi - lo - busy_step),
                    .compute_ms = Ms(compute_step_ns),
                    .non_compute_ms = Ms(busy_step - compute_step_ns)});
  }
}

// The temporal breakdown (breakdown_analysis.py get_temporal_breakdown); the
// job's communication time and its overlap with computation add up in
// `comm_total` and `overlap_total`.
void AddTemporalBreakdown(const Timeline& t, const std::vector<uint32_t>& gpu,
                          const KernelTypes& type, RankGpuTime& rank, int64_t& comm_total,
                          int64_t& overlap_total) {
  std::vector<std::pair<int64_t, int64_t>> all, compute, comm, memory;
  int64_t first = INT64_MAX, last = INT64_MIN;
  for (uint32_t i : gpu) {
    const TimelineEvent& e = t.events[i];
    const std::pair<int64_t, int64_t> iv{e.start_ns, e.end_ns()};
    first = std::min(first, iv.first);
    last = std::max(last, iv.second);
    all.push_back(iv);
    switch (type(e)) {
      case KernelType::kComputation:
        compute.push_back(iv);
        break;
      case KernelType::kCommunication:
        comm.push_back(iv);
        break;
      case KernelType::kMemory:
        memory.push_back(iv);
        break;
    }
  }
  const int64_t span = last - first;
  const int64_t busy = UnionLength(std::move(all));
  const auto compute_union = Merge(std::move(compute));
  const auto comm_union = Merge(std::move(comm));
  const int64_t compute_ns = Length(compute_union);
  rank.kernel_span_ms = Ms(span);
  rank.busy_ms = Ms(busy);
  rank.idle_ms = Ms(span - busy);
  rank.compute_ms = Ms(compute_ns);
  rank.non_compute_ms = Ms(span - compute_ns - (span - busy));
  rank.communication_ms = Ms(Length(comm_union));
  rank.memory_ms = Ms(UnionLength(std::move(memory)));
  // Communication against computation (communication_analysis.py
  // get_comm_comp_overlap): the time both run.
  comm_total += Length(comm_union);
  overlap_total += IntersectionLength(comm_union, compute_union);
}

// The idle time of each stream (breakdown_analysis.py
// _analyze_idle_time_for_stream): the gap before each GPU event, in
// (start, end, file order) order, is host wait when its launch call began
// after the previous event ended, else kernel wait when under the
// threshold, else other. Gaps are taken as they are, negative ones too.
void AddStreamIdle(const Timeline& t, const std::vector<uint32_t>& gpu, RankGpuTime& rank) {
  std::vector<uint32_t> by_stream = gpu;
  const auto before = [&](uint32_t a, uint32_t b) {
    const TimelineEvent& x = t.events[a];
    const TimelineEvent& y = t.events[b];
    if (x.track != y.track) return x.track < y.track;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns() != y.end_ns()) return x.end_ns() < y.end_ns();
    return x.source < y.source;
  };
  // The timeline's order is by track, then start already: only the events of
  // a stream that start together are put in order (the timeline has the
  // longer first); checked rather than assumed.
  const auto place = [&](uint32_t a, uint32_t b) {
    const TimelineEvent& x = t.events[a];
    const TimelineEvent& y = t.events[b];
    return x.track != y.track ? x.track < y.track : x.start_ns < y.start_ns;
  };
  if (!std::is_sorted(by_stream.begin(), by_stream.end(), place)) {
    std::sort(by_stream.begin(), by_stream.end(), before);
  } else {
    for (auto lo = by_stream.begin(); lo != by_stream.end();) {
      auto hi = lo + 1;
      while (hi != by_stream.end() && !place(*lo, *hi)) ++hi;
      if (hi - lo > 1) std::sort(lo, hi, before);
      lo = hi;
    }
  }
  std::vector<std::pair<uint32_t, std::pair<int64_t, int64_t>>> host_gaps;  // (track, gap)
  for (size_t k = 0; k < by_stream.size(); ++k) {
    const TimelineEvent& e = t.events[by_stream[k]];
    const bool fresh = k == 0 || t.events[by_stream[k - 1]].track != e.track;
    if (fresh) {
      const Track& track = t.tracks[e.track];
      rank.streams.push_back(
          StreamTime{.track = e.track, .stream = track.stream, .label = track.label});
    }
    StreamTime& s = rank.streams.back();
    ++s.kernels;
    if (!fresh) {
      const int64_t prev_end = t.events[by_stream[k - 1]].end_ns();
      const int64_t gap = e.start_ns - prev_end;
      const bool host_wait = e.link != kNoIndex && t.events[e.link].start_ns > prev_end;
      double& bucket = host_wait             ? s.idle_host_wait_ms
                       : gap < kKernelWaitNs ? s.idle_kernel_wait_ms
                                             : s.idle_other_ms;
      bucket += static_cast<double>(gap);  // ns for now
      if (host_wait && gap > 0) {
        host_gaps.push_back({t.events[e.link].track, {prev_end, e.start_ns}});
      }
    }
  }
  // Per stream, sums in ns then ms (each stream's events are contiguous).
  size_t k = 0;
  for (StreamTime& s : rank.streams) {
    int64_t kernel_ns = 0;
    for (size_t j = 0; j < s.kernels; ++j, ++k) kernel_ns += t.events[by_stream[k]].dur_ns;
    s.kernel_ms = Ms(kernel_ns);
    s.idle_host_wait_ms /= 1e6;
    s.idle_kernel_wait_ms /= 1e6;
    s.idle_other_ms /= 1e6;
    s.idle_ms = s.idle_host_wait_ms + s.idle_kernel_wait_ms + s.idle_other_ms;
  }
  if (!host_gaps.empty()) rank.host_wait_ops = OpsDuring(t, std::move(host_gaps));
  std::stable_sort(rank.streams.begin(), rank.streams.end(),
                   [](const StreamTime& a, const StreamTime& b) { return a.stream < b.stream; });
}

// Launch statistics (cuda_kernel_analysis.py cuda_kernel_launch_stats):
// each GPU event paired with the launch call of its correlation. The delays
// and the calls' CPU time add up in `delays` and `launch_cpu_ns`.
void AddLaunches(const Timeline& t, uint32_t ti, const std::vector<uint32_t>& gpu,
                 LaunchStats& launches, std::vector<int64_t>& delays, int64_t& launch_cpu_ns) {
  // Per name, whether it is one of those calls: decided once per name, not
  // once per GPU event.
  std::vector<bool> stats_call(t.names.size());
  for (size_t n = 0; n < t.names.size(); ++n) {
    stats_call[n] = std::find(kStatsLaunchCalls.begin(), kStatsLaunchCalls.end(), t.names[n]) !=
                    kStatsLaunchCalls.end();
  }
  delays.reserve(delays.size() + gpu.size());
  launches.list.reserve(launches.list.size() + gpu.size());
  for (uint32_t i : gpu) {
    const TimelineEvent& e = t.events[i];
    ++launches.kernels;
    if (e.link == kNoIndex) continue;
    const TimelineEvent& call = t.events[e.link];
    if (!stats_call[call.name]) continue;
    // HTA (cuda_kernel_analysis.py, get_cuda_kernel_launch_stats): from
    // the call's end to the kernel's start, clipped at 0.
    delays.push_back(std::max<int64_t>(e.start_ns - call.start_ns - call.dur_ns, 0));
    launches.list.push_back({ti, i, e.link, delays.back()});
    launch_cpu_ns += call.dur_ns;
    if (e.dur_ns < kTinyKernelNs) ++launches.kernels_under_10us;
  }
}

// The launch delays' statistics, from every rank's.
void SummariseLaunches(std::vector<int64_t>& delays, int64_t launch_cpu_ns, LaunchStats& l) {
  l.count = delays.size();
  l.cpu_ms = Ms(launch_cpu_ns);
  if (!delays.empty()) {
    std::sort(delays.begin(), delays.end());
    // Exact in ns: the sum of delays fits int64 for any real trace.
    int64_t sum = 0;
    for (int64_t d : delays) sum += d;
    l.delay_mean_ms = static_cast<double>(sum) / static_cast<double>(delays.size()) / 1e6;
    std::vector<double> sorted(delays.begin(), delays.end());
    l.delay_p50_ms = Percentile(sorted, 50) / 1e6;
    l.delay_p95_ms = Percentile(sorted, 95) / 1e6;
    l.delay_max_ms = Ms(delays.back());
  }
}

}  // namespace

GpuTime AnalyseGpuTime(const std::vector<Timeline>& timelines) {
  GpuTime out;
  const bool filter = JobHasSteps(timelines);

  std::vector<int64_t> delays;
  int64_t launch_cpu_ns = 0;
  int64_t comm_total = 0, overlap_total = 0;
  for (uint32_t ti = 0; ti < timelines.size(); ++ti) {
    const Timeline& t = timelines[ti];
    const std::vector<uint32_t>& gpu = out.counted.emplace_back(CountedGpuEvents(t, filter));
    for (const TimelineEvent& e : t.events) {
      if (IsGpuWork(e.kind) && e.link == kNoIndex) ++out.launches.unlaunched;
    }
    if (gpu.empty()) continue;
    RankGpuTime rank;
    rank.rank = t.rank;
    rank.kernels = gpu.size();

    const KernelTypes type(t);
    AddStepBreakdown(t, gpu, type, rank);
    AddTemporalBreakdown(t, gpu, type, rank, comm_total, overlap_total);
    AddStreamIdle(t, gpu, rank);
    AddLaunches(t, ti, gpu, out.launches, delays, launch_cpu_ns);
    out.ranks.push_back(std::move(rank));
  }
  std::sort(out.ranks.begin(), out.ranks.end(),
            [](const RankGpuTime& a, const RankGpuTime& b) { return a.rank < b.rank; });

  SummariseLaunches(delays, launch_cpu_ns, out.launches);
  out.overlap.communication_ms = Ms(comm_total);
  out.overlap.overlapped_ms = Ms(overlap_total);
  return out;
}

}  // namespace cookgraph
