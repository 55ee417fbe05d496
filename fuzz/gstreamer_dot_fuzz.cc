// Fuzz target: GStreamer pipeline dumps (gst_debug_bin_to_dot_file), read
// without a log: the graph alone.
#include "adapters/gstreamer/gstreamer.h"
#include "fuzz/fuzz_check.h"
#include "metrics/analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  Result<Snapshot> snapshot = ParseGstreamer(fuzz::Text(data, size), "");
  if (!snapshot) {
    fuzz::CheckError(snapshot.error());
    return 0;
  }
  (void)Analyse(*snapshot);
  return 0;
}
