#ifndef COOKGRAPH_METRICS_SNAPSHOT_H_
#define COOKGRAPH_METRICS_SNAPSHOT_H_

// Snapshot = metadata + Network + Samples (DESIGN.md §3).

#include <optional>
#include <string>
#include <vector>

#include "graph/network.h"
#include "metrics/samples.h"

namespace cookgraph {

/// Frame budget when neither `frame_budget_ms` nor `fps` is given (60 fps).
inline constexpr double kDefaultBudgetMs = 16.667;

struct SnapshotInfo {
  std::string engine;    // touchdesigner, gstreamer, pytorch, ... or free text
  std::string name;
  std::vector<std::string> source;  // file names the snapshot was made from
  std::string captured;  // ISO 8601; "" = not given
  std::optional<double> fps;
  std::optional<double> frame_budget_ms;

  /// frame_budget_ms, else 1000 / fps, else kDefaultBudgetMs.
  double budget_ms() const;
};

struct Snapshot {
  SnapshotInfo info;
  Network network;
  Samples samples;  // node_count() == network.size()
  /// Things the reader kept going past (unknown keys, ...), one line each.
  std::vector<std::string> warnings;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_METRICS_SNAPSHOT_H_
