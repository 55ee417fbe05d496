#ifndef COOKGRAPH_TESTS_ADAPTERS_CHROME_CHROME_TRACE_TEST_H_
#define COOKGRAPH_TESTS_ADAPTERS_CHROME_CHROME_TRACE_TEST_H_

// Helpers for the Chrome trace adapter's tests (chrome_trace*_test.cc): parse
// a trace from a string and look up what it made by node id and frame number.

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/chrome/chrome_trace.h"

namespace cookgraph::testing {

inline Result<Snapshot> ParseTrace(std::string_view text,
                                   std::optional<std::string> frame_marker = std::nullopt) {
  return ParseChromeTrace(text, ChromeTraceOptions{.frame_marker = std::move(frame_marker)},
                          "t.json");
}

inline std::string ErrorOf(const Result<Snapshot>& r) {
  return r ? std::string("(no error)") : r.error().Format();
}

/// `metric` of node `id` in the frame numbered `frame`; NaN when the node or
/// the frame does not exist or the node did not cook in it.
inline double Value(const Snapshot& s, std::string_view id, int64_t frame,
                    Metric metric = Metric::kCookMs) {
  auto node = s.network.Find(id);
  const auto& index = s.samples.frame_index();
  auto at = std::find(index.begin(), index.end(), frame);
  if (!node || at == index.end()) return NAN;
  auto series = s.samples.series(*node, metric);
  const auto f = static_cast<size_t>(at - index.begin());
  return f < series.size() ? series[f] : NAN;
}

inline bool HasEdge(const Snapshot& s, std::string_view from, std::string_view to, EdgeKind kind) {
  auto a = s.network.Find(from), b = s.network.Find(to);
  if (!a || !b) return false;
  const auto& edges = s.network.edges();
  return std::any_of(edges.begin(), edges.end(),
                     [&](const Edge& e) { return e.from == *a && e.to == *b && e.kind == kind; });
}

inline size_t CountEdges(const Snapshot& s, EdgeKind kind) {
  const auto& edges = s.network.edges();
  return static_cast<size_t>(
      std::count_if(edges.begin(), edges.end(), [&](const Edge& e) { return e.kind == kind; }));
}

/// The warning that contains `fragment`, or "" when none does.
inline std::string WarningWith(const Snapshot& s, std::string_view fragment) {
  for (const std::string& w : s.warnings) {
    if (w.find(fragment) != std::string::npos) return w;
  }
  return "";
}

inline bool IsOutput(const Snapshot& s, std::string_view id) {
  auto node = s.network.Find(id);
  return node && s.network.node(*node).output;
}

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_ADAPTERS_CHROME_CHROME_TRACE_TEST_H_
