#include "metrics/outside_nodes.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>
#include <utility>

namespace cookgraph {

std::optional<OutsideNodes> TimeOutsideNodes(const std::vector<Timeline>& timelines) {
  OutsideNodes out;
  int64_t outside_ns = 0, span_ns = 0;
  for (const Timeline& t : timelines) {
    // The node events by start, and the tracks that hold markers.
    std::vector<std::pair<int64_t, int64_t>> work;
    std::set<uint32_t> marker_tracks, node_tracks;
    for (uint32_t m : t.markers) {
      if (m != kNoIndex) marker_tracks.insert(t.events[m].track);
    }
    for (const TimelineEvent& e : t.events) {
      if (e.node == kNoIndex || e.dur_ns <= 0) continue;
      work.emplace_back(e.start_ns, e.end_ns());
      node_tracks.insert(e.track);
    }
    for (uint32_t track : node_tracks) out.node_tracks += marker_tracks.count(track) == 0;
    std::sort(work.begin(), work.end());
    std::vector<int64_t> reach_before(work.size() + 1, INT64_MIN);  // the latest end of work[0, i)
    for (size_t i = 0; i < work.size(); ++i) {
      reach_before[i + 1] = std::max(reach_before[i], work[i].second);
    }
    for (uint32_t m : t.markers) {
      if (m == kNoIndex) continue;
      const int64_t lo = t.events[m].start_ns, hi = t.events[m].end_ns();
      // The union of the work inside [lo, hi): events start in time order;
      // one that starts before lo may still reach into the span.
      int64_t covered = 0, reach = lo;
      size_t first = static_cast<size_t>(
          std::lower_bound(work.begin(), work.end(), std::pair{lo, INT64_MIN}) - work.begin());
      while (first > 0 && reach_before[first] > lo) --first;  // earlier work reaching into it
      for (size_t i = first; i < work.size() && work[i].first < hi; ++i) {
        const int64_t a = std::max(work[i].first, reach), b = std::min(work[i].second, hi);
        if (b > a) {
          covered += b - a;
          reach = b;
        }
      }
      const int64_t outside = (hi - lo) - covered;
      outside_ns += outside;
      span_ns += hi - lo;
      out.max_ms = std::max(out.max_ms, static_cast<double>(outside) / 1e6);
      ++out.steps;
    }
  }
  if (out.steps == 0) return std::nullopt;
  out.mean_ms = static_cast<double>(outside_ns) / 1e6 / static_cast<double>(out.steps);
  out.share = span_ns > 0 ? static_cast<double>(outside_ns) / static_cast<double>(span_ns) : 0;
  return out;
}

}  // namespace cookgraph
