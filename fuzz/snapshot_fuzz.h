#ifndef COOKGRAPH_FUZZ_SNAPSHOT_FUZZ_H_
#define COOKGRAPH_FUZZ_SNAPSHOT_FUZZ_H_

// The native snapshot targets (JSON and YAML): read the input; when it is a
// snapshot, analyse it (every graph algorithm runs on whatever network the
// fuzzer made up) and check that writing it and reading that back is a fixed
// point: the writer never produces what the reader refuses.

#include <cstdio>
#include <string>
#include <utility>

#include "adapters/native/snapshot_reader.h"
#include "fuzz/fuzz_check.h"
#include "metrics/analysis.h"
#include "writers/snapshot_writer.h"

namespace cookgraph::fuzz {

/// `snapshot` as the writer writes it in `spelling`.
inline std::string Write(const Snapshot& snapshot, Spelling spelling) {
  return spelling == Spelling::kJson ? SnapshotToJson(snapshot) : SnapshotToYaml(snapshot);
}

/// Reads back `written` (what the writer wrote, named `name`): a refusal fails
/// the check, with the reader's message.
inline Snapshot CheckReadsBack(const std::string& written, Spelling spelling,
                               const std::string& name) {
  Result<Snapshot> again = ParseSnapshot(written, spelling, name);
  if (!again) {
    std::fprintf(stderr, "written snapshot refused: %s\n", again.error().Format().c_str());
    FUZZ_CHECK(again.ok());
  }
  return std::move(again).value();
}

inline void CheckSnapshotInput(std::string_view text, Spelling spelling) {
  const std::string name = spelling == Spelling::kJson ? "fuzz.json" : "fuzz.yaml";
  Result<Snapshot> snapshot = ParseSnapshot(text, spelling, name);
  if (!snapshot) {
    CheckError(snapshot.error());
    return;
  }
  (void)Analyse(*snapshot);
  const std::string written = Write(*snapshot, spelling);
  FUZZ_CHECK(Write(CheckReadsBack(written, spelling, name), spelling) == written);
}

}  // namespace cookgraph::fuzz

#endif  // COOKGRAPH_FUZZ_SNAPSHOT_FUZZ_H_
