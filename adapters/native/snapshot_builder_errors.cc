#include <fmt/format.h>

#include "adapters/native/snapshot_builder.h"
#include "adapters/native/snapshot_builder_state.h"

// The errors for a value where the format has no place for it, or of the wrong
// type: they name the key or the list it is in and what belongs there.

namespace cookgraph {

using builder_internal::Ctx;
using builder_internal::Field;
using builder_internal::FieldName;

namespace builder_internal {

const char* FieldName(Field f) {
  switch (f) {
    case Field::kVersion:
      return "cookgraph";
    case Field::kEngine:
      return "engine";
    case Field::kName:
      return "name";
    case Field::kCaptured:
      return "captured";
    case Field::kFps:
      return "fps";
    case Field::kBudget:
      return "frame_budget_ms";
    case Field::kSource:
      return "source";
    case Field::kNodes:
      return "nodes";
    case Field::kFrames:
      return "frames";
    case Field::kId:
      return "id";
    case Field::kType:
      return "type";
    case Field::kFamily:
      return "family";
    case Field::kParent:
      return "parent";
    case Field::kParams:
      return "params";
    case Field::kOutput:
      return "output";
    case Field::kInputs:
      return "inputs";
    case Field::kRefs:
      return "refs";
    case Field::kFeedback:
      return "feedback";
    case Field::kEdges:
      return "edges";
    case Field::kEdgeFrom:
      return "from";
    case Field::kEdgeKind:
      return "kind";
    case Field::kIndex:
      return "index";
    case Field::kFrameMs:
      return "frame_ms";
    case Field::kProfilerMs:
      return "profiler_ms";
    case Field::kSeries:
      return "series";
    default:
      return "";
  }
}

std::string SeriesLengthMessage(Metric metric, size_t count, size_t frames) {
  return fmt::format("{} has {} values but frames.index has {}", MetricName(metric), count, frames);
}

}  // namespace builder_internal

namespace {

// What belongs under a key at the top of a snapshot.
const char* TopLevelWant(Field field) {
  const char* want = "";
  switch (field) {
    case Field::kVersion:
      want = "the number 1";
      break;
    case Field::kEngine:
    case Field::kName:
    case Field::kCaptured:
      want = "a string";
      break;
    case Field::kFps:
    case Field::kBudget:
      want = "a number";
      break;
    case Field::kSource:
      want = "a list of file names";
      break;
    case Field::kNodes:
      want = "a list of nodes";
      break;
    case Field::kFrames:
      want = "an object with index, frame_ms and series";
      break;
    default:
      want = "a known key";
      break;
  }
  return want;
}

}  // namespace

// A value where the format has no place for it, or of the wrong type.
bool SnapshotBuilder::Unexpected(Got got, Location at) {
  const char* got_text = "a value";
  switch (got) {
    case Got::kObject:
      got_text = "an object";
      break;
    case Got::kArray:
      got_text = "a list";
      break;
    case Got::kNull:
      got_text = "null";
      break;
    case Got::kBool:
      got_text = "true/false";
      break;
    case Got::kNumber:
      got_text = "a number";
      break;
    case Got::kString:
      got_text = "a string";
      break;
  }
  // Builds the error for a value of the wrong type.
  auto expected = [got_text](std::string_view what) {
    return fmt::format("expected {}, got {}", what, got_text);
  };
  State& s = *s_;
  if (s.stack.empty()) {
    return Fail(at, "", expected("an object at the top of a snapshot"));
  }
  switch (s.top()) {
    case Ctx::kTop: {
      const char* key = FieldName(s.field);
      return Fail(at, key, expected(TopLevelWant(s.field)));
    }
    case Ctx::kSource:
      return Fail(at, "source", expected("a file name"));
    case Ctx::kNodes:
      return Fail(at, fmt::format("nodes[{}]", s.nodes.size()), expected("a node object"));
    case Ctx::kNode: {
      const char* want = "a string";
      switch (s.field) {
        case Field::kParams:
          want = "an object of parameter values";
          break;
        case Field::kOutput:
          want = "true or false";
          break;
        case Field::kInputs:
        case Field::kRefs:
        case Field::kFeedback:
          want = "a list of node ids";
          break;
        case Field::kEdges:
          want = "a list of {from, kind} objects";
          break;
        default:
          break;
      }
      return Fail(at, s.NodeWhere() + ": " + FieldName(s.field), expected(want));
    }
    case Ctx::kParams:
      return Fail(at, s.NodeWhere() + ": params." + s.param_key, expected("a string or number"));
    case Ctx::kIdList:
      return Fail(at, s.NodeWhere(), expected("a node id (a string)"));
    case Ctx::kEdges:
      return Fail(at, s.NodeWhere() + fmt::format(": edges[{}]", s.edge_position),
                  expected("a {from, kind} object"));
    case Ctx::kEdge:
      return Fail(
          at, s.NodeWhere() + fmt::format(": edges[{}].{}", s.edge_position, FieldName(s.field)),
          expected("a string"));
    case Ctx::kFrames:
      return Fail(at, fmt::format("frames.{}", FieldName(s.field)),
                  expected(s.field == Field::kSeries ? "an object of node series" : "a list"));
    case Ctx::kIndex:
      return Fail(at, "frames.index", expected("a frame number"));
    case Ctx::kFrameMs:
    case Ctx::kProfilerMs:
      return Fail(at, fmt::format("frames.{}", s.column(s.top()).name),
                  expected("a number or null"));
    case Ctx::kSeries:
      return Fail(at, fmt::format("series '{}'", s.series.back().id),
                  expected("an object of metrics"));
    case Ctx::kNodeSeries:
      return Fail(at, fmt::format("series '{}'", s.series.back().id),
                  expected(fmt::format("a list of values for {}",
                                       MetricName(static_cast<Metric>(s.metric)))));
    case Ctx::kValues:
      return Fail(at, fmt::format("series '{}'", s.series.back().id),
                  expected(fmt::format("a number or null in {}",
                                       MetricName(static_cast<Metric>(s.metric)))));
  }
  return Fail(at, "", expected("something else"));
}

}  // namespace cookgraph
