// The what-if models (docs/architecture.md#what-if-predicted-gains).

#include "metrics/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>

#include "metrics/event_critical_path.h"
#include "metrics/percentile.h"
#include "metrics/trace_summary.h"

namespace cookgraph {

namespace {

// The factor of `node` in `changes` (sorted by node, one entry per node), 1
// for a node that is not changed.
double FactorOf(std::span<const WhatIfChange> changes, NodeIndex node) {
  auto it = std::lower_bound(changes.begin(), changes.end(), node,
                             [](const WhatIfChange& c, NodeIndex n) { return c.node < n; });
  return it != changes.end() && it->node == node ? it->factor : 1.0;
}

}  // namespace

// One step of one rank, as the step-path model needs it: the event graph's
// points in topological order, the edges into each, and which node's own time
// each edge is.
struct WhatIf::Step {
  size_t frame = 0;
  double span_ms = 0;  // the step's marker span (the whole trace's without markers)
  struct In {
    uint32_t from = 0;  // a point, by its position in topological order
    uint32_t node = kNoIndex;  // the node whose own time the edge is; kNoIndex = nobody's
    double weight_ns = 0;
  };
  std::vector<uint32_t> in_at;  // per point + 1: its edges' range in `in`
  std::vector<In> in;
  double length_ns = 0;             // the longest path as this model computes it
  std::vector<NodeIndex> on_path;   // nodes with own time on the path, ascending

  // The longest path with each changed node's own time scaled (`changes`
  // as FactorOf reads them; empty = as measured).
  double Longest(std::span<const WhatIfChange> changes) const {
    std::vector<double> dist(in_at.size() - 1, 0.0);
    double longest = 0;
    for (size_t v = 0; v + 1 < in_at.size(); ++v) {
      double d = 0;
      for (uint32_t k = in_at[v]; k < in_at[v + 1]; ++k) {
        const In& e = in[k];
        const double w = e.node != kNoIndex && !changes.empty()
                             ? e.weight_ns * FactorOf(changes, e.node)
                             : e.weight_ns;
        d = std::max(d, dist[e.from] + w);
      }
      dist[v] = d;
      longest = std::max(longest, d);
    }
    return longest;
  }
};

WhatIf::WhatIf() = default;
WhatIf::~WhatIf() = default;
WhatIf::WhatIf(WhatIf&&) noexcept = default;
WhatIf& WhatIf::operator=(WhatIf&&) noexcept = default;

std::string_view WhatIfModelName(WhatIfModel model) {
  switch (model) {
    case WhatIfModel::kSerial:
      return "serial frames";
    case WhatIfModel::kStreaming:
      return "streaming threads";
    case WhatIfModel::kStepPath:
      return "step critical paths";
  }
  return "serial frames";
}

namespace {

// The statistics of the counted frames (not NaN) of `frame_ms`.
WhatIfFrames FramesOf(const std::vector<double>& frame_ms, bool has_budget, double budget_ms) {
  std::vector<double> counted;
  counted.reserve(frame_ms.size());
  WhatIfFrames out;
  for (double v : frame_ms) {
    if (IsMissing(v)) continue;
    counted.push_back(v);
    if (has_budget && v > budget_ms) ++out.over_budget;
  }
  if (counted.empty()) return out;
  const MeanP95Max m = MeanP95MaxOf(counted);
  out.mean_ms = m.mean;
  out.p95_ms = m.p95;
  return out;
}

// HTA's window of every step marker of `t` at once: StepWindow's instance
// (the marker's position among the CPU events whose name contains the
// marker's name, in file order) without a walk over every event per step.
std::vector<EventPathOptions> StepWindows(const Timeline& t) {
  std::vector<EventPathOptions> out(t.markers.size());
  // Per marker name: the names that contain it; only their events count.
  std::unordered_map<uint32_t, std::vector<uint32_t>> containing;
  std::vector<uint8_t> counted(t.names.size(), 0);
  for (uint32_t m : t.markers) {
    if (m == kNoIndex) continue;
    auto [it, added] = containing.try_emplace(t.events[m].name);
    if (!added) continue;
    const std::string& text = t.names[t.events[m].name];
    for (uint32_t n = 0; n < t.names.size(); ++n) {
      if (t.names[n].find(text) == std::string::npos) continue;
      it->second.push_back(n);
      counted[n] = 1;
    }
  }
  // Per such name: the file positions of its CPU events, ascending.
  std::vector<std::vector<uint32_t>> sources(t.names.size());
  for (const TimelineEvent& e : t.events) {
    if (counted[e.name] && !t.tracks[e.track].gpu) sources[e.name].push_back(e.source);
  }
  for (std::vector<uint32_t>& s : sources) std::sort(s.begin(), s.end());
  for (size_t f = 0; f < t.markers.size(); ++f) {
    const uint32_t m = t.markers[f];
    out[f].annotation = "";
    if (m == kNoIndex) continue;
    const TimelineEvent& marker = t.events[m];
    size_t instance = 0;
    for (uint32_t n : containing.at(marker.name)) {
      instance += static_cast<size_t>(
          std::lower_bound(sources[n].begin(), sources[n].end(), marker.source) -
          sources[n].begin());
    }
    out[f].annotation = t.names[marker.name];
    out[f].instance = instance;
  }
  return out;
}

// The model's graph of one step from its HTA event graph.
WhatIf::Step StepOf(const Timeline& t, const EventPath& path, size_t frame, double span_ms) {
  WhatIf::Step step;
  step.frame = frame;
  step.span_ms = span_ms;
  // Points: an event's start (2e) or end (2e + 1), numbered as first met, in
  // a table of open addressing at most half full (a step has thousands).
  const size_t m = path.edges.size();
  size_t capacity = 16;
  while (capacity < 4 * m) capacity *= 2;
  std::vector<uint64_t> key_at(capacity, UINT64_MAX);
  std::vector<uint32_t> id_at(capacity);
  uint32_t points = 0;
  auto point = [&](uint32_t event, bool end) {
    const uint64_t key = uint64_t{event} * 2 + (end ? 1 : 0);
    size_t at = static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & (capacity - 1);
    for (; key_at[at] != key; at = (at + 1) & (capacity - 1)) {
      if (key_at[at] == UINT64_MAX) {
        key_at[at] = key;
        id_at[at] = points++;
        break;
      }
    }
    return id_at[at];
  };
  std::vector<uint32_t> from(m), to(m);
  for (size_t i = 0; i < m; ++i) {
    from[i] = point(path.edges[i].from, path.edges[i].from_end);
    to[i] = point(path.edges[i].to, path.edges[i].to_end);
  }
  const size_t n = points;
  std::vector<uint32_t> indegree(n, 0), out_at(n + 1, 0), out(m);
  for (size_t i = 0; i < m; ++i) {
    ++indegree[to[i]];
    ++out_at[from[i] + 1];
  }
  for (size_t i = 0; i < n; ++i) out_at[i + 1] += out_at[i];
  {
    std::vector<uint32_t> at(out_at.begin(), out_at.end() - 1);
    for (uint32_t i = 0; i < m; ++i) out[at[from[i]]++] = i;
  }
  std::vector<uint32_t> order, position(n);
  order.reserve(n);
  for (uint32_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) order.push_back(v);
  }
  for (size_t at = 0; at < order.size(); ++at) {
    const uint32_t u = order[at];
    for (uint32_t k = out_at[u]; k < out_at[u + 1]; ++k) {
      if (--indegree[to[out[k]]] == 0) order.push_back(to[out[k]]);
    }
  }
  // EventCriticalPath found no cycle in this graph, so every point is ordered.
  for (uint32_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::vector<uint32_t> count(n + 1, 0);
  for (size_t i = 0; i < m; ++i) ++count[position[to[i]] + 1];
  for (size_t i = 0; i < n; ++i) count[i + 1] += count[i];
  step.in_at = count;
  step.in.resize(m);
  for (size_t i = 0; i < m; ++i) {
    const EventEdge& e = path.edges[i];
    const uint32_t node = e.owner == kNoIndex ? kNoIndex : t.events[e.owner].node;
    step.in[count[position[to[i]]]++] = WhatIf::Step::In{
        .from = position[from[i]], .node = node, .weight_ns = static_cast<double>(e.weight_ns)};
  }
  step.length_ns = step.Longest({});
  for (uint32_t i : path.path) {
    const EventEdge& e = path.edges[i];
    if (e.owner == kNoIndex || e.weight_ns == 0) continue;
    const uint32_t node = t.events[e.owner].node;
    if (node != kNoIndex) step.on_path.push_back(node);
  }
  std::sort(step.on_path.begin(), step.on_path.end());
  step.on_path.erase(std::unique(step.on_path.begin(), step.on_path.end()), step.on_path.end());
  return step;
}

}  // namespace

WhatIf WhatIf::Build(const Snapshot& snapshot, const Analysis& analysis) {
  WhatIf w;
  w.snapshot_ = &snapshot;
  w.analysis_ = &analysis;
  w.frame_ms_ = analysis.frames.frame_ms;
  w.has_budget_ = analysis.has_budget && analysis.budget_ms > 0;
  w.budget_ms_ = w.has_budget_ ? analysis.budget_ms : 0;
  w.SetBefore();

  if (!snapshot.timelines.empty()) {
    w.model_ = WhatIfModel::kStepPath;
    const size_t frames = w.frame_ms_.size();
    for (const Timeline& t : snapshot.timelines) {
      if (t.events.empty()) continue;
      std::vector<EventPathOptions> windows = StepWindows(t);
      std::vector<std::pair<size_t, uint32_t>> steps;  // (frame, marker)
      for (size_t f = 0; f < windows.size() && f < frames; ++f) {
        if (t.markers[f] != kNoIndex) steps.emplace_back(f, t.markers[f]);
      }
      if (frames == 1 && (t.markers.empty() || t.markers[0] == kNoIndex)) {
        // No step marker: the whole trace is the one frame.
        windows.assign(1, EventPathOptions{.annotation = ""});
        steps.assign(1, {0, kNoIndex});
      }
      size_t failed = 0;
      std::string first_failure;
      // Every counted step's graph in one pass over the trace (metrics/event_critical_path.h),
      // each kept only as its Step.
      std::vector<std::pair<size_t, uint32_t>> counted;  // (frame, marker)
      std::vector<EventPathOptions> counted_windows;
      for (const auto& [f, marker] : steps) {
        if (IsMissing(w.frame_ms_[f])) continue;
        counted.emplace_back(f, marker);
        counted_windows.push_back(windows[f]);
      }
      ForEachEventCriticalPath(t, counted_windows, [&](size_t i, Result<EventPath> path) {
        const auto& [f, marker] = counted[i];
        if (!path) {
          if (failed++ == 0) first_failure = path.error().message;
          return;
        }
        const double span_ms = marker != kNoIndex
                                   ? static_cast<double>(t.events[marker].dur_ns) / 1e6
                                   : w.frame_ms_[f];
        w.steps_.push_back(StepOf(t, *path, f, span_ms));
        w.step_edges_ += w.steps_.back().in.size();
      });
      if (failed > 0) {
        w.warnings_.push_back(fmt::format(
            "rank {}: {} step(s) without an event critical path ({}){}", t.rank, failed,
            first_failure,
            failed == 1 && steps.size() > 1 ? "; HTA leaves out a trace's last step" : ""));
      }
    }
    // A step no rank has a graph for is out of the prediction, before and
    // after alike: the savings are over the steps the model sees.
    std::vector<bool> modelled(frames, false);
    for (const Step& s : w.steps_) modelled[s.frame] = true;
    size_t left_out = 0;
    for (size_t f = 0; f < frames; ++f) {
      if (!modelled[f] && !IsMissing(w.frame_ms_[f])) {
        w.frame_ms_[f] = kMissing;
        ++left_out;
      }
    }
    if (left_out > 0) {
      w.warnings_.push_back(fmt::format("{} of {} step(s) are out of the prediction (no graph)",
                                        left_out, frames));
      w.SetBefore();
    }
  } else if (snapshot.streaming && !snapshot.streaming->threads.empty() &&
             snapshot.samples.has_frame_ms() &&
             std::all_of(snapshot.streaming->threads.begin(), snapshot.streaming->threads.end(),
                         [](const StreamingThread& t) {
                           return t.element_cooks.size() == t.elements.size();
                         })) {
    w.model_ = WhatIfModel::kStreaming;
    for (const StreamingThread& t : snapshot.streaming->threads) {
      std::vector<double> sum(w.frame_ms_.size(), kMissing);
      for (size_t i = 0; i < t.elements.size(); ++i) {
        if (!t.work[i]) continue;
        const std::vector<double>& cooks = t.element_cooks[i];
        for (size_t k = 0; k < cooks.size() && k < sum.size(); ++k) {
          if (IsMissing(cooks[k])) continue;
          sum[k] = IsMissing(sum[k]) ? cooks[k] : sum[k] + cooks[k];
        }
      }
      w.thread_ms_.push_back(std::move(sum));
    }
  } else {
    w.model_ = WhatIfModel::kSerial;
    if (snapshot.info.steps()) {
      w.warnings_.push_back(
          "no timeline in this input (a converted snapshot): the prediction assumes the step's "
          "nodes run one after another, GPU work beside the CPU included; give the trace itself "
          "for its critical paths");
    } else if (snapshot.info.engine == "gstreamer") {
      w.warnings_.push_back(
          "no streaming threads in this input (a converted snapshot): the prediction assumes "
          "the elements run one after another");
    }
  }
  return w;
}

std::vector<double> WhatIf::FrameTimes(std::span<const WhatIfChange> changes) const {
  const Samples& samples = snapshot_->samples;
  std::vector<double> after = frame_ms_;
  switch (model_) {
    case WhatIfModel::kSerial:
      for (const WhatIfChange& c : changes) {
        std::span<const double> cook = samples.series(c.node, Metric::kCookMs);
        const double scale = 1.0 - c.factor;
        for (size_t f = 0; f < after.size() && f < cook.size(); ++f) {
          if (!IsMissing(after[f]) && !IsMissing(cook[f])) after[f] -= scale * cook[f];
        }
      }
      break;
    case WhatIfModel::kStreaming: {
      // Per buffer: the slowest thread's work, each changed element's k-th
      // cook in the thread scaled (model/gstreamer_threads.h, the reader's frame
      // time). The frame loses what the slowest thread's time loses, so a
      // frame keeps its measured value when nothing in it changes.
      const std::vector<StreamingThread>& threads = snapshot_->streaming->threads;
      std::vector<double> before(after.size(), kMissing), slowest(after.size(), kMissing);
      auto keep_max = [](double& at, double v) {
        if (!IsMissing(v) && (IsMissing(at) || v > at)) at = v;
      };
      for (size_t t = 0; t < threads.size(); ++t) {
        if (!threads[t].sets_frame) continue;  // another rate: not in the frame time
        std::vector<double> sum = thread_ms_[t];
        for (size_t i = 0; i < threads[t].elements.size(); ++i) {
          const double s = FactorOf(changes, threads[t].elements[i]);
          if (!threads[t].work[i] || s == 1.0) continue;
          const std::vector<double>& cooks = threads[t].element_cooks[i];
          for (size_t k = 0; k < cooks.size() && k < sum.size(); ++k) {
            if (!IsMissing(cooks[k])) sum[k] -= (1.0 - s) * cooks[k];
          }
        }
        for (size_t k = 0; k < sum.size(); ++k) {
          keep_max(before[k], thread_ms_[t][k]);
          keep_max(slowest[k], sum[k]);
        }
      }
      for (size_t k = 0; k < after.size(); ++k) {
        if (IsMissing(after[k]) || IsMissing(slowest[k])) continue;
        after[k] -= before[k] - slowest[k];
      }
      break;
    }
    case WhatIfModel::kStepPath: {
      // Per frame, each rank's step loses what its longest path loses; the
      // frame is its slowest rank's step.
      // A change off a step's path cannot make its longest path shorter;
      // one that makes a node slower (factor > 1) may lengthen any path.
      const bool slower = std::any_of(changes.begin(), changes.end(),
                                      [](const WhatIfChange& c) { return c.factor > 1.0; });
      std::vector<double> slowest(after.size(), kMissing);
      for (const Step& s : steps_) {
        const bool touched =
            std::any_of(changes.begin(), changes.end(), [&](const WhatIfChange& c) {
              return std::binary_search(s.on_path.begin(), s.on_path.end(), c.node);
            });
        const double lost_ms =
            touched || slower ? (s.length_ns - s.Longest(changes)) / 1e6 : 0.0;
        const double step_ms = s.span_ms - lost_ms;
        if (IsMissing(slowest[s.frame]) || step_ms > slowest[s.frame]) slowest[s.frame] = step_ms;
      }
      // Frames whose every rank's path failed keep their time.
      std::vector<double> measured(after.size(), kMissing);
      for (const Step& s : steps_) {
        if (IsMissing(measured[s.frame]) || s.span_ms > measured[s.frame]) {
          measured[s.frame] = s.span_ms;
        }
      }
      for (size_t f = 0; f < after.size(); ++f) {
        if (IsMissing(after[f]) || IsMissing(slowest[f])) continue;
        after[f] -= measured[f] - slowest[f];
      }
      break;
    }
  }
  return after;
}

namespace {

// The p95's two ranks among n values (metrics/percentile.h): h, and
// floor(h), which is below n - 1 from n = 2 on.
struct P95Ranks {
  double h = 0, lower_h = 0;
  size_t lower = 0;
};
P95Ranks P95RanksOf(size_t n) {
  P95Ranks r;
  r.h = static_cast<double>(n - 1) * 95 / 100.0;
  r.lower_h = std::floor(r.h);
  r.lower = static_cast<size_t>(r.lower_h);
  return r;
}

}  // namespace

void WhatIf::SetBefore() {
  before_ = FramesOf(frame_ms_, has_budget_, budget_ms_);
  std::vector<double> counted;
  for (double v : frame_ms_) {
    if (!IsMissing(v)) counted.push_back(v);
  }
  counted_ = counted.size();
  p95_lower_ = p95_upper_ = 0;
  if (counted_ < 2) return;
  const P95Ranks r = P95RanksOf(counted_);
  p95_lower_ = NthSmallest(counted, r.lower);
  p95_upper_ =
      *std::min_element(counted.begin() + static_cast<std::ptrdiff_t>(r.lower) + 1, counted.end());
}

// FramesOf's numbers for the frames after a change, the p95 selected among a
// few frames rather than all. Any bounds [from, to] split the values after
// into those below `from`, those within, and those above `to`, in that order
// once sorted; so the p95's two ranks, less the count below, are ranks among
// those within, whenever they fall there (else FramesOf decides). The bounds
// are where they fall: each frame moved by [low, high] from before, and an
// order statistic moves no further than the values do, so the two lie within
// [p95_lower_ + low, p95_upper_ + high]. A change to one node leaves a
// handful of frames there.
WhatIfFrames WhatIf::FramesAfter(const std::vector<double>& after) const {
  if (after.size() != frame_ms_.size() || counted_ < 2) {
    return FramesOf(after, has_budget_, budget_ms_);
  }
  WhatIfFrames out;
  size_t n = 0;
  double sum = 0;
  double low = std::numeric_limits<double>::infinity(), high = -low;
  bool same_frames = true;
  for (size_t f = 0; f < after.size(); ++f) {
    const double a = after[f];
    const double before = frame_ms_[f];
    if (IsMissing(a)) {
      same_frames = same_frames && IsMissing(before);
      continue;
    }
    same_frames = same_frames && !IsMissing(before);
    sum += a;
    ++n;
    if (has_budget_ && a > budget_ms_) ++out.over_budget;
    const double d = a - before;
    low = std::min(low, d);
    high = std::max(high, d);
  }
  if (!same_frames || n != counted_ || !std::isfinite(low) || !std::isfinite(high)) {
    return FramesOf(after, has_budget_, budget_ms_);
  }
  out.mean_ms = sum / static_cast<double>(n);
  // The bounds are sums rounded once or twice: a margin far above their
  // rounding keeps the two ranks within (a miss would only cost FramesOf).
  const double margin =
      1e-9 * (std::abs(p95_lower_) + std::abs(p95_upper_) + std::abs(low) + std::abs(high)) +
      std::numeric_limits<double>::min();
  const double from = p95_lower_ + low - margin, to = p95_upper_ + high + margin;
  const P95Ranks r = P95RanksOf(n);
  std::vector<double> window;
  size_t below = 0;
  for (double a : after) {
    if (IsMissing(a)) continue;
    below += a < from;
    if (a >= from && a <= to) window.push_back(a);
  }
  if (r.lower < below || r.lower - below + 1 >= window.size()) {
    return FramesOf(after, has_budget_, budget_ms_);  // the ranks fell outside
  }
  const size_t k = r.lower - below;
  const double lower = NthSmallest(window, k);
  const double upper =
      *std::min_element(window.begin() + static_cast<std::ptrdiff_t>(k) + 1, window.end());
  out.p95_ms = lower + (r.h - r.lower_h) * (upper - lower);
  return out;
}

WhatIfPrediction WhatIf::Summarise(std::vector<double> after) const {
  WhatIfPrediction p;
  p.after = FramesAfter(after);
  p.frame_ms = std::move(after);
  p.saved_ms = before_.mean_ms - p.after.mean_ms;
  p.saved_p95_ms = before_.p95_ms - p.after.p95_ms;
  p.frames_saved =
      static_cast<int64_t>(before_.over_budget) - static_cast<int64_t>(p.after.over_budget);
  return p;
}

std::vector<WhatIfChange> WhatIf::Effective(std::span<const WhatIfChange> changes) const {
  // The changes that change something, by node, one per node: a node named
  // twice takes the last factor; waiting nodes, factors of 1 and nodes the
  // network does not have change nothing. Per prediction this costs the
  // changes, not the network (Gains predicts once per node).
  std::vector<WhatIfChange> effective;
  for (auto c = changes.rbegin(); c != changes.rend(); ++c) {
    if (c->node >= analysis_->waiting.size() || analysis_->waiting[c->node]) continue;
    if (std::none_of(effective.begin(), effective.end(),
                     [&](const WhatIfChange& x) { return x.node == c->node; })) {
      effective.push_back(*c);
    }
  }
  std::erase_if(effective, [](const WhatIfChange& c) { return c.factor == 1.0; });
  std::sort(effective.begin(), effective.end(),
            [](const WhatIfChange& a, const WhatIfChange& b) { return a.node < b.node; });
  return effective;
}

WhatIfPrediction WhatIf::Predict(std::span<const WhatIfChange> changes) const {
  return Summarise(FrameTimes(Effective(changes)));
}

Result<std::vector<WhatIfChange>> ParseWhatIfChanges(const std::string& file,
                                                     const std::vector<std::string>& specs,
                                                     const Network& network) {
  std::vector<WhatIfChange> out;
  for (const std::string& spec : specs) {
    const size_t eq = spec.rfind('=');
    const std::string where = fmt::format("--node '{}'", spec);
    if (eq == std::string::npos || eq == 0) {
      return Error{.file = file,
                   .where = where,
                   .message = "expected ID=F (a node id and the factor its cook time is scaled "
                              "by: 0.5 = twice as fast, 0 = removed)"};
    }
    const std::string id = spec.substr(0, eq);
    const std::string number = spec.substr(eq + 1);
    double factor = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), factor);
    if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(factor) ||
        factor < 0) {
      return Error{.file = file,
                   .where = where,
                   .message = fmt::format("the factor '{}' is not a number >= 0 (0.5 = twice as "
                                          "fast, 0 = removed)",
                                          number)};
    }
    const std::optional<NodeIndex> node = network.Find(id);
    if (!node) {
      return Error{.file = file,
                   .where = where,
                   .message = "no node has this id (ids as `cookgraph score` prints them)"};
    }
    out.push_back(WhatIfChange{.node = *node, .factor = factor});
  }
  return out;
}

}  // namespace cookgraph
