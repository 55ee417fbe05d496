// Fuzz target: `cookgraph watch`'s datagrams, the one input that comes from
// the network. The input is cut into datagrams at "\xff\xfe\xfd\xfc" (a run
// of bytes that neither JSON lines nor an OSC bundle holds); each is decoded
// as watch decodes it (JSON lines or OSC bundle, by its first byte) and what
// decodes goes into a small rolling window that keeps every frame. At the end
// the window and the recording are analysed like any snapshot, and the
// recording, as `watch --record` writes it, must read back: watch never
// records what cookgraph then refuses to read.
#include <algorithm>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "fuzz/snapshot_fuzz.h"
#include "live/decode.h"
#include "live/window.h"
#include "metrics/analysis.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cookgraph;
  constexpr std::string_view kCut = "\xff\xfe\xfd\xfc";
  const std::string_view bytes = fuzz::Text(data, size);
  LiveWindow window(8, /*keep_all=*/true);
  size_t records = 0;
  for (size_t at = 0; at <= bytes.size();) {
    const size_t end = std::min(bytes.find(kCut, at), bytes.size());
    std::vector<FrameRecord> decoded;
    const Status status = DecodeDatagram(bytes.substr(at, end - at), decoded);
    if (!status) fuzz::CheckError(status.error());
    for (FrameRecord& record : decoded) {
      for (const NodeSample& node : record.nodes) FUZZ_CHECK(!node.id.empty());
      window.Add(std::move(record));
      ++records;
    }
    at = end + kCut.size();
  }
  window.Flush();
  FUZZ_CHECK(window.counts().frames <= records);

  const SnapshotInfo info{.engine = "live", .name = "fuzz"};
  (void)Analyse(window.WindowSnapshot(info));
  const Result<Snapshot> recording = window.RecordSnapshot(info);
  if (!recording) {  // nothing to record: watch writes no file either
    fuzz::CheckError(recording.error());
    return 0;
  }
  (void)Analyse(*recording);
  (void)fuzz::CheckReadsBack(SnapshotToJson(*recording), Spelling::kJson, "record.json");
  return 0;
}
