#ifndef COOKGRAPH_ADAPTERS_INPUT_FILES_H_
#define COOKGRAPH_ADAPTERS_INPUT_FILES_H_

// Turns the INPUT arguments of a command into the list of files to read.

#include <string>
#include <vector>

#include "graph/error.h"

namespace cookgraph {

struct InputList {
  std::vector<std::string> files;  // sorted, without duplicates; "-" kept as given
  std::vector<Error> errors;       // one per argument that gave no file
};

/// Files stay as given; directories are searched recursively for snapshot files
/// (.json, .json.gz, .yaml, .yml), sorted by path; "-" is standard input.
/// A missing path or a directory without snapshots is an error for that argument.
InputList ExpandInputs(const std::vector<std::string>& args);

/// True when `path` ends with an extension cookgraph reads.
bool HasSnapshotExtension(const std::string& path);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_INPUT_FILES_H_
