#ifndef COOKGRAPH_ADVISOR_GAINS_H_
#define COOKGRAPH_ADVISOR_GAINS_H_

// Advice ordered by impact (docs/architecture.md#advice-ordered-by-impact):
// what the what-if model (metrics/whatif.h) predicts a finding's fix saves,
// the sentence that says it, and the nodes that pay most, for the prompt.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/findings.h"
#include "metrics/analysis.h"
#include "metrics/whatif.h"

namespace cookgraph {

/// `nodes` (those that wait or never cooked left out) halved together and,
/// with `fix_factor`, at that factor; nullopt when no node is left.
/// `analysis` is the one `whatif` was built from.
std::optional<PredictedGain> PredictGain(const WhatIf& whatif, const Analysis& analysis,
                                         const std::vector<NodeIndex>& nodes,
                                         std::optional<double> fix_factor);

/// How a gain sentence names what it changes: "it", or "/p/x264enc0", or "the
/// loop's 5 nodes" (`plural`).
struct GainSubject {
  std::string text = "it";
  bool plural = false;
};

/// "Predicted: halving it saves ~0.95 ms per frame and 2 of 15 over-budget
/// frames; removing or caching it saves ~1.91 ms per frame and 15 of 15
/// over-budget frames." Over-budget frames only where the change saves some;
/// `unit` is the engine's word for a frame (SnapshotInfo::frame_word).
std::string GainSentence(const PredictedGain& gain, const GainSubject& subject,
                         std::string_view unit);


/// How many nodes ApplyPack (advisor/judge.h) predicts for Judged::gains.
inline constexpr size_t kTopGainsCount = 10;

/// True when frames go over the budget: then what saves over-budget frames
/// comes first (docs/architecture.md#advice-ordered-by-impact).
bool FramesFirst(const WhatIf& whatif);

/// The `count` nodes that pay most to fix, each with its saving halved and
/// removed (fix_factor 0), nodes predicted to save nothing left out. Ranked by
/// the mean saved halved (Analysis::gain_ms when the analysis has it, else
/// WhatIf::Gains; ties as Rank), or, with FramesFirst, by the over-budget
/// frames removing them saves, then halving them, then that rank: every
/// working node's two counts are predicted then (WhatIf::Savings; the
/// step-path model, whose predictions cost a path per step each: the
/// kFramesFirstStepCandidates first by gain).
TopGains PredictTopGains(const WhatIf& whatif, const Analysis& analysis, size_t count);

/// The nodes of the step-path model that PredictTopGains weighs for frames saved.
inline constexpr size_t kFramesFirstStepCandidates = 50;

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_GAINS_H_
