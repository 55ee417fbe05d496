// Fuzz target: Chrome traces (PyTorch/Kineto, TensorFlow, ONNX Runtime), then
// the analysis of the network they make. Also checks that a split parse
// (adapters/events.h), its second half guessed from a byte the input picks,
// reads exactly what one thread reads: the same records or the same error.
#include "adapters/byte_source.h"
#include "adapters/chrome/chrome_trace.h"
#include "adapters/chrome/records.h"
#include "fuzz/fuzz_check.h"
#include "metrics/analysis.h"

namespace {

void CheckSplitReadsAlike(std::string_view text) {
  using namespace cookgraph;
  if (text.empty()) return;
  const uint64_t from = static_cast<unsigned char>(text.back()) * text.size() / 256;
  auto one_source = ByteSource::FromString(text, "fuzz.json");
  auto one = chrome::TokenizeChromeTrace(*one_source, {.threads = JsonThreads::kOne});
  auto split_source = ByteSource::FromString(text, "fuzz.json");
  auto split = chrome::TokenizeChromeTrace(*split_source,
                                           {.split_from = from, .threads = JsonThreads::kTwo});
  FUZZ_CHECK(bool(one) == bool(split));
  if (one) {
    FUZZ_CHECK(*one == *split);
  } else {
    FUZZ_CHECK(one.error().Format() == split.error().Format());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  CheckSplitReadsAlike(fuzz::Text(data, size));
  Result<Snapshot> snapshot = ParseChromeTrace(fuzz::Text(data, size), {}, "fuzz.json");
  if (!snapshot) {
    fuzz::CheckError(snapshot.error());
    return 0;
  }
  (void)Analyse(*snapshot);
  return 0;
}
