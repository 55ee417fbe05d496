#ifndef COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_BUILDER_STATE_H_
#define COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_BUILDER_STATE_H_

// Internal to adapters/: not a public header, include it only from the
// snapshot_builder*.cc files. What SnapshotBuilder's parts share: where the
// builder is in the input (Ctx, Field), the kinds of values (Got), and what it
// has collected so far for Finish() to resolve (State).

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/native/snapshot_builder.h"
#include "base/text.h"
#include "model/series_store.h"

namespace cookgraph {
namespace builder_internal {

// Where the builder is: one entry per open object or array.
enum class Ctx : uint8_t {
  kTop,         // the top-level object
  kSource,      // "source": [file, ...]
  kNodes,       // "nodes": [...]
  kNode,        // one node object
  kParams,      // node "params": {key: value}
  kIdList,      // node "inputs" / "refs" / "feedback": [id, ...]
  kEdges,       // node "edges": [...]
  kEdge,        // {"from": id, "kind": kind}
  kFrames,      // "frames": {...}
  kIndex,       // "frames.index": [int, ...]
  kFrameMs,     // "frames.frame_ms": [ms|null, ...]
  kProfilerMs,  // "frames.profiler_ms": [ms|null, ...]
  kSeries,      // "frames.series": {id: {...}}
  kNodeSeries,  // {metric: [...]}
  kValues,      // one metric's values
};

// The key whose value comes next.
enum class Field : uint8_t {
  kNone,
  kVersion,
  kEngine,
  kName,
  kCaptured,
  kFps,
  kBudget,
  kSource,
  kNodes,
  kFrames,
  kId,
  kType,
  kFamily,
  kParent,
  kParams,
  kOutput,
  kInputs,
  kRefs,
  kFeedback,
  kEdges,
  kParamValue,
  kEdgeFrom,
  kEdgeKind,
  kIndex,
  kFrameMs,
  kProfilerMs,
  kSeries,
  kSeriesNode,
  kMetric,
};

/// The name of a known key, as the input spells it; "" for kNone and the keys
/// without a fixed name (snapshot_builder_errors.cc).
const char* FieldName(Field f);

/// "cook_ms has 2 values but frames.index has 3" (snapshot_builder_errors.cc).
std::string SeriesLengthMessage(Metric metric, size_t count, size_t frames);

// At most 40 characters of a value from the input, for messages.
inline std::string Quote(std::string_view text) {
  return text.size() <= 40 ? std::string(text) : std::string(text.substr(0, 37)) + "...";
}

// A reference to a node by id, resolved once all nodes are known.
struct PendingRef {
  std::string id;
  EdgeKind kind;
  NodeIndex node;  // position of the referring node in `nodes`
  Location at;
};

struct PendingSeries {
  std::string id;
  Location at;
  std::array<std::span<const double>, kMetricCount> values;  // in State::stores
  std::array<bool, kMetricCount> present{};
  std::array<Location, kMetricCount> value_at{};
};

// A list of one value per frame beside frames.index: frame_ms or profiler_ms.
struct FrameColumn {
  const char* name;            // the key, "frame_ms"; the place in errors is "frames.frame_ms"
  const char* what;            // what the values are, for errors: "frame times"
  std::vector<double> values;  // ms; kMissing = not measured in that frame
  bool seen = false;
  Location at;  // where the list starts
};

// Unknown keys are reported once per place and key, with a count.
struct UnknownKey {
  Location first;
  size_t count = 0;
};

}  // namespace builder_internal

enum class SnapshotBuilder::Got : uint8_t { kObject, kArray, kNull, kBool, kNumber, kString };

struct SnapshotBuilder::State {
  std::string file;
  InputLimits limits;
  std::vector<builder_internal::Ctx> stack;
  builder_internal::Field field = builder_internal::Field::kNone;
  int skip_depth = 0;      // > 0 while skipping an unknown key's collection value
  bool skip_next = false;  // the next value belongs to an unknown key

  // Top level.
  bool version_seen = false;
  SnapshotInfo info;
  uint32_t top_seen = 0;  // bit per top-level Field, for duplicate keys

  // Nodes.
  std::vector<Node> nodes;
  std::vector<Location> node_at;
  std::vector<builder_internal::PendingRef> refs;
  bool node_has_id = false;
  uint32_t node_seen = 0;  // bit per node Field
  EdgeKind list_kind = EdgeKind::kData;
  std::string param_key;
  std::optional<std::string> edge_from;
  std::optional<EdgeKind> edge_kind;
  Location edge_at;
  size_t edge_position = 0;

  // Frames.
  bool frames_seen = false;
  bool index_complete = false;  // frames.index has been read to its end
  uint32_t frames_seen_keys = 0;
  std::vector<int64_t> index;
  builder_internal::FrameColumn frame_ms{.name = "frame_ms", .what = "frame times"};
  builder_internal::FrameColumn profiler_ms{.name = "profiler_ms", .what = "profiler times"};
  std::vector<builder_internal::PendingSeries> series;
  // Where the series' values are: this builder's store first (the one
  // written), then those of the second halves it joined.
  std::vector<std::shared_ptr<SeriesStore>> stores{std::make_shared<SeriesStore>()};
  StringMap<size_t> series_by_id;
  int metric = -1;  // current metric, -1 = unknown metric (skipped)
  // Values of the last series read, reserved for the next while frames.index
  // is not complete (a split parse's second half, series before the index).
  size_t series_length_hint = 0;

  std::map<std::string, builder_internal::UnknownKey> unknown_keys;

  builder_internal::Ctx top() const { return stack.back(); }

  // The list being read in `ctx` (Ctx::kFrameMs or Ctx::kProfilerMs).
  builder_internal::FrameColumn& column(builder_internal::Ctx ctx) {
    return ctx == builder_internal::Ctx::kProfilerMs ? profiler_ms : frame_ms;
  }

  // "node 'id'", or "nodes[i]" while the current node has no id yet.
  std::string NodeWhere() const;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_BUILDER_STATE_H_
