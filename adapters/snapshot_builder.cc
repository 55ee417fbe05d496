#include "adapters/snapshot_builder.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "graph/suggest.h"

namespace cookgraph {
namespace {

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
  kSeries,      // "frames.series": {id: {...}}
  kNodeSeries,  // {metric: [...]}
  kValues,      // one metric's values
};

// The key whose value comes next.
enum class Field : uint8_t {
  kNone,
  kVersion, kEngine, kName, kCaptured, kFps, kBudget, kSource, kNodes, kFrames,
  kId, kType, kFamily, kParent, kParams, kOutput, kInputs, kRefs, kFeedback, kEdges,
  kParamValue, kEdgeFrom, kEdgeKind,
  kIndex, kFrameMs, kSeries,
  kSeriesNode, kMetric,
};

// The largest value a series, frame time, fps or budget may hold: ms, MB and
// counts beyond it are not measurements, and sums of them would overflow.
constexpr double kMaxValue = 1e12;

enum class Got : uint8_t { kObject, kArray, kNull, kBool, kNumber, kString };

const char* Describe(Got got) {
  switch (got) {
    case Got::kObject: return "an object";
    case Got::kArray: return "a list";
    case Got::kNull: return "null";
    case Got::kBool: return "true/false";
    case Got::kNumber: return "a number";
    case Got::kString: return "a string";
  }
  return "a value";
}

// At most 40 characters of a value from the input, for messages.
std::string Quote(std::string_view text) {
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
  std::array<std::vector<double>, kMetricCount> values;
  std::array<bool, kMetricCount> present{};
  std::array<Location, kMetricCount> value_at{};
};

// Unknown keys are reported once per place and key, with a count.
struct UnknownKey {
  Location first;
  size_t count = 0;
};

}  // namespace

struct SnapshotBuilder::State {
  std::string file;
  std::vector<Ctx> stack;
  Field field = Field::kNone;
  int skip_depth = 0;      // > 0 while skipping an unknown key's collection value
  bool skip_next = false;  // the next value belongs to an unknown key

  // Top level.
  bool version_seen = false;
  SnapshotInfo info;
  uint32_t top_seen = 0;  // bit per top-level Field, for duplicate keys

  // Nodes.
  std::vector<Node> nodes;
  std::vector<Location> node_at;
  std::vector<PendingRef> refs;
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
  uint32_t frames_seen_keys = 0;
  std::vector<int64_t> index;
  std::vector<double> frame_ms;
  bool frame_ms_seen = false;
  Location frame_ms_at;
  std::vector<PendingSeries> series;
  std::map<std::string, size_t, std::less<>> series_by_id;
  int metric = -1;  // current metric, -1 = unknown metric (skipped)

  std::map<std::string, UnknownKey> unknown_keys;

  Ctx top() const { return stack.back(); }

  std::string NodeWhere() const {
    const Node& node = nodes.back();
    if (node_has_id) return "node '" + node.id + "'";
    return fmt::format("nodes[{}]", nodes.size() - 1);
  }
};

SnapshotBuilder::SnapshotBuilder(std::string file) : s_(std::make_unique<State>()) {
  s_->file = std::move(file);
}
SnapshotBuilder::~SnapshotBuilder() = default;

namespace {

uint32_t Bit(Field f) { return 1u << (static_cast<uint32_t>(f) % 32); }

}  // namespace

// Every handler first asks Skipping(): values of unknown keys are passed over.
#define COOKGRAPH_SKIP(is_begin, is_end)        \
  do {                                          \
    if (s_->skip_depth > 0) {                   \
      if (is_begin) ++s_->skip_depth;           \
      if (is_end) --s_->skip_depth;             \
      return true;                              \
    }                                           \
    if (s_->skip_next) {                        \
      s_->skip_next = false;                    \
      if (is_begin) s_->skip_depth = 1;         \
      return true;                              \
    }                                           \
  } while (0)

namespace {

// Builds the error for a value of the wrong type.
std::string Expected(std::string_view what, Got got) {
  return fmt::format("expected {}, got {}", what, Describe(got));
}

}  // namespace

// Records an error and stops the parse; a macro keeps the many call sites short.
#define COOKGRAPH_FAIL(at_, where_, message_)                                      \
  do {                                                                             \
    error_ = Error{.file = s_->file, .line = (at_).line, .column = (at_).column,   \
                   .where = (where_), .message = (message_)};                      \
    return false;                                                                  \
  } while (0)

namespace {

const char* FieldName(Field f) {
  switch (f) {
    case Field::kVersion: return "cookgraph";
    case Field::kEngine: return "engine";
    case Field::kName: return "name";
    case Field::kCaptured: return "captured";
    case Field::kFps: return "fps";
    case Field::kBudget: return "frame_budget_ms";
    case Field::kSource: return "source";
    case Field::kNodes: return "nodes";
    case Field::kFrames: return "frames";
    case Field::kId: return "id";
    case Field::kType: return "type";
    case Field::kFamily: return "family";
    case Field::kParent: return "parent";
    case Field::kParams: return "params";
    case Field::kOutput: return "output";
    case Field::kInputs: return "inputs";
    case Field::kRefs: return "refs";
    case Field::kFeedback: return "feedback";
    case Field::kEdges: return "edges";
    case Field::kEdgeFrom: return "from";
    case Field::kEdgeKind: return "kind";
    case Field::kIndex: return "index";
    case Field::kFrameMs: return "frame_ms";
    case Field::kSeries: return "series";
    default: return "";
  }
}

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
  if (key == "series") return Field::kSeries;
  return Field::kNone;
}

}  // namespace

bool SnapshotBuilder::Key(std::string_view key, Location at) {
  COOKGRAPH_SKIP(false, false);
  State& s = *s_;
  auto unknown = [&](std::string_view place) {
    auto& entry = s.unknown_keys[fmt::format("unknown key '{}' in {}", key, place)];
    if (entry.count++ == 0) entry.first = at;
    s.skip_next = true;
    return true;
  };
  auto duplicate = [&](uint32_t& seen, Field f, const std::string& where) {
    if (seen & Bit(f)) {
      error_ = Error{.file = s.file, .line = at.line, .column = at.column, .where = where,
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
          COOKGRAPH_FAIL(at, s.NodeWhere() + ": params", fmt::format("duplicate key '{}'", Quote(key)));
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
        COOKGRAPH_FAIL(at, s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position),
                       fmt::format("duplicate key '{}'", key));
      }
      return true;
    case Ctx::kFrames:
      s.field = FramesField(key);
      if (s.field == Field::kNone) return unknown("frames");
      return !duplicate(s.frames_seen_keys, s.field, "frames");
    case Ctx::kSeries: {
      std::string id(key);
      if (s.series_by_id.count(id)) {
        COOKGRAPH_FAIL(at, "frames.series", fmt::format("duplicate series for node '{}'", id));
      }
      s.series_by_id.emplace(id, s.series.size());
      s.series.push_back(PendingSeries{.id = std::move(id), .at = at});
      s.field = Field::kSeriesNode;
      return true;
    }
    case Ctx::kNodeSeries: {
      auto metric = ParseMetric(key);
      PendingSeries& series = s.series.back();
      if (!metric) {
        s.metric = -1;
        return unknown("a node's series (metrics are cook_ms, gpu_ms, cpu_mem_mb, gpu_mem_mb, cooks)");
      }
      s.metric = static_cast<int>(*metric);
      if (series.present[s.metric]) {
        COOKGRAPH_FAIL(at, fmt::format("series '{}'", series.id),
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
  COOKGRAPH_SKIP(true, false);
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
  return Unexpected(static_cast<int>(Got::kObject), at);
}

bool SnapshotBuilder::EndObject(Location at) {
  COOKGRAPH_SKIP(false, true);
  State& s = *s_;
  Ctx ctx = s.top();
  s.stack.pop_back();
  switch (ctx) {
    case Ctx::kNode:
      if (!s.node_has_id) {
        Location start = s.node_at.back();
        COOKGRAPH_FAIL(start, s.NodeWhere(), "node has no \"id\"");
      }
      break;
    case Ctx::kEdge: {
      std::string where = s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position);
      if (!s.edge_from) COOKGRAPH_FAIL(s.edge_at, where, "edge has no \"from\"");
      if (!s.edge_kind) {
        COOKGRAPH_FAIL(s.edge_at, where,
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
  COOKGRAPH_SKIP(true, false);
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(static_cast<int>(Got::kArray), at);
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
        case Field::kInputs: s.list_kind = EdgeKind::kData; break;
        case Field::kRefs: s.list_kind = EdgeKind::kRef; break;
        case Field::kFeedback: s.list_kind = EdgeKind::kFeedback; break;
        case Field::kEdges:
          s.edge_position = 0;
          s.stack.push_back(Ctx::kEdges);
          return true;
        default: return Unexpected(static_cast<int>(Got::kArray), at);
      }
      s.stack.push_back(Ctx::kIdList);
      return true;
    case Ctx::kFrames:
      if (s.field == Field::kIndex) {
        s.stack.push_back(Ctx::kIndex);
        return true;
      }
      if (s.field == Field::kFrameMs) {
        s.frame_ms_seen = true;
        s.frame_ms_at = at;
        s.stack.push_back(Ctx::kFrameMs);
        return true;
      }
      break;
    case Ctx::kNodeSeries: {
      PendingSeries& series = s.series.back();
      series.present[s.metric] = true;
      series.value_at[s.metric] = at;
      // Series usually follow the index: reserve exactly, no growth slack.
      series.values[s.metric].reserve(s.index.size());
      s.stack.push_back(Ctx::kValues);
      return true;
    }
    default:
      break;
  }
  return Unexpected(static_cast<int>(Got::kArray), at);
}

bool SnapshotBuilder::EndArray(Location at) {
  COOKGRAPH_SKIP(false, true);
  (void)at;
  s_->stack.pop_back();
  return true;
}

bool SnapshotBuilder::Null(Location at) {
  COOKGRAPH_SKIP(false, false);
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(static_cast<int>(Got::kNull), at);
  switch (s.top()) {
    case Ctx::kFrameMs:
      s.frame_ms.push_back(kMissing);
      return true;
    case Ctx::kValues:
      s.series.back().values[s.metric].push_back(kMissing);
      return true;
    default:
      return Unexpected(static_cast<int>(Got::kNull), at);
  }
}

bool SnapshotBuilder::Bool(bool value, Location at) {
  COOKGRAPH_SKIP(false, false);
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(static_cast<int>(Got::kBool), at);
  if (s.top() == Ctx::kNode && s.field == Field::kOutput) {
    s.nodes.back().output = value;
    return true;
  }
  if (s.top() == Ctx::kParams) {
    s.nodes.back().params.emplace_back(std::move(s.param_key), value ? "true" : "false");
    return true;
  }
  return Unexpected(static_cast<int>(Got::kBool), at);
}

bool SnapshotBuilder::Number(double value, std::string_view text, bool integer, Location at) {
  COOKGRAPH_SKIP(false, false);
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(static_cast<int>(Got::kNumber), at);
  switch (s.top()) {
    case Ctx::kValues: {
      PendingSeries& series = s.series.back();
      std::vector<double>& values = series.values[s.metric];
      if (!std::isfinite(value) || value < 0 || value > kMaxValue) {
        COOKGRAPH_FAIL(at, fmt::format("series '{}'", series.id),
                       fmt::format("{}[{}] is {}: values must be finite, >= 0 and <= 1e12",
                                   MetricName(static_cast<Metric>(s.metric)), values.size(), Quote(text)));
      }
      if (s.metric == static_cast<int>(Metric::kCooks) && value != std::floor(value)) {
        COOKGRAPH_FAIL(at, fmt::format("series '{}'", series.id),
                       fmt::format("cooks[{}] is {}: a count of cooks is a whole number",
                                   values.size(), Quote(text)));
      }
      values.push_back(value);
      return true;
    }
    case Ctx::kIndex: {
      int64_t frame = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), frame);
      if (!integer || ec != std::errc() || end != text.data() + text.size()) {
        COOKGRAPH_FAIL(at, "frames.index",
                       fmt::format("index[{}] is {}: frame numbers are whole numbers",
                                   s.index.size(), Quote(text)));
      }
      s.index.push_back(frame);
      return true;
    }
    case Ctx::kFrameMs:
      if (!std::isfinite(value) || value < 0 || value > kMaxValue) {
        COOKGRAPH_FAIL(at, "frames.frame_ms",
                       fmt::format("frame_ms[{}] is {}: frame times must be finite, >= 0 and <= 1e12",
                                   s.frame_ms.size(), Quote(text)));
      }
      s.frame_ms.push_back(value);
      return true;
    case Ctx::kParams:
      s.nodes.back().params.emplace_back(std::move(s.param_key), std::string(text));
      return true;
    case Ctx::kTop:
      switch (s.field) {
        case Field::kVersion:
          s.version_seen = true;
          if (value != 1) {
            COOKGRAPH_FAIL(at, "",
                           fmt::format("snapshot format version {} is not supported: this "
                                       "cookgraph reads version 1",
                                       Quote(text)));
          }
          return true;
        case Field::kFps:
        case Field::kBudget:
          if (!std::isfinite(value) || value <= 0 || value > kMaxValue) {
            COOKGRAPH_FAIL(at, FieldName(s.field),
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
  return Unexpected(static_cast<int>(Got::kNumber), at);
}

bool SnapshotBuilder::String(std::string_view value, Location at) {
  COOKGRAPH_SKIP(false, false);
  State& s = *s_;
  if (s.stack.empty()) return Unexpected(static_cast<int>(Got::kString), at);
  switch (s.top()) {
    case Ctx::kTop:
      switch (s.field) {
        case Field::kEngine: s.info.engine.assign(value); return true;
        case Field::kName: s.info.name.assign(value); return true;
        case Field::kCaptured: s.info.captured.assign(value); return true;
        case Field::kSource: s.info.source.emplace_back(value); return true;
        case Field::kVersion:
          COOKGRAPH_FAIL(at, "cookgraph",
                         fmt::format("the format version must be the number 1, got the string "
                                     "\"{}\"",
                                     Quote(value)));
        default: break;
      }
      break;
    case Ctx::kSource:
      s.info.source.emplace_back(value);
      return true;
    case Ctx::kNode: {
      Node& node = s.nodes.back();
      switch (s.field) {
        case Field::kId:
          if (value.empty()) COOKGRAPH_FAIL(at, s.NodeWhere(), "\"id\" is empty");
          node.id.assign(value);
          s.node_has_id = true;
          return true;
        case Field::kType: node.type.assign(value); return true;
        case Field::kFamily: node.family.assign(value); return true;
        case Field::kParent: node.parent.assign(value); return true;
        default: break;
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
          COOKGRAPH_FAIL(at, s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position),
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
  return Unexpected(static_cast<int>(Got::kString), at);
}

// A value where the format has no place for it, or of the wrong type.
bool SnapshotBuilder::Unexpected(int got_int, Location at) {
  auto got = static_cast<Got>(got_int);
  State& s = *s_;
  if (s.stack.empty()) {
    COOKGRAPH_FAIL(at, "", Expected("an object at the top of a snapshot", got));
  }
  switch (s.top()) {
    case Ctx::kTop: {
      const char* key = FieldName(s.field);
      const char* want = "";
      switch (s.field) {
        case Field::kVersion: want = "the number 1"; break;
        case Field::kEngine: case Field::kName: case Field::kCaptured: want = "a string"; break;
        case Field::kFps: case Field::kBudget: want = "a number"; break;
        case Field::kSource: want = "a list of file names"; break;
        case Field::kNodes: want = "a list of nodes"; break;
        case Field::kFrames: want = "an object with index, frame_ms and series"; break;
        default: want = "a known key"; break;
      }
      COOKGRAPH_FAIL(at, key, Expected(want, got));
    }
    case Ctx::kSource: COOKGRAPH_FAIL(at, "source", Expected("a file name", got));
    case Ctx::kNodes: COOKGRAPH_FAIL(at, fmt::format("nodes[{}]", s.nodes.size()), Expected("a node object", got));
    case Ctx::kNode: {
      const char* want = "a string";
      switch (s.field) {
        case Field::kParams: want = "an object of parameter values"; break;
        case Field::kOutput: want = "true or false"; break;
        case Field::kInputs: case Field::kRefs: case Field::kFeedback: want = "a list of node ids"; break;
        case Field::kEdges: want = "a list of {from, kind} objects"; break;
        default: break;
      }
      COOKGRAPH_FAIL(at, s.NodeWhere() + ": " + FieldName(s.field), Expected(want, got));
    }
    case Ctx::kParams:
      COOKGRAPH_FAIL(at, s.NodeWhere() + ": params." + s.param_key, Expected("a string or number", got));
    case Ctx::kIdList:
      COOKGRAPH_FAIL(at, s.NodeWhere(), Expected("a node id (a string)", got));
    case Ctx::kEdges:
      COOKGRAPH_FAIL(at, s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position),
                     Expected("a {from, kind} object", got));
    case Ctx::kEdge:
      COOKGRAPH_FAIL(at, s.NodeWhere() + fmt::format(": edges[{}].{}", s.edge_position, FieldName(s.field)),
                     Expected("a string", got));
    case Ctx::kFrames:
      COOKGRAPH_FAIL(at, fmt::format("frames.{}", FieldName(s.field)),
                     Expected(s.field == Field::kSeries ? "an object of node series" : "a list", got));
    case Ctx::kIndex:
      COOKGRAPH_FAIL(at, "frames.index", Expected("a frame number", got));
    case Ctx::kFrameMs:
      COOKGRAPH_FAIL(at, "frames.frame_ms", Expected("a number or null", got));
    case Ctx::kSeries:
      COOKGRAPH_FAIL(at, fmt::format("series '{}'", s.series.back().id), Expected("an object of metrics", got));
    case Ctx::kNodeSeries:
      COOKGRAPH_FAIL(at, fmt::format("series '{}'", s.series.back().id),
                     Expected(fmt::format("a list of values for {}", MetricName(static_cast<Metric>(s.metric))), got));
    case Ctx::kValues:
      COOKGRAPH_FAIL(at, fmt::format("series '{}'", s.series.back().id),
                     Expected(fmt::format("a number or null in {}", MetricName(static_cast<Metric>(s.metric))), got));
  }
  COOKGRAPH_FAIL(at, "", Expected("something else", got));
}

Result<Snapshot> SnapshotBuilder::Finish() {
  State& s = *s_;
  auto fail = [&](Location at, std::string where, std::string message) -> Result<Snapshot> {
    return Error{.file = s.file, .line = at.line, .column = at.column, .where = std::move(where),
                 .message = std::move(message)};
  };
  if (!s.version_seen) {
    return fail({}, "", "not a cookgraph snapshot: the format version key \"cookgraph\": 1 is missing");
  }
  if (s.nodes.empty()) return fail({}, "nodes", "the network is empty: a snapshot needs at least one node");

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
    if (auto close = ClosestId(network, id)) message += fmt::format(" (did you mean '{}'?)", *close);
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
  if (s.frame_ms_seen && s.frame_ms.size() != frames) {
    return fail(s.frame_ms_at, "frames.frame_ms",
                fmt::format("has {} values but frames.index has {}", s.frame_ms.size(), frames));
  }
  samples.SetFrameIndex(std::move(s.index));
  if (s.frame_ms_seen) samples.SetFrameMs(std::move(s.frame_ms));
  for (PendingSeries& series : s.series) {
    auto node = network.Find(series.id);
    if (!node) return fail(series.at, "frames.series", unknown_id(series.id));
    for (int m = 0; m < kMetricCount; ++m) {
      if (!series.present[m]) continue;
      if (series.values[m].size() != frames) {
        return fail(series.value_at[m], fmt::format("series '{}'", series.id),
                    fmt::format("{} has {} values but frames.index has {}",
                                MetricName(static_cast<Metric>(m)), series.values[m].size(),
                                frames));
      }
      samples.SetSeries(*node, static_cast<Metric>(m), std::move(series.values[m]));
    }
  }
  std::vector<PendingSeries>().swap(s.series);

  if (!s.frames_seen) snapshot.warnings.push_back("the snapshot has no \"frames\": there are no statistics");
  else if (frames == 0) snapshot.warnings.push_back("frames.index is empty: there are no statistics");
  for (const auto& [what, unknown] : s.unknown_keys) {
    std::string times = unknown.count > 1 ? fmt::format("{} times, first ", unknown.count) : "";
    snapshot.warnings.push_back(
        fmt::format("{} ({}at line {}): ignored", what, times, unknown.first.line));
  }
  return snapshot;
}

}  // namespace cookgraph
