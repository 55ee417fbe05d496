// The subjects of a knowledge pack's rules other than nodes
// (advisor/rule_subjects.h): GStreamer's streaming threads, the loops, the
// critical path, the frames and each rank's GPU time, with their facts in the
// order of pack_schema.cc.

#include <fmt/format.h>

#include <algorithm>

#include "advisor/rule_subjects.h"

namespace cookgraph::rules_internal {
namespace {

// The ids of `nodes` joined by `sep`; a list longer than 2 * keep_each_end + 1
// keeps keep_each_end ids at each end, "(N more)" between them.
std::string JoinIds(const Network& net, const std::vector<NodeIndex>& nodes, std::string_view sep,
                    size_t keep_each_end) {
  std::string out;
  const size_t n = nodes.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > 2 * keep_each_end + 1 && i == keep_each_end) {
      // The middle as one "(N more)"; the loop goes on with the last
      // keep_each_end ids, each written once.
      out += fmt::format("{}({} more)", i ? sep : "", n - 2 * keep_each_end);
      i = n - keep_each_end - 1;
      continue;
    }
    if (i) out += sep;
    out += net.node(nodes[i]).id;
  }
  return out;
}

}  // namespace

// One subject per GStreamer streaming thread with work (model/gstreamer_threads.h).
std::vector<Subject> ThreadSubjects(const Snapshot& snapshot, const Analysis& a,
                                    const std::string& engine) {
  if (!snapshot.streaming) return {};
  const Streaming& st = *snapshot.streaming;
  const Network& net = snapshot.network;
  std::vector<Subject> out;
  for (size_t i = 0; i < st.threads.size(); ++i) {
    const StreamingThread& t = st.threads[i];
    const auto costliest = t.costliest();
    if (!costliest) continue;
    double work = 0, element = 0;
    std::vector<NodeIndex> working;
    for (size_t k = 0; k < t.elements.size(); ++k) {
      if (!t.work[k]) continue;
      work += t.element_ms[k];
      working.push_back(t.elements[k]);
      if (t.elements[k] == *costliest) element = t.element_ms[k];
    }
    const double buffers = static_cast<double>(std::max<size_t>(t.buffers, 1));
    Subject s;
    s.order = i;
    s.nodes = {*costliest};
    for (NodeIndex n : working) {
      if (n != *costliest) s.nodes.push_back(n);
    }
    // The order of kThreadFacts in pack_schema.cc.
    s.facts = {t.busy_ms_per_buffer,
               t.buffer_period_ms,
               t.utilisation(),
               t.buffer_period_ms ? std::optional<double>(*t.buffer_period_ms - t.busy_ms_per_buffer)
                                  : std::nullopt,
               t.cpu_load_pct ? std::optional<double>(*t.cpu_load_pct / 100) : std::nullopt,
               st.bottleneck == i ? 1.0 : 0.0,
               static_cast<double>(t.buffers),
               element / buffers,
               work > 0 ? std::optional<double>(element / work) : std::nullopt,
               static_cast<double>(st.threads.size())};
    s.gain_nodes = {*costliest};
    s.gain_subject.text = net.node(*costliest).id;
    s.text = {{"thread", t.label()},
              {"thread_name", t.name.empty() ? t.label() : t.name},
              {"element", net.node(*costliest).id},
              {"elements", JoinIds(net, working, " → ", 3)},
              {"engine", engine},
              {"budget_ms", fmt::format("{:.3f}", a.budget_ms)}};
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Subject> LoopSubjects(const Snapshot& snapshot, const Analysis& a,
                                  const std::string& engine) {
  std::vector<Subject> out;
  const Network& net = snapshot.network;
  for (size_t i = 0; i < a.loops.size(); ++i) {
    const LoopReport& loop = a.loops[i];
    Subject s;
    s.order = i;
    s.nodes = loop.loop.nodes;
    std::stable_sort(s.nodes.begin(), s.nodes.end(), [&](NodeIndex x, NodeIndex y) {
      return a.stats[x].per_frame_ms > a.stats[y].per_frame_ms;
    });
    const double costliest = s.nodes.empty() ? 0 : a.stats[s.nodes[0]].per_frame_ms;
    s.gain_nodes = s.nodes;
    s.gain_subject = {fmt::format("the loop's {} nodes", s.nodes.size()), s.nodes.size() > 1};
    s.facts = {loop.per_frame_ms, a.frames.mean_ms > 0 ? loop.per_frame_ms / a.frames.mean_ms : 0.0,
               static_cast<double>(loop.loop.nodes.size()), costliest};
    s.text = {{"loop_nodes", JoinIds(net, loop.loop.nodes, ", ", 4)},
              {"loop_kind", std::string(LoopKindName(loop.loop.kind))},
              {"costliest", s.nodes.empty() ? "n/a" : net.node(s.nodes[0]).id},
              {"engine", engine},
              {"budget_ms", fmt::format("{:.3f}", a.budget_ms)}};
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Subject> PathSubjects(const Snapshot& snapshot, const Analysis& a,
                                  const std::string& engine) {
  const Network& net = snapshot.network;
  const Path& path = a.critical_path;
  if (path.nodes.empty()) return {};
  Subject s;
  s.nodes = path.nodes;
  NodeIndex costliest = path.nodes[0];
  for (NodeIndex n : path.nodes) {
    if (a.stats[n].per_frame_ms > a.stats[costliest].per_frame_ms) costliest = n;
  }
  s.gain_nodes = {costliest};
  s.gain_subject.text = "its costliest node " + net.node(costliest).id;
  // A trace's path is one step's (or the whole trace's) events: its share is
  // of that window, not of the mean step, and it is said per step.
  double share = a.frames.mean_ms > 0 ? path.weight / a.frames.mean_ms : 0.0;
  const std::string_view unit = snapshot.info.frame_word();
  std::string window = fmt::format("per {}", unit), of = fmt::format("of the mean {}", unit);
  if (a.trace && a.trace->path) {
    const StepPath& p = *a.trace->path;
    share = p.window_ms > 0 ? p.length_ms / p.window_ms : 0.0;
    window = p.step ? fmt::format("in step {}", *p.step) : std::string("over the trace");
    of = fmt::format("of {} {:.3f} ms", p.step ? "the step's" : "the trace's", p.window_ms);
  }
  s.facts = {path.weight, share, static_cast<double>(path.nodes.size())};
  s.text = {{"path_window", window},
            {"path_of", of},
            {"path_nodes", JoinIds(net, path.nodes, " -> ", 3)},
            {"first", net.node(path.nodes.front()).id},
            {"last", net.node(path.nodes.back()).id},
            {"costliest", net.node(costliest).id},
            {"engine", engine},
            {"budget_ms", fmt::format("{:.3f}", a.budget_ms)}};
  return {std::move(s)};
}

std::vector<Subject> FrameSubjects(const Snapshot& snapshot, const Analysis& a,
                                   const std::string& engine) {
  const FrameSummary& f = a.frames;
  if (f.frame_ms.empty()) return {};
  Subject s;
  double overrun = 0;
  for (size_t i : f.over_budget) overrun += f.frame_ms[i] - f.budget_ms;
  for (size_t i = 0; i < a.spikes.size() && i < 3; ++i) s.nodes.push_back(a.spikes[i].node);
  s.gain_nodes = s.nodes;
  if (s.nodes.size() == 1) {
    s.gain_subject.text = snapshot.network.node(s.nodes[0]).id;
  } else if (s.nodes.size() > 1) {
    s.gain_subject = {fmt::format("the {} nodes that grow most", s.nodes.size()), true};
  }
  // ONNX Runtime's time outside nodes (metrics/outside_nodes.h), where measured.
  std::optional<double> outside_ms, outside_share, node_threads;
  if (a.trace && a.trace->outside) {
    outside_ms = a.trace->outside->mean_ms;
    outside_share = a.trace->outside->share;
    node_threads = static_cast<double>(a.trace->outside->node_tracks);
  }
  const double count = static_cast<double>(f.counted);
  const double over = static_cast<double>(f.over_budget.size());
  s.facts = {overrun,
             f.mean_ms,
             f.p95_ms,
             f.max_ms,
             f.budget_ms,
             count,
             over,
             over / count,
             f.budget_ms > 0 ? std::optional<double>(f.mean_ms / f.budget_ms) : std::nullopt,
             outside_ms,
             outside_share,
             node_threads};
  s.text = {{"worst_nodes", s.nodes.empty()
                                ? "none (no node spikes in those frames: they are slow throughout)"
                                : JoinIds(snapshot.network, s.nodes, ", ", 3)},
            {"engine", engine}};
  return {std::move(s)};
}

// One subject per rank with GPU work: its breakdown, the job's launches and
// memory, and the straggler (metrics/trace_summary.h).
std::vector<Subject> GpuSubjects(const Analysis& a, const std::string& engine) {
  if (!a.trace || a.trace->gpu.empty()) return {};
  const TraceSummary& t = *a.trace;
  const LaunchStats& l = t.gpu.launches;
  std::vector<Subject> out;
  for (size_t i = 0; i < t.gpu.ranks.size(); ++i) {
    const RankGpuTime& r = t.gpu.ranks[i];
    Subject s;
    s.order = i;
    const double span = r.kernel_span_ms;
    const double waits = r.host_wait_ms() + r.kernel_wait_ms() + r.other_wait_ms();
    auto share = [](double part, double whole) -> std::optional<double> {
      return whole > 0 ? std::optional<double>(part / whole) : std::nullopt;
    };
    double peak_mb = 0;
    std::optional<double> peak_share;
    std::string memory_device = "n/a";
    for (const MemoryPeak& m : t.memory) {
      if (m.rank != r.rank || m.device == "cpu") continue;
      if (m.peak_reserved_mb > peak_mb) {
        peak_mb = m.peak_reserved_mb;
        memory_device = m.device;
        peak_share = share(m.peak_reserved_mb, m.total_mb);
      }
    }
    double straggler = 0;
    int64_t straggler_step = -1;
    double mean_step = 0;
    for (const RankSteps& rs : t.ranks) {
      if (rs.rank != r.rank) continue;
      for (size_t k = 0; k < rs.steps.size(); ++k) {
        mean_step += rs.step_ms[k] / static_cast<double>(rs.steps.size());
        if (rs.straggler_ms[k] && *rs.straggler_ms[k] > straggler) {
          straggler = *rs.straggler_ms[k];
          straggler_step = rs.steps[k];
        }
      }
    }
    s.facts = {r.idle_ms,
               span,
               share(r.idle_ms, span),
               share(r.compute_ms, span),
               r.host_wait_ms(),
               share(r.host_wait_ms(), waits),
               r.kernel_wait_ms(),
               share(r.kernel_wait_ms(), waits),
               static_cast<double>(l.count),
               static_cast<double>(l.kernels_under_10us),
               share(static_cast<double>(l.kernels_under_10us), static_cast<double>(l.count)),
               l.count > 0 ? std::optional<double>(l.delay_p50_ms) : std::nullopt,
               l.count > 0 ? std::optional<double>(l.delay_p95_ms) : std::nullopt,
               l.cpu_ms,
               r.communication_ms,
               share(t.gpu.overlap.overlapped_ms, t.gpu.overlap.communication_ms),
               peak_mb,
               peak_share,
               straggler,
               share(straggler, mean_step)};
    std::string ops;
    for (size_t k = 0; k < r.host_wait_ops.size() && k < 3; ++k) {
      ops += fmt::format("{}{} ({:.3f} ms)", k ? ", " : "", r.host_wait_ops[k].name,
                         r.host_wait_ops[k].ms);
    }
    s.text = {{"rank", std::to_string(r.rank)},
              {"host_ops", ops.empty() ? "n/a" : ops},
              {"device", r.streams.empty() ? "n/a" : r.streams[0].label},
              {"engine", engine},
              {"straggler_step", straggler_step >= 0 ? std::to_string(straggler_step) : "n/a"},
              {"memory_device", memory_device}};
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace cookgraph::rules_internal
