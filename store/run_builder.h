#ifndef COOKGRAPH_STORE_RUN_BUILDER_H_
#define COOKGRAPH_STORE_RUN_BUILDER_H_

// Internal to store/: the StoredRuns of RunStore::ReadRuns, put together from
// the rows of runs, snapshots and nodes as either database returns them, so
// that the two backends only read rows.

#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "base/error.h"
#include "store/store.h"

namespace cookgraph::store_schema {

class RunBuilder {
 public:
  /// Runs first, by id.
  void AddRun(StoredRun run);
  /// Then snapshots, by id; `cells` in SnapshotColumns' order. An error
  /// (message only) when its run was not added: a damaged database.
  Status AddSnapshot(int64_t id, int64_t run_id, std::span<const ScoreValue> cells);
  /// Then nodes, by snapshot and position; `cells` in NodeColumns' order.
  void AddNode(int64_t snapshot_id, std::vector<ScoreValue> cells);
  /// The runs; an error (message only) for nodes of a snapshot not added.
  Result<std::vector<StoredRun>> Finish() &&;

 private:
  std::vector<StoredRun> runs_;
  std::map<int64_t, size_t> run_at_;  // run id -> index in runs_
  std::map<int64_t, std::pair<size_t, size_t>>
      snapshot_at_;  // snapshot id -> run index, index in it
  std::map<int64_t, std::vector<std::vector<ScoreValue>>> nodes_;  // snapshot id -> its rows
};

}  // namespace cookgraph::store_schema

#endif  // COOKGRAPH_STORE_RUN_BUILDER_H_
