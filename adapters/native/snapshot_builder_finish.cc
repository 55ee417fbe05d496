#include <fmt/format.h>

#include <initializer_list>

#include "adapters/native/snapshot_builder.h"
#include "adapters/native/snapshot_builder_state.h"
#include "graph/suggest.h"

// The last step: ids are resolved into edges and series, lengths are checked
// against frames.index, and unknown keys become warnings.

namespace cookgraph {

using builder_internal::FrameColumn;
using builder_internal::PendingRef;
using builder_internal::PendingSeries;

Result<Snapshot> SnapshotBuilder::Finish() {
  State& s = *s_;
  auto fail = [&](Location at, std::string where, std::string message) -> Result<Snapshot> {
    return Error{.file = s.file,
                 .line = at.line,
                 .column = at.column,
                 .where = std::move(where),
                 .message = std::move(message)};
  };
  if (!s.version_seen) {
    return fail({}, "",
                "not a cookgraph snapshot: the format version key \"cookgraph\": 1 is missing");
  }
  if (s.nodes.empty())
    return fail({}, "nodes", "the network is empty: a snapshot needs at least one node");

  Snapshot snapshot;
  snapshot.info = std::move(s.info);

  Network& network = snapshot.network;
  network.Reserve(s.nodes.size(), s.refs.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    std::string id = s.nodes[i].id;
    auto added = network.AddNode(std::move(s.nodes[i]));
    if (!added) {
      if (auto first = network.Find(id)) {
        return fail(s.node_at[i], "node '" + id + "'",
                    fmt::format("duplicate id (first defined at line {})", s.node_at[*first].line));
      }
      // Any other refusal (e.g. nesting too deep) keeps the network's words.
      return fail(s.node_at[i], added.error().where, added.error().message);
    }
  }
  std::vector<Node>().swap(s.nodes);

  auto unknown_id = [&](const std::string& id) {
    std::string message = fmt::format("unknown node id '{}'", id);
    if (auto close = ClosestId(network, id))
      message += fmt::format(" (did you mean '{}'?)", *close);
    return message;
  };
  for (const PendingRef& ref : s.refs) {
    auto from = network.Find(ref.id);
    if (!from) {
      std::string_view list = ref.kind == EdgeKind::kData       ? "inputs"
                              : ref.kind == EdgeKind::kRef      ? "refs"
                              : ref.kind == EdgeKind::kFeedback ? "feedback"
                                                                : "edges";
      return fail(ref.at, fmt::format("node '{}': {}", network.node(ref.node).id, list),
                  unknown_id(ref.id));
    }
    network.AddEdge(*from, ref.node, ref.kind);
  }
  std::vector<PendingRef>().swap(s.refs);

  Samples& samples = snapshot.samples;
  samples = Samples(network.size());
  const size_t frames = s.index.size();
  for (const FrameColumn* column : {&s.frame_ms, &s.profiler_ms}) {
    if (column->seen && column->values.size() != frames) {
      return fail(
          column->at, fmt::format("frames.{}", column->name),
          fmt::format("has {} values but frames.index has {}", column->values.size(), frames));
    }
  }
  samples.SetFrameIndex(std::move(s.index));
  if (s.frame_ms.seen) samples.SetFrameMs(std::move(s.frame_ms.values));
  if (s.profiler_ms.seen) samples.SetProfilerMs(std::move(s.profiler_ms.values));
  for (const std::shared_ptr<SeriesStore>& store : s.stores) samples.Hold(store);
  for (PendingSeries& series : s.series) {
    auto node = network.Find(series.id);
    if (!node) return fail(series.at, "frames.series", unknown_id(series.id));
    for (int m = 0; m < kMetricCount; ++m) {
      if (!series.present[m]) continue;
      if (series.values[m].size() != frames) {
        return fail(series.value_at[m], fmt::format("series '{}'", series.id),
                    builder_internal::SeriesLengthMessage(static_cast<Metric>(m),
                                                          series.values[m].size(), frames));
      }
      samples.SetHeldSeries(*node, static_cast<Metric>(m), series.values[m]);
    }
  }
  std::vector<PendingSeries>().swap(s.series);

  if (!s.frames_seen)
    snapshot.warnings.push_back("the snapshot has no \"frames\": there are no statistics");
  else if (frames == 0)
    snapshot.warnings.push_back("frames.index is empty: there are no statistics");
  for (const auto& [what, unknown] : s.unknown_keys) {
    std::string times = unknown.count > 1 ? fmt::format("{} times, first ", unknown.count) : "";
    snapshot.warnings.push_back(
        fmt::format("{} ({}at line {}): ignored", what, times, unknown.first.line));
  }
  return snapshot;
}

}  // namespace cookgraph
