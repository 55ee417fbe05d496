#include "metrics/snapshot.h"

namespace cookgraph {

double SnapshotInfo::budget_ms() const { return FrameBudgetMs(frame_budget_ms, fps); }

bool SnapshotInfo::steps() const {
  return engine == "pytorch" || engine == "tensorflow" || engine == "onnxruntime";
}

std::string_view SnapshotInfo::frame_word() const {
  if (steps()) return "step";
  if (engine == "gstreamer") return "buffer";
  return "frame";
}

std::optional<double> SnapshotInfo::budget() const {
  if (steps() && !frame_budget_ms && !fps) return std::nullopt;
  return budget_ms();
}

}  // namespace cookgraph
