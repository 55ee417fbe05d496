#ifndef COOKGRAPH_METRICS_ANALYSIS_H_
#define COOKGRAPH_METRICS_ANALYSIS_H_

// Everything cookgraph computes about one snapshot: graph facts joined with
// per-node statistics. Writers and the advisor read an Analysis; they never
// recompute it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/network_critical_path.h"
#include "graph/loops.h"
#include "metrics/frame_budget.h"
#include "metrics/node_stats.h"
#include "metrics/profiler_overhead.h"
#include "model/snapshot.h"
#include "metrics/spikes.h"
#include "metrics/trace_summary.h"

namespace cookgraph {

/// What to rank nodes by (`--sort`). Every key sorts largest first.
enum class SortKey : uint8_t { kScore, kAvg, kP95, kMax, kPerFrame, kGpu, kUpstream, kGain };

/// "score", "avg", "p95", "max", "per-frame", "gpu", "upstream", "gain".
std::string_view SortKeyName(SortKey key);
std::optional<SortKey> ParseSortKey(std::string_view name);

struct AnalysisOptions {
  std::optional<double> budget_ms;  // overrides the snapshot's budget (`--budget-ms`)
  size_t spike_limit = 10;          // how many spike attributions to keep
  /// Compute Analysis::gain_ms (metrics/whatif.h): the what-if model of the
  /// engine for every node, which a trace pays for with one event graph per
  /// step and rank.
  bool gains = false;
  /// The window of a trace's event critical path (`--step`, `--annotation`,
  /// `--instance`); by default the slowest step but the last.
  PathWindow path_window;
};

struct LoopReport {
  Loop loop;
  double per_frame_ms = 0;  // sum of per_frame_ms over the loop's nodes
};

struct Analysis {
  double budget_ms = 0;     // 0 when there is no budget
  bool has_budget = true;   // false for steps without --budget-ms (SnapshotInfo::budget)
  FrameSummary frames;
  /// The profiler's own time per frame, when the input gives profiler_ms; it
  /// changes nothing else here.
  std::optional<ProfilerOverhead> profiler;
  std::vector<NodeStats> stats;     // per node
  std::vector<double> upstream_ms;  // per node: upstream cost of per_frame_ms
  /// Per node: the mean frame ms predicted saved if it cooked twice as fast
  /// (metrics/whatif.h, HalvingGains); empty unless AnalysisOptions::gains.
  std::vector<double> gain_ms;
  std::vector<bool> in_loop;        // per node: member of some reported loop
  std::vector<bool> on_critical_path;
  /// Per node: its time is waiting, not work (IsWaitingFamily: a GStreamer
  /// queue or mixer). Such nodes keep their statistics but are ranked after
  /// every node that works, weigh nothing on the critical path (which does not
  /// name them) and in upstream costs, and are left out of spike attribution.
  std::vector<bool> waiting;
  /// Per node: cooked in some frame yet serves no output (not LiveNodes: it
  /// reaches no output and no live node calls or launches it). All false when
  /// the snapshot marks no outputs (see `warnings`).
  std::vector<bool> dead;
  std::vector<NodeIndex> order;     // topological order (docs/architecture.md#topological-order)
  std::vector<LoopReport> loops;    // costliest first (ties: kind, then first node)
  Path critical_path;               // weighted by per_frame_ms
  /// The critical path with the waiting nodes it passes through (a queue
  /// between two threads): what the drawings follow to colour its edges.
  Path critical_route;
  std::vector<Spike> spikes;
  /// Traces (snapshots with timelines): GPU time, memory, ranks, the slowest step.
  std::optional<TraceSummary> trace;
  std::vector<std::string> warnings;  // the snapshot's warnings plus the analysis's own
};

Analysis Analyse(const Snapshot& snapshot, const AnalysisOptions& options = {});

// IsWaitingFamily (model/snapshot.h) says which families are waiting.

/// The nodes in ranking order for `key`: nodes that cooked and work, largest
/// first (ties by score, then by NodeIndex); then nodes that cooked and wait
/// (queues), in the same order; then nodes that never cooked in topological
/// order. The rank of a node is its 1-based position among the cooked ones.
std::vector<NodeIndex> Rank(const Analysis& analysis, SortKey key);

/// How many leading entries of a ranking are nodes that cooked.
size_t CookedCount(const Analysis& analysis);

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_ANALYSIS_H_
