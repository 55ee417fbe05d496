#ifndef COOKGRAPH_WRITERS_HEATMAP_GRAPHVIZ_H_
#define COOKGRAPH_WRITERS_HEATMAP_GRAPHVIZ_H_

// Internal to adapters/: Graphviz's library (cgraph and gvc) behind one call.
// Graphviz keeps global state (cgraph's error channel, gvc's plugin registry)
// and is not thread-safe, so every use goes through RenderDotSvg, which holds
// a process-wide mutex.

#include <functional>
#include <string>
#include <vector>

#include "base/error.h"

struct Agraph_s;  // cgraph's Agraph_t; include <graphviz/cgraph.h> to fill one

namespace cookgraph {

struct DotRendering {
  std::string svg;  // a complete SVG document
  /// Graphviz's own warnings (it would print them on standard error), one
  /// line each without its "Warning:" prefix, at most five.
  std::vector<std::string> warnings;
};

/// Opens an empty directed cgraph graph, lets `build` fill it (attributes,
/// subgraphs, nodes, edges), lays it out with dot and renders it as SVG, all
/// in memory. Calls run one at a time. Graphviz's messages never reach
/// standard error: a failure returns the first one in its error (naming
/// `file`), a success returns them as warnings. Objects are numbered in
/// creation order, so the same graph gives the same bytes on every run.
Result<DotRendering> RenderDotSvg(const std::string& file,
                                  const std::function<void(Agraph_s*)>& build);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_HEATMAP_GRAPHVIZ_H_
