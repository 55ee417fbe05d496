// The windows of the event critical path (event_critical_path.h): what a
// window finds its events by, which instances of the annotation it spans, and
// HTA's clipped DataFrame of its events.

#include <algorithm>

#include "metrics/event_critical_path_builder.h"

namespace cookgraph {
namespace event_path_internal {

// What Window() and Clip() look up, so that a window finds its events
// without a walk over the trace: the span of every row, the rows that Clip
// may take, by thread and start, the "Stream Wait Event"s it always takes,
// and for each annotation asked for the names holding it and their rows.
// One pass over the events in their own order (by track, then start).
void Builder::IndexWindows() {
  trace_.slot_of_name.assign(t_.names.size(), kNoIndex);
  uint32_t slots = 0;
  for (const EventPathOptions& w : windows_) {
    if (w.annotation.empty()) continue;
    auto [it, added] = trace_.holders.try_emplace(w.annotation);
    if (!added) continue;
    for (uint32_t n = 0; n < t_.names.size(); ++n) {
      if (!trace_.name_used[n] || t_.names[n].find(w.annotation) == std::string::npos) continue;
      it->second.push_back(n);
      if (trace_.slot_of_name[n] == kNoIndex) trace_.slot_of_name[n] = slots++;
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>> held;  // (slot, row)
  for (uint32_t e = 0; e < t_.events.size(); ++e) {
    if (!(trace_.flags[e] & kRow)) continue;  // not in Order()
    const TimelineEvent& ev = t_.events[e];
    trace_.whole_start = std::min(trace_.whole_start, ev.start_ns);
    trace_.whole_end = std::max(trace_.whole_end, ev.end_ns());
    if (slots > 0 && trace_.slot_of_name[ev.name] != kNoIndex) {
      held.emplace_back(trace_.slot_of_name[ev.name], e);
    }
    if (Stream(e) != -1) {
      if (Flags(e) & kStreamWait) trace_.stream_waits.push_back(e);
    } else if (ev.dur_ns > 0) {
      if (trace_.cpu_rows.empty() || t_.events[trace_.cpu_rows.back()].track != ev.track) {
        trace_.cpu_runs.push_back(static_cast<uint32_t>(trace_.cpu_rows.size()));
      }
      trace_.cpu_rows.push_back(e);
    }
  }
  trace_.cpu_runs.push_back(static_cast<uint32_t>(trace_.cpu_rows.size()));
  // A track's events are by start in the timeline (model/timeline.h);
  // checked rather than assumed.
  auto by_start = [&](uint32_t a, uint32_t b) {
    return t_.events[a].start_ns < t_.events[b].start_ns;
  };
  for (size_t r = 0; r + 1 < trace_.cpu_runs.size(); ++r) {
    const auto first = trace_.cpu_rows.begin() + trace_.cpu_runs[r],
               last = trace_.cpu_rows.begin() + trace_.cpu_runs[r + 1];
    if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
  }
  // Per slot, its name's rows in Order().
  std::sort(held.begin(), held.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : OrderKey(a.second) < OrderKey(b.second);
  });
  trace_.slot_at.assign(size_t{slots} + 1, 0);
  trace_.slot_rows.reserve(held.size());
  for (const auto& [k, e] : held) {
    ++trace_.slot_at[k + 1];
    trace_.slot_rows.push_back(e);
  }
  for (size_t k = 0; k < slots; ++k) trace_.slot_at[k + 1] += trace_.slot_at[k];
}

std::span<const uint32_t> Builder::Instances(std::string_view annotation) {
  const std::vector<uint32_t>& names = trace_.holders.at(annotation);
  auto rows_of = [&](uint32_t name) {
    const uint32_t k = trace_.slot_of_name[name];
    return std::span<const uint32_t>(trace_.slot_rows)
        .subspan(trace_.slot_at[k], trace_.slot_at[k + 1] - trace_.slot_at[k]);
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

void Builder::Reset(const EventPathOptions& o) {
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
Status Builder::Window() {
  if (Order().empty()) {
    return Error{.file = t_.file, .message = "the trace has no events to find a critical path in"};
  }
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  if (o_->annotation.empty()) {
    lo = trace_.whole_start;
    hi = trace_.whole_end;
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
void Builder::Clip() {
  const int64_t lo = out_.window_start_ns, hi = out_.window_end_ns;
  auto take = [&](uint32_t e) {
    if (InWindow(e)) return;
    stamp_[e] = epoch_;
    window_.push_back(e);
  };
  auto before = [&](uint32_t e, int64_t ts) { return t_.events[e].start_ns < ts; };
  for (size_t r = 0; r + 1 < trace_.cpu_runs.size(); ++r) {  // each thread's rows from lo to hi
    const auto last = trace_.cpu_rows.begin() + trace_.cpu_runs[r + 1];
    auto it = std::lower_bound(trace_.cpu_rows.begin() + trace_.cpu_runs[r], last, lo, before);
    for (; it != last && t_.events[*it].start_ns <= hi; ++it) {
      take(*it);
      const uint32_t partner = Row(Ic(*it));
      if (partner != kNoIndex && Stream(partner) != -1) take(partner);
    }
  }
  for (uint32_t e : trace_.stream_waits) take(e);
  std::sort(window_.begin(), window_.end());  // by track, then start: as the walks want
  for (uint32_t i = 0; i < window_.size(); ++i) local_[window_[i]] = i;
  out_.window_events = window_.size();
  node_of_.assign(2 * window_.size(), kNoIndex);
}

}  // namespace event_path_internal
}  // namespace cookgraph
