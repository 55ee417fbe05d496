#ifndef COOKGRAPH_WRITERS_GRAPH_FORMATS_H_
#define COOKGRAPH_WRITERS_GRAPH_FORMATS_H_

// Output of `cookgraph graph`: topological order, loops, critical path and the
// edges with their kinds, as text, JSON or Graphviz DOT.

#include <cstddef>
#include <optional>
#include <string>

#include "base/json_writer.h"

#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

enum class GraphFormat : uint8_t { kText, kJson, kDot };

/// The whole output for one snapshot. `file` is the input path as given.
/// DOT colours nodes by score and draws feedback edges dashed.
/// The "critical_path" object of the JSON: `path`'s nodes and weight, and when
/// `events` is given (a trace's event critical path of one step) its rank,
/// window, length, events and time per node, written to `w`. With
/// `keep_events`, only the first that many events, then "truncated": true and
/// "events_total" (the `critical_path` tool's cut to fit its budget).
void WriteCriticalPath(JsonWriter& w, const Network& net, const Path& path, const StepPath* events,
                       std::optional<size_t> keep_events = std::nullopt);

std::string RenderGraph(GraphFormat format, const std::string& file, const Snapshot& snapshot,
                        const Analysis& analysis);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_GRAPH_FORMATS_H_
