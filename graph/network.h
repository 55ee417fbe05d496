#ifndef COOKGRAPH_GRAPH_NETWORK_H_
#define COOKGRAPH_GRAPH_NETWORK_H_

// The operator network: nodes with ids, types and parameters, and typed edges
// between them. Nodes are addressed by dense indices (NodeIndex) in the order
// they were added; ids are unique.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/text.h"

namespace cookgraph {

/// Dense index of a node in its Network, 0..size()-1.
using NodeIndex = uint32_t;

/// What an edge from -> to means (docs/architecture.md#edge-kinds).
enum class EdgeKind : uint8_t {
  kData,      // a wire: `to` consumes what `from` produces this frame
  kRef,       // `to` reads a parameter, channel or export of `from`
  kFeedback,  // `to` reads `from`'s output of the previous frame; ignored for ordering
  kCall,      // `from` called `to` (nesting of trace events)
  kLaunch,    // a CPU op launched GPU work
  kFlow,      // any other declared dependency
  kFwdBwd,    // a forward op to its backward (Kineto's fwdbwd flows): across passes, so it
              // never orders nodes nor closes a loop
};

inline constexpr int kEdgeKindCount = 7;

/// "data", "ref", "feedback", "call", "launch", "flow", "fwdbwd".
std::string_view EdgeKindName(EdgeKind kind);
/// The kind named `name`, or nullopt.
std::optional<EdgeKind> ParseEdgeKind(std::string_view name);

/// One operator. Plain data; owned by Network.
struct Node {
  std::string id;      // unique, e.g. "/project1/noise1"
  std::string type;    // e.g. "noiseTOP", "GstVideoScale", "aten::conv2d"
  std::string family;  // e.g. "TOP", "CHOP", "element", "cpu_op", "kernel"
  std::string parent;  // container id; "" = top level (derived from a '/'-id when not given)
  std::vector<std::pair<std::string, std::string>> params;  // ordered key -> value
  bool output = false;  // a network output: displayed/exported op, sink, model output
};

/// A typed edge between two nodes of the same Network.
struct Edge {
  NodeIndex from = 0;
  NodeIndex to = 0;
  EdgeKind kind = EdgeKind::kData;
};

/// The value of `node`'s parameter `name` (the first of that key), or nullptr.
const std::string* FindParam(const Node& node, std::string_view name);

/// The parent of a '/'-separated id: "/a/b/c" -> "/a/b", "/a" -> "", "x" -> "".
std::string DerivedParent(std::string_view id);

/// How many containers hold a node whose parent is derived from `id`: the number
/// of times DerivedParent can be applied before it gives "" ("/a/b/c" -> 2,
/// "/a" -> 0, "x" -> 0, "a/b" -> 1). O(id.size()), no allocation.
size_t ContainerDepth(std::string_view id);

/// The deepest nesting of containers cookgraph accepts. Network::AddNode refuses
/// a node nested deeper; Containers() moves a container that a longer chain of
/// explicit parents would put deeper to the top level. Keeps the container
/// hierarchy (whose ids are prefixes of one another) and its walks bounded.
inline constexpr size_t kMaxContainerDepth = 256;

/// Nodes and edges. Add nodes first, then edges between them.
class Network {
 public:
  /// Adds a node; fails if its id is empty or already present, or if the node
  /// would be nested more than kMaxContainerDepth containers deep, by its id
  /// (ContainerDepth(id)) or by its explicit parent (1 + ContainerDepth(parent)).
  /// The depth error's `where` is "node '<id>'" and its message starts "nests ".
  /// An empty `parent` is derived from a '/'-separated id.
  Result<NodeIndex> AddNode(Node node);
  /// Adds an edge between existing nodes (indices must be < size()).
  void AddEdge(NodeIndex from, NodeIndex to, EdgeKind kind);

  std::optional<NodeIndex> Find(std::string_view id) const;
  size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  const Node& node(NodeIndex i) const { return nodes_[i]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Edge>& edges() const { return edges_; }
  /// True when at least one node is marked as an output.
  bool has_outputs() const { return output_count_ > 0; }

  void Reserve(size_t nodes, size_t edges);

 private:
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  // Owns a copy of each id: a string_view into nodes_[i].id would dangle for
  // short ids (small-string buffer) when nodes_ reallocates.
  StringMap<NodeIndex> index_;
  size_t output_count_ = 0;
};

/// Successors and predecessors of every node in compressed (CSR) form, built once
/// from a Network for the algorithms. Parallel edges stay (a node may appear twice
/// in a list). Feedback edges are left out unless `with_feedback` is set;
/// fwdbwd edges always (they relate two passes, not the order of one).
class Adjacency {
 public:
  Adjacency() = default;
  explicit Adjacency(const Network& network, bool with_feedback = false);

  size_t size() const { return out_offsets_.empty() ? 0 : out_offsets_.size() - 1; }
  std::span<const NodeIndex> out(NodeIndex n) const {
    return {out_.data() + out_offsets_[n], out_.data() + out_offsets_[n + 1]};
  }
  std::span<const NodeIndex> in(NodeIndex n) const {
    return {in_.data() + in_offsets_[n], in_.data() + in_offsets_[n + 1]};
  }

 private:
  std::vector<uint32_t> out_offsets_, in_offsets_;  // size()+1 entries each
  std::vector<NodeIndex> out_, in_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_GRAPH_NETWORK_H_
