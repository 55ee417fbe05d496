#include "model/snapshot.h"

#include <cmath>

namespace cookgraph {

double FrameBudgetMs(std::optional<double> frame_budget_ms, std::optional<double> fps) {
  // A budget or rate that is zero, negative or not finite cannot describe a
  // frame; fall through to the next source rather than flag every frame.
  if (frame_budget_ms && std::isfinite(*frame_budget_ms) && *frame_budget_ms > 0) {
    return *frame_budget_ms;
  }
  if (fps && std::isfinite(*fps) && *fps > 0) return 1000.0 / *fps;
  return kDefaultBudgetMs;
}

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
