// Fuzz target: native snapshots spelled in JSON (cookgraph's own JSON reader,
// the snapshot builder, the graph algorithms, the JSON writer). Also checks
// that a split read (adapters/native/snapshot_reader.h), its second half
// looked for from a byte the input picks, gives exactly what one thread
// gives: the same snapshot and warnings, or the same error.
#include "adapters/byte_source.h"
#include "fuzz/snapshot_fuzz.h"

namespace {

void CheckSplitReadsAlike(std::string_view text) {
  using namespace cookgraph;
  if (text.empty()) return;
  const uint64_t from = static_cast<unsigned char>(text.back()) * text.size() / 256;
  auto read = [&](SnapshotReadOptions options) {
    auto source = ByteSource::FromString(text, "fuzz.json");
    return ReadSnapshotSource(*source, options);
  };
  const Result<Snapshot> one = read({.threads = JsonThreads::kOne});
  const Result<Snapshot> split = read({.threads = JsonThreads::kTwo, .split_from = from});
  FUZZ_CHECK(bool(one) == bool(split));
  if (one) {
    FUZZ_CHECK(fuzz::Write(*one, Spelling::kJson) == fuzz::Write(*split, Spelling::kJson));
    FUZZ_CHECK(one->warnings == split->warnings);
  } else {
    FUZZ_CHECK(one.error().Format() == split.error().Format());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CheckSplitReadsAlike(cookgraph::fuzz::Text(data, size));
  cookgraph::fuzz::CheckSnapshotInput(cookgraph::fuzz::Text(data, size), cookgraph::Spelling::kJson);
  return 0;
}
