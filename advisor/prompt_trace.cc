// The prompt's lines of a trace and of a GStreamer recording
// (advisor/prompt_trace.h).

#include "advisor/prompt_trace.h"

#include <algorithm>
#include <numeric>

#include "advisor/report/report_model.h"
#include "base/text.h"

namespace cookgraph::prompt_internal {

using report_internal::Number;
using report_internal::Percent;

std::string StreamingLines(const Streaming& st, const IdOf& id) {
  std::string out;
  for (size_t i = 0; i < st.threads.size() && i < 8; ++i) {
    const StreamingThread& t = st.threads[i];
    const auto costliest = t.costliest();
    out += fmt::format(
        "{}{}: {} ms of work per buffer{}{}; {}; elements {}\n", t.label(),
        st.bottleneck == i ? " (bottleneck)" : "", Number(t.busy_ms_per_buffer),
        t.buffer_period_ms ? fmt::format(" of a {} ms buffer period ({})",
                                         Number(*t.buffer_period_ms), Percent(*t.utilisation()))
                           : std::string(),
        t.cpu_load_pct ? fmt::format(", CPU {}", Percent(*t.cpu_load_pct / 100)) : std::string(),
        costliest ? "costliest " + id(*costliest) : std::string("no work"),
        ListNames(t.elements, 6, " -> ", id));
  }
  if (st.threads.size() > 8) out += fmt::format("({} more threads)\n", st.threads.size() - 8);
  if (st.latency) {
    out += fmt::format(
        "pipeline latency (source to sink, not the buffer time): mean {} ms, p95 {} ms, max {} ms over "
        "{} records\n",
        Number(st.latency->mean_ms), Number(st.latency->p95_ms), Number(st.latency->max_ms),
        st.latency->records);
  }
  return out;
}

std::string TraceLines(const TraceSummary& t, const IdOf& id) {
  std::string out;
  if (t.slowest) {
    out += fmt::format("slowest step {}: {} ms (mean {} ms); grew most: {}\n", t.slowest->step,
                       Number(t.slowest->ms), Number(t.slowest->mean_ms),
                       ListNames(t.slowest->nodes, 3, ", ", [&](const NodeExcess& e) {
                         return fmt::format("{} +{} ms", id(e.node), Number(e.ms));
                       }));
  }
  for (const RankGpuTime& r : t.gpu.ranks) {
    const double span = r.kernel_span_ms > 0 ? r.kernel_span_ms : 1;
    const double waits = r.host_wait_ms() + r.kernel_wait_ms() + r.other_wait_ms();
    const double w = waits != 0 ? waits : 1;
    out += fmt::format(
        "GPU rank {}: kernel span {} ms; compute {}, other kernels {}, idle {} (of the streams' "
        "idle time: host wait {}, kernel wait {}, other {})",
        r.rank, Number(r.kernel_span_ms), Percent(r.compute_ms / span),
        Percent(r.non_compute_ms / span), Percent(r.idle_ms / span),
        Percent(r.host_wait_ms() / w), Percent(r.kernel_wait_ms() / w),
        Percent(r.other_wait_ms() / w));
    if (!r.host_wait_ops.empty()) {
      out += "; CPU ops while the GPU waited for the host: " +
             ListNames(r.host_wait_ops, 3, ", ", [](const HostWaitOp& op) {
               return fmt::format("{} {} ms", ClipMiddle(op.name, 64), Number(op.ms));
             });
    }
    out += "\n";
  }
  const LaunchStats& l = t.gpu.launches;
  if (l.count > 0) {
    out += fmt::format(
        "kernel launches: {}; launch delay mean {} ms, p50 {} ms, p95 {} ms, max {} ms; {} ms "
        "in launch calls; {} kernels under 10 us ({})\n",
        l.count, Number(l.delay_mean_ms), Number(l.delay_p50_ms), Number(l.delay_p95_ms),
        Number(l.delay_max_ms), Number(l.cpu_ms), l.kernels_under_10us,
        Percent(static_cast<double>(l.kernels_under_10us) / static_cast<double>(l.count)));
  }
  if (t.gpu.overlap.communication_ms > 0) {
    out += fmt::format("communication kernels: {} ms, {} overlapped by computation\n",
                       Number(t.gpu.overlap.communication_ms),
                       Percent(t.gpu.overlap.overlapped_ms / t.gpu.overlap.communication_ms));
  }
  for (const MemoryPeak& m : t.memory) {
    if (m.device == "cpu") continue;
    out += fmt::format("memory rank {} {}: peak {} MB allocated, {} MB reserved{}\n", m.rank,
                       m.device, Number(m.peak_allocated_mb), Number(m.peak_reserved_mb),
                       m.total_mb > 0 ? fmt::format(" of {} MB", Number(m.total_mb)) : "");
  }
  if (t.job()) {
    for (const RankSteps& r : t.ranks) {
      double worst = 0;
      for (const auto& s : r.straggler_ms) worst = std::max(worst, s.value_or(0));
      out += fmt::format("rank {}: {} steps, mean {} ms{}\n", r.rank, r.steps.size(),
                         Number(r.step_ms.empty() ? 0.0
                                                  : std::accumulate(r.step_ms.begin(), r.step_ms.end(), 0.0) /
                                                        static_cast<double>(r.step_ms.size())),
                         worst > 0 ? fmt::format(", straggler by up to {} ms", Number(worst)) : "");
    }
  }
  return out;
}

}  // namespace cookgraph::prompt_internal
