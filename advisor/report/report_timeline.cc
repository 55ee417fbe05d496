// The step timeline and the GPU breakdown of the HTML report
// (advisor/report/report_timeline.h).

#include "advisor/report/report_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "advisor/report/report_model.h"
#include "advisor/report/report_svg.h"
#include "base/text.h"
#include "metrics/hta_breakdown.h"

namespace cookgraph::report_internal {
namespace {

std::string_view KindClass(const Timeline& t, const TimelineEvent& e) {
  switch (e.kind) {
    case EventKind::kCpuOp: return "ev-op";
    case EventKind::kRuntime: return "ev-runtime";
    case EventKind::kAnnotation:
    case EventKind::kMarker:
    case EventKind::kGpuAnnotation: return "ev-note";
    case EventKind::kKernel:
      return KernelTypeOf(t.name(e), e.kind) == KernelType::kCommunication ? "ev-comm" : "ev-kernel";
    case EventKind::kMemcpy:
    case EventKind::kMemset: return "ev-copy";
    case EventKind::kGpuSync: return "ev-wait";
    case EventKind::kOther: return "ev-op";
  }
  return "ev-op";
}

}  // namespace

std::string StepTimelineSvg(const Snapshot& snapshot, size_t frame) {
  if (snapshot.timelines.empty()) return "";
  const Timeline& t = snapshot.timelines.front();
  // The step's window: its marker, widened to the GPU work launched in it.
  int64_t t0 = INT64_MAX, t1 = INT64_MIN;
  std::vector<uint32_t> events;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const TimelineEvent& e = t.events[i];
    if (e.frame != frame) continue;
    events.push_back(i);
    t0 = std::min(t0, e.start_ns);
    t1 = std::max(t1, e.end_ns());
  }
  if (events.empty() || t1 <= t0) return "";
  // Lanes: tracks with events, each as deep as its nesting (capped).
  std::map<uint32_t, size_t> depth_of_track;
  std::vector<uint8_t> depth(events.size(), 0);
  for (size_t k = 0; k < events.size(); ++k) {
    uint32_t p = t.events[events[k]].parent;
    size_t d = 0;
    while (p != kNoIndex && t.events[p].frame == frame && d + 1 < kTimelineDepth) {
      ++d;
      p = t.events[p].parent;
    }
    depth[k] = static_cast<uint8_t>(d);
    size_t& lane = depth_of_track[t.events[events[k]].track];
    lane = std::max(lane, d + 1);
  }
  constexpr double kWidth = 960, kLeft = 170, kRight = 12, kRow = 14, kGap = 8, kTop = 24;
  const double plot_w = kWidth - kLeft - kRight;
  std::map<uint32_t, double> lane_y;
  double y = kTop;
  for (const auto& [track, rows] : depth_of_track) {
    lane_y[track] = y;
    y += static_cast<double>(rows) * kRow + kGap;
  }
  const double height = y + 20;
  const double span_ms = static_cast<double>(t1 - t0) / 1e6;
  auto x = [&](int64_t ns) { return kLeft + plot_w * static_cast<double>(ns - t0) / static_cast<double>(t1 - t0); };
  const std::string step = frame < snapshot.samples.frame_index().size()
                               ? std::to_string(snapshot.samples.frame_index()[frame])
                               : std::to_string(frame);
  std::string out = fmt::format(
      "<svg class=\"chart timeline\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-labelledby=\"timeline-title\">\n<title id=\"timeline-title\">Timeline of step {} of "
      "rank {}: {} ms, {} on {}</title>\n",
      kWidth, SvgNumber(height), EscapeHtml(step), t.rank, Ms(span_ms),
      Counted(events.size(), "event"),
      Counted(lane_y.size(), "thread or stream", "threads and streams"));
  for (const auto& [track, top] : lane_y) {
    out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                       kLeft - 6, SvgNumber(top + kRow - 3),
                       EscapeHtml(TruncateMiddle(t.tracks[track].label, 24)));
  }
  // Boxes per (track, row), merging runs closer than a pixel.
  struct Box {
    int64_t start = 0, end = 0;
    size_t count = 0;
    int64_t busy = 0;
    uint32_t first = 0;
  };
  std::map<std::pair<uint32_t, uint8_t>, Box> open;
  const double ns_per_px = static_cast<double>(t1 - t0) / plot_w;
  auto flush = [&](std::pair<uint32_t, uint8_t> key, const Box& b) {
    const TimelineEvent& e = t.events[b.first];
    const double bx = x(b.start), bw = std::max(0.6, x(b.end) - bx);
    const std::string tip =
        b.count == 1 ? fmt::format("{} — {} ms", t.name(e), Ms(static_cast<double>(e.dur_ns) / 1e6))
                     : fmt::format("{} events from {} — {} ms busy", b.count, t.name(e),
                                   Ms(static_cast<double>(b.busy) / 1e6));
    out += fmt::format(
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\"><title>{}</title></rect>\n",
        b.count == 1 ? KindClass(t, e) : "ev-many", SvgNumber(bx),
        SvgNumber(lane_y[key.first] + key.second * kRow), SvgNumber(bw), SvgNumber(kRow - 2),
        EscapeHtml(tip));
  };
  for (size_t k = 0; k < events.size(); ++k) {
    const TimelineEvent& e = t.events[events[k]];
    const std::pair<uint32_t, uint8_t> key{e.track, depth[k]};
    auto it = open.find(key);
    // Small events close together share a box; an event wider than a few
    // pixels always gets its own, in its kind's colour.
    const bool wide = static_cast<double>(e.dur_ns) >= 3 * ns_per_px;
    const bool small_run = it != open.end() && it->second.end - it->second.start < 3 * ns_per_px;
    if (it != open.end() && !wide && small_run &&
        static_cast<double>(e.start_ns - it->second.end) < ns_per_px) {
      Box& b = it->second;
      b.end = std::max(b.end, e.end_ns());
      ++b.count;
      b.busy += e.dur_ns;
      continue;
    }
    if (it != open.end()) flush(key, it->second);
    open[key] = Box{e.start_ns, e.end_ns(), 1, e.dur_ns, events[k]};
  }
  for (const auto& [key, b] : open) flush(key, b);
  // The time axis.
  for (int i = 0; i <= 4; ++i) {
    const double at = kLeft + plot_w * i / 4;
    out +=
        fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} ms</text>\n",
                    SvgNumber(at), SvgNumber(height - 6), Ms(span_ms * i / 4));
  }
  out += "</svg>\n";
  return out;
}

std::string GpuBreakdownSvg(const TraceSummary& trace) {
  if (trace.gpu.empty()) return "";
  constexpr double kWidth = 960, kLeft = 80, kRight = 12, kBar = 22, kGap = 12, kTop = 12;
  const double plot_w = kWidth - kLeft - kRight;
  const double height = kTop + static_cast<double>(trace.gpu.ranks.size()) * (kBar + kGap) + 34;
  std::string out = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" "
      "aria-labelledby=\"gpu-title\">\n<title id=\"gpu-title\">GPU time per rank: computation, "
      "other kernels and idle time (host wait, kernel wait, other), as shares of the kernel "
      "span</title>\n",
      kWidth, SvgNumber(height));
  double y = kTop;
  for (const RankGpuTime& r : trace.gpu.ranks) {
    const double span = r.kernel_span_ms > 0 ? r.kernel_span_ms : 1;
    const double waits = r.host_wait_ms() + r.kernel_wait_ms() + r.other_wait_ms();
    auto part = [&](double ms) { return waits > 0 ? r.idle_ms * ms / waits : 0.0; };
    const std::array<std::pair<std::string_view, double>, 5> parts = {{
        {"gpu-compute", r.compute_ms},
        {"gpu-other", r.non_compute_ms},
        {"gpu-host-wait", waits > 0 ? part(r.host_wait_ms()) : r.idle_ms},
        {"gpu-kernel-wait", part(r.kernel_wait_ms())},
        {"gpu-idle-other", part(r.other_wait_ms())},
    }};
    static constexpr std::array<std::string_view, 5> kNames = {
        "computation", "other kernels", "idle: host wait", "idle: kernel wait", "idle: other"};
    out +=
        fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">rank {}</text>\n",
                    kLeft - 6, SvgNumber(y + kBar - 7), r.rank);
    double at = kLeft;
    for (size_t i = 0; i < parts.size(); ++i) {
      const double w = plot_w * std::max(0.0, parts[i].second) / span;
      if (w <= 0) continue;
      out += fmt::format(
          "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>rank {}: {} {} "
          "ms "
          "({})</title></rect>\n",
          parts[i].first, SvgNumber(at), SvgNumber(y), SvgNumber(w), SvgNumber(kBar), r.rank,
          kNames[i], Ms(parts[i].second), Percent(parts[i].second / span));
      at += w;
    }
    y += kBar + kGap;
  }
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kLegend = {{
      {"gpu-compute", "computation"},
      {"gpu-other", "other kernels"},
      {"gpu-host-wait", "idle: host wait"},
      {"gpu-kernel-wait", "idle: kernel wait"},
      {"gpu-idle-other", "idle: other"},
  }};
  double lx = kLeft;
  for (const auto& [cls, name] : kLegend) {
    out += fmt::format(
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\"/>"
        "<text class=\"label\" x=\"{}\" y=\"{}\">{}</text>\n",
        cls, SvgNumber(lx), SvgNumber(y + 4), SvgNumber(lx + 14), SvgNumber(y + 13), name);
    lx += 150;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace cookgraph::report_internal
