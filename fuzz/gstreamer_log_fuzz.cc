// Fuzz target: GStreamer tracer logs. The input is "DUMP\0LOG"; without a NUL
// byte it is all log, read against a real dump (tests/data/gstreamer/tee_bin.dot)
// so that the records can name the pipeline's elements and pads.
#include <fstream>
#include <sstream>

#include "adapters/gstreamer/gstreamer.h"
#include "fuzz/fuzz_check.h"
#include "metrics/analysis.h"

namespace {

const std::string& RealDump() {
  static const std::string dump = [] {
    std::ifstream in(COOKGRAPH_FUZZ_DOT, std::ios::binary);
    FUZZ_CHECK(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }();
  return dump;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  std::string_view input = fuzz::Text(data, size);
  std::string_view dot = RealDump();
  std::string_view log = input;
  if (size_t nul = input.find('\0'); nul != std::string_view::npos) {
    dot = input.substr(0, nul);
    log = input.substr(nul + 1);
  }
  Result<Snapshot> snapshot = ParseGstreamer(dot, log);
  if (!snapshot) {
    fuzz::CheckError(snapshot.error());
    return 0;
  }
  (void)Analyse(*snapshot);
  return 0;
}
