#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "adapters/native/snapshot_builder.h"
#include "adapters/native/snapshot_builder_state.h"

// The event handlers for scalar values: null, true/false, numbers and strings.

namespace cookgraph {

using builder_internal::Ctx;
using builder_internal::Field;
using builder_internal::FieldName;
using builder_internal::FrameColumn;
using builder_internal::PendingRef;
using builder_internal::PendingSeries;
using builder_internal::Quote;

namespace {

// The largest value a series, frame time, fps or budget may hold: ms, MB and
// counts beyond it are not measurements, and sums of them would overflow.
constexpr double kMaxValue = 1e12;

}  // namespace

bool SnapshotBuilder::Null(Location at) {
  if (Skipping(false, false)) return true;
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(Got::kNull, at);
  switch (s.top()) {
    case Ctx::kFrameMs:
    case Ctx::kProfilerMs:
      s.column(s.top()).values.push_back(kMissing);
      return true;
    case Ctx::kValues:
      s.stores.front()->Push(kMissing);
      return true;
    default:
      return Unexpected(Got::kNull, at);
  }
}

bool SnapshotBuilder::Bool(bool value, Location at) {
  if (Skipping(false, false)) return true;
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(Got::kBool, at);
  if (s.top() == Ctx::kNode && s.field == Field::kOutput) {
    s.nodes.back().output = value;
    return true;
  }
  if (s.top() == Ctx::kParams) {
    s.nodes.back().params.emplace_back(std::move(s.param_key), value ? "true" : "false");
    return true;
  }
  return Unexpected(Got::kBool, at);
}

bool SnapshotBuilder::Number(double value, std::string_view text, bool integer, Location at) {
  State& s = *s_;
  // Most of a snapshot's numbers: a series' value in range, not a count of
  // cooks (whose values must be whole), outside any skipped value.
  if (s.skip_depth == 0 && !s.skip_next && !s.stack.empty() && s.top() == Ctx::kValues &&
      value >= 0 && value <= kMaxValue && s.metric != static_cast<int>(Metric::kCooks)) {
    s.stores.front()->Push(value);
    return true;
  }
  if (Skipping(false, false)) return true;
  if (s.stack.empty()) return Unexpected(Got::kNumber, at);
  switch (s.top()) {
    case Ctx::kValues: {
      SeriesStore& store = *s.stores.front();
      if (!std::isfinite(value) || value < 0 || value > kMaxValue) {
        return Fail(
            at, fmt::format("series '{}'", s.series.back().id),
            fmt::format("{}[{}] is {}: values must be finite, >= 0 and <= 1e12",
                        MetricName(static_cast<Metric>(s.metric)), store.open_size(), Quote(text)));
      }
      if (s.metric == static_cast<int>(Metric::kCooks) && value != std::floor(value)) {
        return Fail(at, fmt::format("series '{}'", s.series.back().id),
                    fmt::format("cooks[{}] is {}: a count of cooks is a whole number",
                                store.open_size(), Quote(text)));
      }
      store.Push(value);
      return true;
    }
    case Ctx::kIndex: {
      int64_t frame = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), frame);
      if (!integer || ec != std::errc() || end != text.data() + text.size()) {
        return Fail(at, "frames.index",
                    fmt::format("index[{}] is {}: frame numbers are whole numbers", s.index.size(),
                                Quote(text)));
      }
      s.index.push_back(frame);
      return true;
    }
    case Ctx::kFrameMs:
    case Ctx::kProfilerMs: {
      FrameColumn& column = s.column(s.top());
      if (!std::isfinite(value) || value < 0 || value > kMaxValue) {
        return Fail(at, fmt::format("frames.{}", column.name),
                    fmt::format("{}[{}] is {}: {} must be finite, >= 0 and <= 1e12", column.name,
                                column.values.size(), Quote(text), column.what));
      }
      column.values.push_back(value);
      return true;
    }
    case Ctx::kParams:
      s.nodes.back().params.emplace_back(std::move(s.param_key), std::string(text));
      return true;
    case Ctx::kTop:
      switch (s.field) {
        case Field::kVersion:
          s.version_seen = true;
          if (value != 1) {
            return Fail(at, "",
                        fmt::format("snapshot format version {} is not supported: this "
                                    "cookgraph reads version 1",
                                    Quote(text)));
          }
          return true;
        case Field::kFps:
        case Field::kBudget:
          if (!std::isfinite(value) || value <= 0 || value > kMaxValue) {
            return Fail(at, FieldName(s.field),
                        fmt::format("{} must be a number > 0 and <= 1e12, got {}",
                                    FieldName(s.field), Quote(text)));
          }
          (s.field == Field::kFps ? s.info.fps : s.info.frame_budget_ms) = value;
          return true;
        default:
          break;
      }
      break;
    default:
      break;
  }
  return Unexpected(Got::kNumber, at);
}

bool SnapshotBuilder::String(std::string_view value, Location at) {
  if (Skipping(false, false)) return true;
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(Got::kString, at);
  // Every string but a parameter's value is a name (an id, a type, an id in a
  // list, the engine); the tokenizer has bounded those by string-length.
  if (s.top() != Ctx::kParams && value.size() > s.limits.name_length) {
    const std::string_view field = FieldName(s.field);
    return NameFits(value, field.empty() ? "a string" : fmt::format("'{}'", field), at);
  }
  switch (s.top()) {
    case Ctx::kTop:
      switch (s.field) {
        case Field::kEngine:
          s.info.engine.assign(value);
          return true;
        case Field::kName:
          s.info.name.assign(value);
          return true;
        case Field::kCaptured:
          s.info.captured.assign(value);
          return true;
        case Field::kSource:
          s.info.source.emplace_back(value);
          return true;
        case Field::kVersion:
          return Fail(at, "cookgraph",
                      fmt::format("the format version must be the number 1, got the string "
                                  "\"{}\"",
                                  Quote(value)));
        default:
          break;
      }
      break;
    case Ctx::kSource:
      s.info.source.emplace_back(value);
      return true;
    case Ctx::kNode: {
      Node& node = s.nodes.back();
      switch (s.field) {
        case Field::kId:
          if (value.empty()) return Fail(at, s.NodeWhere(), "\"id\" is empty");
          node.id.assign(value);
          s.node_has_id = true;
          return true;
        case Field::kType:
          node.type.assign(value);
          return true;
        case Field::kFamily:
          node.family.assign(value);
          return true;
        case Field::kParent:
          node.parent.assign(value);
          return true;
        default:
          break;
      }
      break;
    }
    case Ctx::kParams:
      s.nodes.back().params.emplace_back(std::move(s.param_key), std::string(value));
      return true;
    case Ctx::kIdList:
      s.refs.push_back(PendingRef{std::string(value), s.list_kind,
                                  static_cast<NodeIndex>(s.nodes.size() - 1), at});
      return true;
    case Ctx::kEdge:
      if (s.field == Field::kEdgeFrom) {
        s.edge_from = std::string(value);
        return true;
      }
      if (s.field == Field::kEdgeKind) {
        s.edge_kind = ParseEdgeKind(value);
        if (!s.edge_kind) {
          return Fail(at, s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position),
                      fmt::format("unknown edge kind '{}' (data, ref, feedback, call, launch "
                                  "or flow)",
                                  Quote(value)));
        }
        return true;
      }
      break;
    default:
      break;
  }
  return Unexpected(Got::kString, at);
}

}  // namespace cookgraph
