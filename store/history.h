#ifndef COOKGRAPH_STORE_HISTORY_H_
#define COOKGRAPH_STORE_HISTORY_H_

// `cookgraph history DB`: the trend of the frame time and of the top nodes
// across stored runs, and the runs where one of them got significantly worse
// than in the run before (docs/commands.md#cookgraph-history). The test is
// diff's (metrics/diff.h): Welch's one-sided t-test at alpha and a rise of
// more than min_change_pct, here from the stored moments (count, mean,
// standard deviation) instead of the samples.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "metrics/diff.h"
#include "metrics/welch.h"
#include "store/store.h"

namespace cookgraph {

struct HistoryOptions {
  DiffOptions test;      // alpha 0.01 and a rise of more than 5%, as `diff`
  size_t top = 5;        // top nodes per snapshot: the highest scores of its latest run
  std::string node;      // --node: this node's trend and flags only; "" = the top nodes
  std::string snapshot;  // --snapshot: this snapshot only (its key); "" = every snapshot
  /// --since: runs before are not shown, and serve only as the run before the
  /// first one shown. 0 / "" = from the first run.
  int64_t since_run = 0;
  std::string
      since_time;  // a prefix of StoredRun::started_at's form ("2026-11-27", "2026-11-27T09:30")
};

/// One series (the frame time or a node) of one snapshot in one run, and its
/// comparison with the same snapshot in the run before.
struct HistoryPoint {
  std::optional<double>
      mean_ms;  // the mean frame time, or avg_ms; nullopt: absent, or did not cook
  std::optional<double> p95_ms;
  size_t n = 0;            // frames, or cooked frames
  int64_t before_run = 0;  // the run compared with; 0 = none
  std::optional<double> before_ms;
  std::optional<double> change_pct;  // of the mean
  WelchResult test;                  // kTooFewSamples when not compared
  bool flagged = false;  // significantly worse: p_slower < alpha and a rise above min_change_pct
};

/// One snapshot in one run.
struct HistoryEntry {
  int64_t run = 0;
  std::string file;
  std::string error;     // the snapshot could not be scored; "" = scored
  bool complete = true;  // its run was finished
  HistoryPoint frame;
  std::vector<HistoryPoint> nodes;  // one per SnapshotHistory::nodes
};

/// The runs of one snapshot. Snapshots are told apart by name (by file when
/// they have none); two snapshots of one run with the same name are told
/// apart by "name · file".
struct SnapshotHistory {
  std::string key;
  std::vector<std::string>
      nodes;       // the series: --node, or the top nodes then the other flagged ones
  size_t top = 0;  // how many of `nodes` are top nodes
  std::vector<HistoryEntry> entries;  // the runs shown, by id
};

/// A run where the frame time or a node of a snapshot got significantly worse.
struct HistoryFlag {
  int64_t run = 0;
  std::string label;
  std::string snapshot;  // SnapshotHistory::key
  std::string node;      // "" = the frame time
  int64_t before_run = 0;
  double before_ms = 0, after_ms = 0;  // the means
  double change_pct = 0;
  double p_value = 0;  // one-sided, "after is slower"
  WelchResult test;
  size_t n_before = 0, n_after = 0;
};

/// A run shown.
struct HistoryRun {
  int64_t id = 0;
  std::string started_at, finished_at, label;  // finished_at "" = incomplete
  size_t snapshots = 0;
};

struct History {
  HistoryOptions options;
  size_t stored_runs = 0;           // in the database
  std::vector<HistoryRun> runs;     // shown (--since), by id
  std::vector<int64_t> incomplete;  // shown runs that were never finished: shown, never compared
  std::vector<SnapshotHistory> snapshots;
  std::vector<HistoryFlag> flags;  // by run, snapshot, the frame time first, then the largest rise
  /// The latest complete run shown has a flag (`history --fail-on-regression`).
  bool latest_flagged = false;
  /// What the reader must know before trusting "no flag": every series has a
  /// single run, so nothing was compared.
  std::vector<std::string> warnings;
};

/// The history of `runs` (RunStore::ReadRuns). An error (`where` the option)
/// for a --node or --snapshot that no shown run has, with the closest one.
/// Incomplete runs are shown but neither judged nor used as the run before;
/// so are snapshots that could not be scored.
Result<History> AnalyseHistory(const std::vector<StoredRun>& runs, const HistoryOptions& options);

/// The series a trace is stored under by default (docs/commands.md#cookgraph-history):
/// PyTorch's profiler names each trace `WORKER.TIMESTAMP.pt.trace.json`, the
/// worker being `host_pid` unless the user named it, so every run of one job
/// gets a new name. For such a file: its folder's name and the worker when
/// the user named it, "resnet/pt.trace" or "resnet/rank0.pt.trace"; nullopt
/// for any other file name.
std::optional<std::string> KinetoSeries(const std::string& file);

/// --since's value: a run id (digits) or a date or time in StoredRun's form
/// (YYYY-MM-DD, optionally THH:MM, :SS, a trailing Z). Sets since_run or since_time.
Status ParseSince(const std::string& text, HistoryOptions& options);

}  // namespace cookgraph

#endif  // COOKGRAPH_STORE_HISTORY_H_
