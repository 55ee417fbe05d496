#ifndef COOKGRAPH_WRITERS_HEATMAP_HEATMAP_SVG_H_
#define COOKGRAPH_WRITERS_HEATMAP_HEATMAP_SVG_H_

// The network heatmap: the network laid out by Graphviz's dot (through its
// library, in memory) and rendered as SVG. Nodes are filled by score on the
// viridis scale, edges styled by kind, containers drawn as clusters, the
// critical path in red, and a legend that says what was left out of a large
// network (heatmap_select.h).

#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"
#include "writers/heatmap/heatmap_select.h"

namespace cookgraph {

struct Heatmap {
  std::string svg;  // a complete SVG document, as Graphviz writes it
  /// The picture's own size (the root's width and height), in points;
  /// 0 = unknown. Its viewBox is the same size, so it scales to any box.
  double width_pt = 0, height_pt = 0;
  HeatmapSelection selection;
  /// Graphviz's own warnings (it would print them on standard error), one
  /// line each, at most a few.
  std::vector<std::string> warnings;
};

/// Lays out and renders the heatmap of one snapshot. `file` is the input path
/// as given, for the picture's title and for errors. Fails only when Graphviz
/// does (no dot layout or SVG renderer installed, or an internal error).
/// Safe to call from several threads: Graphviz's global state is guarded by a
/// mutex, so calls run one at a time.
Result<Heatmap> DrawHeatmap(const std::string& file, const Snapshot& snapshot,
                            const Analysis& analysis, const HeatmapLimits& limits = {});

/// The `<svg>` element of an SVG document, for inline use in HTML: without
/// the XML declaration, doctype and comments before it, and without the
/// namespace declarations on the root (HTML's parser puts inline SVG in the
/// SVG namespace itself), so that the page holds no URL. Empty when `svg` has
/// no `<svg` element.
std::string InlineSvg(std::string_view svg);

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_HEATMAP_HEATMAP_SVG_H_
