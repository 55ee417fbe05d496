#ifndef COOKGRAPH_WRITERS_SNAPSHOT_WRITER_H_
#define COOKGRAPH_WRITERS_SNAPSHOT_WRITER_H_

// Writes the native snapshot format v1 as JSON, gzip-compressed JSON or YAML.
// Numbers are written in their shortest round-trip form, so reading the output
// back gives bit-identical values.

#include <string>

#include "base/error.h"
#include "model/snapshot.h"

namespace cookgraph {

/// Writes `snapshot` to `path`, spelled by its extension (.json, .json.gz, .yaml,
/// .yml; "-" = JSON on standard output). The file appears whole or not at all
/// (written to a temporary file, then renamed).
Status WriteSnapshotFile(const Snapshot& snapshot, const std::string& path);

std::string SnapshotToJson(const Snapshot& snapshot);
std::string SnapshotToYaml(const Snapshot& snapshot);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_SNAPSHOT_WRITER_H_
