#include "metrics/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>

namespace cookgraph {
namespace {

// The cook_ms series of `node`, cut to the snapshot's frames (as node_stats.cc
// reads it); empty when the node has none.
std::span<const double> CookSeries(const Samples& samples, NodeIndex node) {
  if (node >= samples.node_count()) return {};
  std::span<const double> values = samples.series(node, Metric::kCookMs);
  return values.first(std::min(values.size(), samples.frame_count()));
}

std::string NoTestNote(const WelchResult& test, const Moments& before, const Moments& after,
                       std::string_view what) {
  switch (test.status) {
    case WelchStatus::kTested:
    case WelchStatus::kExact:
      return "";
    case WelchStatus::kNoVariance:
      return fmt::format("no test: {} is the same constant before and after", what);
    case WelchStatus::kTooFewSamples:
      break;
  }
  if (before.n == 0 && after.n == 0) return "never cooked";
  if (before.n == 0) return "did not cook before";
  if (after.n == 0) return "did not cook after";
  return fmt::format(
      "no test: too few samples ({} before, {} after; the test needs 2 on each side)", before.n,
      after.n);
}

// The threads a trace's ops ran on, and where the profile shows them ONNX
// Runtime's session settings: "ops on 1 CPU thread, 2 intra-op threads,
// sequential executor". Empty without a timeline.
std::string ThreadSettings(const Snapshot& snap, const Analysis& analysis) {
  if (snap.timelines.empty()) return "";
  size_t op_threads = 0;  // the most over the ranks
  for (const Timeline& t : snap.timelines) {
    std::vector<bool> ran(t.tracks.size(), false);
    for (const TimelineEvent& e : t.events) {
      if (e.kind == EventKind::kCpuOp && e.node != kNoIndex && e.track < ran.size()) {
        ran[e.track] = true;
      }
    }
    op_threads = std::max<size_t>(op_threads, std::count(ran.begin(), ran.end(), true));
  }
  std::string text = fmt::format("ops on {} CPU thread{}", op_threads, op_threads == 1 ? "" : "s");
  if (snap.info.engine == "onnxruntime" && analysis.trace) {
    const TraceSummary& t = *analysis.trace;
    const uint32_t intra = t.intra_op ? t.intra_op->helpers + 1 : 1;
    const bool parallel = t.outside && t.outside->node_tracks > 0;
    text += fmt::format(", {} intra-op thread{}, {} executor", intra, intra == 1 ? "" : "s",
                        parallel ? "parallel" : "sequential");
  }
  return text;
}

// Judges a change with its test: regression, improvement, neither.
void JudgeChange(const WelchResult& test, std::optional<double> change_pct,
                 const DiffOptions& options, bool& regression, bool& improvement) {
  regression = improvement = false;
  if (!test.p_slower || !change_pct) return;
  const double p_slower = *test.p_slower;
  regression = *change_pct > options.min_change_pct && p_slower < options.alpha;
  improvement = *change_pct < -options.min_change_pct && 1.0 - p_slower < options.alpha;
}

int Group(const NodeDiff& d) { return d.regression ? 0 : d.improvement ? 1 : 2; }

}  // namespace

std::optional<double> ChangePct(double before, double after) {
  if (!std::isfinite(before) || !std::isfinite(after) || before == 0) return std::nullopt;
  return (after - before) / before * 100.0;
}

namespace {

// The one-sided p-value in the direction of the change.
std::optional<double> DirectionalP(const WelchResult& test, double before, double after) {
  if (!test.p_slower) return std::nullopt;
  return after < before ? 1.0 - *test.p_slower : *test.p_slower;
}

// Ops whose inputs changed (shapes, dtypes): their times measure other work.
void WarnOfChangedInputs(const Network& bn, const Network& an, SnapshotDiff& diff) {
  static constexpr std::array<std::string_view, 4> kInputParams = {
      "input_dims", "input_types", "input_type_shape", "output_type_shape"};
  size_t changed = 0;
  std::string first;
  for (const NodeDiff& d : diff.nodes) {
    for (std::string_view key : kInputParams) {
      const std::string* was = FindParam(bn.node(d.before), key);
      const std::string* is = FindParam(an.node(d.after), key);
      if (was == nullptr || is == nullptr || *was == *is) continue;
      if (changed++ == 0) first = fmt::format("{} {} {} → {}", d.id, key, *was, *is);
      break;
    }
  }
  if (changed > 0) {
    diff.warnings.push_back(fmt::format(
        "the inputs changed: {} op(s) were given other shapes or types, so their times measure "
        "other work (first: {})",
        changed, first));
  }
}

}  // namespace

std::optional<double> NodeDiff::p_value() const {
  return DirectionalP(test, before_stats.avg_ms, after_stats.avg_ms);
}

std::optional<double> FrameDiff::p_value() const {
  return DirectionalP(test, mean_before, mean_after);
}

SnapshotDiff CompareSnapshots(const Snapshot& before, const Analysis& before_analysis,
                              const Snapshot& after, const Analysis& after_analysis,
                              const DiffOptions& options) {
  SnapshotDiff diff;
  diff.options = options;
  const Network& bn = before.network;
  const Network& an = after.network;
  diff.by_after.assign(an.size(), SnapshotDiff::kNotMatched);

  std::vector<bool> matched_before(bn.size(), false);
  for (NodeIndex a = 0; a < an.size(); ++a) {
    const std::string& id = an.node(a).id;
    std::optional<NodeIndex> b = bn.Find(id);
    if (!b) {
      diff.added.push_back(id);
      continue;
    }
    matched_before[*b] = true;
    NodeDiff d;
    d.id = id;
    d.before = *b;
    d.after = a;
    d.before_stats = before_analysis.stats[*b];
    d.after_stats = after_analysis.stats[a];
    const NodeStats& s0 = d.before_stats;
    const NodeStats& s1 = d.after_stats;
    const bool both_cooked = s0.cooked_frames > 0 && s1.cooked_frames > 0;
    if (both_cooked) {
      d.avg_pct = ChangePct(s0.avg_ms, s1.avg_ms);
      d.p95_pct = ChangePct(s0.p95_ms, s1.p95_ms);
      d.score_pct = ChangePct(s0.score, s1.score);
    }
    d.per_frame_pct = ChangePct(s0.per_frame_ms, s1.per_frame_ms);
    const Moments m0 = MomentsOf(CookSeries(before.samples, *b));
    const Moments m1 = MomentsOf(CookSeries(after.samples, a));
    d.test = WelchTest(m0, m1);
    d.note = NoTestNote(d.test, m0, m1, "cook_ms");
    JudgeChange(d.test, d.avg_pct, options, d.regression, d.improvement);
    diff.nodes.push_back(std::move(d));
  }
  for (NodeIndex b = 0; b < bn.size(); ++b) {
    if (!matched_before[b]) diff.removed.push_back(bn.node(b).id);
  }

  std::sort(diff.nodes.begin(), diff.nodes.end(), [](const NodeDiff& x, const NodeDiff& y) {
    const int gx = Group(x), gy = Group(y);
    if (gx != gy) return gx < gy;
    if (gx == 0 && *x.avg_pct != *y.avg_pct) return *x.avg_pct > *y.avg_pct;
    if (gx == 1 && *x.avg_pct != *y.avg_pct) return *x.avg_pct < *y.avg_pct;
    const double dx = x.after_stats.per_frame_ms - x.before_stats.per_frame_ms;
    const double dy = y.after_stats.per_frame_ms - y.before_stats.per_frame_ms;
    if (gx == 2 && dx != dy) return dx > dy;
    return x.id < y.id;
  });
  for (size_t i = 0; i < diff.nodes.size(); ++i) {
    const NodeDiff& d = diff.nodes[i];
    diff.by_after[d.after] = i;
    diff.regressions += d.regression;
    diff.improvements += d.improvement;
  }

  FrameDiff& f = diff.frames;
  const FrameSummary& f0 = before_analysis.frames;
  const FrameSummary& f1 = after_analysis.frames;
  f.frames_before = f0.frame_ms.size();
  f.frames_after = f1.frame_ms.size();
  f.mean_before = f0.mean_ms;
  f.mean_after = f1.mean_ms;
  f.p95_before = f0.p95_ms;
  f.p95_after = f1.p95_ms;
  f.measured_before = f0.measured;
  f.measured_after = f1.measured;
  if (f.frames_before > 0 && f.frames_after > 0)
    f.change_pct = ChangePct(f.mean_before, f.mean_after);
  const Moments m0 = MomentsOf(f0.frame_ms);
  const Moments m1 = MomentsOf(f1.frame_ms);
  f.test = WelchTest(m0, m1);
  f.note = m0.n < 2 || m1.n < 2
               ? fmt::format(
                     "no test: too few frames ({} before, {} after; the test needs 2 on "
                     "each side)",
                     m0.n, m1.n)
               : NoTestNote(f.test, m0, m1, "frame time");
  JudgeChange(f.test, f.change_pct, options, f.regression, f.improvement);

  WarnOfChangedInputs(bn, an, diff);
  const std::string threads_before = ThreadSettings(before, before_analysis);
  const std::string threads_after = ThreadSettings(after, after_analysis);
  if (threads_before != threads_after && !threads_before.empty() && !threads_after.empty()) {
    diff.warnings.push_back(fmt::format(
        "the thread settings changed ({} → {}): the times measure another configuration",
        threads_before, threads_after));
  }
  if (f.frames_before != f.frames_after) {
    diff.warnings.push_back(fmt::format(
        "the snapshots have different frame counts ({} before, {} after): per-frame values are "
        "per frame of each snapshot, and the tests allow for the different sample sizes",
        f.frames_before, f.frames_after));
  }
  if (f.measured_before != f.measured_after) {
    diff.warnings.push_back(fmt::format(
        "frame time is measured in {} but the sum of the cook times in {}: the frame-time change "
        "compares different things",
        f.measured_before ? "BEFORE" : "AFTER", f.measured_before ? "AFTER" : "BEFORE"));
  }
  return diff;
}

}  // namespace cookgraph
