// Memory peaks, step times per rank with their stragglers, and the slowest
// step (metrics/trace_summary.h).

#include "metrics/trace_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "graph/parallel.h"

namespace cookgraph {

std::string DeviceName(int32_t device_type, int32_t device) {
  if (device_type == 0) return "cpu";
  if (device_type == 1) return fmt::format("cuda:{}", device);
  return fmt::format("devtype{}:{}", device_type, device);
}

namespace {

std::vector<MemoryPeak> MemoryPeaks(const Timeline& t) {
  struct Peak {
    int64_t allocated = INT64_MIN, reserved = INT64_MIN;
  };
  std::map<std::pair<int32_t, int32_t>, Peak> peaks;
  // Each device's events, by time (t.memory is by time): one sweep per device.
  std::map<std::pair<int32_t, int32_t>, std::vector<const MemoryEvent*>> by_device;
  for (const MemoryEvent& m : t.memory) {
    if (m.device_type < 0) continue;
    Peak& p = peaks[{m.device_type, m.device}];
    p.allocated = std::max(p.allocated, m.total_allocated);
    p.reserved = std::max(p.reserved, m.total_reserved);
    by_device[{m.device_type, m.device}].push_back(&m);
  }
  std::vector<MemoryPeak> out;
  for (const auto& [key, p] : peaks) {
    MemoryPeak peak{.rank = t.rank,
                    .device = DeviceName(key.first, key.second),
                    .peak_allocated_mb = BytesToMb(p.allocated),
                    .peak_reserved_mb = BytesToMb(p.reserved)};
    if (key.first == 1) {
      for (const Device& d : t.devices) {
        if (d.id == key.second) peak.total_mb = BytesToMb(d.total_memory);
      }
    }
    // Per step: the peaks of the device's events inside its marker's span.
    const std::vector<const MemoryEvent*>& events = by_device[key];
    for (size_t f = 0; f < t.markers.size(); ++f) {
      if (t.markers[f] == kNoIndex) continue;
      const TimelineEvent& m = t.events[t.markers[f]];
      auto first = std::partition_point(events.begin(), events.end(), [&](const MemoryEvent* e) {
        return e->ts_ns < m.start_ns;
      });
      StepMemory step{.step = f < t.steps.size() ? t.steps[f] : static_cast<int64_t>(f)};
      bool any = false;
      for (auto it = first; it != events.end() && (*it)->ts_ns < m.end_ns(); ++it) {
        const double allocated = BytesToMb((*it)->total_allocated);
        const double reserved = BytesToMb((*it)->total_reserved);
        step.peak_allocated_mb = any ? std::max(step.peak_allocated_mb, allocated) : allocated;
        step.peak_reserved_mb = any ? std::max(step.peak_reserved_mb, reserved) : reserved;
        any = true;
      }
      if (any) peak.steps.push_back(step);
    }
    std::sort(peak.steps.begin(), peak.steps.end(),
              [](const StepMemory& a, const StepMemory& b) { return a.step < b.step; });
    out.push_back(std::move(peak));
  }
  return out;
}

// The median of `v` (the mean of the middle two for an even count).
double Median(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  if (n % 2 == 1) return static_cast<double>(v[n / 2]);
  return (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
}

std::vector<RankSteps> Steps(const std::vector<Timeline>& timelines) {
  std::vector<RankSteps> out;
  // Per step number: (rank position, step position, duration ns).
  std::map<int64_t, std::vector<std::tuple<size_t, size_t, int64_t>>> by_step;
  for (const Timeline& t : timelines) {
    RankSteps r;
    r.rank = t.rank;
    std::vector<std::pair<int64_t, int64_t>> steps;  // (number, ns)
    for (size_t f = 0; f < t.markers.size(); ++f) {
      if (t.markers[f] == kNoIndex) continue;
      steps.emplace_back(f < t.steps.size() ? t.steps[f] : static_cast<int64_t>(f),
                         t.events[t.markers[f]].dur_ns);
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [number, ns] : steps) {
      by_step[number].emplace_back(out.size(), r.steps.size(), ns);
      r.steps.push_back(number);
      r.step_ms.push_back(static_cast<double>(ns) / 1e6);
    }
    r.straggler_ms.assign(r.steps.size(), std::nullopt);
    out.push_back(std::move(r));
  }
  if (out.size() > 1) {
    for (const auto& [number, entries] : by_step) {
      if (entries.size() < 2) continue;
      std::vector<int64_t> durations;
      for (const auto& entry : entries) durations.push_back(std::get<2>(entry));
      const double median = Median(durations);
      auto slowest = entries.begin();
      for (auto it = entries.begin(); it != entries.end(); ++it) {
        const int64_t d = std::get<2>(*it), best = std::get<2>(*slowest);
        if (d > best || (d == best && out[std::get<0>(*it)].rank < out[std::get<0>(*slowest)].rank)) {
          slowest = it;
        }
      }
      const auto [rank_pos, step_pos, ns] = *slowest;
      out[rank_pos].straggler_ms[step_pos] = (static_cast<double>(ns) - median) / 1e6;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RankSteps& a, const RankSteps& b) { return a.rank < b.rank; });
  return out;
}

std::optional<SlowestStep> Slowest(const Samples& samples,
                                   const std::vector<double>& frame_ms) {
  if (frame_ms.size() < 2) return std::nullopt;  // one step is not "the slowest"
  SlowestStep s;
  s.frame = static_cast<size_t>(std::max_element(frame_ms.begin(), frame_ms.end()) -
                                frame_ms.begin());
  s.ms = frame_ms[s.frame];
  double sum = 0;
  for (double v : frame_ms) sum += v;
  s.mean_ms = sum / static_cast<double>(frame_ms.size());
  s.step = s.frame < samples.frame_index().size() ? samples.frame_index()[s.frame]
                                                   : static_cast<int64_t>(s.frame);
  const double frames = static_cast<double>(samples.frame_count());
  for (NodeIndex n = 0; n < samples.node_count(); ++n) {
    std::span<const double> cook = samples.series(n, Metric::kCookMs);
    if (cook.size() <= s.frame || IsMissing(cook[s.frame])) continue;
    double total = 0;
    for (double v : cook) total += IsMissing(v) ? 0 : v;
    const double excess = cook[s.frame] - total / frames;
    if (excess > 0) s.nodes.push_back(NodeExcess{.node = n, .ms = excess});
  }
  std::sort(s.nodes.begin(), s.nodes.end(), [](const NodeExcess& a, const NodeExcess& b) {
    return a.ms != b.ms ? a.ms > b.ms : a.node < b.node;
  });
  if (s.nodes.size() > 5) s.nodes.resize(5);
  return s;
}

// A path in the terms output needs: its window, the events, their nodes.
StepPath ToStepPath(const Timeline& timeline, const EventPathOptions& options,
                    const EventPath& path, std::optional<int64_t> step) {
  StepPath out;
  out.rank = timeline.rank;
  out.annotation = options.annotation;
  out.instance = options.instance;
  out.step = step;
  out.length_ms = static_cast<double>(path.length_ns) / 1e6;
  out.window_ms = static_cast<double>(path.window_end_ns - path.window_start_ns) / 1e6;
  out.graph_nodes = path.nodes;
  out.graph_edges = path.edges.size();
  out.warnings = path.warnings;
  std::vector<bool> seen_node;
  for (uint32_t e : path.events) {
    const TimelineEvent& ev = timeline.events[e];
    out.events.push_back(StepPath::Event{.event = e,
                                         .name = timeline.name(ev),
                                         .track = timeline.tracks[ev.track].label,
                                         .ts_us = static_cast<double>(ev.start_ns) / 1e3,
                                         .dur_us = static_cast<double>(ev.dur_ns) / 1e3,
                                         .gpu = timeline.tracks[ev.track].gpu});
    if (ev.node == kNoIndex) continue;
    if (ev.node >= seen_node.size()) seen_node.resize(ev.node + 1, false);
    if (!seen_node[ev.node]) {
      seen_node[ev.node] = true;
      out.nodes.push_back(ev.node);
    }
  }
  for (const auto& [node, ns] : PathTimePerNode(timeline, path)) {
    out.per_node_ms.emplace_back(node, static_cast<double>(ns) / 1e6);
  }
  return out;
}

}  // namespace

EventPathOptions StepWindow(const Timeline& timeline, uint32_t marker) {
  EventPathOptions options;
  options.annotation = "";
  if (marker == kNoIndex) return options;
  // HTA's window: the instance-th event whose name contains the annotation,
  // in file order.
  options.annotation = timeline.name(timeline.events[marker]);
  std::vector<bool> holds(timeline.names.size());  // per name, not per event
  for (size_t n = 0; n < holds.size(); ++n) {
    holds[n] = timeline.names[n].find(options.annotation) != std::string::npos;
  }
  std::vector<uint32_t> sources;
  for (const TimelineEvent& e : timeline.events) {
    if (holds[e.name] && !timeline.tracks[e.track].gpu) sources.push_back(e.source);
  }
  std::sort(sources.begin(), sources.end());
  options.instance = static_cast<size_t>(
      std::lower_bound(sources.begin(), sources.end(), timeline.events[marker].source) -
      sources.begin());
  return options;
}

std::optional<StepPath> StepCriticalPath(const std::vector<Timeline>& timelines,
                                         std::optional<size_t> frame, std::string& warning) {
  if (timelines.empty()) return std::nullopt;
  // The rank whose marker for the step is longest; without markers, the first.
  const Timeline* t = &timelines.front();
  uint32_t marker = kNoIndex;
  if (frame) {
    for (const Timeline& candidate : timelines) {
      if (*frame >= candidate.markers.size() || candidate.markers[*frame] == kNoIndex) continue;
      const uint32_t m = candidate.markers[*frame];
      if (marker == kNoIndex || candidate.events[m].dur_ns > t->events[marker].dur_ns) {
        t = &candidate;
        marker = m;
      }
    }
  }
  const EventPathOptions options = StepWindow(*t, marker);
  if (t->events.empty()) return std::nullopt;
  auto path = EventCriticalPath(*t, options);
  if (!path) {
    warning = "no event critical path: " + path.error().message;
    return std::nullopt;
  }
  std::optional<int64_t> step;
  if (marker != kNoIndex && *frame < t->steps.size()) step = t->steps[*frame];
  return ToStepPath(*t, options, *path, step);
}

std::string PathWindowLabel(const StepPath& path) {
  if (path.step) return fmt::format("step {}", *path.step);
  if (path.annotation.empty()) return "the whole trace";
  return fmt::format("instance {} of '{}'", path.instance, path.annotation);
}

std::optional<StepPath> AnnotationCriticalPath(const std::vector<Timeline>& timelines,
                                               const std::string& annotation, size_t instance,
                                               std::string& warning) {
  if (timelines.empty() || timelines.front().events.empty()) return std::nullopt;
  const Timeline& t = timelines.front();
  EventPathOptions options;
  options.annotation = annotation;
  options.instance = instance;
  auto path = EventCriticalPath(t, options);
  if (!path) {
    warning = "no event critical path: " + path.error().message;
    return std::nullopt;
  }
  // The window of a step's marker (its name, as StepWindow gives it) is that step.
  std::optional<int64_t> step;
  for (size_t f = 0; f < t.markers.size() && f < t.steps.size(); ++f) {
    if (t.markers[f] == kNoIndex) continue;
    const EventPathOptions marker = StepWindow(t, t.markers[f]);
    if (marker.annotation == annotation && marker.instance == instance) step = t.steps[f];
  }
  return ToStepPath(t, options, *path, step);
}

TraceSummary SummariseTrace(const std::vector<Timeline>& timelines, const Samples& samples,
                            const std::vector<double>& frame_ms, const PathWindow& window) {
  TraceSummary out;
  out.slowest = Slowest(samples, frame_ms);
  // The critical path of the slowest step; of the only one; or, without
  // markers, of the whole trace.
  const bool markers = std::any_of(timelines.begin(), timelines.end(), [](const Timeline& t) {
    return std::any_of(t.markers.begin(), t.markers.end(), [](uint32_t m) { return m != kNoIndex; });
  });
  // HTA leaves the last of two or more steps out (often cut short by the
  // profiler): the slowest of the others.
  std::optional<size_t> frame;
  if (markers) {
    frame = 0;
    for (size_t f = 1; f + 1 < frame_ms.size(); ++f) {
      if (frame_ms[f] > frame_ms[*frame]) frame = f;
    }
  }
  std::string warning;
  if (window.step) {  // the frame of that step on any rank
    std::optional<size_t> found;
    bool last = false;  // the trace's last step, which HTA leaves out
    std::vector<int64_t> steps;
    for (const Timeline& t : timelines) {
      steps.insert(steps.end(), t.steps.begin(), t.steps.end());
      for (size_t f = 0; f < t.steps.size() && !found; ++f) {
        if (t.steps[f] == *window.step && f < t.markers.size() && t.markers[f] != kNoIndex) {
          found = f;
          last = t.steps.size() >= 2 && f + 1 == t.steps.size();
        }
      }
    }
    std::sort(steps.begin(), steps.end());
    steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
    if (!found && steps.empty()) {
      warning =
          fmt::format("no event critical path: the trace has no step {} (it has no step markers)",
                      *window.step);
    } else if (!found) {
      warning =
          fmt::format("no event critical path: the trace has no step {} (its steps are {} to {})",
                      *window.step, steps.front(), steps.back());
    } else if (last) {
      warning = fmt::format(
          "no event critical path: step {} is the trace's last, which Holistic Trace Analysis "
          "leaves out (the profiler often cuts it short): choose another",
          *window.step);
    }
    frame = last ? std::nullopt : found;
  }
  // The path of one step and the rest of the summary share nothing but the
  // timelines they read: a large trace has them on two cores.
  auto path = [&] {
    if (window.annotation) {
      out.path = AnnotationCriticalPath(timelines, *window.annotation, window.instance, warning);
    } else if (!window.step || frame) {
      out.path = StepCriticalPath(timelines, frame, warning);
    }
  };
  auto rest = [&] {
    out.gpu = AnalyseGpuTime(timelines);
    for (const Timeline& t : timelines) {
      std::vector<MemoryPeak> peaks = MemoryPeaks(t);
      out.memory.insert(out.memory.end(), peaks.begin(), peaks.end());
    }
    std::stable_sort(out.memory.begin(), out.memory.end(),
                     [](const MemoryPeak& a, const MemoryPeak& b) { return a.rank < b.rank; });
    out.ranks = Steps(timelines);
  };
  size_t events = 0;
  for (const Timeline& t : timelines) events += t.events.size();
  RunBothIf(events >= kParallelTraceItems, path, rest);
  if (!warning.empty()) out.warnings.push_back(warning);
  return out;
}

}  // namespace cookgraph
