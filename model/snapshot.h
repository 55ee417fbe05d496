#ifndef COOKGRAPH_MODEL_SNAPSHOT_H_
#define COOKGRAPH_MODEL_SNAPSHOT_H_

// Snapshot = metadata + Network + Samples (docs/architecture.md#the-model).

#include <optional>
#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "graph/network.h"
#include "model/gstreamer_threads.h"
#include "model/samples.h"
#include "model/timeline.h"

namespace cookgraph {

/// Frame budget when neither `frame_budget_ms` nor `fps` is given (60 fps).
inline constexpr double kDefaultBudgetMs = 16.667;

/// The frame budget of a snapshot (ms): `frame_budget_ms`, else 1000 / `fps`,
/// else kDefaultBudgetMs. A value that is zero, negative or not finite is
/// passed over. `score --budget-ms` overrides it (AnalysisOptions::budget_ms).
double FrameBudgetMs(std::optional<double> frame_budget_ms, std::optional<double> fps);

/// True for the families of nodes whose time is waiting, not work (see
/// Analysis::waiting, docs/architecture.md#waiting-nodes): "queue" (a
/// GStreamer queue, whose time includes the time buffers wait for the slow
/// element downstream) and "mixer" (an aggregator or muxer, whose time
/// includes the wait for its other inputs).
inline bool IsWaitingFamily(std::string_view family) {
  return family == "queue" || family == "mixer";
}

struct SnapshotInfo {
  std::string engine;    // touchdesigner, gstreamer, pytorch, ... or free text
  std::string name;
  std::vector<std::string> source;  // file names the snapshot was made from
  std::string captured;  // ISO 8601; "" = not given
  std::optional<double> fps;
  std::optional<double> frame_budget_ms;

  /// frame_budget_ms, else 1000 / fps, else kDefaultBudgetMs (FrameBudgetMs).
  double budget_ms() const;
  /// True for engines whose frames are training or inference steps (pytorch,
  /// tensorflow, onnxruntime): a step has no budget unless one is given
  /// (docs/architecture.md#steps-are-not-frames).
  bool steps() const;
  /// What a frame is called where a user reads it (docs/architecture.md#engine-words):
  /// "step" for steps(), "buffer" for GStreamer (a frame is a buffer of the
  /// bottleneck's stream), else "frame". The plural adds an "s".
  std::string_view frame_word() const;
  /// The budget that applies: budget_ms(), or none for steps without a given
  /// frame_budget_ms or fps.
  std::optional<double> budget() const;
};

/// When things happened, for inputs that record it (Chrome traces): the start
/// of each frame and of each node's first cook in it, in ms from the start of
/// the first frame. Not part of the snapshot format (`convert` leaves it out);
/// `cookgraph trace` uses it to keep the original timing.
struct RecordedTiming {
  std::vector<double> frame_start_ms;               // per frame
  std::vector<std::vector<double>> first_start_ms;  // [node][frame]; NaN = no cook; empty = none
};

struct Snapshot {
  SnapshotInfo info;
  Network network;
  Samples samples;  // node_count() == network.size()
  std::optional<RecordedTiming> timing;
  /// Traces: every event, one Timeline per rank (a job of several ranks has
  /// several); empty for inputs that do not record when things ran.
  std::vector<Timeline> timelines;
  /// GStreamer recordings: the streaming threads and the pipeline latency
  /// (model/gstreamer_threads.h). Not part of the snapshot format.
  std::optional<Streaming> streaming;
  /// Things the reader kept going past (unknown keys, ...), one line each.
  std::vector<std::string> warnings;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_MODEL_SNAPSHOT_H_
