#ifndef COOKGRAPH_TESTS_METRICS_TIMELINE_MAKER_H_
#define COOKGRAPH_TESTS_METRICS_TIMELINE_MAKER_H_

// Hand-made timelines for the tests of metrics/event_critical_path.h and metrics/whatif.h.

#include <algorithm>
#include <string>
#include <vector>

#include "model/timeline.h"

namespace cookgraph::testing_timeline {

// Timelines by hand: a CPU thread (track 0), GPU 0's stream 7 (track 1) and
// stream 8 (track 2), and GPU 0's track of device-wide syncs (tid -1, track 3).
// Events are given in file order (their source is their position) and sorted
// as the reader sorts them.
struct Spec {
  std::string name;
  EventKind kind;
  uint32_t track;
  int64_t start, dur;
  uint32_t correlation = kNoIndex;
  int64_t wait_on_stream = -2;  // -2: no wait args
  int64_t wait_on_record = -1;
};

inline constexpr uint32_t kCpu = 0, kStream7 = 1, kStream8 = 2, kDevice = 3;

inline Timeline Make(const std::vector<Spec>& specs) {
  Timeline t;
  t.file = "hand-made";
  t.tracks = {Track{.pid = "100", .tid = "1", .label = "thread 1 (pid 100)"},
              Track{.pid = "0", .tid = "7", .gpu = true, .stream = 7, .device = 0},
              Track{.pid = "0", .tid = "8", .gpu = true, .stream = 8, .device = 0},
              Track{.pid = "0", .tid = "-1", .gpu = true, .stream = -1, .device = 0}};
  std::vector<uint32_t> order(specs.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Spec& x = specs[a];
    const Spec& y = specs[b];
    if (x.track != y.track) return x.track < y.track;
    if (x.start != y.start) return x.start < y.start;
    if (x.start + x.dur != y.start + y.dur) return x.start + x.dur > y.start + y.dur;
    return a < b;
  });
  for (uint32_t source : order) {
    const Spec& s = specs[source];
    auto name = std::find(t.names.begin(), t.names.end(), s.name);
    if (name == t.names.end()) name = t.names.insert(t.names.end(), s.name);
    TimelineEvent e;
    e.start_ns = s.start;
    e.dur_ns = s.dur;
    e.name = static_cast<uint32_t>(name - t.names.begin());
    e.node = e.name;  // one node per name, as Kineto's
    e.track = s.track;
    e.source = source;
    e.correlation = s.correlation;
    e.kind = s.kind;
    if (s.wait_on_stream != -2) {
      t.waits.push_back(WaitArgs{.event = static_cast<uint32_t>(t.events.size()),
                                 .wait_on_stream = s.wait_on_stream,
                                 .wait_on_record = s.wait_on_record});
    }
    t.events.push_back(e);
  }
  return t;
}

}  // namespace cookgraph::testing_timeline

#endif  // COOKGRAPH_TESTS_METRICS_TIMELINE_MAKER_H_
