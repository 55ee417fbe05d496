// The timeline of a Chrome trace (model/timeline.h): the slices kept as
// events on their tracks, nested again with the markers among them (a step
// encloses its ops), linked launch to kernel, and the [memory] events bound
// to the op that made them.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <tuple>
#include <unordered_map>

#include "adapters/chrome/build.h"

namespace cookgraph::chrome {
namespace {

EventKind KindOf(Role role, std::string_view family) {
  if (role == Role::kMarker) return EventKind::kMarker;
  if (family == "kernel") return EventKind::kKernel;
  if (family == "gpu_memcpy") return EventKind::kMemcpy;
  if (family == "gpu_memset") return EventKind::kMemset;
  if (family == "gpu_user_annotation") return EventKind::kGpuAnnotation;
  if (family == "cuda_sync") return EventKind::kGpuSync;
  if (family == "cuda_runtime" || family == "cuda_driver") return EventKind::kRuntime;
  if (family == "user_annotation" || family == "python_function") return EventKind::kAnnotation;
  if (family == "cpu_op" || family == "op" || family == "Node") return EventKind::kCpuOp;
  return EventKind::kOther;
}

int64_t WholeNumber(std::string_view text) {
  // Kineto's 2021 schema names GPU tracks "stream 7".
  if (text.starts_with("stream ")) text.remove_prefix(7);
  int64_t value = -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() ? value : -1;
}

// Tracks: CPU threads, then GPU streams, each by (pid, tid) as numbers
// where they are numbers.
// Interned thread -> track; a table, as every slice looks its thread up.
// A track is a GPU stream when its first slice in file order is GPU-side.
// Returns the track of each interned thread (kNoIndex: none), the tracks in
// their order in `t`.
std::vector<uint32_t> MakeTracks(const TraceRecords& r, const Classified& c, Timeline& t) {
  const std::vector<Slice>& slices = r.slices;
  std::vector<uint32_t> track_of(r.strings.size(), kNoIndex);
  for (uint32_t i = 0; i < slices.size(); ++i) {
    if (c.role[i] == Role::kIgnored) continue;
    const uint32_t thread = slices[i].thread;
    if (track_of[thread] != kNoIndex) continue;
    const std::string& name = r.strings.str(thread);
    const size_t sep = name.find('\x1F');
    Track track;
    track.pid = name.substr(0, sep);
    track.tid = sep == std::string::npos ? track.pid : name.substr(sep + 1);
    track.gpu = c.gpu[i];
    if (auto tf = c.tf_streams.find(thread); track.gpu && tf != c.tf_streams.end()) {
      std::tie(track.device, track.stream) = tf->second;  // TensorFlow 1 names them
      track.label = fmt::format("GPU {} stream {}", track.device, track.stream);
    } else if (track.gpu) {
      track.device = WholeNumber(track.pid);
      track.stream = WholeNumber(track.tid);
      track.label = track.stream >= 0 && track.device >= 0
                        ? fmt::format("GPU {} stream {}", track.device, track.stream)
                        : fmt::format("GPU {} stream {}", track.pid, track.tid);
    } else {
      track.label = fmt::format("thread {} (pid {})", track.tid, track.pid);
    }
    track_of[thread] = static_cast<uint32_t>(t.tracks.size());
    t.tracks.push_back(std::move(track));
  }
  std::vector<uint32_t> track_order(t.tracks.size());
  for (uint32_t i = 0; i < track_order.size(); ++i) track_order[i] = i;
  std::sort(track_order.begin(), track_order.end(), [&](uint32_t a, uint32_t b) {
    const Track& x = t.tracks[a];
    const Track& y = t.tracks[b];
    if (x.gpu != y.gpu) return !x.gpu;
    const int64_t xp = WholeNumber(x.pid), yp = WholeNumber(y.pid);
    if (xp != yp) return xp < yp;
    if (x.pid != y.pid) return x.pid < y.pid;
    const int64_t xt = WholeNumber(x.tid), yt = WholeNumber(y.tid);
    if (xt != yt) return xt < yt;
    return x.tid < y.tid;
  });
  std::vector<uint32_t> renumber(t.tracks.size());
  std::vector<Track> sorted_tracks;
  for (uint32_t pos = 0; pos < track_order.size(); ++pos) {
    renumber[track_order[pos]] = pos;
    sorted_tracks.push_back(std::move(t.tracks[track_order[pos]]));
  }
  t.tracks = std::move(sorted_tracks);
  for (uint32_t& track : track_of) {
    if (track != kNoIndex) track = renumber[track];
  }
  return track_of;
}

// Numbers the events in `event_of` (per slice; kNoIndex stays for the
// others): `order` holds the timeline's slices by thread, then start, and
// each thread is one track (MakeTracks), so the events are the threads' runs
// of `order`, track by track. Returns how many there are.
uint32_t NumberEvents(const TraceRecords& r, const std::vector<uint32_t>& order,
                      const std::vector<uint32_t>& track_of, size_t tracks,
                      std::vector<uint32_t>& event_of) {
  std::vector<std::pair<uint32_t, uint32_t>> run_of(tracks, {0, 0});
  for (uint32_t pos = 0; pos < order.size();) {
    const uint32_t thread = r.slices[order[pos]].thread;
    uint32_t end = pos + 1;
    while (end < order.size() && r.slices[order[end]].thread == thread) ++end;
    run_of[track_of[thread]] = {pos, end};
    pos = end;
  }
  uint32_t index = 0;
  for (const auto& [lo, hi] : run_of) {
    for (uint32_t pos = lo; pos < hi; ++pos) event_of[order[pos]] = index++;
  }
  return index;
}

// Numbers the events' names (e.name: the interned name) in Timeline::names
// as they first appear, and nests each CPU track's events (markers included:
// a step encloses its ops).
void NameAndNest(const TraceRecords& r, Timeline& t) {
  std::vector<uint32_t> name_index(r.strings.size(), kNoIndex);  // interned name -> Timeline::names
  std::vector<uint32_t> stack;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    TimelineEvent& e = t.events[i];
    if (name_index[e.name] == kNoIndex) {
      name_index[e.name] = static_cast<uint32_t>(t.names.size());
      t.names.push_back(r.strings.str(e.name));
    }
    e.name = name_index[e.name];
    if (i == 0 || t.events[i - 1].track != e.track) stack.clear();
    if (t.tracks[e.track].gpu) continue;
    while (!stack.empty() && t.events[stack.back()].end_ns() <= e.start_ns) stack.pop_back();
    if (!stack.empty()) e.parent = stack.back();
    stack.push_back(i);
  }
}

// Wait and pool args, by the event they are on (the file's index to the timeline's).
void AddWaitsAndPools(const TraceRecords& r, Timeline& t) {
  if (!r.waits.empty() || !r.pools.empty()) {
    std::vector<uint32_t> by_source(r.events, kNoIndex);  // 4 bytes a traceEvent
    for (uint32_t i = 0; i < t.events.size(); ++i) {
      if (t.events[i].source < by_source.size()) by_source[t.events[i].source] = i;
    }
    auto event = [&](uint32_t source) {
      return source < by_source.size() ? by_source[source] : kNoIndex;
    };
    for (const WaitMark& w : r.waits) {
      if (event(w.event) == kNoIndex) continue;
      t.waits.push_back(WaitArgs{.event = event(w.event),
                                 .wait_on_stream = w.wait_on_stream,
                                 .wait_on_record = w.wait_on_record});
    }
    std::sort(t.waits.begin(), t.waits.end(),
              [](const WaitArgs& a, const WaitArgs& b) { return a.event < b.event; });
    std::unordered_map<uint32_t, uint32_t> pool_index;  // interned name to pool_names
    for (const PoolMark& p : r.pools) {
      if (event(p.event) == kNoIndex) continue;
      auto [it, added] = pool_index.try_emplace(p.pool, static_cast<uint32_t>(t.pool_names.size()));
      if (added) t.pool_names.push_back(r.strings.str(p.pool));
      t.pools.push_back(PoolArgs{.event = event(p.event),
                                 .pool = it->second,
                                 .run_us = p.run_us,
                                 .wait_us = p.wait_us,
                                 .distribution_us = p.distribution_us,
                                 .parallel_sections = p.parallel_sections,
                                 .helpers = p.helpers,
                                 .helper_runs = p.helper_runs});
    }
    std::sort(t.pools.begin(), t.pools.end(),
              [](const PoolArgs& a, const PoolArgs& b) { return a.event < b.event; });
  }
}

// [memory] events, by time, each bound to the innermost op around it.
void BindMemory(const TraceRecords& r, const std::vector<uint32_t>& track_of, Timeline& t) {
  std::vector<std::pair<uint32_t, uint32_t>> range(t.tracks.size(), {0, 0});
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    if (i == 0 || t.events[i - 1].track != t.events[i].track) range[t.events[i].track].first = i;
    range[t.events[i].track].second = i + 1;
  }
  t.memory.reserve(r.memory.size());
  for (const MemoryMark& m : r.memory) {
    MemoryEvent out{.ts_ns = m.ts,
                    .bytes = m.bytes,
                    .total_allocated = m.total_allocated,
                    .total_reserved = m.total_reserved,
                    .device_type = m.device_type,
                    .device = m.device};
    if (m.thread < track_of.size() && track_of[m.thread] != kNoIndex) {
      const auto [lo, hi] = range[track_of[m.thread]];
      auto first = t.events.begin() + lo, last = t.events.begin() + hi;
      auto after = std::partition_point(first, last,
                                        [&](const TimelineEvent& e) { return e.start_ns <= m.ts; });
      uint32_t e = after == first ? kNoIndex : static_cast<uint32_t>(after - t.events.begin() - 1);
      // Up the nesting to the innermost op open at the event; a crafted chain
      // of thousands of ended ancestors is cut short (the event then counts in
      // the memory timeline only), so binding stays linear.
      for (int hops = 0;
           e != kNoIndex && (t.events[e].end_ns() < m.ts || t.events[e].kind != EventKind::kCpuOp);
           ++hops) {
        e = hops < 256 ? t.events[e].parent : kNoIndex;
      }
      out.op = e;
    }
    t.memory.push_back(out);
  }
  std::stable_sort(t.memory.begin(), t.memory.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.ts_ns < b.ts_ns; });
}

}  // namespace

TimelinePlan PlanTimeline(const TraceRecords& r, const Classified& c,
                          std::vector<uint32_t> launcher, std::vector<uint32_t> order,
                          const std::string& file, std::vector<uint32_t>& event_of) {
  TimelinePlan plan;
  Timeline& t = plan.timeline;
  t.file = file;
  if (r.rank && *r.rank >= 0 && *r.rank < int64_t{kNoIndex})
    t.rank = static_cast<uint32_t>(*r.rank);
  if (r.world_size && *r.world_size > 0 && *r.world_size < int64_t{kNoIndex}) {
    t.world_size = static_cast<uint32_t>(*r.world_size);
  }
  for (const DeviceMark& d : r.devices) {
    t.devices.push_back(Device{.id = d.id, .name = d.name, .total_memory = d.total_memory});
  }
  plan.track_of = MakeTracks(r, c, t);
  event_of.assign(r.slices.size(), kNoIndex);
  plan.events = NumberEvents(r, order, plan.track_of, t.tracks.size(), event_of);
  std::vector<uint32_t>().swap(order);
  for (uint32_t i = 0; i < r.slices.size(); ++i) {
    if (event_of[i] == kNoIndex || launcher[i] == kNone) continue;
    if (const uint32_t from = event_of[launcher[i]]; from != kNoIndex) {
      plan.links.emplace_back(from, event_of[i]);
    }
  }
  return plan;
}

Timeline BuildTimeline(const TraceRecords& r, const Classified& c, const Frames& frames,
                       TimelinePlan plan, const std::vector<uint32_t>& event_of) {
  const std::vector<Slice>& slices = r.slices;
  Timeline t = std::move(plan.timeline);
  const std::vector<uint32_t>& track_of = plan.track_of;

  // The kind of each distinct category.
  std::vector<int8_t> kind_of_cat(r.strings.size() + 1, -1);
  std::vector<uint8_t> python_cat(r.strings.size() + 1, 0);  // the family is python_function
  auto kind = [&](uint32_t i) {
    const Slice& s = slices[i];
    if (c.role[i] == Role::kMarker) return EventKind::kMarker;
    const size_t key = s.cat == kNone ? r.strings.size() : s.cat;
    if (kind_of_cat[key] < 0) {
      const std::string family = FamilyOf(c.producer, s.cat == kNone ? "" : r.strings.str(s.cat));
      kind_of_cat[key] = static_cast<int8_t>(KindOf(c.role[i], family));
      python_cat[key] = family == "python_function";
    }
    return static_cast<EventKind>(kind_of_cat[key]);
  };

  // The events, each written at its index in one pass over the slices; e.name
  // holds the interned name until NameAndNest numbers it.
  t.events.resize(plan.events);
  for (uint32_t i = 0; i < slices.size(); ++i) {
    if (event_of[i] == kNoIndex) continue;
    const Slice& s = slices[i];
    TimelineEvent& e = t.events[event_of[i]];
    e.start_ns = s.start;
    e.dur_ns = s.end - s.start;
    e.name = s.name;
    e.track = track_of[s.thread];
    e.frame = frames.of_slice[i];
    e.source = s.event;
    e.correlation = s.correlation;
    e.kind = kind(i);
    e.python_function = e.kind == EventKind::kAnnotation &&
                        python_cat[s.cat == kNone ? r.strings.size() : s.cat] != 0;
  }
  NameAndNest(r, t);
  for (const auto& [from, to] : plan.links) {
    t.events[to].link = from;
    TimelineEvent& call = t.events[from];
    if (call.link == kNoIndex || t.events[call.link].start_ns > t.events[to].start_ns) {
      call.link = to;
    }
  }
  std::vector<std::pair<uint32_t, uint32_t>>().swap(plan.links);
  AddWaitsAndPools(r, t);
  // Per frame, its marker; markers take their frame from their start.
  t.markers.assign(frames.start_ns.size(), kNoIndex);
  t.steps = frames.index;
  for (uint32_t m : c.markers) {
    const uint32_t e = event_of[m];
    if (e == kNoIndex) continue;
    auto at = std::lower_bound(frames.start_ns.begin(), frames.start_ns.end(), slices[m].start);
    if (at == frames.start_ns.end() || *at != slices[m].start) continue;
    const auto f = static_cast<size_t>(at - frames.start_ns.begin());
    if (t.markers[f] != kNoIndex) continue;  // a marker dropped as overlapping
    t.markers[f] = e;
    t.events[e].frame = static_cast<uint32_t>(f);
  }

  BindMemory(r, track_of, t);
  return t;
}

}  // namespace cookgraph::chrome
