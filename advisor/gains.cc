#include "advisor/gains.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

#include "graph/parallel.h"

namespace cookgraph {
namespace {

Saving SavingOf(const WhatIfPrediction& p) {
  return Saving{.ms = p.saved_ms, .p95_ms = p.saved_p95_ms, .frames = p.frames_saved};
}

Saving PredictAt(const WhatIf& whatif, const std::vector<NodeIndex>& nodes, double factor) {
  std::vector<WhatIfChange> changes;
  changes.reserve(nodes.size());
  for (NodeIndex n : nodes) changes.push_back({.node = n, .factor = factor});
  return SavingOf(whatif.Predict(changes));
}

// "halving it saves ~0.95 ms per frame and 2 of 15 over-budget frames"; the
// frames only where it saves some.
std::string Clause(std::string_view change, const Saving& s, size_t over_budget,
                   std::string_view unit) {
  std::string out = fmt::format("{} saves {} per {}", change, ApproxMs(s.ms), unit);
  if (over_budget > 0 && s.frames > 0) {
    out += fmt::format(" and {} of {} over-budget {}s", s.frames, over_budget, unit);
  }
  return out;
}

}  // namespace

std::string ApproxMs(double ms) {
  const double a = std::abs(ms);
  if (a < 0.0005) return "~0 ms";
  return fmt::format("~{:.{}f} ms", ms, a < 0.1 ? 3 : a < 10 ? 2 : 1);
}

std::optional<PredictedGain> PredictGain(const WhatIf& whatif, const Analysis& analysis,
                                         const std::vector<NodeIndex>& nodes,
                                         std::optional<double> fix_factor) {
  PredictedGain g;
  for (NodeIndex n : nodes) {
    if (n >= analysis.stats.size() || analysis.waiting[n] || analysis.stats[n].cooked_frames == 0) {
      continue;
    }
    g.nodes.push_back(n);
  }
  if (g.nodes.empty()) return std::nullopt;
  g.over_budget = whatif.before().over_budget;
  g.halved = PredictAt(whatif, g.nodes, 0.5);
  if (fix_factor && *fix_factor != 0.5) {
    g.fix_factor = fix_factor;
    g.fixed = PredictAt(whatif, g.nodes, *fix_factor);
  }
  return g;
}

std::string GainSentence(const PredictedGain& gain, const GainSubject& subject,
                         std::string_view unit) {
  std::string out =
      "Predicted: " + Clause("halving " + subject.text, gain.halved, gain.over_budget, unit);
  if (gain.fixed) {
    const std::string change =
        *gain.fix_factor == 0
            ? "removing or caching " + subject.text
            : fmt::format("cutting {} to {:.0f}% of {} cook time", subject.text,
                          *gain.fix_factor * 100, subject.plural ? "their" : "its");
    out += "; " + Clause(change, *gain.fixed, gain.over_budget, unit);
  }
  return out + ".";
}

bool FramesFirst(const WhatIf& whatif) {
  return whatif.has_budget() && whatif.before().over_budget > 0;
}

TopGains PredictTopGains(const WhatIf& whatif, const Analysis& analysis, size_t count) {
  TopGains top;
  top.model = std::string(WhatIfModelName(whatif.model()));
  // With frames over the budget every candidate is predicted, then ranked.
  const bool frames_first = FramesFirst(whatif);
  top.frames_first = frames_first;
  const size_t candidates = !frames_first                              ? count
                            : whatif.model() == WhatIfModel::kStepPath ? kFramesFirstStepCandidates
                                                                       : SIZE_MAX;
  std::vector<NodeIndex> nodes;
  if (!analysis.gain_ms.empty()) {
    for (NodeIndex n : Rank(analysis, SortKey::kGain)) {
      if (nodes.size() == candidates) break;
      if (analysis.waiting[n] || analysis.stats[n].cooked_frames == 0)
        break;  // the rest wait or never cooked
      if (analysis.gain_ms[n] > 0) nodes.push_back(n);
    }
  } else {
    for (const auto& [n, saved] : whatif.GainOrder(0.5)) {
      if (nodes.size() == candidates) break;
      if (saved.saved_ms > 0) nodes.push_back(n);
    }
  }
  if (frames_first) {
    // By the frames removing saves (a row's frames(): its fix is removal),
    // then halving; ties keep the gain order. Every candidate's two counts
    // (WhatIf::Savings, on two cores where WhatIf::PredictsOnTwoCores), then
    // the whole prediction of the rows kept alone.
    std::vector<std::pair<int64_t, int64_t>> saves(nodes.size());  // (removed, halved)
    ForEachIndexIf(whatif.PredictsOnTwoCores(nodes.size()), nodes.size(), [&](size_t i) {
      const WhatIfChange removed{.node = nodes[i], .factor = 0},
          halved{.node = nodes[i], .factor = 0.5};
      saves[i] = {whatif.Savings(std::span(&removed, 1)).frames_saved,
                  whatif.Savings(std::span(&halved, 1)).frames_saved};
    });
    std::vector<size_t> order(nodes.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return saves[a] > saves[b]; });
    for (size_t i : order) {
      if (top.rows.size() == count) break;
      if (auto g = PredictGain(whatif, analysis, {nodes[i]}, 0.0))
        top.rows.push_back(std::move(*g));
    }
    return top;
  }
  for (NodeIndex n : nodes) {
    if (auto g = PredictGain(whatif, analysis, {n}, 0.0)) top.rows.push_back(std::move(*g));
  }
  return top;
}

std::string FixSentence(const PredictedGain& gain, std::string_view unit) {
  auto clause = [&](std::string_view change, const Saving& s) {
    return s.frames > 0 ? fmt::format("{} saves {} of {} over-budget {}s and {} per {}", change,
                                      s.frames, gain.over_budget, unit, ApproxMs(s.ms), unit)
                        : fmt::format("{} saves {} per {}", change, ApproxMs(s.ms), unit);
  };
  std::vector<std::pair<std::string, Saving>> parts;
  if (gain.fixed) {
    parts.emplace_back(*gain.fix_factor == 0 ? "removing or caching it"
                                             : fmt::format("cutting it to {:.0f}% of its cook time",
                                                           *gain.fix_factor * 100),
                       *gain.fixed);
  }
  parts.emplace_back("halving it", gain.halved);
  // What saves over-budget frames first.
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.second.frames > b.second.frames; });
  std::string out;
  for (const auto& [change, saving] : parts) {
    if (!out.empty()) out += "; ";
    out += clause(change, saving);
  }
  return out;
}

}  // namespace cookgraph
