#ifndef COOKGRAPH_GRAPH_SUGGEST_H_
#define COOKGRAPH_GRAPH_SUGGEST_H_

// "did you mean ...?" for unknown ids.

#include <optional>
#include <string>
#include <string_view>

#include "graph/network.h"

namespace cookgraph {

/// Edit (Levenshtein) distance between two strings.
size_t EditDistance(std::string_view a, std::string_view b);

/// The id in `network` closest to `unknown` by edit distance, when it is close
/// enough to be a plausible typo (distance at most a third of the longer
/// string, and at least 1 edit away); ties go to the lower NodeIndex.
std::optional<std::string> ClosestId(const Network& network, std::string_view unknown);

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_SUGGEST_H_
