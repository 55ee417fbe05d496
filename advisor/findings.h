#ifndef COOKGRAPH_ADVISOR_FINDINGS_H_
#define COOKGRAPH_ADVISOR_FINDINGS_H_

// Findings: the offline answer (docs/architecture.md#knowledge-packs-and-findings). A knowledge
// pack's rules are evaluated against a snapshot and its analysis; each match is a finding with the
// numbers that triggered it and a concrete suggestion; with the what-if model (metrics/whatif.h),
// also what fixing it is predicted to save (docs/architecture.md#advice-ordered-by-impact).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "graph/network.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class Severity : uint8_t { kInfo, kWarning, kCritical };

/// "info", "warning", "critical".
std::string_view SeverityName(Severity severity);

/// What a change is predicted to save over the counted frames (WhatIfPrediction).
struct Saving {
  double ms = 0;       // mean frame (step) ms
  double p95_ms = 0;   // p95 frame ms
  int64_t frames = 0;  // over-budget frames; 0 without a budget
};

/// What changing some nodes is predicted to save: halving them always, and
/// cooking them `fix_factor` times as long where that is the fix (0: removed
/// or cached).
struct PredictedGain {
  std::vector<NodeIndex> nodes;      // changed together; the first one names them
  Saving halved;                     // every node cooks twice as fast
  std::optional<double> fix_factor;  // set with `fixed`
  std::optional<Saving> fixed;       // every node at fix_factor
  size_t over_budget = 0;            // over-budget frames before the change

  /// What the fix saves in mean ms: `fixed` where there is one, else `halved`.
  double ms() const { return fixed ? fixed->ms : halved.ms; }
  /// The over-budget frames the fix saves: `fixed`'s where there is one, else `halved`'s.
  int64_t frames() const { return fixed ? fixed->frames : halved.frames; }
};

/// The nodes that pay most to fix, for the prompt: the what-if model's name
/// ("serial frames", ...) and its top predictions, removed being the fix.
struct TopGains {
  std::string model;
  /// Frames go over the budget: the rows (and the findings) are ranked by the
  /// over-budget frames their fix saves first (advisor/gains.h FramesFirst).
  bool frames_first = false;
  std::vector<PredictedGain> rows;
};

// Both in advisor/gains.cc, declared here for the renderers (advisor/report),
// as SeverityName is:
/// A node's fix in one sentence, what saves over-budget frames first:
/// "removing or caching it saves 15 of 15 over-budget frames and ~1.12 ms per
/// frame; halving it saves ~0.56 ms per frame", in `unit`, the engine's word for a
/// frame (SnapshotInfo::frame_word).
std::string FixSentence(const PredictedGain& gain, std::string_view unit);
/// "~0.95 ms": 3 decimals under 0.1 ms, 2 under 10, else 1.
std::string ApproxMs(double ms);

struct Finding {
  std::string rule;      // the rule's id, e.g. "feedback-loop"
  Severity severity = Severity::kInfo;
  std::string title;     // one line, e.g. "Feedback loop costs 4.36 ms per frame (26% of frame time)"
  std::vector<NodeIndex> nodes;  // the nodes concerned, most important first
  /// The evidence: name (with unit) -> value, in the order the rule lists them,
  /// e.g. {"per_frame_ms", 4.358}, {"share", 0.26}.
  std::vector<std::pair<std::string, double>> numbers;
  /// What to change, in the pack's words with the numbers filled in; with a
  /// gain, followed by the predicted gain and the snippet (when there is one).
  std::string suggestion;
  /// The predicted gain of the finding's fix; unset without a what-if model
  /// or when nothing the finding names is predicted (a rank's GPU time).
  std::optional<PredictedGain> gain;
  /// The fix in the engine's own terms (the rule's fix.snippet, filled in):
  /// a Textport line, a gst-launch-1.0 fragment, a PyTorch pattern. "" when
  /// the rule has none or the snapshot lacks a parameter it needs.
  std::string snippet;
  /// The documentation the snippet relies on (the rule's fix.docs); "" with no snippet.
  std::string docs;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_FINDINGS_H_
