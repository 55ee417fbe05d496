// The work of a GStreamer element's records apart from its thread's waiting,
// from the rusage tracer's CPU times: the log stage's (log_parser.cc) measure.

#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include "adapters/gstreamer/records.h"

namespace cookgraph::gst {

// The work in each element-latency record (LogRecord::work_ms), apart from
// the time its thread waited downstream
// (docs/architecture.md#work-and-waiting-in-a-gstreamer-pipeline).
//
// A record runs from the push that brought a buffer into the element (its
// entry, ts - time) to the element's push of a result (its ts). The rusage
// tracer logs the thread's CPU time at every hook of the thread (pushes,
// queries, events), and GStreamer hands every tracer of one hook the same
// timestamp, so the entry and the push each have a thread-rusage record of
// their own ts. An encoder that holds input back pushes earlier results, or
// returns to its upstream, within a later record: such a push may block
// downstream (a muxer waiting for another stream, a full queue) before the
// record ends, and the thread logs no hook while it is blocked. So:
//   q = the thread's last rusage record strictly between entry and ts;
//   work = (cpu(q) - cpu(entry)) + (ts - q), or the record's time when there
//   is no such q; never more than the record's time.
// From q to the push the thread was in the element's own processing, on or off
// the CPU (sleeping, I/O, hardware all count); before q it may have been
// anywhere, so only the CPU time it spent counts. CPU time at a moment without
// a record of its own is read on the line between the records around it.
//
// Streamed: each thread keeps its latest kRusageWindowPoints rusage records;
// a record is measured once its thread has logged a rusage record at or after
// its ts (it may come just after the record's line), and the rest at the end
// of the log.
class CpuWindows {
 public:
  // A thread-rusage record of thread `id`. Out-of-order records (a ts or a
  // CPU time below the last) are passed over: the clock must not run back.
  void Add(uint64_t id, uint64_t ts, uint64_t cpu, GstLog& log) {
    Thread& t = threads_[id];
    if (!t.points.empty() && (ts < t.points.back().first || cpu < t.points.back().second)) return;
    t.points.emplace_back(ts, cpu);
    if (t.points.size() > kRusageWindowPoints) {
      t.points.pop_front();
      t.trimmed = true;
    }
    while (!t.pending.empty() && t.pending.top().end_ns <= ts) {
      Measure(t, t.pending.top(), log);
      t.pending.pop();
    }
  }

  // Element-latency record `record` of element `element` (indices into
  // `log`), logged by thread `id`; `end` is its ts.
  void Record(uint64_t id, size_t element, size_t record, uint64_t end, GstLog& log) {
    const LogRecord& r = log.elements[element].records[record];
    if (r.entry_ns < 0 || std::isnan(r.ms)) return;
    Thread& t = threads_[id];
    const Pending p{.element = element, .record = record, .end_ns = end};
    if (!t.points.empty() && t.points.back().first >= end) {
      Measure(t, p, log);
    } else if (t.pending.size() < kRusageWindowPoints) {
      t.pending.push(p);
    } else {  // a thread that logs no more rusage: measure with what there is
      Measure(t, p, log);
    }
  }

  // At the end of the log: every record still waiting for a later rusage
  // record is measured with the last one.
  void Finish(GstLog& log) {
    for (auto& [id, t] : threads_) {
      for (; !t.pending.empty(); t.pending.pop()) Measure(t, t.pending.top(), log);
    }
  }

 private:
  struct Pending {
    size_t element = 0, record = 0;
    uint64_t end_ns = 0;
    bool operator>(const Pending& o) const { return end_ns > o.end_ns; }
  };
  struct Thread {
    std::deque<std::pair<uint64_t, uint64_t>> points;  // (ts, CPU time), ts rising
    bool trimmed = false;  // older points were dropped
    // Records whose end is past the latest point, the earliest end on top.
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  };

  // The thread's CPU time at `ts`: on the line between the records around
  // it; the first (last) record's before (after) them all.
  static double CpuAt(const Thread& t, uint64_t ts) {
    const auto& pts = t.points;
    auto it = std::upper_bound(pts.begin(), pts.end(), ts,
                               [](uint64_t v, const auto& p) { return v < p.first; });
    if (it == pts.begin()) return static_cast<double>(pts.front().second);
    const auto& [t0, c0] = *(it - 1);
    if (it == pts.end() || t0 == ts) return static_cast<double>(c0);
    const auto& [t1, c1] = *it;
    const double f = static_cast<double>(ts - t0) / static_cast<double>(t1 - t0);
    return static_cast<double>(c0) + f * (static_cast<double>(c1) - static_cast<double>(c0));
  }

  static void Measure(const Thread& t, const Pending& p, GstLog& log) {
    if (t.points.empty()) return;
    LogRecord& r = log.elements[p.element].records[p.record];
    const auto entry = static_cast<uint64_t>(r.entry_ns);
    const auto& pts = t.points;
    // The last record before the push.
    auto at = std::lower_bound(pts.begin(), pts.end(), p.end_ns,
                               [](const auto& q, uint64_t v) { return q.first < v; });
    if (at == pts.begin() || (at - 1)->first <= entry) {
      r.work_ms = r.ms;
    } else {
      const auto& [q_ts, q_cpu] = *(at - 1);
      const double cpu = static_cast<double>(q_cpu) - CpuAt(t, entry);
      const double own = static_cast<double>(p.end_ns - q_ts);
      r.work_ms = std::clamp((std::max(cpu, 0.0) + own) / kNsPerMs, 0.0, r.ms);
    }
    ++log.work_windows;
    // Records dropped from before the oldest held may have been in the window.
    if (t.trimmed && entry < pts.front().first) ++log.work_windows_cut;
  }

  static constexpr double kNsPerMs = 1e6;
  std::unordered_map<uint64_t, Thread> threads_;
};

}  // namespace cookgraph::gst
