#include "model/gstreamer_threads.h"

#include <map>

#include "base/text.h"

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

void NameThreads(std::vector<StreamingThread>& threads, const Network& net) {
  // An element's name: its id's last segment ("/pipeline0/enc/theoraenc0").
  auto name = [&](NodeIndex n) { return std::string(Basename(net.node(n).id)); };
  std::map<std::string, size_t> seen;
  for (StreamingThread& t : threads) {
    const auto named = t.costliest();
    if (named) {
      t.name = name(*named) + " thread";
    } else if (!t.elements.empty()) {
      t.name = name(t.elements.front()) + " thread";
    } else {
      t.name = "thread " + t.thread;
    }
    if (const size_t n = ++seen[t.name]; n > 1) t.name += " #" + std::to_string(n);
    t.route.clear();
    if (!t.elements.empty()) t.route = name(t.elements.front());
    if (t.elements.size() > 2) t.route += " → …";
    if (t.elements.size() > 1) t.route += " → " + name(t.elements.back());
  }
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
