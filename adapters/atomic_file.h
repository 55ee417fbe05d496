#ifndef COOKGRAPH_ADAPTERS_ATOMIC_FILE_H_
#define COOKGRAPH_ADAPTERS_ATOMIC_FILE_H_

// Files appear whole or not at all: written to a temporary file beside the
// target, then renamed over it.

#include <string>
#include <string_view>

#include "graph/error.h"

namespace cookgraph {

/// Writes `contents` to `path` atomically.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_ATOMIC_FILE_H_
