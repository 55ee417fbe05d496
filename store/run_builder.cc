#include "store/run_builder.h"

#include <fmt/format.h>

#include "store/schema.h"

namespace cookgraph::store_schema {

void RunBuilder::AddRun(StoredRun run) {
  run_at_[run.id] = runs_.size();
  runs_.push_back(std::move(run));
}

Status RunBuilder::AddSnapshot(int64_t id, int64_t run_id, std::span<const ScoreValue> cells) {
  auto owner = run_at_.find(run_id);
  if (owner == run_at_.end()) {
    return Error{.message =
                     fmt::format("snapshot {} belongs to no run: the database is damaged", id)};
  }
  std::vector<StoredSnapshot>& snapshots = runs_[owner->second].snapshots;
  snapshots.push_back({SummaryFromCells(cells), {}});
  snapshot_at_[id] = {owner->second, snapshots.size() - 1};
  return {};
}

void RunBuilder::AddNode(int64_t snapshot_id, std::vector<ScoreValue> cells) {
  nodes_[snapshot_id].push_back(std::move(cells));
}

Result<std::vector<StoredRun>> RunBuilder::Finish() && {
  for (auto& [id, rows] : nodes_) {
    auto found = snapshot_at_.find(id);
    if (found == snapshot_at_.end()) {
      return Error{
          .message = fmt::format(
              "nodes belong to snapshot {}, which is not stored: the database is damaged", id)};
    }
    StoredSnapshot& snapshot = runs_[found->second.first].snapshots[found->second.second];
    snapshot.nodes = NodeTable(snapshot.summary, std::move(rows));
  }
  return std::move(runs_);
}

}  // namespace cookgraph::store_schema
