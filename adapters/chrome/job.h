#ifndef COOKGRAPH_ADAPTERS_CHROME_JOB_H_
#define COOKGRAPH_ADAPTERS_CHROME_JOB_H_

// One job, many ranks (docs/formats.md#one-job-many-ranks): the traces of the
// ranks of one distributed job (Kineto's distributedInfo), read as one
// snapshot. Each rank keeps its own timeline; the nodes and steps are joined.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

struct RankInfo {
  int64_t rank = 0;
  int64_t world_size = 0;
};

/// Kineto's "distributedInfo": {"rank": R, "world_size": W} found in the first
/// bytes of a trace (it comes before traceEvents), or nullopt.
std::optional<RankInfo> FindDistributedInfo(std::string_view head);

/// Joins the snapshots of the ranks of one job (each read from one trace,
/// with its one timeline) into one:
/// - nodes: every rank's, by id, in the order they first appear (rank order);
///   edges: all of them, once;
/// - steps: every step number any rank has, in order; a step's frame_ms is the
///   slowest rank's (the job's step ends when its last rank does);
/// - per step and node: cook_ms, gpu_ms and the memory columns are the mean over
///   the ranks that have the step (a rank where the node did not run counts 0),
///   cooks the mean count; a node no rank ran in that step has no value;
/// - timelines: one per rank, by rank.
/// `name` names the job (the folder, or the first file). Fails when two
/// snapshots carry the same rank.
Result<Snapshot> MergeRanks(std::vector<Snapshot> ranks, const std::string& name);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_CHROME_JOB_H_
