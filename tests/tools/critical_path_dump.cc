// critical_path_dump TRACE [--annotation A] [--instance I|A:B] [--no-zero-weight-launch-edges]
//                         [--summary]
// critical_path_dump TRACE --all-steps [--annotation A] [--perturb]
// reads a Chrome trace with cookgraph's reader (adapters/chrome/chrome_trace.h),
// finds the event critical path of its first timeline (metrics/event_critical_path.h)
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
//
// --all-steps checks ForEachEventCriticalPath against EventCriticalPath: on
// every timeline of the trace, for many windows at once (each instance of the
// annotation, ProfilerStep when none or "" is given, and one past the last, forwards with
// zero-weight launch edges and backwards without; the whole trace; ranges;
// each name holding the annotation as an annotation of its own), every field
// of every result (edges with their owners, path, events, counts, warnings,
// errors) must equal the one-window call's. One line per window on stdout;
// exit 1, the first difference on stderr, when one differs. --perturb changes
// one edge weight of the many-window results first, so the check must fail.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/chrome/chrome_trace.h"
#include "base/text.h"
#include "metrics/event_critical_path.h"

namespace {

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
               "[--no-zero-weight-launch-edges] [--summary]\n"
               "       critical_path_dump TRACE --all-steps [--annotation A] [--perturb]\n");
  return 2;
}

std::string Describe(const cookgraph::EventPathOptions& o) {
  std::string out =
      "annotation '" + cookgraph::EscapeTabField(o.annotation) + "' instance " + std::to_string(o.instance);
  if (o.last_instance) out += ":" + std::to_string(*o.last_instance);
  return out + (o.zero_weight_launch_edges ? " zero-weight launch edges" : "");
}

// Every field of a result, one line each; events by their index in the timeline.
std::vector<std::string> Lines(const cookgraph::Result<cookgraph::EventPath>& r) {
  using namespace cookgraph;
  std::vector<std::string> out;
  if (!r) {
    out.push_back("error " + r.error().Format());
    return out;
  }
  const EventPath& p = *r;
  out.push_back(
      "window_ns " + std::to_string(p.window_start_ns) + " " + std::to_string(p.window_end_ns) +
      " window_events " + std::to_string(p.window_events) + " nodes " + std::to_string(p.nodes) +
      " clamped " + std::to_string(p.clamped) + " length_ns " + std::to_string(p.length_ns));
  for (const EventEdge& e : p.edges) {
    out.push_back("edge " + std::string(EventEdgeKindName(e.kind)) + " " + std::to_string(e.from) +
                  (e.from_end ? ":e " : ":b ") + std::to_string(e.to) + (e.to_end ? ":e " : ":b ") +
                  std::to_string(e.weight_ns) + " owner " +
                  (e.owner == kNoIndex ? std::string("-") : std::to_string(e.owner)));
  }
  for (uint32_t i : p.path) out.push_back("path_edge " + std::to_string(i));
  for (uint32_t e : p.events) out.push_back("event " + std::to_string(e));
  for (const std::string& w : p.warnings) out.push_back("warning " + w);
  return out;
}

// The windows --all-steps asks for, on timeline `t`.
std::vector<cookgraph::EventPathOptions> AllSteps(const cookgraph::Timeline& t,
                                                  const std::string& annotation) {
  using namespace cookgraph;
  std::vector<std::string> holders;  // the distinct names holding the annotation
  size_t count = 0;                  // events whose name holds it: at least the instances
  for (const TimelineEvent& e : t.events) {
    if (t.name(e).find(annotation) == std::string::npos) continue;
    ++count;
    if (std::find(holders.begin(), holders.end(), t.name(e)) == holders.end()) {
      holders.push_back(t.name(e));
    }
  }
  std::vector<EventPathOptions> out;
  auto add = [&](std::string a, size_t first, std::optional<size_t> last, bool zero) {
    out.push_back(EventPathOptions{.annotation = std::move(a),
                                   .instance = first,
                                   .last_instance = last,
                                   .zero_weight_launch_edges = zero});
  };
  for (size_t i = 0; i <= count; ++i) add(annotation, i, std::nullopt, true);
  for (size_t i = count + 1; i-- > 0;) add(annotation, i, std::nullopt, false);
  add("", 0, std::nullopt, true);
  add("", 0, std::nullopt, false);
  add(annotation, 0, count, true);  // past the last one: up to the last one
  add(annotation, 1, 0, false);     // an empty range: an error
  add("no event has this name", 0, std::nullopt, true);
  for (const std::string& name : holders) add(name, 0, std::nullopt, true);
  return out;
}

// --all-steps on one timeline: 0 when every window's result is the same both
// ways, else 1 with the first difference on stderr.
int CheckAllSteps(const cookgraph::Timeline& t, const std::string& annotation, bool perturb) {
  using namespace cookgraph;
  const std::vector<EventPathOptions> windows = AllSteps(t, annotation);
  std::vector<std::vector<std::string>> many(windows.size());
  bool perturbed = !perturb;
  ForEachEventCriticalPath(t, windows, [&](size_t i, Result<EventPath> path) {
    if (!perturbed && path && !path->edges.empty()) {
      ++path->edges.front().weight_ns;
      perturbed = true;
    }
    many[i] = Lines(path);
  });
  for (size_t i = 0; i < windows.size(); ++i) {
    const std::vector<std::string> one = Lines(EventCriticalPath(t, windows[i]));
    const size_t edges = static_cast<size_t>(std::count_if(
        one.begin(), one.end(), [](const std::string& l) { return l.starts_with("edge "); }));
    std::printf("rank %u window %zu (%s): %s\n", t.rank, i, Describe(windows[i]).c_str(),
                one.front().starts_with("error ") ? one.front().c_str()
                                                  : (std::to_string(edges) + " edges").c_str());
    for (size_t k = 0; k < std::max(one.size(), many[i].size()); ++k) {
      const std::string a = k < one.size() ? one[k] : "(nothing)";
      const std::string b = k < many[i].size() ? many[i][k] : "(nothing)";
      if (a == b) continue;
      std::fprintf(stderr,
                   "rank %u window %zu (%s), line %zu:\n  one window:   %s\n  many windows: %s\n",
                   t.rank, i, Describe(windows[i]).c_str(), k + 1, a.c_str(), b.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cookgraph;
  std::string trace;
  EventPathOptions options;
  options.zero_weight_launch_edges = true;
  bool summary = false, all_steps = false, perturb = false;
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
    } else if (arg == "--all-steps") {
      all_steps = true;
    } else if (arg == "--perturb") {
      perturb = true;
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
  if (all_steps) {
    // "" would be the whole trace whatever the instance: the steps then.
    const std::string annotation =
        options.annotation.empty() ? std::string("ProfilerStep") : options.annotation;
    for (const Timeline& timeline : read->timelines) {
      if (CheckAllSteps(timeline, annotation, perturb) != 0) return 1;
    }
    return 0;
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
    std::printf("path %04zu %u %s\n", i, e.source, cookgraph::EscapeTabField(t.name(e)).c_str());
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
