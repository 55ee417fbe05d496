#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "server/explorer_internal.h"

// Preparing a view: the containers the page shows, for a trace its call tree.

namespace cookgraph::server {

namespace {

// A trace's nodes are operators named by what they are ("aten::conv2d"), not
// by where they sit, so they have no containers. The explorer shows them as
// their call tree (docs/commands.md#what-the-page-shows): each node under the
// first node that calls or launches it, earlier in the topological order
// (which keeps the tree free of cycles); the roots (steps, annotations, the
// first ops) at the top level. Nodes nested past kMaxContainerDepth stay at
// the top level.
std::vector<std::string> CallTreeParents(const View& view) {
  const Network& net = view.snapshot.network;
  std::vector<size_t> position(net.size(), SIZE_MAX);
  for (size_t i = 0; i < view.analysis.order.size(); ++i) position[view.analysis.order[i]] = i;
  std::vector<int64_t> parent(net.size(), -1);
  for (const Edge& e : net.edges()) {
    if (e.kind != EdgeKind::kCall && e.kind != EdgeKind::kLaunch) continue;
    if (parent[e.to] >= 0 || position[e.from] >= position[e.to]) continue;
    parent[e.to] = e.from;
  }
  // Depth by the order: a parent comes earlier, so its depth is known.
  std::vector<size_t> depth(net.size(), 0);
  std::vector<std::string> parents(net.size());
  for (NodeIndex n : view.analysis.order) {
    if (parent[n] < 0) continue;
    const auto p = static_cast<NodeIndex>(parent[n]);
    if (depth[p] + 1 >= kMaxContainerDepth) continue;
    depth[n] = depth[p] + 1;
    parents[n] = net.node(p).id;
  }
  return parents;
}

bool HasContainers(const Network& net) {
  for (const Node& n : net.nodes()) {
    if (!n.parent.empty()) return true;
  }
  return false;
}

}  // namespace

void Prepare(View& view) {
  const Network& net = view.snapshot.network;
  view.parents.clear();
  if (!view.snapshot.timelines.empty() && !HasContainers(net)) {
    view.parents = CallTreeParents(view);
    // The containers of that tree: the same nodes, their parents replaced.
    Network tree;
    tree.Reserve(net.size(), 0);
    for (NodeIndex n = 0; n < net.size(); ++n) {
      Node copy{.id = net.node(n).id, .parent = view.parents[n]};
      if (!tree.AddNode(std::move(copy))) {  // deeper than allowed: at the top
        view.parents[n].clear();
        (void)tree.AddNode(Node{.id = net.node(n).id});
      }
    }
    view.containers = Containers(tree);
  } else {
    view.parents.reserve(net.size());
    for (const Node& n : net.nodes()) view.parents.push_back(n.parent);
    view.containers = Containers(net);
  }
  view.rank = Rank(view.analysis, SortKey::kScore);
  view.whatif = std::make_unique<const WhatIf>(WhatIf::Build(view.snapshot, view.analysis));
}

std::shared_ptr<const View> MakeView(std::string file, Judged judged) {
  auto view = std::make_shared<View>();
  view->file = std::move(file);
  static_cast<Judged&>(*view) = std::move(judged);
  Prepare(*view);
  return std::shared_ptr<const View>(std::move(view));
}

const AnalysisTools& View::tools() const {
  std::call_once(tools_once_, [this] { tools_ = std::make_unique<const AnalysisTools>(*this, file); });
  return *tools_;
}

}  // namespace cookgraph::server
