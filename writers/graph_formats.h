#ifndef COOKGRAPH_WRITERS_GRAPH_FORMATS_H_
#define COOKGRAPH_WRITERS_GRAPH_FORMATS_H_

// Output of `cookgraph graph`: topological order, loops, critical path and the
// edges with their kinds, as text, JSON or Graphviz DOT.

#include <string>

#include "metrics/analysis.h"
#include "metrics/snapshot.h"

namespace cookgraph {

enum class GraphFormat : uint8_t { kText, kJson, kDot };

/// The whole output for one snapshot. `file` is the input path as given.
/// DOT colours nodes by score and draws feedback edges dashed.
std::string RenderGraph(GraphFormat format, const std::string& file, const Snapshot& snapshot,
                        const Analysis& analysis);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_GRAPH_FORMATS_H_
