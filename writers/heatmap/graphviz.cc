#include "writers/heatmap/graphviz.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "base/lazy_library.h"
#include "base/text.h"
#include "writers/heatmap/graphviz_api.h"

namespace cookgraph {

const GraphvizApi& Graphviz() {
  static const GraphvizApi api = [] {
    static const LazyLibrary cgraph("libcgraph.so.6", "libcgraph6");
    static const LazyLibrary gvc("libgvc.so.6", "libgvc6");
    GraphvizApi a{};
    cgraph.Load(a.agopen, "agopen");
    cgraph.Load(a.agclose, "agclose");
    cgraph.Load(a.agattr, "agattr");
    cgraph.Load(a.agsafeset, "agsafeset");
    cgraph.Load(a.agnode, "agnode");
    cgraph.Load(a.agedge, "agedge");
    cgraph.Load(a.agsubg, "agsubg");
    cgraph.Load(a.agstrdup_html, "agstrdup_html");
    cgraph.Load(a.agstrfree, "agstrfree");
    cgraph.Load(a.agseterrf, "agseterrf");
    cgraph.Load(a.Agdirected, "Agdirected");
    cgraph.Load(a.AgMemDisc, "AgMemDisc");
    cgraph.Load(a.AgIoDisc, "AgIoDisc");
    gvc.Load(a.gvContext, "gvContext");
    gvc.Load(a.gvLayout, "gvLayout");
    gvc.Load(a.gvFreeLayout, "gvFreeLayout");
    gvc.Load(a.gvRenderData, "gvRenderData");
    gvc.Load(a.gvFreeRenderData, "gvFreeRenderData");
    return a;
  }();
  return api;
}

namespace {

// ---------------------------------------------------------------------------
// Graphviz's global state. cgraph keeps its error channel, and gvc its plugin
// registry, in globals; neither is thread-safe. Everything that touches them
// runs under this mutex, and the context lives for the whole process (loading
// the plugin configuration again for every picture would cost more than the
// layout of a small network).

std::mutex& GraphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// Where Graphviz's messages go while the mutex is held, instead of standard
// error. Continuation pieces of one message arrive as separate calls.
std::string* g_messages = nullptr;

int CollectMessage(char* text) {
  if (g_messages != nullptr && text != nullptr && g_messages->size() < 4096) *g_messages += text;
  return 0;
}

GVC_t* Context() {
  static GVC_t* const context = [] {
    Graphviz().agseterrf(CollectMessage);
    return Graphviz().gvContext();
  }();
  return context;
}

/// The collected messages as single lines, without Graphviz's "Error:" and
/// "Warning:" prefixes.
std::vector<std::string> MessageLines(const std::string& messages) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < messages.size()) {
    size_t end = std::min(messages.find('\n', start), messages.size());
    std::string_view line = std::string_view(messages).substr(start, end - start);
    for (std::string_view prefix : {"Error: ", "Warning: ", "Error:", "Warning:"}) {
      if (line.starts_with(prefix)) line.remove_prefix(prefix.size());
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (!line.empty()) {
      std::string text = Printable(line);
      if (std::find(lines.begin(), lines.end(), text) == lines.end()) lines.push_back(text);
    }
    start = end + 1;
  }
  if (lines.size() > 5) lines.resize(5);
  return lines;
}

// ---------------------------------------------------------------------------
// Object ids in creation order. cgraph's default discipline uses the address
// of a name's interned string as the object's id and keeps subgraphs sorted by
// id, so the clusters would come out of the SVG in an order that changes from
// run to run. Named objects get even ids 2, 4, ... and anonymous ones (edges)
// odd ids, as cgraph requires; the same inputs then give the same bytes.

struct SequentialIds {
  std::unordered_map<std::string, IDTYPE> by_name;
  std::deque<std::string> names;  // names[id / 2 - 1]; a deque keeps c_str() stable
  IDTYPE next_anonymous = 1;
};

void* IdOpen(Agraph_t*, Agdisc_t*) { return new SequentialIds; }

long IdMap(void* state, int, char* str, IDTYPE* id, int createflag) {
  auto* ids = static_cast<SequentialIds*>(state);
  if (str == nullptr) {
    *id = ids->next_anonymous;
    ids->next_anonymous += 2;
    return 1;
  }
  auto found = ids->by_name.find(str);
  if (found != ids->by_name.end()) {
    *id = found->second;
    return 1;
  }
  if (!createflag) return 0;
  ids->names.emplace_back(str);
  *id = 2 * static_cast<IDTYPE>(ids->names.size());
  ids->by_name.emplace(ids->names.back(), *id);
  return 1;
}

long IdAlloc(void*, int, IDTYPE) { return 0; }  // no object asks for an id of its own
void IdFree(void*, int, IDTYPE) {}              // names live until the graph closes

char* IdPrint(void* state, int, IDTYPE id) {
  auto* ids = static_cast<SequentialIds*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > ids->names.size()) return nullptr;
  return const_cast<char*>(ids->names[id / 2 - 1].c_str());
}

void IdClose(void* state) { delete static_cast<SequentialIds*>(state); }
void IdRegister(void*, int, void*) {}

Agiddisc_t kSequentialIdDisc = {IdOpen, IdMap, IdAlloc, IdFree, IdPrint, IdClose, IdRegister};

// ---------------------------------------------------------------------------
// Closing what was opened, on every path out.

struct GraphCloser {
  GVC_t* gvc;
  bool laid_out = false;
  void operator()(Agraph_t* g) const {
    if (laid_out) Graphviz().gvFreeLayout(gvc, g);
    Graphviz().agclose(g);
  }
};

struct RenderDataFree {
  void operator()(char* data) const { Graphviz().gvFreeRenderData(data); }
};

}  // namespace

Result<DotRendering> RenderDotSvg(const std::string& file,
                                  const std::function<void(Agraph_s*)>& build) {
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  std::string messages;
  g_messages = &messages;
  struct Reset {
    ~Reset() { g_messages = nullptr; }
  } reset;
  auto fail = [&](std::string_view what) {
    const std::vector<std::string> lines = MessageLines(messages);
    std::string message = fmt::format("Graphviz could not {}", what);
    if (!lines.empty()) message += ": " + lines.front();
    return Error{.file = file, .message = message};
  };
  try {
    Graphviz();
  } catch (const LibraryMissing& missing) {
    return Error{.file = file, .message = missing.what()};
  }
  GVC_t* gvc = Context();
  if (gvc == nullptr) return fail("start (gvContext failed)");
  Agdisc_t discipline = {Graphviz().AgMemDisc, &kSequentialIdDisc, Graphviz().AgIoDisc};
  GraphCloser closer{gvc};
  std::unique_ptr<Agraph_t, GraphCloser&> graph(
      Graphviz().agopen(const_cast<char*>("cookgraph"), *Graphviz().Agdirected, &discipline), closer);
  if (graph == nullptr) return fail("create a graph");
  build(graph.get());
  if (Graphviz().gvLayout(gvc, graph.get(), "dot") != 0) {
    return fail("lay out the network (is its dot layout plugin installed?)");
  }
  closer.laid_out = true;
  char* data = nullptr;
  unsigned int length = 0;
  const int rendered = Graphviz().gvRenderData(gvc, graph.get(), "svg", &data, &length);
  std::unique_ptr<char, RenderDataFree> owned(data);
  if (rendered != 0 || data == nullptr) {
    return fail("render the network as SVG (is its core plugin installed?)");
  }
  DotRendering out;
  out.svg.assign(data, length);
  out.warnings = MessageLines(messages);
  return out;
}

}  // namespace cookgraph
