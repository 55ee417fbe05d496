#ifndef COOKGRAPH_WRITERS_HEATMAP_GRAPHVIZ_API_H_
#define COOKGRAPH_WRITERS_HEATMAP_GRAPHVIZ_API_H_

// Internal to writers/heatmap/: the Graphviz functions and data the heatmap
// uses, from libcgraph.so.6 and libgvc.so.6 opened on first use
// (base/lazy_library.h), so that only a heatmap loads Graphviz and its
// plugin loader. Members keep the C names: Graphviz().agattr(...).

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

namespace cookgraph {

struct GraphvizApi {
  // cgraph: graphs, their objects and attributes.
  decltype(&::agopen) agopen;
  decltype(&::agclose) agclose;
  decltype(&::agattr) agattr;
  decltype(&::agsafeset) agsafeset;
  decltype(&::agnode) agnode;
  decltype(&::agedge) agedge;
  decltype(&::agsubg) agsubg;
  decltype(&::agstrdup_html) agstrdup_html;
  decltype(&::agstrfree) agstrfree;
  decltype(&::agseterrf) agseterrf;
  Agdesc_t* Agdirected;
  Agmemdisc_t* AgMemDisc;
  Agiodisc_t* AgIoDisc;
  // gvc: layout and rendering.
  decltype(&::gvContext) gvContext;
  decltype(&::gvLayout) gvLayout;
  decltype(&::gvFreeLayout) gvFreeLayout;
  decltype(&::gvRenderData) gvRenderData;
  decltype(&::gvFreeRenderData) gvFreeRenderData;
};

/// Graphviz's functions; the first call loads the libraries. Throws
/// LibraryMissing when either is missing.
const GraphvizApi& Graphviz();

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_HEATMAP_GRAPHVIZ_API_H_
