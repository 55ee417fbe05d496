// The cooks of a GStreamer recording's elements and its streaming threads
// (cooks.h).

#include "adapters/gstreamer/cooks.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>

#include "metrics/percentile.h"
#include "model/gstreamer_threads.h"

namespace cookgraph::gst::build_internal {
namespace {

// CPU load over a thread's (or the process's) rusage records: CPU time over
// wall time between the first and the last record, in percent of one core.
// With one record (or no time between them), a thread's is the tracer's own
// average (per mille since the tracer started); the process's has none, as the
// tracer's divides by a number of cores the log does not give.
std::optional<double> LoadPct(const RusageSeries& series, bool process) {
  if (series.records == 0) return std::nullopt;
  const RusagePoint& a = series.kept.front();
  const RusagePoint& b = series.last;
  if (b.ts_ns == a.ts_ns) {
    if (process) return std::nullopt;
    return static_cast<double>(b.average) / 10.0;
  }
  return 100.0 * (static_cast<double>(b.time_ns) - static_cast<double>(a.time_ns)) /
         (static_cast<double>(b.ts_ns) - static_cast<double>(a.ts_ns));
}

// The load about every 100 ms: a point at each record where ts first reaches
// the next 100 ms step after the first record (RusageSeries::kept), and at
// the last; each the load since the point before.
std::vector<std::pair<double, double>> LoadOverTime(const RusageSeries& series) {
  std::vector<std::pair<double, double>> out;
  if (series.records < 2) return out;
  const RusagePoint* prev = &series.kept.front();
  auto add = [&](const RusagePoint& p) {
    if (p.ts_ns == prev->ts_ns) return;
    out.emplace_back(static_cast<double>(p.ts_ns) / 1e6,
                     100.0 * (static_cast<double>(p.time_ns) - static_cast<double>(prev->time_ns)) /
                         (static_cast<double>(p.ts_ns) - static_cast<double>(prev->ts_ns)));
    prev = &p;
  };
  for (size_t i = 1; i < series.kept.size(); ++i) add(series.kept[i]);
  add(series.last);
  return out;
}

// The buffer period (ms) of node `n` in a thread where it pushed on `pads`:
// from the caps of those src pads, else from the caps feeding `n` when only
// one link does (a thread's first element after a source that logs
// nothing); 0 = none.
double PeriodOf(const ThreadSources& src, NodeIndex n, const std::set<std::string_view>& pads,
                double samples_per_buffer) {
  auto period = [&](std::string_view caps) {
    if (const double fps = Framerate(caps); fps > 0) return 1000.0 / fps;
    return AudioPeriodMs(caps, samples_per_buffer);
  };
  auto element = src.element_of_node.find(n);
  if (element == src.element_of_node.end()) return 0;  // an element the dump lacks
  for (const auto& [pad, caps] : src.out_caps[element->second]) {
    if (!pads.count(pad)) continue;
    if (const double ms = period(caps); ms > 0) return ms;
  }
  const std::vector<std::string_view>& in = src.in_caps[element->second];
  return in.size() == 1 ? period(in[0]) : 0;
}

}  // namespace

std::vector<Cook> CooksOf(const std::vector<const LogElement*>& elements) {
  std::vector<Cook> cooks;
  for (const LogElement* e : elements) {
    int64_t last_entry = -1;
    for (const LogRecord& r : e->records) {
      if (r.entry_ns >= 0 && r.entry_ns == last_entry && !cooks.empty()) {
        Cook& c = cooks.back();
        if (!IsMissing(r.ms) && (IsMissing(c.ms) || r.ms < c.ms)) {
          c.ms = c.latency_ms = r.ms;
          c.work_ms = r.work_ms;
        }
      } else {
        cooks.push_back(Cook{.ms = r.ms,
                             .latency_ms = r.ms,
                             .work_ms = r.work_ms,
                             .thread = r.thread,
                             .line = r.line,
                             .pad = e->pads[r.pad].name,
                             .entry_ns = r.entry_ns});
      }
      last_entry = r.entry_ns;
    }
  }
  return cooks;
}

void ScoreWork(std::vector<Cook>& cooks) {
  for (Cook& c : cooks) {
    if (!IsMissing(c.work_ms) && !IsMissing(c.latency_ms)) c.ms = c.work_ms;
  }
}

double Framerate(std::string_view caps) {
  const size_t at = caps.find("framerate=");
  if (at == std::string_view::npos) return 0;
  std::string_view s = caps.substr(at + 10);
  if (s.substr(0, 10) == "(fraction)") s.remove_prefix(10);
  long num = 0, den = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), num);
  if (r.ec != std::errc() || r.ptr == s.data() + s.size() || *r.ptr != '/') return 0;
  const char* d = r.ptr + 1;
  if (std::from_chars(d, s.data() + s.size(), den).ec != std::errc() || den <= 0) return 0;
  return num > 0 ? static_cast<double>(num) / static_cast<double>(den) : 0;
}

double AudioPeriodMs(std::string_view caps, double samples) {
  if (samples <= 0 || !caps.starts_with("audio/x-raw")) return 0;
  for (size_t at = caps.find("rate="); at != std::string_view::npos;
       at = caps.find("rate=", at + 1)) {
    if (at < 2 || caps.substr(at - 2, 2) != ", ") continue;  // not framerate=, bitrate=
    std::string_view v = caps.substr(at + 5);
    if (v.substr(0, 5) == "(int)") v.remove_prefix(5);
    long rate = 0;
    if (std::from_chars(v.data(), v.data() + v.size(), rate).ec != std::errc() || rate <= 0) {
      return 0;
    }
    return 1000.0 * samples / static_cast<double>(rate);
  }
  return 0;
}

double SamplesPerBuffer(const DotPipeline& dot) {
  bool audiotestsrc = false;
  for (const DotElement& e : dot.elements) {
    for (const auto& [key, value] : e.params) {
      double v = 0;
      if (key == "samplesperbuffer" &&
          std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc() &&
          v > 0) {
        return v;
      }
    }
    audiotestsrc = audiotestsrc || e.type == "GstAudioTestSrc";
  }
  return audiotestsrc ? 1024 : 0;
}

Streaming Threads(const ThreadSources& src,
                  const std::vector<std::pair<NodeIndex, std::vector<Cook>>>& series) {
  const Network& net = src.network;
  Streaming out;
  const size_t count = src.log.threads.size();
  // Per thread: node -> (first line, cooks, ms).
  struct Member {
    int64_t first_line = 0;
    size_t cooks = 0;
    double ms = 0;
    std::set<std::string_view> pads;  // src pads of its cooks in this thread
    std::vector<double> cooks_ms;     // StreamingThread::element_cooks
  };
  std::vector<std::map<NodeIndex, Member>> members(count);
  for (const auto& [n, cooks] : series) {
    for (const Cook& c : cooks) {
      if (c.thread == kNoThread) continue;
      auto [it, added] = members[c.thread].try_emplace(n, Member{.first_line = c.line});
      ++it->second.cooks;
      it->second.pads.insert(c.pad);
      it->second.cooks_ms.push_back(c.ms);
      if (!IsMissing(c.ms)) it->second.ms += c.ms;
    }
  }
  std::unordered_map<uint64_t, const RusageSeries*> rusage;
  for (const auto& [id, points] : src.log.thread_rusage) rusage.emplace(id, &points);
  const double samples_per_buffer = SamplesPerBuffer(src.dot);
  struct RateChange {
    size_t thread;
    double period_ms;  // the other rate's
    NodeIndex at;
  };
  std::vector<RateChange> rate_changes;
  for (size_t t = 0; t < count; ++t) {
    StreamingThread thread{.thread = src.log.threads[t]};
    std::vector<std::pair<int64_t, NodeIndex>> order;
    for (const auto& [n, m] : members[t]) order.emplace_back(m.first_line, n);
    std::sort(order.begin(), order.end());
    double busy = 0;
    bool rate_noted = false;
    for (const auto& [line, n] : order) {
      Member& m = members[t][n];
      const bool work = !IsWaitingFamily(net.node(n).family);
      thread.elements.push_back(n);
      thread.work.push_back(work);
      thread.element_ms.push_back(m.ms);
      thread.element_cooks.push_back(std::move(m.cooks_ms));
      thread.buffers = std::max(thread.buffers, m.cooks);
      if (work) busy += m.ms;
      if (thread.buffer_period_ms) {
        const double other = PeriodOf(src, n, m.pads, samples_per_buffer);
        if (!rate_noted && other > 0 &&
            std::abs(other - *thread.buffer_period_ms) > 1e-9 * other) {
          rate_noted = true;
          rate_changes.push_back({t, other, n});
        }
      } else if (const double period = PeriodOf(src, n, m.pads, samples_per_buffer); period > 0) {
        thread.buffer_period_ms = period;
      }
    }
    thread.busy_ms_per_buffer = thread.buffers ? busy / static_cast<double>(thread.buffers) : 0;
    uint64_t id = 0;
    const std::string_view hex = std::string_view(thread.thread).substr(2);
    if (std::from_chars(hex.data(), hex.data() + hex.size(), id, 16).ec == std::errc()) {
      if (auto it = rusage.find(id); it != rusage.end()) {
        thread.cpu_ms = static_cast<double>(it->second->last.time_ns) / 1e6;
        thread.cpu_load_pct = LoadPct(*it->second, false);
        thread.cpu_load_over_time = LoadOverTime(*it->second);
      }
    }
    out.threads.push_back(std::move(thread));
  }
  NameThreads(out.threads, net);
  for (const RateChange& c : rate_changes) {
    const StreamingThread& thread = out.threads[c.thread];
    out.notes.push_back(fmt::format(
        "the rate changes inside the {}: {:.3f} ms per buffer, {:.3f} at {} "
        "(a rate changer, decoder or muxer); the thread is judged by the first",
        thread.label(), *thread.buffer_period_ms, c.period_ms, net.node(c.at).id));
  }
  out.process_cpu_load_pct = LoadPct(src.log.proc_rusage, true);
  std::vector<std::string> rates;
  for (const StreamingThread& t : out.threads) {
    if (t.buffer_period_ms) rates.push_back(fmt::format("{} {:.3f}", t.name, *t.buffer_period_ms));
  }
  for (size_t i = 1; i < out.threads.size(); ++i) {
    const auto& a = out.threads[0].buffer_period_ms;
    const auto& b = out.threads[i].buffer_period_ms;
    if (a && b && std::abs(*a - *b) > 1e-9 * *a) {
      std::string list;
      for (const std::string& r : rates) list += (list.empty() ? "" : ", ") + r;
      out.notes.push_back("streaming threads run at different rates (ms per buffer: " + list +
                          "); each is judged by its own");
      break;
    }
  }
  return out;
}

void MarkFrameThreads(Streaming& streaming) {
  if (!streaming.bottleneck) return;
  const std::optional<double> period = streaming.threads[*streaming.bottleneck].buffer_period_ms;
  if (!period) return;
  std::string others;
  for (StreamingThread& t : streaming.threads) {
    const auto& p = t.buffer_period_ms;
    t.sets_frame = !p || std::abs(*p - *period) <= 1e-9 * *period;
    if (!t.sets_frame) others += (others.empty() ? "" : ", ") + t.name;
  }
  if (!others.empty()) {
    streaming.notes.push_back(fmt::format(
        "the frame time follows the {}'s stream ({:.3f} ms per buffer); "
        "threads at other rates ({}) are judged by their own in the thread list",
        streaming.threads[*streaming.bottleneck].name, *period, others));
  }
}

std::vector<double> FrameMs(const ThreadSources& src,
                            const std::vector<std::pair<NodeIndex, std::vector<Cook>>>& series,
                            size_t frames, const Streaming& streaming) {
  const size_t threads = src.log.threads.size();
  if (threads == 0 || frames == 0) return {};
  std::vector<double> per_thread(threads * frames, kMissing);  // [thread][k]
  std::vector<size_t> k(threads);
  for (const auto& [n, cooks] : series) {
    if (IsWaitingFamily(src.network.node(n).family)) continue;
    std::fill(k.begin(), k.end(), 0);
    for (const Cook& c : cooks) {
      if (c.thread == kNoThread) continue;
      const size_t at = c.thread * frames + k[c.thread]++;
      if (IsMissing(c.ms) || !streaming.threads[c.thread].sets_frame) continue;
      per_thread[at] = IsMissing(per_thread[at]) ? c.ms : per_thread[at] + c.ms;
    }
  }
  std::vector<double> frame_ms(frames, kMissing);
  for (size_t t = 0; t < threads; ++t) {
    for (size_t f = 0; f < frames; ++f) {
      const double v = per_thread[t * frames + f];
      if (!IsMissing(v) && (IsMissing(frame_ms[f]) || v > frame_ms[f])) frame_ms[f] = v;
    }
  }
  return frame_ms;
}

std::optional<LatencyStats> Latency(const GstLog& log) {
  std::vector<double> all;
  for (const LogPair& p : log.pairs) {
    for (double v : p.ms) {
      if (!IsMissing(v)) all.push_back(v);
    }
  }
  if (all.empty()) return std::nullopt;
  std::sort(all.begin(), all.end());
  double sum = 0;
  for (double v : all) sum += v;
  return LatencyStats{.records = all.size(),
                      .mean_ms = sum / static_cast<double>(all.size()),
                      .p95_ms = Percentile(all, 95),
                      .max_ms = all.back()};
}

}  // namespace cookgraph::gst::build_internal
