#include "live/window.h"

#include <fmt/format.h>

#include <algorithm>

namespace cookgraph {

LiveWindow::LiveWindow(size_t window, bool keep_all)
    : window_(std::max<size_t>(window, 1)), keep_all_(keep_all) {}

void LiveWindow::Merge(LiveFrame& into, FrameRecord& part) {
  if (!IsMissing(part.frame_ms)) into.frame_ms = part.frame_ms;
  for (NodeSample& sample : part.nodes) {
    auto [it, added] = index_.try_emplace(sample.id, static_cast<NodeIndex>(ids_.size()));
    if (added) {
      ids_.push_back(std::move(sample.id));
      stamp_.push_back(0);
      position_.push_back(0);
    }
    const NodeIndex node = it->second;
    if (stamp_[node] != generation_) {
      stamp_[node] = generation_;
      position_[node] = static_cast<uint32_t>(into.nodes.size());
      into.nodes.emplace_back(node, sample.values);
      continue;
    }
    auto same = into.nodes.begin() + position_[node];
    // Given twice in one frame (two parts): times and cooks add up, memory is
    // the latest reading.
    for (size_t m = 0; m < kMetricCount; ++m) {
      const double v = sample.values[m];
      if (IsMissing(v)) continue;
      double& have = same->second[m];
      const auto metric = static_cast<Metric>(m);
      const bool additive =
          metric == Metric::kCookMs || metric == Metric::kGpuMs || metric == Metric::kCooks ||
          metric == Metric::kLatencyMs;
      have = (additive && !IsMissing(have)) ? have + v : v;
    }
  }
}

void LiveWindow::Add(FrameRecord record) {
  if (open_ && open_->frame == record.frame) {
    Merge(*open_, record);
    if (!record.more) {
      LiveFrame done = std::move(*open_);
      open_.reset();
      Complete(std::move(done));
    }
    return;
  }
  if (open_) {  // the rest of the open frame never came
    ++counts_.incomplete;
    LiveFrame partial = std::move(*open_);
    open_.reset();
    Complete(std::move(partial));
  }
  if (counts_.last_frame && record.frame <= *counts_.last_frame) {
    ++counts_.late;  // out of order or repeated: its place in the window has passed
    return;
  }
  if (counts_.last_frame && record.frame > *counts_.last_frame + 1) {
    ++counts_.gaps;
    counts_.lost_frames += static_cast<uint64_t>(record.frame - *counts_.last_frame - 1);
  }
  // The frame number counts as seen from its first part, so that a late part
  // of an earlier frame is not taken for a new frame.
  if (!counts_.first_frame) counts_.first_frame = record.frame;
  counts_.last_frame = record.frame;
  LiveFrame frame{.frame = record.frame};
  frame.nodes.reserve(record.nodes.size());
  ++generation_;  // a new frame: no node is in it yet
  Merge(frame, record);
  if (record.more) {
    open_ = std::move(frame);
  } else {
    Complete(std::move(frame));
  }
}

void LiveWindow::Flush() {
  if (!open_) return;
  ++counts_.incomplete;
  LiveFrame partial = std::move(*open_);
  open_.reset();
  Complete(std::move(partial));
}

void LiveWindow::Complete(LiveFrame frame) {
  ++counts_.frames;
  frames_.push_back(std::move(frame));
  if (on_frame_) on_frame_(frames_.back());
  if (!keep_all_) {
    while (frames_.size() > window_) frames_.pop_front();
  }
}

Snapshot LiveWindow::WindowSnapshot(const SnapshotInfo& info) const {
  return Build(info, frames_.size() > window_ ? frames_.size() - window_ : 0);
}

Result<Snapshot> LiveWindow::RecordSnapshot(const SnapshotInfo& info) const {
  if (counts_.frames == 0) return Error{.message = "no frame was received: not written"};
  if (ids_.empty()) {
    return Error{.message =
                     fmt::format("{} frame(s) received, but no node in any of them: not written",
                                 counts_.frames)};
  }
  return Build(info, 0);
}

Snapshot LiveWindow::Build(const SnapshotInfo& info, size_t first) const {
  Snapshot snapshot;
  snapshot.info = info;
  snapshot.network.Reserve(ids_.size(), 0);
  for (const std::string& id : ids_) {
    // Ids are unique (index_) and their nesting was checked when decoded
    // (kMaxContainerDepth), so this cannot fail.
    snapshot.network.AddNode(Node{.id = id});
  }
  const size_t count = frames_.size() - first;
  Samples samples(ids_.size());
  std::vector<int64_t> index(count);
  std::vector<double> frame_ms(count, kMissing);
  bool any_frame_ms = false;
  // [metric][node] -> series, created on the first value.
  std::vector<std::vector<std::vector<double>>> series(
      kMetricCount, std::vector<std::vector<double>>(ids_.size()));
  for (size_t f = 0; f < count; ++f) {
    const LiveFrame& frame = frames_[first + f];
    index[f] = frame.frame;
    frame_ms[f] = frame.frame_ms;
    any_frame_ms = any_frame_ms || !IsMissing(frame.frame_ms);
    for (const auto& [node, values] : frame.nodes) {
      for (size_t m = 0; m < kMetricCount; ++m) {
        if (IsMissing(values[m])) continue;
        std::vector<double>& column = series[m][node];
        if (column.empty()) column.assign(count, kMissing);
        column[f] = values[m];
      }
    }
  }
  // A node that cooked in a frame without saying how often cooked once there
  // (the short forms leave the count out); without this, a sender that gives
  // counts only when they are not 1 would read as cooking less.
  const auto cook_ms = static_cast<size_t>(Metric::kCookMs);
  const auto cooks = static_cast<size_t>(Metric::kCooks);
  for (NodeIndex node = 0; node < ids_.size(); ++node) {
    std::vector<double>& counts = series[cooks][node];
    const std::vector<double>& times = series[cook_ms][node];
    if (counts.empty() || times.empty()) continue;
    for (size_t f = 0; f < count; ++f) {
      if (IsMissing(counts[f]) && !IsMissing(times[f])) counts[f] = 1;
    }
  }
  samples.SetFrameIndex(std::move(index));
  if (any_frame_ms) samples.SetFrameMs(std::move(frame_ms));
  for (size_t m = 0; m < kMetricCount; ++m) {
    for (NodeIndex node = 0; node < ids_.size(); ++node) {
      if (!series[m][node].empty()) {
        samples.SetSeries(node, static_cast<Metric>(m), std::move(series[m][node]));
      }
    }
  }
  snapshot.samples = std::move(samples);
  return snapshot;
}

}  // namespace cookgraph
