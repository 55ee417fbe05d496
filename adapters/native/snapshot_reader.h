#ifndef COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_READER_H_
#define COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_READER_H_

// Reads the native snapshot format v1 (docs/formats.md#native-snapshot-format), spelled as JSON (plain or
// gzip) or YAML. Both spellings are read as a stream of events into one builder,
// so no document tree of the whole input is ever held in memory.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/byte_source.h"
#include "adapters/events.h"
#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class Spelling : uint8_t { kJson, kYaml };

/// Reads `path` ("-" = standard input). gzip is recognised from its magic bytes;
/// the spelling from the extension (.json, .yaml, .yml, each also under .gz),
/// else from the content. Errors name the file and, for syntax, the line and column.
Result<Snapshot> ReadSnapshotFile(const std::string& path, const InputLimits& limits = {});

/// How a JSON snapshot is read: by default on two threads from 16 MiB on
/// (COOKGRAPH_JSON_THREADS=1 or 2 overrides it), in two halves at once where
/// the input can be read twice and a node's series lies near its middle
/// (docs/performance.md#a-native-snapshot-in-two-halves), else with its
/// events read on a worker thread. Every way gives the same snapshot, or the
/// same error.
struct SnapshotReadOptions {
  JsonThreads threads = JsonThreads::kAuto;
  /// Where the second half is looked for (a node's series from this offset
  /// on; tests split anywhere), instead of the middle.
  std::optional<uint64_t> split_from;
  /// Set to whether the halves were joined.
  bool* joined = nullptr;
};

/// As ReadSnapshotFile, from a source opened by the caller (nothing read yet),
/// with the source's limits.
Result<Snapshot> ReadSnapshotSource(ByteSource& source, const SnapshotReadOptions& options = {});

/// Parses `text` as `spelling`; `file` is the name used in errors.
Result<Snapshot> ParseSnapshot(std::string_view text, Spelling spelling, const std::string& file,
                               const InputLimits& limits = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_READER_H_
