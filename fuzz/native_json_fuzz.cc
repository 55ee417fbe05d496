// Fuzz target: native snapshots spelled in JSON (cookgraph's own JSON reader,
// the snapshot builder, the graph algorithms, the JSON writer).
#include "fuzz/snapshot_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cookgraph::fuzz::CheckSnapshotInput(cookgraph::fuzz::Text(data, size), cookgraph::Spelling::kJson);
  return 0;
}
