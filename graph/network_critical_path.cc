#include "graph/network_critical_path.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

namespace cookgraph {

Path CriticalPath(const Adjacency& adjacency, const Condensation& condensation,
                  std::span<const double> weight) {
  assert(weight.size() == condensation.component.size());
  const size_t count = condensation.members.size();
  Path path;
  if (count == 0) return path;

  // Longest path by dynamic programming over the components in topological
  // order: heaviest[c] is the weight of the heaviest path ending in c, and
  // previous[c] the component before c on it. O(N + E).
  constexpr uint32_t kNone = UINT32_MAX;  // previous[c] of a path that starts at c
  std::vector<double> heaviest(count);
  std::vector<uint32_t> previous(count, kNone);
  for (uint32_t c = 0; c < count; ++c) {
    double own = 0;
    uint32_t best = kNone;
    for (NodeIndex v : condensation.members[c]) {
      own += weight[v];
      for (NodeIndex u : adjacency.in(v)) {
        const uint32_t p = condensation.component[u];
        if (p == c) continue;
        // On equal weight the predecessor earlier in topological order wins,
        // so the result does not depend on the order of the edge lists.
        if (best == kNone || heaviest[p] > heaviest[best] ||
            (heaviest[p] == heaviest[best] && p < best)) {
          best = p;
        }
      }
    }
    previous[c] = best;
    heaviest[c] = own + (best == kNone ? 0.0 : heaviest[best]);
  }

  // Strict '>' keeps the earliest end among equally heavy paths.
  uint32_t end = 0;
  for (uint32_t c = 1; c < count; ++c) {
    if (heaviest[c] > heaviest[end]) end = c;
  }
  // Weights are >= 0: a heaviest path of 0 means nothing was measured, and any
  // node would be an arbitrary pick.
  if (!(heaviest[end] > 0)) return path;
  path.weight = heaviest[end];

  std::vector<uint32_t> chain;
  for (uint32_t c = end; c != kNone; c = previous[c]) chain.push_back(c);
  std::reverse(chain.begin(), chain.end());
  for (uint32_t c : chain) {
    const auto& members = condensation.members[c];
    path.nodes.insert(path.nodes.end(), members.begin(), members.end());
  }
  return path;
}

}  // namespace cookgraph
