#ifndef COOKGRAPH_STORE_STORE_H_
#define COOKGRAPH_STORE_STORE_H_

// The history of runs (`score --store DB`, `cookgraph history DB`): each scored
// snapshot's summary and every node's statistics, kept in SQLite (a file,
// runs.db by default) or PostgreSQL (a postgresql:// URL)
// (docs/commands.md#history-of-runs).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/error.h"
#include "writers/score.h"
#include "writers/summary.h"

namespace cookgraph {

/// One snapshot of a run: its summary row and its nodes as `score --format csv`
/// writes them (ScoreRows with every node, ranked by score). A snapshot that
/// could not be scored has summary.error set and no nodes.
struct StoredSnapshot {
  SnapshotSummary summary;
  ScoreTable nodes;
};

/// What a run is: one `score --store` invocation.
struct RunInfo {
  std::string label;    // --label (a commit, a build number); "" = none
  std::string options;  // the options that change the numbers (--budget-ms, --format-in, ...)
  std::string version;  // cookgraph's version
};

/// A run as read back (RunStore::ReadRuns).
struct StoredRun {
  int64_t id = 0;           // ids rise in the order runs began
  std::string started_at;   // UTC, ISO 8601 with milliseconds: "2026-11-27T09:30:00.125Z"
  std::string finished_at;  // the same form; "" = incomplete (interrupted, or still running)
  RunInfo info;
  /// In the order they were stored. Their `nodes` have the columns of
  /// `score --format csv` (file, name, engine, then the node columns) with the
  /// values as stored: a table written by AddSnapshot reads back equal.
  std::vector<StoredSnapshot> snapshots;

  bool complete() const { return !finished_at.empty(); }
};

class RunStore {
 public:
  virtual ~RunStore() = default;
  /// Starts a run: a row with the time (UTC) and `info`. Returns its id.
  virtual Result<int64_t> BeginRun(const RunInfo& info) = 0;
  /// Stores one snapshot of run `run` in one transaction: all of it or,
  /// on an error, nothing.
  virtual Status AddSnapshot(int64_t run, const StoredSnapshot& snapshot) = 0;
  /// Marks run `run` complete.
  virtual Status FinishRun(int64_t run) = 0;
  /// Every run with its snapshots, by id, read in one consistent view (a
  /// writer storing at the same time is seen before or after a snapshot,
  /// never half-way).
  virtual Result<std::vector<StoredRun>> ReadRuns() = 0;

  /// What the user should be told about how the store was opened, one line
  /// each naming the database: an SQLite history read as an unchanging file
  /// because its folder cannot be written (docs/commands.md#cookgraph-history).
  const std::vector<Error>& warnings() const { return warnings_; }

 protected:
  std::vector<Error> warnings_;
};

/// What OpenRunStore may do to the database.
enum class StoreAccess : uint8_t {
  kWrite,  // create the file and the schema, or upgrade it, as needed
  kRead,   // the database and its schema must exist; nothing is created or changed
};

/// Opens the store at `target`: a postgresql:// or postgres:// URL, else an
/// SQLite file path. A database written by a newer cookgraph (a higher schema
/// version) is refused, as is an SQLite file that is not a cookgraph history.
Result<std::unique_ptr<RunStore>> OpenRunStore(const std::string& target,
                                               StoreAccess access = StoreAccess::kWrite);

/// True for a postgresql:// or postgres:// URL (the scheme in any case).
bool IsPostgresTarget(const std::string& target);

/// `target` as messages show it: a URL's password replaced by "***".
std::string DisplayTarget(const std::string& target);

}  // namespace cookgraph

#endif  // COOKGRAPH_STORE_STORE_H_
