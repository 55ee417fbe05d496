#include "metrics/streaming.h"

namespace cookgraph {

std::optional<NodeIndex> StreamingThread::costliest() const {
  std::optional<NodeIndex> best;
  double best_ms = -1;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i < work.size() && work[i] && element_ms[i] > best_ms) {
      best_ms = element_ms[i];
      best = elements[i];
    }
  }
  return best;
}

std::vector<bool> OffFrameNodes(const Streaming& streaming, size_t node_count) {
  std::vector<bool> seen(node_count, false), in_frame(node_count, false);
  for (const StreamingThread& t : streaming.threads) {
    for (NodeIndex n : t.elements) {
      if (n >= node_count) continue;
      seen[n] = true;
      if (t.sets_frame) in_frame[n] = true;
    }
  }
  std::vector<bool> out(node_count, false);
  for (size_t n = 0; n < node_count; ++n) out[n] = seen[n] && !in_frame[n];
  return out;
}

std::optional<size_t> BottleneckThread(const std::vector<StreamingThread>& threads) {
  bool all_periods = true, any_work = false;
  for (const StreamingThread& t : threads) {
    if (!t.costliest()) continue;
    any_work = true;
    all_periods = all_periods && t.utilisation().has_value();
  }
  if (!any_work) return std::nullopt;
  std::optional<size_t> best;
  double best_value = -1;
  for (size_t i = 0; i < threads.size(); ++i) {
    const StreamingThread& t = threads[i];
    if (!t.costliest()) continue;
    const double value = all_periods ? *t.utilisation() : t.busy_ms_per_buffer;
    if (value > best_value) {
      best_value = value;
      best = i;
    }
  }
  return best;
}

}  // namespace cookgraph
