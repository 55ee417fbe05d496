#ifndef COOKGRAPH_LIVE_ALERTS_H_
#define COOKGRAPH_LIVE_ALERTS_H_

// Alerts of `cookgraph watch`: a node whose cook time in one frame exceeds
// node_ms, or a frame whose time exceeds budget_ms. Each is raised once per
// episode: an episode starts with the first frame over the threshold and ends
// after quiet_frames frames in a row at or under it, so a node hovering around
// its threshold does not raise an alert every frame.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "live/window.h"

namespace cookgraph {

struct AlertThresholds {
  std::optional<double> node_ms;    // ms; unset = no node alerts
  std::optional<double> budget_ms;  // ms; unset = no frame-budget alerts
  size_t quiet_frames = 30;         // frames under the threshold that end an episode (>= 1)
};

/// One episode, from its first frame over the threshold.
struct AlertEpisode {
  enum class Kind : uint8_t { kNode, kBudget };
  Kind kind = Kind::kNode;
  std::string node;  // the node's id; "" for a budget episode
  double threshold_ms = 0;
  int64_t first_frame = 0;
  int64_t last_frame = 0;  // the last frame over the threshold so far
  uint64_t frames_over = 0;
  double first_ms = 0;  // the value that started it
  double peak_ms = 0;
  int64_t peak_frame = 0;
};

class AlertTracker {
 public:
  explicit AlertTracker(AlertThresholds thresholds) : t_(thresholds) {}

  /// Looks at one frame; returns the indices (into episodes()) of the
  /// episodes it started. Frame time is frame_ms when measured, else the sum
  /// of the nodes' cook_ms (docs/architecture.md#frame-time-and-the-frame-budget).
  std::vector<size_t> Observe(const LiveFrame& frame, const std::vector<std::string>& ids);

  const std::vector<AlertEpisode>& episodes() const { return episodes_; }
  const AlertThresholds& thresholds() const { return t_; }

 private:
  // Per subject (a node, or the frame budget): the open episode and how many
  // frames in a row it has been under since it was last over.
  struct State {
    std::optional<size_t> episode;
    size_t quiet = 0;
  };
  void Step(State& state, bool over, double value, int64_t frame, AlertEpisode::Kind kind,
            const std::string& node, double threshold, std::vector<size_t>& started);

  AlertThresholds t_;
  std::vector<State> nodes_;  // by NodeIndex
  State budget_;
  std::vector<AlertEpisode> episodes_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_LIVE_ALERTS_H_
