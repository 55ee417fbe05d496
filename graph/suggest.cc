#include "graph/suggest.h"

#include <algorithm>
#include <vector>

namespace cookgraph {

size_t EditDistance(std::string_view a, std::string_view b) {
  if (a.size() < b.size()) std::swap(a, b);  // rows as short as the shorter string
  // Two rows of the classic dynamic programme: previous[j] is the distance
  // between the first i-1 characters of a and the first j of b.
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> ClosestId(const Network& network, std::string_view unknown) {
  std::optional<NodeIndex> best;
  size_t best_distance = 0;
  for (NodeIndex v = 0; v < network.size(); ++v) {
    const std::string& id = network.node(v).id;
    const size_t longer = std::max(id.size(), unknown.size());
    const size_t limit = longer / 3;  // a typo changes at most a third of the string
    // The length difference is a lower bound of the distance: skip ids that
    // cannot be close enough, or cannot beat the best so far, without the DP.
    const size_t lower = longer - std::min(id.size(), unknown.size());
    if (lower > limit || (best && lower >= best_distance)) continue;
    const size_t distance = EditDistance(id, unknown);
    // Strict '<' keeps the lower NodeIndex on ties.
    if (distance >= 1 && distance <= limit && (!best || distance < best_distance)) {
      best = v;
      best_distance = distance;
    }
  }
  if (!best) return std::nullopt;
  return network.node(*best).id;
}

}  // namespace cookgraph
