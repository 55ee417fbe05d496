#include "metrics/intra_op.h"

#include <algorithm>
#include <map>
#include <utility>

namespace cookgraph {
namespace {

struct NodeSums {
  size_t calls = 0;
  int64_t node_ns = 0, run_us = 0, wait_us = 0, distribution_us = 0, sections = 0;
  int64_t helper_runs = 0;
  bool overlapped = false;
};

}  // namespace

std::optional<IntraOp> IntraOpThreads(const std::vector<Timeline>& timelines) {
  IntraOp out;
  std::map<uint32_t, NodeSums> sums;  // by node
  int64_t run_us = 0, wait_us = 0, distribution_us = 0, helper_runs = 0;
  bool counted_any = false;
  for (const Timeline& t : timelines) {
    if (t.pools.empty()) continue;
    std::vector<std::pair<int64_t, int64_t>> steps;  // counted step spans, by start
    for (uint32_t m : t.markers) {
      if (m != kNoIndex) steps.emplace_back(t.events[m].start_ns, t.events[m].end_ns());
    }
    std::sort(steps.begin(), steps.end());
    out.steps += steps.size();
    auto counted = [&](int64_t at) {
      auto it = std::upper_bound(steps.begin(), steps.end(), std::pair{at, INT64_MAX});
      return it != steps.begin() && at < std::prev(it)->second;
    };
    for (const std::string& name : t.pool_names) {
      if (std::find(out.pools.begin(), out.pools.end(), name) == out.pools.end()) {
        out.pools.push_back(name);
      }
    }
    // The helpers' counters only grow: a node's work items are the growth
    // since the event before it ended, per pool, in the order the events end.
    std::vector<const PoolArgs*> by_end;
    for (const PoolArgs& p : t.pools) by_end.push_back(&p);
    std::stable_sort(by_end.begin(), by_end.end(), [&](const PoolArgs* a, const PoolArgs* b) {
      return t.events[a->event].end_ns() < t.events[b->event].end_ns();
    });
    // Events that overlap another one with stats (the parallel executor).
    std::vector<const PoolArgs*> by_start = by_end;
    std::stable_sort(by_start.begin(), by_start.end(), [&](const PoolArgs* a, const PoolArgs* b) {
      return t.events[a->event].start_ns < t.events[b->event].start_ns;
    });
    std::vector<bool> overlaps(t.events.size(), false);
    int64_t reach = INT64_MIN;
    const PoolArgs* reacher = nullptr;
    for (const PoolArgs* p : by_start) {
      const TimelineEvent& e = t.events[p->event];
      if (reacher != nullptr && e.start_ns < reach) {
        overlaps[p->event] = true;
        overlaps[reacher->event] = true;
      }
      if (e.end_ns() > reach) {
        reach = e.end_ns();
        reacher = p;
      }
    }
    std::map<uint32_t, int64_t> last_runs;  // by pool
    for (const PoolArgs* p : by_end) {
      const TimelineEvent& e = t.events[p->event];
      auto [last, added] = last_runs.try_emplace(p->pool, 0);
      const int64_t grew = std::max<int64_t>(p->helper_runs - last->second, 0);
      last->second = std::max(last->second, p->helper_runs);
      if (e.node == kNoIndex || !counted(e.start_ns)) continue;
      counted_any = true;
      NodeSums& s = sums[e.node];
      ++s.calls;
      s.node_ns += e.dur_ns;
      s.run_us += p->run_us;
      s.wait_us += p->wait_us;
      s.distribution_us += p->distribution_us;
      s.sections += p->parallel_sections;
      s.helper_runs += grew;
      s.overlapped = s.overlapped || overlaps[p->event];
      run_us += p->run_us;
      wait_us += p->wait_us;
      distribution_us += p->distribution_us;
      helper_runs += grew;
      out.helpers = std::max(out.helpers, p->helpers);
    }
  }
  if (!counted_any || out.steps == 0) return std::nullopt;
  const auto steps = static_cast<double>(out.steps);
  auto per_step_ms = [&](int64_t us) { return static_cast<double>(us) / 1e3 / steps; };
  out.run_ms = per_step_ms(run_us);
  out.wait_ms = per_step_ms(wait_us);
  out.distribution_ms = per_step_ms(distribution_us);
  out.helper_runs = static_cast<double>(helper_runs) / steps;
  for (const auto& [node, s] : sums) {
    out.nodes.push_back(IntraOpNode{
        .node = node,
        .calls = s.calls,
        .node_ms = static_cast<double>(s.node_ns) / 1e6 / steps,
        .run_ms = per_step_ms(s.run_us),
        .wait_ms = per_step_ms(s.wait_us),
        .distribution_ms = per_step_ms(s.distribution_us),
        .parallel_sections = static_cast<double>(s.sections) / steps,
        .helper_runs_known = !s.overlapped,
        .helper_runs = s.overlapped ? 0 : static_cast<double>(s.helper_runs) / steps});
  }
  auto in_sections = [](const IntraOpNode& n) { return n.run_ms + n.wait_ms + n.distribution_ms; };
  std::stable_sort(out.nodes.begin(), out.nodes.end(),
                   [&](const IntraOpNode& a, const IntraOpNode& b) {
                     if (in_sections(a) != in_sections(b)) return in_sections(a) > in_sections(b);
                     return a.node_ms > b.node_ms;
                   });
  return out;
}

}  // namespace cookgraph
