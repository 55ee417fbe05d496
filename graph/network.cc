#include "graph/network.h"

#include <algorithm>
#include <array>

namespace cookgraph {
namespace {

constexpr std::array<std::string_view, kEdgeKindCount> kEdgeKindNames = {
    "data", "ref", "feedback", "call", "launch", "flow", "fwdbwd"};

// Edges the algorithms follow (see Adjacency).
bool Followed(EdgeKind kind, bool with_feedback) {
  if (kind == EdgeKind::kFwdBwd) return false;
  return kind != EdgeKind::kFeedback || with_feedback;
}

}  // namespace

std::string_view EdgeKindName(EdgeKind kind) { return kEdgeKindNames[static_cast<size_t>(kind)]; }

std::optional<EdgeKind> ParseEdgeKind(std::string_view name) {
  for (size_t i = 0; i < kEdgeKindNames.size(); ++i) {
    if (kEdgeKindNames[i] == name) return static_cast<EdgeKind>(i);
  }
  return std::nullopt;
}

const std::string* FindParam(const Node& node, std::string_view name) {
  for (const auto& [key, value] : node.params) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string DerivedParent(std::string_view id) {
  size_t slash = id.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return {};
  return std::string(id.substr(0, slash));
}

size_t ContainerDepth(std::string_view id) {
  // DerivedParent cuts at the last '/' and stops at one in front: every '/'
  // after the first character is one level.
  return id.empty() ? 0 : static_cast<size_t>(std::count(id.begin() + 1, id.end(), '/'));
}

Result<NodeIndex> Network::AddNode(Node node) {
  if (node.id.empty()) return Error{.message = "node id is empty"};
  // Checked before the id is indexed, so a refused node leaves no trace.
  const size_t depth = node.parent.empty()
                           ? ContainerDepth(node.id)
                           : std::max(ContainerDepth(node.id), 1 + ContainerDepth(node.parent));
  if (depth > kMaxContainerDepth) {
    return Error{.where = "node '" + node.id + "'",
                 .message = "nests " + std::to_string(depth) +
                            " containers deep; cookgraph supports at most " +
                            std::to_string(kMaxContainerDepth)};
  }
  auto index = static_cast<NodeIndex>(nodes_.size());
  auto [it, inserted] = index_.try_emplace(node.id, index);
  if (!inserted) {
    return Error{
        .where = "node '" + node.id + "'",
        .message = "duplicate id (first defined as node " + std::to_string(it->second) + ")"};
  }
  if (node.parent.empty()) node.parent = DerivedParent(node.id);
  if (node.output) ++output_count_;
  nodes_.push_back(std::move(node));
  return index;
}

void Network::AddEdge(NodeIndex from, NodeIndex to, EdgeKind kind) {
  edges_.push_back(Edge{from, to, kind});
}

std::optional<NodeIndex> Network::Find(std::string_view id) const {
  auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void Network::Reserve(size_t nodes, size_t edges) {
  nodes_.reserve(nodes);
  edges_.reserve(edges);
  index_.reserve(nodes);
}

Adjacency::Adjacency(const Network& network, bool with_feedback) {
  const size_t n = network.size();
  out_offsets_.assign(n + 1, 0);
  in_offsets_.assign(n + 1, 0);
  // Counting sort of the edges by source and by target: two passes, no
  // per-node allocation.
  for (const Edge& e : network.edges()) {
    if (!Followed(e.kind, with_feedback)) continue;
    ++out_offsets_[e.from + 1];
    ++in_offsets_[e.to + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    out_offsets_[i + 1] += out_offsets_[i];
    in_offsets_[i + 1] += in_offsets_[i];
  }
  out_.resize(out_offsets_[n]);
  in_.resize(in_offsets_[n]);
  std::vector<uint32_t> out_fill(out_offsets_.begin(), out_offsets_.end() - 1);
  std::vector<uint32_t> in_fill(in_offsets_.begin(), in_offsets_.end() - 1);
  for (const Edge& e : network.edges()) {
    if (!Followed(e.kind, with_feedback)) continue;
    out_[out_fill[e.from]++] = e.to;
    in_[in_fill[e.to]++] = e.from;
  }
}

}  // namespace cookgraph
