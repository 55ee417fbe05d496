#include "writers/score_table_rows.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "base/text.h"
#include "metrics/rollup.h"
#include "writers/diff_formats.h"
#include "writers/score_columns.h"

namespace cookgraph::score_internal {
namespace {

constexpr size_t kTypeWidth = 24;

// Score colour thresholds on share of the frame time.
constexpr double kRedShare = 0.10;
constexpr double kYellowShare = 0.02;

Cell Number(std::string text, double value) {
  return {std::move(text), value == 0 ? Tone::kDim : Tone::kPlain};
}
Cell Missing() { return {"-", Tone::kDim}; }

// How many items the sections below the table list at most.
constexpr size_t kMaxLoops = 10;
constexpr size_t kLoopIds = 3;
constexpr size_t kMaxSpikes = 5;
constexpr size_t kMaxWarnings = 10;
// The "waits ms" column is shown when a working node waited at least this
// long and this part of its tracer time, on average.
constexpr double kShownWaitMs = 0.1;
constexpr double kShownWaitShare = 0.1;

// The profiler's own time (Analysis::profiler), which the frame (or step) time
// leaves out: "profiler overhead mean 0.410 / p95 0.850 / max 0.870 ms per
// frame (2.5% of frame time, not in it)".
std::string ProfilerPart(const ProfilerOverhead& p, size_t frames, std::string_view unit) {
  if (p.frames == 0) return fmt::format("profiler overhead not measured in any {}", unit);
  std::string note =
      p.frames == frames ? "" : fmt::format("in {} of {} {}s; ", p.frames, frames, unit);
  note += p.share_of_frame
              ? fmt::format("{} of {} time, not in it", Percent(*p.share_of_frame), unit)
              : fmt::format("not in {} time", unit);
  return fmt::format("profiler overhead mean {} / p95 {} / max {} ms per {} ({})", Ms(p.ms.mean),
                     Ms(p.ms.p95), Ms(p.ms.max), unit, note);
}

// A spike's excess as a share of the time its over-budget frames ran over the
// budget: "131.4% of those frames' time over budget (over 100%: the other
// nodes ran faster than usual then)".
std::string OverrunShareText(double share, std::string_view word) {
  std::string out = fmt::format("{} of those {}s' time over budget", Percent(share), word);
  if (share > 1) {
    out += fmt::format(" (over 100%: part of the spike used up the time those {}s had to spare "
                       "under the budget)",
                       word);
  }
  return out;
}

// The per-frame column titles in the engine's word (SnapshotInfo::frame_word):
// "ms/step" for a trace, "ms/buffer" for GStreamer.
struct PerFrameTitles {
  std::string_view per, self_per, gpu_per, cooks_per, change_per;
};

PerFrameTitles TitlesFor(std::string_view word) {
  if (word == "step") return {"ms/step", "self ms/step", "gpu ms/step", "calls/step", "Δms/step"};
  if (word == "buffer") {
    return {"ms/buffer", "self ms/buffer", "gpu ms/buffer", "cooks/buffer", "Δms/buffer"};
  }
  return {"ms/frame", "self ms/frame", "gpu ms/f", "cooks/f", "Δms/frame"};
}

// Whether any node waited downstream a noticeable part of its time: the
// latency tracer's mean less the work's.
bool AnyNodeWaits(const Analysis& a) {
  bool waits = false;
  for (size_t n = 0; n < a.stats.size(); ++n) {
    const NodeStats& s = a.stats[n];
    if (s.latency_avg_ms && s.cooked_frames > 0 && !FlagAt(a.waiting, n)) {
      const double w = *s.latency_avg_ms - s.avg_ms;
      waits = waits || (w >= kShownWaitMs && w >= kShownWaitShare * *s.latency_avg_ms);
    }
  }
  return waits;
}

// The flags column (docs/commands.md): L in a feedback loop, C on the critical
// path, D a dead cook, W waiting; against a baseline N not in it, R a
// regression, I an improvement.
std::string NodeFlags(const Analysis& a, NodeIndex n, bool baseline, const NodeDiff* d) {
  std::string flags;
  if (FlagAt(a.in_loop, n)) flags += 'L';
  if (FlagAt(a.on_critical_path, n)) flags += 'C';
  if (FlagAt(a.dead, n)) flags += 'D';
  if (FlagAt(a.waiting, n)) flags += 'W';
  if (baseline && d == nullptr) flags += 'N';
  if (d != nullptr && d->regression) flags += 'R';
  if (d != nullptr && d->improvement) flags += 'I';
  return flags;
}

}  // namespace

TextTable NodeTable(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const Analysis& a = scored.analysis;
  const PerFrameTitles per = TitlesFor(scored.snapshot.info.frame_word());
  TextTable t;
  // A call tree (traces): the time with the calls made beside the self time
  // (avg ms), when it differs anywhere.
  bool inclusive = false;
  for (const NodeStats& s : a.stats) {
    inclusive = inclusive || (s.inclusive_avg_ms && s.cooked_frames > 0 &&
                              *s.inclusive_avg_ms - s.avg_ms >= 0.0005);
  }
  t.columns = {{"#"},
               {"node", false, kIdWidth},
               {"type", false, kTypeWidth},
               {"score"},
               {"avg ms"}};
  if (inclusive) t.columns.push_back({"incl ms"});
  t.columns.insert(t.columns.end(), {{"std ms"},
               {"p95 ms"},
               {"max ms"},
               {per.per},
               {"share"}});
  // GPU time beside the cook time, where the input measures it (TOPs,
  // kernels): per frame and its share, as the two before.
  bool gpu = false;
  for (const NodeStats& s : a.stats) gpu = gpu || s.gpu_per_frame_ms.has_value();
  if (gpu) t.columns.insert(t.columns.end(), {{per.gpu_per}, {"gpu share"}});
  t.columns.insert(t.columns.end(), {{per.cooks_per}, {"upstream ms"}});
  // --sort gain: the predicted mean frame ms saved by halving the node
  // (metrics/whatif.h).
  const bool gain = !a.gain_ms.empty();
  if (gain) t.columns.push_back({"gain ms"});
  // GStreamer: the latency tracer's mean less the work's, the time a cook
  // waited downstream (docs/architecture.md#work-and-waiting-in-a-gstreamer-pipeline),
  // when any node waited a noticeable part of its time.
  const bool waits = AnyNodeWaits(a);
  if (waits) t.columns.push_back({"waits ms"});
  const bool baseline = scored.baseline != nullptr;
  if (baseline) {
    for (std::string_view title : {std::string_view("Δavg"), std::string_view("Δp95"), per.change_per,
                                    std::string_view("Δscore"), std::string_view("p")}) {
      t.columns.push_back({title});
    }
  }
  t.columns.push_back({"flags", false});
  const Selection sel = SelectNodes(a, options);
  for (size_t i = 0; i < sel.shown; ++i) {
    const NodeIndex n = sel.order[i];
    const Node& node = scored.snapshot.network.node(n);
    const NodeStats& s = a.stats[n];
    std::vector<Cell> row;
    const std::optional<size_t> rank = RankAt(sel, i);
    row.push_back(rank ? Cell{std::to_string(*rank)} : Missing());
    row.push_back({node.id});
    row.push_back({node.type});
    if (s.cooked_frames > 0) {
      Tone tone = s.share >= kRedShare      ? Tone::kRed
                  : s.share >= kYellowShare ? Tone::kYellow
                  : s.score == 0            ? Tone::kDim
                                            : Tone::kPlain;
      row.push_back({Fixed(s.score, 3), tone});
      row.push_back(Number(Ms(s.avg_ms), s.avg_ms));
      if (inclusive) {
        row.push_back(s.inclusive_avg_ms ? Number(Ms(*s.inclusive_avg_ms), *s.inclusive_avg_ms)
                                         : Missing());
      }
      for (double v : {s.std_ms, s.p95_ms, s.max_ms}) row.push_back(Number(Ms(v), v));
    } else {
      for (int k = 0; k < (inclusive ? 6 : 5); ++k) row.push_back(Missing());
    }
    row.push_back(Number(Ms(s.per_frame_ms), s.per_frame_ms));
    row.push_back(Number(Percent(s.share), s.share));
    if (gpu) {
      row.push_back(s.gpu_per_frame_ms ? Number(Ms(*s.gpu_per_frame_ms), *s.gpu_per_frame_ms)
                                       : Missing());
      row.push_back(s.gpu_share ? Number(Percent(*s.gpu_share), *s.gpu_share) : Missing());
    }
    row.push_back(Number(Fixed(s.cooks_per_frame, 2), s.cooks_per_frame));
    const double upstream = ValueAt(a.upstream_ms, n);
    row.push_back(Number(Ms(upstream), upstream));
    if (gain) {
      const double g = ValueAt(a.gain_ms, n);
      row.push_back(s.cooked_frames > 0 ? Number(Ms(g), g) : Missing());
    }
    if (waits) {
      const bool known = s.latency_avg_ms && s.cooked_frames > 0 && !FlagAt(a.waiting, n);
      const double w = known ? *s.latency_avg_ms - s.avg_ms : 0;
      row.push_back(known ? Number(Ms(w), w) : Missing());
    }
    const NodeDiff* d = BaselineOf(scored, n);
    if (baseline && d != nullptr) {
      const Tone tone = d->regression ? Tone::kRed : Tone::kPlain;
      row.push_back({ChangeText(d->avg_pct), tone});
      row.push_back({ChangeText(d->p95_pct)});
      row.push_back({ChangeText(d->per_frame_pct)});
      row.push_back({ChangeText(d->score_pct)});
      row.push_back({PValueText(d->p_value()), tone});
    } else if (baseline) {
      for (int k = 0; k < 5; ++k) row.push_back(Missing());
    }
    row.push_back({NodeFlags(a, n, baseline, d)});
    t.rows.push_back(std::move(row));
  }
  if (sel.shown < sel.order.size()) {
    t.more = fmt::format("… {} more nodes (--top 0 shows all)", sel.order.size() - sel.shown);
  }
  return t;
}

TextTable ContainerTable(const ScoredSnapshot& scored, const ScoreOptions& options) {
  const PerFrameTitles per = TitlesFor(scored.snapshot.info.frame_word());
  TextTable t;
  t.columns = {{"#"},
               {"container", false, kIdWidth},
               {"depth"},
               {"nodes"},
               {"cooked"},
               {per.per},
               {per.self_per},
               {"share"},
               {"max ms"},
               {"costliest", false, kIdWidth}};
  const std::vector<ContainerStats> containers = RollUp(scored.snapshot, scored.analysis);
  const size_t shown = Shown(containers.size(), options.top);
  for (size_t i = 0; i < shown; ++i) {
    const ContainerStats& c = containers[i];
    std::vector<Cell> row;
    row.push_back({std::to_string(i + 1)});
    row.push_back({c.id.empty() ? std::string("(top level)") : c.id});
    row.push_back({std::to_string(c.depth)});
    row.push_back({std::to_string(c.nodes)});
    row.push_back(Number(std::to_string(c.cooked_nodes), static_cast<double>(c.cooked_nodes)));
    Tone tone = c.share >= kRedShare      ? Tone::kRed
                : c.share >= kYellowShare ? Tone::kYellow
                : c.per_frame_ms == 0     ? Tone::kDim
                                          : Tone::kPlain;
    row.push_back({Ms(c.per_frame_ms), tone});
    row.push_back(Number(Ms(c.self_per_frame_ms), c.self_per_frame_ms));
    row.push_back(Number(Percent(c.share), c.share));
    row.push_back(Number(Ms(c.max_ms), c.max_ms));
    row.push_back({c.costliest});
    t.rows.push_back(std::move(row));
  }
  if (shown < containers.size()) {
    t.more = fmt::format("… {} more containers (--top 0 shows all)", containers.size() - shown);
  }
  return t;
}

std::vector<std::string> TitleParts(const ScoredSnapshot& scored, const TextFn& text) {
  const Snapshot& snap = scored.snapshot;
  const Analysis& a = scored.analysis;
  std::vector<std::string> parts;
  if (!snap.info.engine.empty()) parts.push_back(text(snap.info.engine));
  if (!snap.info.name.empty()) parts.push_back("\"" + text(snap.info.name) + "\"");
  const size_t frames = snap.samples.frame_count();
  const std::string_view word = snap.info.frame_word();
  const std::string_view plural = frames == 1 ? "" : "s";
  if (!a.has_budget) {
    // Steps (docs/architecture.md#steps-are-not-frames): no budget to be over.
    parts.push_back(fmt::format("{} {}{}", frames, word, plural));
    parts.push_back(fmt::format("{} time mean {} / p95 {} / max {} ms, no budget (--budget-ms sets one)",
                                word, Ms(a.frames.mean_ms), Ms(a.frames.p95_ms), Ms(a.frames.max_ms)));
    if (a.profiler) parts.push_back(ProfilerPart(*a.profiler, frames, word));
    return parts;
  }
  parts.push_back(fmt::format("{} {}{}", frames, word, plural));
  if (a.frames.counted != frames) {
    // GStreamer: buffer indexes no streaming thread worked on (only queues).
    parts.push_back(fmt::format("{} with work", a.frames.counted));
  }
  parts.push_back(fmt::format("{} time mean {} / p95 {} / max {} ms ({}), budget {} ms", word,
                              Ms(a.frames.mean_ms), Ms(a.frames.p95_ms), Ms(a.frames.max_ms),
                              a.frames.measured ? "measured" : "sum of cooks", Ms(a.budget_ms)));
  if (snap.streaming && snap.streaming->bottleneck) {
    // GStreamer: which stream's buffers are timed (MarkFrameThreads).
    const Streaming& st = *snap.streaming;
    const StreamingThread& b = st.threads[*st.bottleneck];
    const size_t others = static_cast<size_t>(std::count_if(
        st.threads.begin(), st.threads.end(), [](const StreamingThread& t) { return !t.sets_frame; }));
    parts.push_back(fmt::format(
        "timed on the {}'s buffers{}{}", text(b.name),
        b.buffer_period_ms ? fmt::format(" ({} ms)", Ms(*b.buffer_period_ms)) : "",
        others ? fmt::format(", {} thread{} at another rate judged on {} own", others,
                             others == 1 ? "" : "s", others == 1 ? "its" : "their")
               : ""));
  }
  const size_t over = a.frames.over_budget.size();
  parts.push_back(
      frames == 0 ? fmt::format("{} over budget", over)
                  : fmt::format("{} over budget ({})", over,
                                Percent(static_cast<double>(over) /
                                        static_cast<double>(std::max<size_t>(a.frames.counted, 1)))));
  if (a.profiler) parts.push_back(ProfilerPart(*a.profiler, frames, word));
  return parts;
}

namespace {

// The trace's own sections: the slowest step, GPU time, launches, memory, ranks.
void TraceSections(const ScoredSnapshot& scored, const std::function<std::string(NodeIndex)>& node_id,
                   std::vector<Section>& sections) {
  const TraceSummary& t = *scored.analysis.trace;
  if (t.slowest) {
    const SlowestStep& s = *t.slowest;
    std::string grew;
    for (size_t i = 0; i < s.nodes.size() && i < 3; ++i) {
      grew += fmt::format("{}{} +{} ms", i ? ", " : "", node_id(s.nodes[i].node), Ms(s.nodes[i].ms));
    }
    sections.push_back({"slowest step",
                        {fmt::format("step {}: {} ms against a mean of {} ms{}{}", s.step, Ms(s.ms),
                                     Ms(s.mean_ms), grew.empty() ? "" : "; grew most: ", grew)}});
  }
  if (t.outside) {
    const OutsideNodes& o = *t.outside;
    sections.push_back(
        {"time outside nodes",
         {fmt::format("{} ms of each run on average ({} of the runs' time; at most {} ms): no "
                      "node ran{}",
                      Ms(o.mean_ms), Percent(o.share), Ms(o.max_ms),
                      o.node_tracks > 0
                          ? fmt::format("; nodes ran on {} thread(s) besides the session's (the "
                                        "parallel executor), so this is mostly its hand-offs "
                                        "and waits",
                                        o.node_tracks)
                          : "")}});
  }
  if (t.intra_op) {
    const IntraOp& p = *t.intra_op;
    Section s{"intra-op threads", {}};
    s.items.push_back(fmt::format(
        "{} ({} helper thread(s)), per run: {} ms running parallel sections on the nodes' own "
        "threads, {} ms waiting for the helpers, {} ms handing work out; the helpers ran {} work "
        "items",
        fmt::join(p.pools, ", "), p.helpers, Ms(p.run_ms), Ms(p.wait_ms), Ms(p.distribution_ms),
        fmt::format("{:.1f}", p.helper_runs)));
    for (size_t i = 0; i < p.nodes.size() && i < 3; ++i) {
      const IntraOpNode& n = p.nodes[i];
      if (n.parallel_sections == 0) break;
      s.items.push_back(fmt::format(
          "  {}: {} ms a run, {} of it in parallel sections ({} ms running, {} ms waiting){}",
          node_id(n.node), Ms(n.node_ms),
          n.node_ms > 0 ? Percent(std::min(1.0, (n.run_ms + n.wait_ms + n.distribution_ms) /
                                                     n.node_ms))
                        : std::string("none"),
          Ms(n.run_ms), Ms(n.wait_ms),
          n.helper_runs_known ? fmt::format("; the helpers ran {:.1f} work items during it",
                                            n.helper_runs)
                              : std::string()));
    }
    sections.push_back(std::move(s));
  }
  if (!t.gpu.empty()) {
    Section s{"GPU time (as HTA)", {}};
    for (const RankGpuTime& r : t.gpu.ranks) {
      const double span = r.kernel_span_ms > 0 ? r.kernel_span_ms : 1;
      s.items.push_back(fmt::format(
          "rank {}: span {} ms, busy {} ({} computing, {} other kernels), idle {}", r.rank,
          Ms(r.kernel_span_ms), Percent(r.busy_ms / span), Percent(r.compute_ms / span),
          Percent(r.non_compute_ms / span), Percent(r.idle_ms / span)));
      for (const StreamTime& st : r.streams) {
        const double idle = st.idle_ms != 0 ? st.idle_ms : 1;
        s.items.push_back(fmt::format(
            "  {}: {} kernels, {} ms; idle {} ms: host wait {}, kernel wait {}, other {}", st.label,
            st.kernels, Ms(st.kernel_ms), Ms(st.idle_ms), Percent(st.idle_host_wait_ms / idle),
            Percent(st.idle_kernel_wait_ms / idle), Percent(st.idle_other_ms / idle)));
      }
    }
    const LaunchStats& l = t.gpu.launches;
    if (l.count > 0) {
      s.items.push_back(fmt::format(
          "launches: {}, delay mean {} / p50 {} / p95 {} / max {} ms, {} ms in launch calls, {} "
          "kernels under 10 µs ({})",
          l.count, Ms(l.delay_mean_ms), Ms(l.delay_p50_ms), Ms(l.delay_p95_ms), Ms(l.delay_max_ms),
          Ms(l.cpu_ms), l.kernels_under_10us,
          Percent(static_cast<double>(l.kernels_under_10us) / static_cast<double>(l.count))));
    }
    if (t.gpu.overlap.communication_ms > 0) {
      s.items.push_back(fmt::format(
          "communication: {} ms, {} of it overlapped by computation", Ms(t.gpu.overlap.communication_ms),
          Percent(t.gpu.overlap.overlapped_ms / t.gpu.overlap.communication_ms)));
    }
    sections.push_back(std::move(s));
  }
  if (!t.memory.empty()) {
    Section s{"memory peaks", {}};
    for (const MemoryPeak& m : t.memory) {
      std::string of = m.total_mb > 0 ? fmt::format(" ({} of {} MB)", Percent(m.peak_reserved_mb / m.total_mb),
                                                    Ms(m.total_mb))
                                      : "";
      s.items.push_back(fmt::format("rank {} {}: {} MB allocated, {} MB reserved{}", m.rank, m.device,
                                    Ms(m.peak_allocated_mb), Ms(m.peak_reserved_mb), of));
    }
    sections.push_back(std::move(s));
  }
  if (t.job()) {
    Section s{fmt::format("ranks ({})", t.ranks.size()), {}};
    for (const RankSteps& r : t.ranks) {
      std::string steps, straggles;
      for (size_t i = 0; i < r.steps.size(); ++i) {
        steps += fmt::format("{}{} {} ms", i ? ", " : "", r.steps[i], Ms(r.step_ms[i]));
        if (r.straggler_ms[i]) {
          straggles += fmt::format("{}{} (+{} ms)", straggles.empty() ? "" : ", ", r.steps[i],
                                   Ms(*r.straggler_ms[i]));
        }
      }
      s.items.push_back(fmt::format("rank {}: {}{}{}", r.rank, steps,
                                    straggles.empty() ? "" : "; straggler in steps ", straggles));
    }
    sections.push_back(std::move(s));
  }
}

// A GStreamer recording's streaming threads and latency (model/gstreamer_threads.h).
void StreamingSections(const Streaming& st, const std::function<std::string(NodeIndex)>& node_id,
                       std::vector<Section>& sections) {
  if (!st.threads.empty()) {
    Section s{fmt::format("streaming threads ({})", st.threads.size()), {}};
    for (size_t i = 0; i < st.threads.size(); ++i) {
      const StreamingThread& t = st.threads[i];
      std::string elements;
      for (size_t k = 0; k < t.elements.size() && k < kLoopIds; ++k) {
        elements += (k ? " → " : "") + node_id(t.elements[k]) + (t.work[k] ? "" : " (waits)");
      }
      if (t.elements.size() > kLoopIds) elements += " → …";
      std::string period = t.buffer_period_ms
                               ? fmt::format(" of {} ms ({})", Ms(*t.buffer_period_ms),
                                             Percent(*t.utilisation()))
                               : "";
      std::string cpu = t.cpu_load_pct ? fmt::format(", CPU {}", Percent(*t.cpu_load_pct / 100))
                                       : "";
      const auto costliest = t.costliest();
      s.items.push_back(fmt::format(
          "{}{}: {} ms of work per buffer{}{}, {} buffers{}: {}", t.name,
          st.bottleneck == i ? " (bottleneck)"
          : t.sets_frame     ? ""
                             : " (another rate: not in the buffer time)",
          Ms(t.busy_ms_per_buffer), period, cpu,
          t.buffers, costliest ? "; costliest " + node_id(*costliest) : std::string(), elements));
    }
    if (st.process_cpu_load_pct) {
      s.items.push_back(
          fmt::format("process CPU: {} of one core", Percent(*st.process_cpu_load_pct / 100)));
    }
    sections.push_back(std::move(s));
  }
  if (st.latency) {
    const LatencyStats& l = *st.latency;
    sections.push_back(
        {"latency (source → sink, not the buffer time above)",
         {fmt::format("{} records: mean {} / p95 {} / max {} ms", l.records, Ms(l.mean_ms),
                      Ms(l.p95_ms), Ms(l.max_ms))}});
  }
}

}  // namespace

std::vector<Section> Sections(const ScoredSnapshot& scored, const TextFn& id, const TextFn& text) {
  const Network& net = scored.snapshot.network;
  const Analysis& a = scored.analysis;
  const std::string_view word = scored.snapshot.info.frame_word();
  std::vector<Section> sections;
  auto node_id = [&](NodeIndex n) { return id(net.node(n).id); };

  if (!a.loops.empty()) {
    Section s{fmt::format("loops ({})", a.loops.size()), {}};
    for (size_t i = 0; i < std::min(a.loops.size(), kMaxLoops); ++i) {
      const LoopReport& r = a.loops[i];
      std::string ids;
      for (size_t k = 0; k < std::min(r.loop.nodes.size(), kLoopIds); ++k) {
        if (k > 0) ids += ", ";
        ids += node_id(r.loop.nodes[k]);
      }
      if (r.loop.nodes.size() > kLoopIds) ids += ", …";
      s.items.push_back(fmt::format("{:<9} {} ms/{}, {} node{}: {}", LoopKindName(r.loop.kind),
                                    Ms(r.per_frame_ms), word, r.loop.nodes.size(),
                                    r.loop.nodes.size() == 1 ? "" : "s", ids));
    }
    if (a.loops.size() > kMaxLoops) {
      s.items.push_back(fmt::format("… {} more loops", a.loops.size() - kMaxLoops));
    }
    sections.push_back(std::move(s));
  }

  const std::vector<NodeIndex>& path = a.critical_path.nodes;
  if (a.trace && a.trace->path) {
    // The events' critical path (docs/architecture.md#event-critical-path).
    const StepPath& p = *a.trace->path;
    const size_t gpu = static_cast<size_t>(
        std::count_if(p.events.begin(), p.events.end(), [](const auto& e) { return e.gpu; }));
    Section s{"critical path (events)", {}};
    s.items.push_back(fmt::format(
        "{} (rank {}): {} ms of its {} ms, {} events ({} on the GPU): {} → … → {}",
        PathWindowLabel(p), p.rank,
        Ms(p.length_ms), Ms(p.window_ms), p.events.size(), gpu,
        p.events.empty() ? "" : text(TruncateMiddle(p.events.front().name, kIdWidth)),
        p.events.empty() ? "" : text(TruncateMiddle(p.events.back().name, kIdWidth))));
    std::string by_node;
    for (size_t i = 0; i < p.per_node_ms.size() && i < 5; ++i) {
      by_node += fmt::format("{}{} {} ms", i ? ", " : "", node_id(p.per_node_ms[i].first),
                             Ms(p.per_node_ms[i].second));
    }
    if (!by_node.empty()) s.items.push_back("by node: " + by_node);
    sections.push_back(std::move(s));
  } else if (!path.empty()) {
    std::string ends = node_id(path.front());
    if (path.size() == 2) ends += " → " + node_id(path.back());
    if (path.size() > 2) ends += " → … → " + node_id(path.back());
    sections.push_back({"critical path",
                        {fmt::format("{} ms/{}, {} node{}: {}", Ms(a.critical_path.weight),
                                     word, path.size(), path.size() == 1 ? "" : "s", ends)}});
  }

  if (a.trace) TraceSections(scored, node_id, sections);
  if (scored.snapshot.streaming) StreamingSections(*scored.snapshot.streaming, node_id, sections);

  if (!a.spikes.empty()) {
    Section s{fmt::format("spikes in over-budget {}s", word), {}};
    for (size_t i = 0; i < std::min(a.spikes.size(), kMaxSpikes); ++i) {
      const Spike& sp = a.spikes[i];
      s.items.push_back(fmt::format("{}: +{} ms over {} {}{} (median {} ms, worst +{} ms at {} {}), {}",
                                    node_id(sp.node), Ms(sp.excess_ms), sp.frames, word,
                                    sp.frames == 1 ? "" : "s", Ms(sp.median_ms),
                                    Ms(sp.max_excess_ms), word, sp.worst_frame,
                                    OverrunShareText(sp.share_of_overrun, word)));
    }
    if (a.spikes.size() > kMaxSpikes) {
      s.items.push_back(fmt::format("… {} more", a.spikes.size() - kMaxSpikes));
    }
    sections.push_back(std::move(s));
  }

  if (const SnapshotDiff* diff = scored.baseline) {
    Section s{"compared with the baseline " + text(scored.baseline_file), {}};
    s.items.push_back(fmt::format("{} time: {}", word, FrameChangeText(diff->frames)));
    s.items.push_back(
        fmt::format("{} matched nodes: {} regressed (R), {} improved (I); {} added (N), {} removed",
                    diff->nodes.size(), diff->regressions, diff->improvements, diff->added.size(),
                    diff->removed.size()));
    std::string removed;
    for (size_t i = 0; i < std::min(diff->removed.size(), kMaxWarnings); ++i) {
      removed += (i ? ", " : "") + id(diff->removed[i]);
    }
    if (diff->removed.size() > kMaxWarnings) {
      removed += fmt::format(", … {} more", diff->removed.size() - kMaxWarnings);
    }
    if (!removed.empty()) s.items.push_back("removed: " + removed);
    for (const std::string& w : diff->warnings) s.items.push_back(text(w));
    sections.push_back(std::move(s));
  }

  if (!a.warnings.empty()) {
    Section s{fmt::format("warnings ({})", a.warnings.size()), {}};
    for (size_t i = 0; i < std::min(a.warnings.size(), kMaxWarnings); ++i) {
      s.items.push_back(text(a.warnings[i]));
    }
    if (a.warnings.size() > kMaxWarnings) {
      s.items.push_back(fmt::format("… {} more warnings", a.warnings.size() - kMaxWarnings));
    }
    sections.push_back(std::move(s));
  }
  return sections;
}

}  // namespace cookgraph::score_internal
