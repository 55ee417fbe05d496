// chrome_trace_dump TRACE [FRAME_MARKER_REGEX]: reads a Chrome trace with
// cookgraph's adapter (adapters/chrome/chrome_trace.h) and prints what it made, one
// fact a line, in the format tests/tools/chrome_trace_check.py prints from the
// raw file, so that the two can be compared line for line (after sorting):
//   engine E
//   frame INDEX FRAME_MS
//   node ID<TAB>FAMILY<TAB>TYPE<TAB>OUTPUT(0|1)
//   edge KIND<TAB>FROM<TAB>TO
//   sample FRAME<TAB>ID<TAB>COOK_MS<TAB>GPU_MS|-<TAB>COOKS<TAB>INCLUSIVE_MS
// Times are printed with 6 decimals: whole nanoseconds.

#include <cmath>
#include <cstdio>
#include <string>

#include "adapters/chrome/chrome_trace.h"

int main(int argc, char** argv) {
  using namespace cookgraph;
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: chrome_trace_dump TRACE [FRAME_MARKER_REGEX]\n");
    return 2;
  }
  ChromeTraceOptions options;
  if (argc == 3) options.frame_marker = argv[2];
  auto read = ReadChromeTraceFile(argv[1], options);
  if (!read) {
    std::fprintf(stderr, "%s\n", read.error().Format().c_str());
    return 2;
  }
  const Snapshot& s = *read;
  std::printf("engine %s\n", s.info.engine.c_str());
  const Samples& samples = s.samples;
  for (size_t f = 0; f < samples.frame_count(); ++f) {
    std::printf("frame %lld %.6f\n", static_cast<long long>(samples.frame_index()[f]),
                samples.frame_ms()[f]);
  }
  const Network& network = s.network;
  for (const Node& node : network.nodes()) {
    std::printf("node %s\t%s\t%s\t%d\n", node.id.c_str(), node.family.c_str(), node.type.c_str(),
                node.output ? 1 : 0);
  }
  for (const Edge& e : network.edges()) {
    std::printf("edge %s\t%s\t%s\n", std::string(EdgeKindName(e.kind)).c_str(),
                network.node(e.from).id.c_str(), network.node(e.to).id.c_str());
  }
  for (NodeIndex n = 0; n < network.size(); ++n) {
    auto cook = samples.series(n, Metric::kCookMs);
    auto gpu = samples.series(n, Metric::kGpuMs);
    auto cooks = samples.series(n, Metric::kCooks);
    auto inclusive = samples.series(n, Metric::kInclusiveMs);
    for (size_t f = 0; f < cook.size(); ++f) {
      if (IsMissing(cook[f])) continue;
      std::string gpu_text = "-";
      if (!gpu.empty()) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.6f", gpu[f]);
        gpu_text = buffer;
      }
      std::printf("sample %lld\t%s\t%.6f\t%s\t%lld\t%.6f\n",
                  static_cast<long long>(samples.frame_index()[f]), network.node(n).id.c_str(),
                  cook[f], gpu_text.c_str(), static_cast<long long>(std::llround(cooks[f])),
                  f < inclusive.size() ? inclusive[f] : NAN);
    }
  }
  for (const std::string& w : s.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return 0;
}
