#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <optional>
#include <utility>
#include <vector>


#include "server/explorer_internal.h"

// A frame's timeline: recorded events, GStreamer cooks, or the cooks laid
// out in dependency order (docs/commands.md#the-explorers-api).

namespace cookgraph::server {

namespace {

std::string StepLabel(const Snapshot& s, size_t frame) {
  const auto& index = s.samples.frame_index();
  if (frame < index.size()) return std::to_string(index[frame]);
  return std::to_string(frame);
}

// The most events one timeline document carries; the longest are kept.
constexpr size_t kTimelineEvents = 100000;

const char* KindName(EventKind kind) {
  switch (kind) {
    case EventKind::kCpuOp: return "cpu_op";
    case EventKind::kRuntime: return "runtime";
    case EventKind::kAnnotation: return "annotation";
    case EventKind::kMarker: return "marker";
    case EventKind::kKernel: return "kernel";
    case EventKind::kMemcpy: return "memcpy";
    case EventKind::kMemset: return "memset";
    case EventKind::kGpuAnnotation: return "gpu_annotation";
    case EventKind::kGpuSync: return "gpu_sync";
    case EventKind::kOther: return "other";
  }
  return "other";
}

// A lane of the timeline document, filled column by column.
struct Lane {
  std::string label;
  bool gpu = false;
  std::vector<double> start, dur;  // ms
  std::vector<uint32_t> name, depth;
  std::vector<const char*> kind;
  std::vector<const std::string*> node;  // nullptr: no node
  std::vector<std::optional<std::pair<size_t, size_t>>> link;  // (lane, position) of the partner

  // The lane's object, its keys in the sorted order nlohmann::json gave them.
  void Write(JsonWriter& w) const {
    w.BeginObject();
    w.Key("depth");
    w.BeginArray();
    for (uint32_t d : depth) w.Count(d);
    w.EndArray();
    w.Key("dur");
    w.BeginArray();
    for (double ms : dur) w.Number(ms);
    w.EndArray();
    w.BoolField("gpu", gpu);
    w.Key("kind");
    w.BeginArray();
    for (const char* k : kind) w.String(k);
    w.EndArray();
    w.StringField("label", label);
    w.Key("link");
    w.BeginArray();
    for (const auto& l : link) {
      if (!l) {
        w.Null();
        continue;
      }
      w.BeginArray();
      w.Count(l->first);
      w.Count(l->second);
      w.EndArray();
    }
    w.EndArray();
    w.Key("name");
    w.BeginArray();
    for (uint32_t n : name) w.Count(n);
    w.EndArray();
    w.Key("node");
    w.BeginArray();
    for (const std::string* id : node) id ? w.String(*id) : w.Null();
    w.EndArray();
    w.Key("start");
    w.BeginArray();
    for (double ms : start) w.Number(ms);
    w.EndArray();
    w.EndObject();
  }
};

// The document of one frame as it is filled: its lanes, the event names
// they share (each once), and what was counted.
struct TimelineDoc {
  std::vector<Lane> lanes;
  std::vector<std::string> names;
  std::unordered_map<std::string_view, uint32_t> name_at;  // into names: reserved, never moved
  std::string layout;
  double span_ms = 0;
  size_t total = 0, kept = 0;
  size_t other_streams = 0;  // GStreamer: cooks of buffer k on threads at another rate, left out

  TimelineDoc() { names.reserve(kTimelineEvents); }
  // A trace's recorded events of the frame, every rank's.
  void RecordedLanes(const View& v, size_t frame);
  // A GStreamer recording's cooks of the buffer where they began.
  void StreamingLanes(const View& v, size_t frame);
  // The cooks one after another in the order their inputs allow.
  void DependencyLanes(const View& v, size_t frame);
  uint32_t Intern(std::string_view text) {
    auto it = name_at.find(text);
    if (it != name_at.end()) return it->second;
    names.emplace_back(text);
    const uint32_t at = static_cast<uint32_t>(names.size() - 1);
    name_at.emplace(names.back(), at);
    return at;
  }
};

void TimelineDoc::RecordedLanes(const View& v, size_t frame) {
  const Snapshot& s = v.snapshot;
  const Network& net = s.network;
  layout = "recorded";
  // The frame's events of every rank; its start is the earliest of them.
  std::vector<std::pair<size_t, uint32_t>> picked;  // (timeline, event)
  int64_t origin = INT64_MAX, end = INT64_MIN;
  for (size_t t = 0; t < s.timelines.size(); ++t) {
    const Timeline& tl = s.timelines[t];
    for (uint32_t e = 0; e < tl.events.size(); ++e) {
      const TimelineEvent& ev = tl.events[e];
      if (ev.frame != frame) continue;
      picked.emplace_back(t, e);
      origin = std::min(origin, ev.start_ns);
      end = std::max(end, ev.end_ns());
    }
  }
  total = picked.size();
  if (picked.size() > kTimelineEvents) {
    std::nth_element(picked.begin(), picked.begin() + kTimelineEvents, picked.end(),
                     [&](const auto& p, const auto& q) {
                       return s.timelines[p.first].events[p.second].dur_ns >
                              s.timelines[q.first].events[q.second].dur_ns;
                     });
    picked.resize(kTimelineEvents);
    std::sort(picked.begin(), picked.end());
  }
  kept = picked.size();
  span_ms = picked.empty() ? 0 : static_cast<double>(end - origin) / 1e6;
  // Lanes by (timeline, track), in the order the tracks are listed; an
  // event's link is its partner's (lane, position) when the partner is kept.
  std::unordered_map<uint64_t, size_t> lane_of;
  std::unordered_map<uint64_t, std::pair<size_t, size_t>> position;  // (t, e) -> (lane, i)
  std::unordered_map<uint64_t, uint32_t> depth_of;
  for (const auto& [t, e] : picked) {
    const Timeline& tl = s.timelines[t];
    const TimelineEvent& ev = tl.events[e];
    const uint64_t lane_key = (uint64_t{t} << 32) | ev.track;
    auto [it, fresh] = lane_of.emplace(lane_key, lanes.size());
    if (fresh) {
      Lane l;
      const Track& track = tl.tracks[ev.track];
      l.label = (s.timelines.size() > 1 ? "rank " + std::to_string(tl.rank) + " · " : "") + track.label;
      l.gpu = track.gpu;
      lanes.push_back(std::move(l));
    }
    Lane& l = lanes[it->second];
    uint32_t depth = 0;
    if (ev.parent != kNoIndex) {
      auto p = depth_of.find((uint64_t{t} << 32) | ev.parent);
      if (p != depth_of.end()) depth = p->second + 1;
    }
    depth_of[(uint64_t{t} << 32) | e] = depth;
    position[(uint64_t{t} << 32) | e] = {it->second, l.start.size()};
    l.start.push_back(static_cast<double>(ev.start_ns - origin) / 1e6);
    l.dur.push_back(static_cast<double>(ev.dur_ns) / 1e6);
    l.name.push_back(Intern(tl.name(ev)));
    l.depth.push_back(depth);
    l.kind.push_back(KindName(ev.kind));
    l.node.push_back(ev.node != kNoIndex && ev.node < net.size() ? &net.node(ev.node).id : nullptr);
    l.link.push_back(std::nullopt);
  }
  for (const auto& [t, e] : picked) {
    const TimelineEvent& ev = s.timelines[t].events[e];
    if (ev.link == kNoIndex) continue;
    auto from = position.find((uint64_t{t} << 32) | e);
    auto to = position.find((uint64_t{t} << 32) | ev.link);
    if (from == position.end() || to == position.end()) continue;
    lanes[from->second.first].link[from->second.second] = std::pair(to->second.first, to->second.second);
  }
}

void TimelineDoc::StreamingLanes(const View& v, size_t frame) {
  const Snapshot& s = v.snapshot;
  const Network& net = s.network;
  // A GStreamer recording: each element's cook of this buffer index where
  // the latency tracer says it began, on the thread that ran it; waiting
  // elements (queues, mixers) on a row of their own below the work.
  layout = "recorded";
  const Streaming& st = *s.streaming;
  lanes.resize(st.threads.size() + 1);
  for (size_t t = 0; t < st.threads.size(); ++t) {
    lanes[t].label = st.threads[t].name + (st.bottleneck == t ? " (bottleneck)" : "");
  }
  lanes.back().label = "thread not logged";
  // Node n's cook of this frame as (start, ms), when both are known.
  auto cook_of = [&](NodeIndex n) -> std::optional<std::pair<double, double>> {
    const auto& starts = st.cook_start_ms[n];
    const auto cook = s.samples.series(n, Metric::kCookMs);
    if (frame >= starts.size() || !std::isfinite(starts[frame]) || frame >= cook.size() ||
        !std::isfinite(cook[frame])) {
      return std::nullopt;
    }
    return std::pair{starts[frame], cook[frame]};
  };
  const NodeIndex nodes = static_cast<NodeIndex>(std::min(st.cook_start_ms.size(), net.size()));
  double origin = INFINITY, end = -INFINITY;
  // A cook on a thread at another rate (audio beside video) is that
  // stream's buffer k, not part of frame k: left out, and counted.
  auto other_rate = [&](NodeIndex n) {
    const uint32_t t = st.cook_thread[n][frame];
    return t < st.threads.size() && !st.threads[t].sets_frame;
  };
  for (NodeIndex n = 0; n < nodes; ++n) {
    const auto c = cook_of(n);
    if (c && !other_rate(n)) {
      origin = std::min(origin, c->first);
      end = std::max(end, c->first + c->second);
    }
  }
  for (NodeIndex n = 0; n < nodes; ++n) {
    const auto c = cook_of(n);
    if (!c) continue;
    if (other_rate(n)) {
      ++other_streams;
      continue;
    }
    const uint32_t t = st.cook_thread[n][frame];
    Lane& l = lanes[t < st.threads.size() ? t : st.threads.size()];
    const bool waiting = v.analysis.waiting.size() > n && v.analysis.waiting[n];
    l.start.push_back(c->first - origin);
    l.dur.push_back(c->second);
    l.name.push_back(Intern(ShortName(net.node(n).id)));
    l.depth.push_back(waiting ? 1 : 0);
    l.kind.push_back(waiting ? "waiting" : "cook");
    l.node.push_back(&net.node(n).id);
    l.link.push_back(std::nullopt);
    ++total;
  }
  kept = total;
  span_ms = total ? end - origin : 0;
}

void TimelineDoc::DependencyLanes(const View& v, size_t frame) {
  const Snapshot& s = v.snapshot;
  const Network& net = s.network;
  // No recorded times: the frame's cooks laid out in the order their inputs
  // allow (the topological order), one after another on one lane per
  // streaming thread (GStreamer) or on the main thread (TouchDesigner cooks
  // one operator at a time).
  layout = "dependency";
  std::vector<size_t> lane_of_node(net.size(), 0);
  const std::vector<bool> off_frame =
      s.streaming ? OffFrameNodes(*s.streaming, net.size()) : std::vector<bool>(net.size(), false);
  if (s.streaming && !s.streaming->threads.empty()) {
    lanes.resize(s.streaming->threads.size());
    for (size_t t = 0; t < s.streaming->threads.size(); ++t) {
      const StreamingThread& th = s.streaming->threads[t];
      lanes[t].label = th.name + (s.streaming->bottleneck == t ? " (bottleneck)" : "");
    }
    for (size_t t = s.streaming->threads.size(); t-- > 0;) {
      for (NodeIndex n : s.streaming->threads[t].elements) lane_of_node[n] = t;
    }
  } else {
    lanes.resize(1);
    lanes[0].label = s.info.engine == "touchdesigner" ? "main thread" : "cooks";
  }
  // A waiting node (a queue, a mixer: docs/architecture.md#waiting-nodes)
  // is drawn on the row below, from where its buffer arrived, and takes no
  // time from the lane: its time is waiting for others, not work.
  std::vector<double> at(lanes.size(), 0);
  for (NodeIndex n : v.analysis.order) {
    const auto cook = s.samples.series(n, Metric::kCookMs);
    if (cook.empty() || frame >= cook.size() || !std::isfinite(cook[frame])) continue;
    if (off_frame[n]) {
      ++other_streams;
      continue;
    }
    const bool waiting = v.analysis.waiting.size() > n && v.analysis.waiting[n];
    Lane& l = lanes[lane_of_node[n]];
    double& t = at[lane_of_node[n]];
    l.start.push_back(t);
    l.dur.push_back(cook[frame]);
    l.name.push_back(Intern(ShortName(net.node(n).id)));
    l.depth.push_back(waiting ? 1 : 0);
    l.kind.push_back(waiting ? "waiting" : "cook");
    l.node.push_back(&net.node(n).id);
    l.link.push_back(std::nullopt);
    if (!waiting) t += cook[frame];
    span_ms = std::max(span_ms, t);
    ++total;
  }
  kept = total;
}

}  // namespace

Result<std::string> Explorer::TimelineJson(size_t index, size_t frame) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Snapshot& s = v.snapshot;
  if (frame >= s.samples.frame_count()) {
    return NotFound("no frame at position " + std::to_string(frame) + " in " + v.file);
  }
  TimelineDoc timeline;
  if (!s.timelines.empty()) {
    timeline.RecordedLanes(v, frame);
  } else if (s.streaming && !s.streaming->cook_start_ms.empty()) {
    timeline.StreamingLanes(v, frame);
  } else {
    timeline.DependencyLanes(v, frame);
  }
  const auto& f = v.analysis.frames;
  JsonWriter w(kExplorerStyle);  // the keys in sorted order
  w.BeginObject();
  w.CountField("events", timeline.total);
  w.CountField("frame", frame);
  w.Field("frame_ms", frame < f.frame_ms.size() ? JsonValue(f.frame_ms[frame]) : JsonValue());
  w.CountField("kept", timeline.kept);
  w.Key("lanes");
  w.BeginArray();
  for (const Lane& l : timeline.lanes) {
    if (!l.start.empty()) l.Write(w);
  }
  w.EndArray();
  w.StringField("layout", timeline.layout);
  w.Key("names");
  WriteStrings(w, timeline.names);
  w.CountField("other_streams", timeline.other_streams);
  w.NumberField("span_ms", timeline.span_ms);
  w.StringField("step", StepLabel(s, frame));
  w.CountField("view", index);
  w.EndObject();
  return w.Take();
}

}  // namespace cookgraph::server
