#include "live/summary.h"

#include <fmt/format.h>

#include "base/text.h"

namespace cookgraph {

std::string AlertLine(const AlertEpisode& e) {
  if (e.kind == AlertEpisode::Kind::kBudget) {
    return fmt::format("frame {}: frame time {:.3f} ms, over the {:.3f} ms budget", e.first_frame,
                       e.first_ms, e.threshold_ms);
  }
  return fmt::format("frame {}: {} cooked {:.3f} ms, over the node threshold {:.3f} ms",
                     e.first_frame, Printable(e.node), e.first_ms, e.threshold_ms);
}

std::string StatusLine(const StreamCounts& c, const ReceiveCounts& r, size_t alert_count,
                       double frames_per_second) {
  std::string line = Thousands(c.frames) + (c.frames == 1 ? " frame" : " frames");
  if (c.first_frame) line += fmt::format(" ({}-{})", *c.first_frame, *c.last_frame);
  if (frames_per_second > 0) line += fmt::format(" · {:.1f}/s", frames_per_second);
  line += " · " + Thousands(c.lost_frames) + " lost in " + Thousands(c.gaps) +
          (c.gaps == 1 ? " gap" : " gaps");
  if (c.late > 0) line += " · " + Thousands(c.late) + " late";
  if (c.incomplete > 0) line += " · " + Thousands(c.incomplete) + " incomplete";
  line += " · " + Thousands(r.malformed) + " malformed";
  if (r.kernel_drops > 0) {
    line += " · " + Thousands(r.kernel_drops) + " dropped by the kernel (receive buffer full)";
  }
  if (r.truncated > 0) line += " · " + Thousands(r.truncated) + " truncated";
  line += " · " + Thousands(alert_count) + (alert_count == 1 ? " alert" : " alerts");
  return line;
}

std::string WatchJson(const std::string& url, size_t window, const StreamCounts& c,
                      const ReceiveCounts& r, const AlertTracker& alerts, double seconds,
                      double frames_per_second) {
  std::string out = "{\"listen\":";
  AppendJsonString(out, url);
  out += fmt::format(
      ",\"window\":{},\"seconds\":{},\"frames_per_second\":{},\"frames\":{},\"gaps\":{},\"lost_"
      "frames\":{},"
      "\"late\":{},\"incomplete\":{}",
      window, seconds, frames_per_second, c.frames, c.gaps, c.lost_frames, c.late, c.incomplete);
  out += ",\"first_frame\":" + (c.first_frame ? std::to_string(*c.first_frame) : "null");
  out += ",\"last_frame\":" + (c.last_frame ? std::to_string(*c.last_frame) : "null");
  out += fmt::format(
      ",\"datagrams\":{},\"malformed\":{},\"kernel_drops\":{},\"truncated\":{},"
      "\"ignored\":{}",
      r.datagrams, r.malformed, r.kernel_drops, r.truncated, r.ignored);
  const AlertThresholds& t = alerts.thresholds();
  out += ",\"thresholds\":{\"node_ms\":" + (t.node_ms ? fmt::format("{}", *t.node_ms) : "null") +
         ",\"budget_ms\":" + (t.budget_ms ? fmt::format("{}", *t.budget_ms) : "null") +
         fmt::format(",\"quiet_frames\":{}}}", t.quiet_frames);
  out += ",\"alerts\":[";
  bool first = true;
  for (const AlertEpisode& e : alerts.episodes()) {
    if (!first) out += ',';
    first = false;
    out += "{\"kind\":";
    out += e.kind == AlertEpisode::Kind::kBudget ? "\"budget\"" : "\"node\"";
    out += ",\"node\":";
    if (e.kind == AlertEpisode::Kind::kBudget) {
      out += "null";
    } else {
      AppendJsonString(out, e.node);
    }
    out += fmt::format(
        ",\"threshold_ms\":{},\"first_frame\":{},\"last_frame\":{},\"frames_over\":{},"
        "\"first_ms\":{},\"peak_ms\":{},\"peak_frame\":{}}}",
        e.threshold_ms, e.first_frame, e.last_frame, e.frames_over, e.first_ms, e.peak_ms,
        e.peak_frame);
  }
  out += "]}";
  return out;
}

}  // namespace cookgraph
