// critical_path_dump TRACE [--annotation A] [--instance I|A:B] [--no-zero-weight-launch-edges]
//                         [--summary]
// reads a Chrome trace with cookgraph's reader (adapters/chrome/chrome_trace.h),
// finds the event critical path of its first timeline (metrics/event_path.h)
// and prints it in the format of tests/tools/critical_path_check.py --dump,
// so that the two can be compared line for line (after sorting):
//   edge KIND FROM:b|e TO:b|e WEIGHT_NS
//   path POSITION EVENT NAME
//   length_ns N
// Events are their index in the file's traceEvents. Zero-weight launch edges
// are on unless --no-zero-weight-launch-edges (the checker's default, as
// HTA's tests set CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1). --summary adds
// a few counts and the analysis' time on stderr. Exit 2, the reason on
// stderr, when the trace cannot be read or has no critical path (HTA would
// fail or return None).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "adapters/chrome/chrome_trace.h"
#include "metrics/event_path.h"

namespace {

std::string Escape(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool ParseCount(std::string_view text, size_t& out) {
  if (text.empty()) return false;
  size_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  out = v;
  return true;
}

int Usage() {
  std::fprintf(stderr,
               "usage: critical_path_dump TRACE [--annotation A] [--instance I|A:B] "
               "[--no-zero-weight-launch-edges] [--summary]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cookgraph;
  std::string trace;
  EventPathOptions options;
  options.zero_weight_launch_edges = true;
  bool summary = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view value;  // of --option=value, or the next argument
    const bool inline_value = arg.starts_with("--") && arg.find('=') != std::string_view::npos;
    if (inline_value) {
      value = arg.substr(arg.find('=') + 1);
      arg = arg.substr(0, arg.find('='));
    }
    const bool has_value = inline_value || i + 1 < argc;
    if ((arg == "--annotation" || arg == "--instance") && !inline_value && has_value) {
      value = argv[++i];
    }
    if (arg == "--annotation" && has_value) {
      options.annotation = std::string(value);
    } else if (arg == "--instance" && has_value) {
      // HTA's instance_id: an int, or a (start, end) tuple written A:B.
      const std::string_view text = value;
      if (text.empty() || text == "None") continue;
      const size_t colon = text.find(':');
      size_t first = 0, last = 0;
      if (colon == std::string_view::npos) {
        if (!ParseCount(text, first)) return Usage();
        options.instance = first;
      } else {
        if (!ParseCount(text.substr(0, colon), first) ||
            !ParseCount(text.substr(colon + 1), last)) {
          return Usage();
        }
        options.instance = first;
        options.last_instance = last;
      }
    } else if (arg == "--no-zero-weight-launch-edges") {
      options.zero_weight_launch_edges = false;
    } else if (arg == "--summary") {
      summary = true;
    } else if (!arg.starts_with("--") && trace.empty()) {
      trace = arg;
    } else {
      return Usage();
    }
  }
  if (trace.empty()) return Usage();

  auto read = ReadChromeTraceFile(trace, ChromeTraceOptions{});
  if (!read) {
    std::fprintf(stderr, "%s\n", read.error().Format().c_str());
    return 2;
  }
  if (read->timelines.empty()) {
    std::fprintf(stderr, "%s: no timeline\n", trace.c_str());
    return 2;
  }
  const Timeline& t = read->timelines[0];
  const auto began = std::chrono::steady_clock::now();
  auto path = EventCriticalPath(t, options);
  const double analysis_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  if (!path) {
    std::fprintf(stderr, "%s\n", path.error().Format().c_str());
    return 2;
  }
  for (const EventEdge& e : path->edges) {
    std::printf("edge %s %u:%c %u:%c %lld\n", std::string(EventEdgeKindName(e.kind)).c_str(),
                t.events[e.from].source, e.from_end ? 'e' : 'b', t.events[e.to].source,
                e.to_end ? 'e' : 'b', static_cast<long long>(e.weight_ns));
  }
  for (size_t i = 0; i < path->events.size(); ++i) {
    const TimelineEvent& e = t.events[path->events[i]];
    std::printf("path %04zu %u %s\n", i, e.source, Escape(t.name(e)).c_str());
  }
  std::printf("length_ns %lld\n", static_cast<long long>(path->length_ns));
  if (summary) {
    size_t gpu = 0;
    for (uint32_t e : path->events) gpu += IsGpuKind(t.events[e].kind) ? 1 : 0;
    std::fprintf(stderr,
                 "window_ns: %lld %lld\nwindow_events: %zu\ngraph_nodes: %zu\nedges: %zu\n"
                 "path_nodes: %zu\npath_events: %zu\npath_gpu_events: %zu\nlength_ns: %lld\n"
                 "clamped: %zu\nwarnings: %zu\nanalysis_ms: %.1f\n",
                 static_cast<long long>(path->window_start_ns),
                 static_cast<long long>(path->window_end_ns), path->window_events, path->nodes,
                 path->edges.size(), path->path.size() + 1, path->events.size(), gpu,
                 static_cast<long long>(path->length_ns), path->clamped, path->warnings.size(),
                 analysis_ms);
    for (const std::string& w : path->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  }
  return 0;
}
