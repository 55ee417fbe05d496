// Every node's saving at once (metrics/whatif.h): WhatIf's Savings, Gains
// and GainOrder, and Analysis::gain_ms, the predictions made for every node
// that cooked and works, so made at the least cost that gives Predict's
// numbers.

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "graph/parallel.h"
#include "metrics/whatif.h"

namespace cookgraph {

WhatIfSavings WhatIf::Savings(std::span<const WhatIfChange> changes) const {
  const std::vector<WhatIfChange> effective = Effective(changes);
  // FramesOf's mean and count over the frames after, summed in frame order.
  size_t n = 0, over = 0;
  double sum = 0;
  auto add = [&](double a) {
    if (IsMissing(a)) return;
    sum += a;
    ++n;
    over += has_budget_ && a > budget_ms_;
  };
  if (model_ == WhatIfModel::kSerial && effective.size() == 1) {
    // FrameTimes' frames, each computed where it is added.
    std::span<const double> cook = snapshot_->samples.series(effective[0].node, Metric::kCookMs);
    const double scale = 1.0 - effective[0].factor;
    for (size_t f = 0; f < frame_ms_.size(); ++f) {
      double a = frame_ms_[f];
      if (f < cook.size() && !IsMissing(a) && !IsMissing(cook[f])) a -= scale * cook[f];
      add(a);
    }
  } else {
    for (double a : FrameTimes(effective)) add(a);
  }
  const double mean = n == 0 ? 0.0 : sum / static_cast<double>(n);
  return WhatIfSavings{
      .saved_ms = before_.mean_ms - mean,
      .frames_saved = static_cast<int64_t>(before_.over_budget) - static_cast<int64_t>(over)};
}

namespace {

// Gains' order, less its last key: saved_ms, then frames_saved, largest first.
bool SavesMore(const NodeGain& a, const NodeGain& b) {
  if (a.saved_ms != b.saved_ms) return a.saved_ms > b.saved_ms;
  return a.frames_saved > b.frames_saved;
}

}  // namespace

bool WhatIf::PredictsOnTwoCores(size_t predictions) const {
  constexpr size_t kParallelWalk = size_t{1} << 20;
  return predictions >= 4096 ||
         (predictions >= 2 && predictions * (step_edges_ + frame_ms_.size()) >= kParallelWalk);
}

std::vector<NodeGain> WhatIf::NodeSavings(double factor, bool with_p95) const {
  std::vector<NodeIndex> nodes;
  const size_t node_count = snapshot_->network.size();
  for (NodeIndex n = 0; n < node_count; ++n) {
    if (!analysis_->waiting[n] && analysis_->stats[n].cooked_frames > 0) nodes.push_back(n);
  }
  std::vector<NodeGain> out(nodes.size());
  // One node at a time on each core where PredictsOnTwoCores: a node on
  // every step's path costs far more than one on a few.
  ForEachIndexIf(PredictsOnTwoCores(nodes.size()), nodes.size(), [&](size_t i) {
    const WhatIfChange change{.node = nodes[i], .factor = factor};
    NodeGain& g = out[i];
    g.node = nodes[i];
    g.factor = factor;
    if (with_p95) {
      const WhatIfPrediction p = Predict(std::span(&change, 1));
      g.saved_ms = p.saved_ms;
      g.saved_p95_ms = p.saved_p95_ms;
      g.frames_saved = p.frames_saved;
    } else {
      const WhatIfSavings saved = Savings(std::span(&change, 1));
      g.saved_ms = saved.saved_ms;
      g.frames_saved = saved.frames_saved;
    }
  });
  return out;
}

std::vector<NodeGain> WhatIf::Gains(double factor) const {
  std::vector<NodeGain> out = NodeSavings(factor, true);
  std::stable_sort(out.begin(), out.end(), [](const NodeGain& a, const NodeGain& b) {
    if (a.saved_ms != b.saved_ms) return a.saved_ms > b.saved_ms;
    if (a.frames_saved != b.frames_saved) return a.frames_saved > b.frames_saved;
    return a.saved_p95_ms > b.saved_p95_ms;
  });
  return out;
}

std::vector<std::pair<NodeIndex, WhatIfSavings>> WhatIf::GainOrder(double factor) const {
  std::vector<NodeGain> gains = NodeSavings(factor, false);
  std::stable_sort(gains.begin(), gains.end(), SavesMore);
  // Gains' last key where the first two tie: a stable sort of each run of
  // ties by it leaves the order of one stable sort by all three. The runs
  // (often every node that saves nothing) first, then their p95s, on two
  // cores where PredictsOnTwoCores, each node writing its own.
  std::vector<std::pair<size_t, size_t>> runs;
  std::vector<size_t> tied;
  for (size_t i = 0; i < gains.size();) {
    size_t j = i + 1;
    while (j < gains.size() && !SavesMore(gains[i], gains[j])) ++j;
    if (j - i > 1) {
      runs.emplace_back(i, j);
      for (size_t k = i; k < j; ++k) tied.push_back(k);
    }
    i = j;
  }
  ForEachIndexIf(PredictsOnTwoCores(tied.size()), tied.size(), [&](size_t t) {
    NodeGain& g = gains[tied[t]];
    const WhatIfChange change{.node = g.node, .factor = factor};
    g.saved_p95_ms = Predict(std::span(&change, 1)).saved_p95_ms;
  });
  for (const auto& [i, j] : runs) {
    std::stable_sort(
        gains.begin() + static_cast<std::ptrdiff_t>(i),
        gains.begin() + static_cast<std::ptrdiff_t>(j),
        [](const NodeGain& a, const NodeGain& b) { return a.saved_p95_ms > b.saved_p95_ms; });
  }
  std::vector<std::pair<NodeIndex, WhatIfSavings>> out;
  out.reserve(gains.size());
  for (const NodeGain& g : gains) {
    out.emplace_back(g.node, WhatIfSavings{.saved_ms = g.saved_ms, .frames_saved = g.frames_saved});
  }
  return out;
}

std::vector<double> HalvingGains(const WhatIf& whatif, const Analysis& analysis,
                                 size_t node_count) {
  std::vector<double> out(node_count, 0.0);
  // Gains(0.5)'s nodes and saved_ms, without its p95s and its order: on two
  // cores where PredictsOnTwoCores, each node writing its own value.
  const size_t n = std::min(node_count, analysis.stats.size());
  ForEachIndexIf(whatif.PredictsOnTwoCores(n), n, [&](size_t i) {
    const auto node = static_cast<NodeIndex>(i);
    if (analysis.waiting[node] || analysis.stats[node].cooked_frames == 0) return;
    const WhatIfChange change{.node = node, .factor = 0.5};
    out[node] = whatif.Savings(std::span(&change, 1)).saved_ms;
  });
  return out;
}

}  // namespace cookgraph
