#include "graph/containers.h"

#include <map>
#include <string_view>
#include <unordered_map>

namespace cookgraph {
namespace {

constexpr uint32_t kNoParent = UINT32_MAX;
constexpr int kMaxDepth = static_cast<int>(kMaxContainerDepth);

// A node that is itself a container (a COMP, a bin) knows its parent; other
// container ids fall back to their path.
std::string ContainerParent(const Network& network, const std::string& id) {
  if (auto index = network.Find(id)) return network.node(*index).parent;
  return DerivedParent(id);
}

// Explicit parents can form a cycle ("a" in "b", "b" in "a", or a node that is
// its own parent). Each cycle is cut where a walk up from the smallest id first
// meets it again: that container moves to the top level, so every chain of
// parents ends and depths are finite. Walks iteratively: nesting can be deep.
void CutParentCycles(std::vector<Container>& containers, std::vector<uint32_t>& up) {
  enum State : uint8_t { kUnseen, kOnPath, kDone };
  std::vector<State> state(containers.size(), kUnseen);
  std::vector<uint32_t> path;
  for (uint32_t start = 0; start < containers.size(); ++start) {
    path.clear();
    for (uint32_t c = start; c != kNoParent && state[c] == kUnseen; c = up[c]) {
      state[c] = kOnPath;
      path.push_back(c);
    }
    if (!path.empty() && up[path.back()] != kNoParent && state[up[path.back()]] == kOnPath) {
      up[path.back()] = kNoParent;
      containers[path.back()].parent.clear();
    }
    for (uint32_t c : path) state[c] = kDone;
  }
}

}  // namespace

std::vector<Container> Containers(const Network& network) {
  // Every container id with its parent, closed upwards: a container holding
  // only containers still holds nodes beneath it.
  std::map<std::string, std::string> parent_of;  // sorted, as the result must be
  bool has_top = false;
  std::vector<std::string> pending;
  for (const Node& node : network.nodes()) {
    if (node.parent.empty()) {
      has_top = true;
    } else if (parent_of.try_emplace(node.parent).second) {
      pending.push_back(node.parent);
    }
  }
  while (!pending.empty()) {
    std::string id = std::move(pending.back());
    pending.pop_back();
    std::string parent = ContainerParent(network, id);
    if (!parent.empty() && parent_of.try_emplace(parent).second) pending.push_back(parent);
    parent_of[id] = std::move(parent);
  }

  std::vector<Container> containers;
  containers.reserve(parent_of.size() + 1);
  if (has_top) containers.push_back(Container{});  // "" sorts before every other id
  const uint32_t first = has_top ? 1 : 0;          // index of the first real container
  for (auto& [id, parent] : parent_of) containers.push_back(Container{.id = id, .parent = parent});

  // Views into `containers`, which no longer grows.
  std::unordered_map<std::string_view, uint32_t> index;
  index.reserve(containers.size());
  for (uint32_t i = first; i < containers.size(); ++i) index.emplace(containers[i].id, i);
  // Per container: the index of its parent, kNoParent for the top level. The top
  // level itself (index 0 when present) is handled apart.
  std::vector<uint32_t> up(containers.size(), kNoParent);
  for (uint32_t i = first; i < containers.size(); ++i) {
    if (!containers[i].parent.empty()) up[i] = index.at(containers[i].parent);
  }
  CutParentCycles(containers, up);

  // Depths in id order would need parents first; walk up instead, memoised.
  // Depths are assigned from the top down, so where a chain is cut depends only
  // on the chain, not on which of its containers the walk started from.
  std::vector<uint32_t> chain;
  for (uint32_t i = first; i < containers.size(); ++i) {
    chain.clear();
    uint32_t c = i;
    for (; c != kNoParent && containers[c].depth == 0; c = up[c]) chain.push_back(c);
    int depth = c == kNoParent ? 0 : containers[c].depth;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (++depth > kMaxDepth) {  // too deep: start again at the top level
        up[*it] = kNoParent;
        containers[*it].parent.clear();
        depth = 1;
      }
      containers[*it].depth = depth;
    }
  }

  // Nodes in ascending order, so every list stays sorted. O(N * depth), and
  // depth <= kMaxContainerDepth.
  for (NodeIndex v = 0; v < network.size(); ++v) {
    const std::string& parent = network.node(v).parent;
    if (has_top) containers[0].all.push_back(v);
    if (parent.empty()) {
      containers[0].direct.push_back(v);
      continue;
    }
    uint32_t c = index.at(parent);
    containers[c].direct.push_back(v);
    for (; c != kNoParent; c = up[c]) containers[c].all.push_back(v);
  }
  return containers;
}

}  // namespace cookgraph
