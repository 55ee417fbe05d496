// Fuzz target: native snapshots spelled in YAML (libyaml's event reader, the
// snapshot builder, the graph algorithms, the YAML writer).
#include "fuzz/snapshot_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cookgraph::fuzz::CheckSnapshotInput(cookgraph::fuzz::Text(data, size), cookgraph::Spelling::kYaml);
  return 0;
}
