#ifndef COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_READER_H_
#define COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_READER_H_

// Reads the native snapshot format v1 (docs/formats.md#native-snapshot-format), spelled as JSON (plain or
// gzip) or YAML. Both spellings are read as a stream of events into one builder,
// so no document tree of the whole input is ever held in memory.

#include <string>
#include <string_view>

#include "adapters/byte_source.h"
#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class Spelling : uint8_t { kJson, kYaml };

/// Reads `path` ("-" = standard input). gzip is recognised from its magic bytes;
/// the spelling from the extension (.json, .yaml, .yml, each also under .gz),
/// else from the content. Errors name the file and, for syntax, the line and column.
Result<Snapshot> ReadSnapshotFile(const std::string& path, const InputLimits& limits = {});

/// As ReadSnapshotFile, from a source opened by the caller (nothing read yet),
/// with the source's limits.
Result<Snapshot> ReadSnapshotSource(ByteSource& source);

/// Parses `text` as `spelling`; `file` is the name used in errors.
Result<Snapshot> ParseSnapshot(std::string_view text, Spelling spelling, const std::string& file,
                               const InputLimits& limits = {});

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_READER_H_
