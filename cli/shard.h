#ifndef COOKGRAPH_CLI_SHARD_H_
#define COOKGRAPH_CLI_SHARD_H_

// `score --shard` and `cookgraph merge` (docs/commands.md#shards-and-merging):
// which slice of the input list a shard scores, and the record a shard writes
// into its output so that `merge` can put the parts back together exactly.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "adapters/input_files.h"
#include "base/error.h"

namespace cookgraph::cli {

/// One shard: the `index`-th (0-based) of `count` contiguous slices.
struct ShardSpec {
  size_t index = 0;
  size_t count = 1;
};

/// Reads an environment variable; nullptr when it is not set.
using Getenv = std::function<const char*(const char*)>;

/// `--shard K/N` (1-based K, as a person counts) or `--shard auto`: Slurm's
/// SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN (divided by
/// SLURM_ARRAY_TASK_STEP) of SLURM_ARRAY_TASK_COUNT, else Kubernetes'
/// JOB_COMPLETION_INDEX of JOB_COMPLETIONS; both 0-based as they are.
Result<ShardSpec> ParseShard(const std::string& spec, const Getenv& getenv);

/// The shard's slice of `files` (possibly empty).
std::vector<Input> Slice(const std::vector<Input>& files, const ShardSpec& shard);

/// What a shard's output records of itself: which slice of how many inputs,
/// a digest of the whole input list, and the options that shape the output.
struct ShardRecord {
  ShardSpec shard;
  size_t inputs = 0;      // files in the whole list, before slicing
  std::string list;       // FNV-1a 64 of the whole list's names, hex
  std::string options;    // e.g. "format=csv sort=score top=0 budget-ms=- ..."
};

/// The digest of an input list, for ShardRecord::list.
std::string ListDigest(const std::vector<Input>& files);

/// The record as one JSON object.
std::string ShardRecordJson(const ShardRecord& record);
/// Parses ShardRecordJson's text; an Error without a file when it is not one.
Result<ShardRecord> ParseShardRecord(std::string_view json);

/// The first line of a sharded CSV: "#cookgraph-shard " and the record; its
/// last line is kCsvShardEnd, so that a part cut short is refused.
inline constexpr std::string_view kCsvShardPrefix = "#cookgraph-shard ";
inline constexpr std::string_view kCsvShardEnd = "#cookgraph-shard-end";

}  // namespace cookgraph::cli

#endif  // COOKGRAPH_CLI_SHARD_H_
