// Fuzz target: Chrome traces (PyTorch/Kineto, TensorFlow, ONNX Runtime), then
// the analysis of the network they make.
#include "adapters/chrome/chrome_trace.h"
#include "fuzz/fuzz_check.h"
#include "metrics/analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  Result<Snapshot> snapshot = ParseChromeTrace(fuzz::Text(data, size), {}, "fuzz.json");
  if (!snapshot) {
    fuzz::CheckError(snapshot.error());
    return 0;
  }
  (void)Analyse(*snapshot);
  return 0;
}
