#include "adapters/native/snapshot_builder.h"

#include <fmt/format.h>

#include "adapters/native/snapshot_builder_state.h"

// The event handlers for objects, arrays and keys. The handlers for scalar
// values are in snapshot_builder_values.cc, the errors for values of the wrong
// type in snapshot_builder_errors.cc, the resolution of ids in
// snapshot_builder_finish.cc.

namespace cookgraph {

using builder_internal::Ctx;
using builder_internal::Field;
using builder_internal::PendingRef;
using builder_internal::PendingSeries;
using builder_internal::Quote;
using builder_internal::SeriesLengthMessage;

namespace {

uint32_t Bit(Field f) { return 1u << (static_cast<uint32_t>(f) % 32); }

Field TopField(std::string_view key) {
  if (key == "cookgraph") return Field::kVersion;
  if (key == "engine") return Field::kEngine;
  if (key == "name") return Field::kName;
  if (key == "captured") return Field::kCaptured;
  if (key == "fps") return Field::kFps;
  if (key == "frame_budget_ms") return Field::kBudget;
  if (key == "source") return Field::kSource;
  if (key == "nodes") return Field::kNodes;
  if (key == "frames") return Field::kFrames;
  return Field::kNone;
}

Field NodeField(std::string_view key) {
  if (key == "id") return Field::kId;
  if (key == "type") return Field::kType;
  if (key == "family") return Field::kFamily;
  if (key == "parent") return Field::kParent;
  if (key == "params") return Field::kParams;
  if (key == "output") return Field::kOutput;
  if (key == "inputs") return Field::kInputs;
  if (key == "refs") return Field::kRefs;
  if (key == "feedback") return Field::kFeedback;
  if (key == "edges") return Field::kEdges;
  return Field::kNone;
}

Field FramesField(std::string_view key) {
  if (key == "index") return Field::kIndex;
  if (key == "frame_ms") return Field::kFrameMs;
  if (key == "profiler_ms") return Field::kProfilerMs;
  if (key == "series") return Field::kSeries;
  return Field::kNone;
}

}  // namespace

SnapshotBuilder::SnapshotBuilder(std::string file, const InputLimits& limits)
    : s_(std::make_unique<State>()) {
  s_->file = std::move(file);
  s_->limits = limits;
}
SnapshotBuilder::~SnapshotBuilder() = default;

std::string SnapshotBuilder::State::NodeWhere() const {
  const Node& node = nodes.back();
  if (node_has_id) return "node '" + node.id + "'";
  return fmt::format("nodes[{}]", nodes.size() - 1);
}

bool SnapshotBuilder::Skipping(bool is_begin, bool is_end) {
  if (s_->skip_depth > 0) {
    if (is_begin) ++s_->skip_depth;
    if (is_end) --s_->skip_depth;
    return true;
  }
  if (s_->skip_next) {
    s_->skip_next = false;
    if (is_begin) s_->skip_depth = 1;
    return true;
  }
  return false;
}

bool SnapshotBuilder::Fail(Location at, std::string where, std::string message) {
  error_ = Error{.file = s_->file,
                 .line = at.line,
                 .column = at.column,
                 .where = std::move(where),
                 .message = std::move(message)};
  return false;
}

bool SnapshotBuilder::NameFits(std::string_view name, std::string_view what, Location at) {
  if (name.size() <= s_->limits.name_length) return true;
  return Fail(at, s_->stack.size() > 1 && s_->top() == Ctx::kNode ? s_->NodeWhere() : "",
              NameTooLong(s_->limits, what, name.size()));
}

bool SnapshotBuilder::Key(std::string_view key, Location at) {
  if (Skipping(false, false)) return true;
  if (!NameFits(key, "a key", at)) return false;
  State& s = *s_;
  auto unknown = [&](std::string_view place) {
    auto& entry = s.unknown_keys[fmt::format("unknown key '{}' in {}", key, place)];
    if (entry.count++ == 0) entry.first = at;
    s.skip_next = true;
    return true;
  };
  auto duplicate = [&](uint32_t& seen, Field f, const std::string& where) {
    if (seen & Bit(f)) {
      error_ = Error{.file = s.file,
                     .line = at.line,
                     .column = at.column,
                     .where = where,
                     .message = fmt::format("duplicate key '{}'", key)};
      return true;
    }
    seen |= Bit(f);
    return false;
  };
  switch (s.top()) {
    case Ctx::kTop: {
      s.field = TopField(key);
      if (s.field == Field::kNone) return unknown("the snapshot");
      return !duplicate(s.top_seen, s.field, "");
    }
    case Ctx::kNode: {
      s.field = NodeField(key);
      if (s.field == Field::kNone) return unknown("a node");
      return !duplicate(s.node_seen, s.field, s.NodeWhere());
    }
    case Ctx::kParams:
      for (const auto& [name, value] : s.nodes.back().params) {
        if (name == key) {
          return Fail(at, s.NodeWhere() + ": params",
                      fmt::format("duplicate key '{}'", Quote(key)));
        }
      }
      s.param_key.assign(key);
      s.field = Field::kParamValue;
      return true;
    case Ctx::kEdge:
      if (key == "from") {
        s.field = Field::kEdgeFrom;
      } else if (key == "kind") {
        s.field = Field::kEdgeKind;
      } else {
        return unknown("an edge");
      }
      if (s.field == Field::kEdgeFrom ? s.edge_from.has_value() : s.edge_kind.has_value()) {
        return Fail(at, s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position),
                    fmt::format("duplicate key '{}'", key));
      }
      return true;
    case Ctx::kFrames:
      s.field = FramesField(key);
      if (s.field == Field::kNone) return unknown("frames");
      return !duplicate(s.frames_seen_keys, s.field, "frames");
    case Ctx::kSeries: {
      if (s.series_by_id.contains(key)) {
        return Fail(at, "frames.series", fmt::format("duplicate series for node '{}'", key));
      }
      s.series_by_id.emplace(key, s.series.size());
      s.series.push_back(PendingSeries{.id = std::string(key), .at = at});
      s.field = Field::kSeriesNode;
      return true;
    }
    case Ctx::kNodeSeries: {
      auto metric = ParseMetric(key);
      PendingSeries& series = s.series.back();
      if (!metric) {
        s.metric = -1;
        return unknown(
            "a node's series (metrics are cook_ms, gpu_ms, cpu_mem_mb, gpu_mem_mb, cooks)");
      }
      s.metric = static_cast<int>(*metric);
      if (series.present[s.metric]) {
        return Fail(at, fmt::format("series '{}'", series.id),
                    fmt::format("duplicate key '{}'", key));
      }
      s.field = Field::kMetric;
      return true;
    }
    default:
      return true;  // keys only occur in objects; the tokenizers guarantee it
  }
}

bool SnapshotBuilder::BeginObject(Location at) {
  if (Skipping(true, false)) return true;
  State& s = *s_;
  if (s.stack.empty()) {
    s.stack.push_back(Ctx::kTop);
    return true;
  }
  switch (s.top()) {
    case Ctx::kTop:
      if (s.field == Field::kFrames) {
        s.frames_seen = true;
        s.stack.push_back(Ctx::kFrames);
        return true;
      }
      break;
    case Ctx::kNodes:
      if (s.nodes.size() >= s.limits.nodes) {
        return Fail(at, fmt::format("nodes[{}]", s.nodes.size()),
                    LimitMessage(s.limits, &InputLimits::nodes, "the network has more nodes than"));
      }
      s.nodes.emplace_back();
      s.node_at.push_back(at);
      s.node_has_id = false;
      s.node_seen = 0;
      s.stack.push_back(Ctx::kNode);
      return true;
    case Ctx::kNode:
      if (s.field == Field::kParams) {
        s.stack.push_back(Ctx::kParams);
        return true;
      }
      break;
    case Ctx::kEdges:
      s.edge_from.reset();
      s.edge_kind.reset();
      s.edge_at = at;
      s.stack.push_back(Ctx::kEdge);
      return true;
    case Ctx::kFrames:
      if (s.field == Field::kSeries) {
        s.stack.push_back(Ctx::kSeries);
        return true;
      }
      break;
    case Ctx::kSeries:
      s.stack.push_back(Ctx::kNodeSeries);
      return true;
    default:
      break;
  }
  return Unexpected(Got::kObject, at);
}

bool SnapshotBuilder::EndObject(Location at) {
  if (Skipping(false, true)) return true;
  State& s = *s_;
  Ctx ctx = s.top();
  s.stack.pop_back();
  switch (ctx) {
    case Ctx::kNode:
      if (!s.node_has_id) {
        Location start = s.node_at.back();
        return Fail(start, s.NodeWhere(), "node has no \"id\"");
      }
      break;
    case Ctx::kEdge: {
      std::string where = s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position);
      if (!s.edge_from) return Fail(s.edge_at, where, "edge has no \"from\"");
      if (!s.edge_kind) {
        return Fail(s.edge_at, where,
                    "edge has no \"kind\" (data, ref, feedback, call, launch or flow)");
      }
      s.refs.push_back(PendingRef{std::move(*s.edge_from), *s.edge_kind,
                                  static_cast<NodeIndex>(s.nodes.size() - 1), s.edge_at});
      ++s.edge_position;
      break;
    }
    default:
      break;
  }
  (void)at;
  return true;
}

bool SnapshotBuilder::BeginArray(Location at) {
  if (Skipping(true, false)) return true;
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(Got::kArray, at);
  switch (s.top()) {
    case Ctx::kTop:
      if (s.field == Field::kNodes) {
        s.stack.push_back(Ctx::kNodes);
        return true;
      }
      if (s.field == Field::kSource) {
        s.stack.push_back(Ctx::kSource);
        return true;
      }
      break;
    case Ctx::kNode:
      switch (s.field) {
        case Field::kInputs:
          s.list_kind = EdgeKind::kData;
          break;
        case Field::kRefs:
          s.list_kind = EdgeKind::kRef;
          break;
        case Field::kFeedback:
          s.list_kind = EdgeKind::kFeedback;
          break;
        case Field::kEdges:
          s.edge_position = 0;
          s.stack.push_back(Ctx::kEdges);
          return true;
        default:
          return Unexpected(Got::kArray, at);
      }
      s.stack.push_back(Ctx::kIdList);
      return true;
    case Ctx::kFrames:
      if (s.field == Field::kIndex) {
        s.stack.push_back(Ctx::kIndex);
        return true;
      }
      if (s.field == Field::kFrameMs || s.field == Field::kProfilerMs) {
        const Ctx ctx = s.field == Field::kFrameMs ? Ctx::kFrameMs : Ctx::kProfilerMs;
        s.column(ctx).seen = true;
        s.column(ctx).at = at;
        s.stack.push_back(ctx);
        return true;
      }
      break;
    case Ctx::kNodeSeries: {
      PendingSeries& series = s.series.back();
      series.present[s.metric] = true;
      series.value_at[s.metric] = at;
      // Series usually follow the index: room for exactly its length in the
      // store's block, no growth slack. A series of another length is
      // refused where it ends (EndArray), so a run of short series cannot
      // reserve the index's length each. Before a complete index (the second
      // half of a split parse, say), each reserves what the last held: at
      // most the values already read.
      s.stores.front()->Open(s.index_complete ? s.index.size() : s.series_length_hint);
      s.stack.push_back(Ctx::kValues);
      return true;
    }
    default:
      break;
  }
  return Unexpected(Got::kArray, at);
}

bool SnapshotBuilder::EndArray(Location at) {
  if (Skipping(false, true)) return true;
  (void)at;
  State& s = *s_;
  const Ctx ctx = s.top();
  s.stack.pop_back();
  if (ctx == Ctx::kIndex) s.index_complete = true;
  if (ctx == Ctx::kValues) {
    s.series.back().values[s.metric] = s.stores.front()->Close();
    s.series_length_hint = s.series.back().values[s.metric].size();
  }
  if (ctx == Ctx::kValues && s.index_complete) {
    const PendingSeries& series = s.series.back();
    const size_t count = series.values[s.metric].size();
    if (count != s.index.size()) {
      return Fail(series.value_at[s.metric], fmt::format("series '{}'", series.id),
                  SeriesLengthMessage(static_cast<Metric>(s.metric), count, s.index.size()));
    }
  }
  return true;
}

}  // namespace cookgraph
