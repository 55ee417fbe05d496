#include "writers/heatmap/heatmap_select.h"

#include <algorithm>

namespace cookgraph {

HeatmapSelection SelectHeatmapNodes(const Network& network, const Analysis& analysis,
                                    const HeatmapLimits& limits) {
  HeatmapSelection s;
  s.total = network.size();
  s.critical_total = analysis.critical_path.nodes.size();
  if (network.size() <= limits.max_nodes) {
    s.nodes.resize(network.size());
    for (NodeIndex n = 0; n < network.size(); ++n) s.nodes[n] = n;
    s.critical_shown = s.critical_total;
    return s;
  }

  std::vector<bool> chosen(network.size(), false);
  auto choose = [&](NodeIndex n) {
    if (n >= chosen.size() || chosen[n] || s.nodes.size() >= limits.max_nodes) return false;
    chosen[n] = true;
    s.nodes.push_back(n);
    return true;
  };

  // Every node's place in the ranking: cooked by score, then uncooked in
  // topological order. It orders the neighbours too.
  const std::vector<NodeIndex> ranking = Rank(analysis, SortKey::kScore);
  std::vector<uint32_t> place(network.size(), UINT32_MAX);
  for (size_t i = 0; i < ranking.size(); ++i) {
    if (ranking[i] < place.size()) place[ranking[i]] = static_cast<uint32_t>(i);
  }
  const size_t cooked = CookedCount(analysis);
  for (size_t i = 0; i < ranking.size() && i < cooked && i < limits.top; ++i) choose(ranking[i]);
  for (NodeIndex n : analysis.critical_path.nodes) {
    if (n < chosen.size() && (chosen[n] || choose(n))) ++s.critical_shown;
  }

  // One hop from what is chosen so far, through any edge in either direction.
  const size_t seeds = s.nodes.size();
  std::vector<NodeIndex> candidates;
  std::vector<bool> candidate(network.size(), false);
  std::vector<bool> seed(network.size(), false);
  for (size_t i = 0; i < seeds; ++i) seed[s.nodes[i]] = true;
  for (const Edge& e : network.edges()) {
    if (e.from >= network.size() || e.to >= network.size()) continue;
    for (auto [a, b] : {std::pair{e.from, e.to}, std::pair{e.to, e.from}}) {
      if (seed[a] && !chosen[b] && !candidate[b]) {
        candidate[b] = true;
        candidates.push_back(b);
      }
    }
  }
  std::sort(candidates.begin(), candidates.end(), [&](NodeIndex a, NodeIndex b) {
    return place[a] != place[b] ? place[a] < place[b] : a < b;
  });
  for (NodeIndex n : candidates) {
    if (!choose(n)) break;
  }
  std::sort(s.nodes.begin(), s.nodes.end());
  return s;
}

}  // namespace cookgraph
