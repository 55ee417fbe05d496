#ifndef COOKGRAPH_METRICS_DIFF_H_
#define COOKGRAPH_METRICS_DIFF_H_

// Comparison of two snapshots of one network (`cookgraph diff`, `score
// --baseline`, `report --baseline`): nodes matched by id, the change of their
// statistics, and Welch's t-test on their per-frame cook_ms samples so that
// noise is not called a regression.
//
// A node regressed when both hold:
//   - its mean cook time (avg_ms) rose by more than `min_change_pct` percent;
//   - the one-sided Welch test "after is slower" gives p < `alpha`.
// The test is one-sided because only a slowdown is a regression; a speedup is
// judged by the mirrored test (p_faster = 1 - p_slower) and called an
// improvement. The size gate is what keeps noise out of a large network: at
// alpha 0.01 about one unchanged node in a hundred passes the test by chance,
// but with hundreds of frames its standard error is a fraction of a percent,
// so it never moves by 5%.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "metrics/analysis.h"
#include "model/snapshot.h"
#include "metrics/welch.h"

namespace cookgraph {

struct DiffOptions {
  double alpha = 0.01;        // significance level of the one-sided test
  double min_change_pct = 5;  // smallest rise of avg_ms (percent) that can be a regression
};

/// Percent change from `before` to `after`; nullopt when `before` is 0 (or
/// either is not finite).
std::optional<double> ChangePct(double before, double after);

/// One node present in both snapshots.
struct NodeDiff {
  std::string id;
  NodeIndex before = 0;  // index in the BEFORE snapshot
  NodeIndex after = 0;   // index in the AFTER snapshot
  NodeStats before_stats, after_stats;
  // Percent changes of avg_ms, p95_ms, per_frame_ms and score; nullopt when
  // the before value is 0 or a side never cooked (then only per_frame_pct may
  // have a value).
  std::optional<double> avg_pct, p95_pct, per_frame_pct, score_pct;
  WelchResult test;          // on the cook_ms values of the cooked frames
  bool regression = false;   // slower, significant at alpha and by more than min_change_pct
  bool improvement = false;  // faster, significant at alpha and by more than min_change_pct
  std::string note;          // why there is no p-value ("" when there is one)

  /// The p-value of the test in the direction of the change: p_slower when
  /// avg rose or stayed, else 1 - p_slower. nullopt when there is no test.
  std::optional<double> p_value() const;
};

/// The change of frame time (docs/architecture.md#frame-time-and-the-frame-budget).
struct FrameDiff {
  size_t frames_before = 0, frames_after = 0;
  double mean_before = 0, mean_after = 0;  // ms
  double p95_before = 0, p95_after = 0;    // ms
  bool measured_before = false, measured_after = false;
  std::optional<double> change_pct;  // of the mean
  WelchResult test;                  // on the per-frame frame times
  bool regression = false;           // as for a node, on the mean frame time
  bool improvement = false;
  std::string note;

  /// As NodeDiff::p_value(), for the mean frame time.
  std::optional<double> p_value() const;
};

struct SnapshotDiff {
  DiffOptions options;
  /// Nodes in both snapshots: regressions first (largest avg rise first), then
  /// improvements (largest fall first), then the rest by per-frame ms change,
  /// largest rise first; ties by id.
  std::vector<NodeDiff> nodes;
  std::vector<std::string> added;    // ids only in AFTER, in its order
  std::vector<std::string> removed;  // ids only in BEFORE, in its order
  FrameDiff frames;
  size_t regressions = 0;   // nodes with regression
  size_t improvements = 0;  // nodes with improvement
  /// For each node of AFTER, its position in `nodes`; kNotMatched when added.
  std::vector<size_t> by_after;
  static constexpr size_t kNotMatched = static_cast<size_t>(-1);
  /// Things a reader should know (frame counts differ, ...), one line each.
  std::vector<std::string> warnings;

  /// A node or the frame time regressed.
  bool regressed() const { return regressions > 0 || frames.regression; }
};

/// Compares AFTER with BEFORE; each analysis must be of its snapshot.
SnapshotDiff CompareSnapshots(const Snapshot& before, const Analysis& before_analysis,
                              const Snapshot& after, const Analysis& after_analysis,
                              const DiffOptions& options = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_DIFF_H_
