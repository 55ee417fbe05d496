#include "live/alerts.h"

#include <algorithm>

namespace cookgraph {

void AlertTracker::Step(State& state, bool over, double value, int64_t frame,
                        AlertEpisode::Kind kind, const std::string& node, double threshold,
                        std::vector<size_t>& started) {
  if (over) {
    state.quiet = 0;
    if (!state.episode) {
      state.episode = episodes_.size();
      episodes_.push_back(AlertEpisode{.kind = kind,
                                       .node = node,
                                       .threshold_ms = threshold,
                                       .first_frame = frame,
                                       .last_frame = frame,
                                       .first_ms = value,
                                       .peak_ms = value,
                                       .peak_frame = frame});
      started.push_back(*state.episode);
    }
    AlertEpisode& e = episodes_[*state.episode];
    e.last_frame = frame;
    ++e.frames_over;
    if (value > e.peak_ms) {
      e.peak_ms = value;
      e.peak_frame = frame;
    }
    return;
  }
  if (state.episode && ++state.quiet >= std::max<size_t>(t_.quiet_frames, 1)) {
    state.episode.reset();
    state.quiet = 0;
  }
}

std::vector<size_t> AlertTracker::Observe(const LiveFrame& frame,
                                          const std::vector<std::string>& ids) {
  std::vector<size_t> started;
  if (nodes_.size() < ids.size()) nodes_.resize(ids.size());
  double cook_sum = 0;
  // Nodes that cooked in this frame; the others count as under the threshold.
  thread_local std::vector<bool> seen;
  seen.assign(ids.size(), false);
  for (const auto& [node, values] : frame.nodes) {
    const double cook = values[static_cast<size_t>(Metric::kCookMs)];
    if (IsMissing(cook)) continue;
    cook_sum += cook;
    if (!t_.node_ms) continue;
    seen[node] = true;
    Step(nodes_[node], cook > *t_.node_ms, cook, frame.frame, AlertEpisode::Kind::kNode, ids[node],
         *t_.node_ms, started);
  }
  if (t_.node_ms) {
    for (NodeIndex node = 0; node < nodes_.size(); ++node) {
      if (!seen[node] && nodes_[node].episode) {
        Step(nodes_[node], false, 0, frame.frame, AlertEpisode::Kind::kNode, ids[node], *t_.node_ms,
             started);
      }
    }
  }
  if (t_.budget_ms) {
    const double frame_ms = IsMissing(frame.frame_ms) ? cook_sum : frame.frame_ms;
    Step(budget_, frame_ms > *t_.budget_ms, frame_ms, frame.frame, AlertEpisode::Kind::kBudget, "",
         *t_.budget_ms, started);
  }
  return started;
}

}  // namespace cookgraph
