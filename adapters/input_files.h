#ifndef COOKGRAPH_ADAPTERS_INPUT_FILES_H_
#define COOKGRAPH_ADAPTERS_INPUT_FILES_H_

// Turns the INPUT arguments of a command into the list of inputs to read.

#include <string>
#include <vector>

#include "base/error.h"

namespace cookgraph {

/// One input: one file (or "-"), a folder holding a GStreamer recording, or a
/// GStreamer dump and its log given as files.
struct Input {
  std::vector<std::string> paths;
  /// How results and errors name it: the path, or the paths joined by " + ".
  std::string name() const;
  bool operator<(const Input& other) const { return paths < other.paths; }
  bool operator==(const Input& other) const { return paths == other.paths; }
};

struct InputList {
  std::vector<Input> inputs;  // sorted, without duplicates; "-" kept as given
  std::vector<Error> errors;    // one per argument that gave no input
  std::vector<Error> warnings;  // what was read otherwise than it looks (GroupJobs)
};

/// Files stay as given, except that GStreamer dumps and logs (recognised by
/// content) in one folder are one input, and so are the traces of the ranks of
/// one job in one folder (GroupJobs), given as files or found in a folder. A folder that holds a GStreamer dump
/// is one input (a recording); other folders are searched recursively for
/// files cookgraph reads (.json, .yaml, .yml, plain or .gz, and folders with a
/// GStreamer dump), sorted by path. "-" is standard input. A missing path or a
/// folder with nothing to read is an error for that argument. An entry named
/// as an input (or a .dot dump) that is not a regular file (a FIFO, never
/// opened; a socket; a link to a missing file or that loops) is an error
/// naming it and why (NotAFileReason), and a link to a folder (not followed)
/// a warning naming it: nothing in a folder is passed over unnamed.
InputList ExpandInputs(const std::vector<std::string>& args);

/// True when `path` ends with an extension of the JSON/YAML formats cookgraph reads.
bool HasSnapshotExtension(const std::string& path);

/// True when `folder` directly holds a GStreamer .dot dump (by content).
bool HoldsGstreamerDump(const std::string& folder);

/// The traces among `files` that are ranks of one distributed job (Chrome
/// traces whose distributedInfo gives the same world size and distinct ranks,
/// in one folder), each group sorted; a group has two or more files. Files in
/// no group are left out of the result. A folder's traces of one world size
/// whose ranks repeat (two runs of one job side by side) are no job: each is
/// its own input, and `not_jobs` (when given) gets a warning naming two of them.
std::vector<std::vector<std::string>> GroupJobs(const std::vector<std::string>& files,
                                                std::vector<Error>* not_jobs = nullptr);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_INPUT_FILES_H_
