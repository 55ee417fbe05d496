#ifndef COOKGRAPH_METRICS_WHATIF_H_
#define COOKGRAPH_METRICS_WHATIF_H_

// What pays to fix (docs/architecture.md#what-if-predicted-gains): the frame
// time predicted if some nodes cooked f times as long (f = 0.5: twice as fast;
// f = 0: cached or removed), by the engine's model (serial frames, GStreamer's
// streaming threads, or a trace's step critical paths), over the frames the
// analysis counts and against the same budget.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/network.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class WhatIfModel : uint8_t { kSerial, kStreaming, kStepPath };

/// "serial frames", "streaming threads", "step critical paths".
std::string_view WhatIfModelName(WhatIfModel model);

/// Node `node` cooks `factor` times as long (factor >= 0 and finite).
struct WhatIfChange {
  NodeIndex node = 0;
  double factor = 0.5;
};

/// The changes `specs` name, each "ID=F" (`whatif --node`, the page's
/// whatif()): the node's id and the factor >= 0 its cook time is scaled by.
/// The Error of the first that is wrong names `file` and the spec.
Result<std::vector<WhatIfChange>> ParseWhatIfChanges(const std::string& file,
                                                     const std::vector<std::string>& specs,
                                                     const Network& network);

/// Frame times over the counted frames.
struct WhatIfFrames {
  double mean_ms = 0, p95_ms = 0;
  size_t over_budget = 0;  // frames with time > budget; 0 without a budget
};

struct WhatIfPrediction {
  WhatIfFrames after;
  std::vector<double> frame_ms;  // per frame after the change; NaN where not counted
  double saved_ms = 0;           // before.mean_ms - after.mean_ms
  double saved_p95_ms = 0;       // before.p95_ms - after.p95_ms
  int64_t frames_saved = 0;      // before.over_budget - after.over_budget
};

/// Predict's saved_ms and frames_saved alone, as Predict gives them.
struct WhatIfSavings {
  double saved_ms = 0;
  int64_t frames_saved = 0;
};

struct NodeGain {
  NodeIndex node = 0;
  double factor = 0;
  double saved_ms = 0, saved_p95_ms = 0;
  int64_t frames_saved = 0;
};

class WhatIf {
 public:
  /// The model for `snapshot` (traces: step critical paths; GStreamer
  /// recordings with streaming threads: streaming threads; else serial
  /// frames). `analysis` is Analyse(snapshot, ...): its budget and counted
  /// frames are the ones judged.
  static WhatIf Build(const Snapshot& snapshot, const Analysis& analysis);

  WhatIfModel model() const { return model_; }
  /// The frame times the model starts from (equal to the analysis's).
  const WhatIfFrames& before() const { return before_; }
  const std::vector<double>& frame_ms() const { return frame_ms_; }
  double budget_ms() const { return budget_ms_; }
  bool has_budget() const { return has_budget_; }
  /// The snapshot's word for a frame (SnapshotInfo::frame_word).
  std::string_view frame_word() const { return snapshot_ ? snapshot_->info.frame_word() : "frame"; }

  /// The frame times if every change held at once. A node named twice takes
  /// the last factor.
  WhatIfPrediction Predict(std::span<const WhatIfChange> changes) const;

  /// Predict(changes)'s saved_ms and frames_saved, without its p95 or frame
  /// times: what ranking every node by either needs, at a fraction of the
  /// cost (one pass over the frames for a node of the serial model).
  WhatIfSavings Savings(std::span<const WhatIfChange> changes) const;

  /// Every node that cooked and works (not waiting), each alone at `factor`:
  /// by saved_ms, then frames_saved, then saved_p95_ms, largest first; ties
  /// by NodeIndex.
  std::vector<NodeGain> Gains(double factor) const;

  /// Gains(factor)'s nodes in its order, each with its saved_ms and
  /// frames_saved: Savings for every node, and Predict's p95 only where the
  /// first two keys tie (what the order needs).
  std::vector<std::pair<NodeIndex, WhatIfSavings>> GainOrder(double factor) const;

  /// True when `predictions` single-node predictions (Savings, Predict) are
  /// worth two cores: 4,096 or more, or fewer whose walks (each over the
  /// steps' graph edges and the frames) come to about a million in all.
  bool PredictsOnTwoCores(size_t predictions) const;

  /// What the model could not use (a step whose critical path failed, ...).
  const std::vector<std::string>& warnings() const { return warnings_; }

  struct Step;  // the step-path model's graph of one (frame, rank); whatif.cc

  WhatIf();
  ~WhatIf();
  WhatIf(WhatIf&&) noexcept;
  WhatIf& operator=(WhatIf&&) noexcept;

 private:
  // `changes` as Predict takes them: one per node (the last named), sorted
  // by node, each a working node of the network with a factor other than 1.
  std::vector<WhatIfChange> Effective(std::span<const WhatIfChange> changes) const;
  // Per frame, the frame time with the changes (NaN where not counted):
  // `changes` as Effective leaves them.
  std::vector<double> FrameTimes(std::span<const WhatIfChange> changes) const;
  WhatIfPrediction Summarise(std::vector<double> after) const;
  // Every node Gains weighs, in node order, alone at `factor`: Predict's
  // numbers, or Savings' (saved_p95_ms 0) unless `with_p95`.
  std::vector<NodeGain> NodeSavings(double factor, bool with_p95) const;
  // FramesOf(after), the p95 selected among the frames near before's.
  WhatIfFrames FramesAfter(const std::vector<double>& after) const;
  // before_ from frame_ms_, with the order statistics FramesAfter starts from.
  void SetBefore();

  WhatIfModel model_ = WhatIfModel::kSerial;
  const Snapshot* snapshot_ = nullptr;
  const Analysis* analysis_ = nullptr;
  WhatIfFrames before_;
  std::vector<double> frame_ms_;  // before, per frame (NaN where not counted)
  // frame_ms_'s counted frames, and the two values (ascending order) its p95
  // interpolates between; counted_ < 2 leaves them 0.
  size_t counted_ = 0;
  double p95_lower_ = 0, p95_upper_ = 0;
  double budget_ms_ = 0;
  bool has_budget_ = false;
  std::vector<Step> steps_;
  size_t step_edges_ = 0;  // the steps' edges, all together
  // The streaming model: per streaming thread, per buffer, its work (ms; NaN
  // where it did none) as measured.
  std::vector<std::vector<double>> thread_ms_;
  std::vector<std::string> warnings_;
};

/// Analysis::gain_ms: per node, the mean frame ms saved by halving it
/// (Gains(0.5)'s saved_ms); 0 for nodes that do not cook or wait.
std::vector<double> HalvingGains(const WhatIf& whatif, const Analysis& analysis, size_t node_count);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_WHATIF_H_
