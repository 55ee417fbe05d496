#ifndef COOKGRAPH_LIVE_WINDOW_H_
#define COOKGRAPH_LIVE_WINDOW_H_

// The frames a live stream delivered: parts joined into frames, frame numbers
// checked for gaps, the last N frames kept as a rolling window (and, for
// --record, every frame). Either is turned into a Snapshot, so the rolling
// statistics are computed by the same Analyse() as `cookgraph score`.

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/error.h"
#include "live/frame_record.h"
#include "model/snapshot.h"

namespace cookgraph {

/// One complete frame, nodes by their index in the stream (first seen first).
struct LiveFrame {
  int64_t frame = 0;
  double frame_ms = kMissing;  // ms; NaN = not measured
  std::vector<std::pair<NodeIndex, MetricValues>> nodes;
};

/// What the stream held so far.
struct StreamCounts {
  uint64_t frames = 0;       // complete frames accepted
  uint64_t gaps = 0;         // jumps in the frame numbers
  uint64_t lost_frames = 0;  // frame numbers skipped by those jumps
  uint64_t late = 0;         // frames whose number was not above the last one: dropped
  uint64_t incomplete = 0;   // frames whose last part never came (kept, counted)
  std::optional<int64_t> first_frame, last_frame;
};

class LiveWindow {
 public:
  /// Keeps the last `window` frames (at least 1); every frame too when `keep_all`.
  LiveWindow(size_t window, bool keep_all);

  /// Called with every frame as it completes (for alerts).
  void OnFrame(std::function<void(const LiveFrame&)> callback) { on_frame_ = std::move(callback); }

  /// Adds one message. A part with `more` set stays open until the part
  /// without it; a message for another frame closes an open one (counted
  /// incomplete). A node given twice in one frame adds its times and cooks.
  void Add(FrameRecord record);
  /// Closes an open frame at the end of the stream.
  void Flush();

  const StreamCounts& counts() const { return counts_; }
  const std::vector<std::string>& ids() const { return ids_; }
  size_t window() const { return window_; }

  /// The last `window` frames as a snapshot with every node seen so far.
  Snapshot WindowSnapshot(const SnapshotInfo& info) const;
  /// Every frame (requires keep_all), as `watch --record` writes it. An Error
  /// (its message says why; nothing to write) when no frame came, or frames
  /// came but no node in any of them: a snapshot needs a node to be read back.
  Result<Snapshot> RecordSnapshot(const SnapshotInfo& info) const;

 private:
  void Complete(LiveFrame frame);
  void Merge(LiveFrame& into, FrameRecord& part);
  Snapshot Build(const SnapshotInfo& info, size_t first) const;

  size_t window_;
  bool keep_all_;
  std::deque<LiveFrame> frames_;   // oldest first; the last window_ (all with keep_all_)
  std::optional<LiveFrame> open_;  // a frame whose further parts are expected
  std::vector<std::string> ids_;   // NodeIndex -> id
  // Where a node already is in the frame being built, without a search:
  // position_[node] is valid when stamp_[node] == generation_ (one
  // generation per frame).
  std::vector<uint64_t> stamp_;
  std::vector<uint32_t> position_;
  uint64_t generation_ = 0;
  std::unordered_map<std::string, NodeIndex> index_;
  StreamCounts counts_;
  std::function<void(const LiveFrame&)> on_frame_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_LIVE_WINDOW_H_
