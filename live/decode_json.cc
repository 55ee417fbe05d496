// JSON lines: one object per line, parsed whole with nlohmann::json. A line
// holds one frame of one network, a few kilobytes at most, so a document tree
// is cheaper here than the streaming event machinery the snapshot reader needs
// (adapters/json_tokenizer.cc).

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "graph/network.h"
#include "live/decode.h"

namespace cookgraph {
namespace {

// ordered_json keeps the nodes in the order the sender wrote them (the order
// they are first seen in, and so in the snapshot), not sorted by id.
using json = nlohmann::ordered_json;

struct LineError {
  std::string message;
};

const char* kNodeKeys = "cook_ms, gpu_ms, cooks, cpu_mem_mb, gpu_mem_mb";

// A finite number from 0 to kMaxLiveValue, or NaN for null.
double Value(const json& v, const std::string& what, bool whole = false) {
  if (v.is_null()) return kMissing;
  if (!v.is_number())
    throw LineError{what + ": expected a number, got " + std::string(v.type_name())};
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0 || d > kMaxLiveValue) {
    throw LineError{what + ": expected a number from 0 to 1e12, got " + v.dump()};
  }
  if (whole && d != std::floor(d))
    throw LineError{what + ": expected a whole number, got " + v.dump()};
  return d;
}

// nlohmann's message without its "[json.exception...] parse error at line 1,
// column 5: " prefix: the line and column are the Error's own.
std::string ParseErrorText(std::string_view what) {
  size_t column = what.find("column ");
  size_t colon = column == std::string_view::npos ? column : what.find(": ", column);
  return std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
}

// nlohmann's message without its "[json.exception.<kind>.<id>] " prefix.
std::string ExceptionText(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

FrameRecord DecodeObject(const json& doc) {
  if (!doc.is_object()) {
    throw LineError{"expected an object {\"frame\": N, \"nodes\": {...}}, got " +
                    std::string(doc.type_name())};
  }
  FrameRecord record;
  bool has_frame = false, has_nodes = false;
  for (const auto& [key, value] : doc.items()) {
    if (key == "frame") {
      if (!value.is_number() ||
          (value.is_number_float() && value.get<double>() != std::floor(value.get<double>()))) {
        throw LineError{"frame: expected a whole number, got " + value.dump()};
      }
      if (value.is_number_float() && std::fabs(value.get<double>()) > 9e15) {
        throw LineError{"frame: out of range: " + value.dump()};
      }
      if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX}) {
        throw LineError{"frame: out of range: " + value.dump()};
      }
      record.frame = value.is_number_float() ? static_cast<int64_t>(value.get<double>())
                                             : value.get<int64_t>();
      has_frame = true;
    } else if (key == "frame_ms") {
      record.frame_ms = Value(value, "frame_ms");
    } else if (key == "more") {
      if (!value.is_boolean()) throw LineError{"more: expected true or false, got " + value.dump()};
      record.more = value.get<bool>();
    } else if (key == "nodes") {
      if (!value.is_object()) {
        throw LineError{"nodes: expected an object of node id -> cook_ms or {" +
                        std::string(kNodeKeys) + "}, got " + std::string(value.type_name())};
      }
      has_nodes = true;
      record.nodes.reserve(value.size());
      for (const auto& [id, numbers] : value.items()) {
        if (id.empty()) throw LineError{"nodes: a node id is empty"};
        NodeSample sample{.id = id};
        const std::string where = "node '" + id + "'";
        if (ContainerDepth(id) > kMaxContainerDepth) {
          throw LineError{where + ": nests more than 256 containers"};
        }
        if (numbers.is_object()) {
          for (const auto& [name, v] : numbers.items()) {
            std::optional<Metric> metric = ParseMetric(name);
            if (!metric) {
              throw LineError{where + ": unknown key '" + name + "' (expected " + kNodeKeys + ")"};
            }
            sample.values[static_cast<size_t>(*metric)] =
                Value(v, where + "." + name, *metric == Metric::kCooks);
          }
        } else {
          sample.values[static_cast<size_t>(Metric::kCookMs)] = Value(numbers, where);
        }
        record.nodes.push_back(std::move(sample));
      }
    } else {
      throw LineError{"unknown key '" + key + "' (expected frame, frame_ms, more, nodes)"};
    }
  }
  if (!has_frame) throw LineError{"no \"frame\" (the engine's frame number)"};
  if (!has_nodes) throw LineError{"no \"nodes\" (give {} for a frame in which nothing cooked)"};
  return record;
}

}  // namespace

Status DecodeJsonLines(std::string_view datagram, std::vector<FrameRecord>& out) {
  int64_t line_number = 0;
  size_t begin = 0;
  while (begin < datagram.size()) {
    size_t end = datagram.find('\n', begin);
    if (end == std::string_view::npos) end = datagram.size();
    std::string_view line = datagram.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json doc;
    try {
      doc = json::parse(line);
    } catch (const json::parse_error& e) {
      // e.byte is 1-based and points just past the offending character.
      return Error{.line = line_number,
                   .column = static_cast<int64_t>(e.byte),
                   .message = "invalid JSON: " + ParseErrorText(e.what())};
    } catch (const json::exception& e) {
      // Not a syntax error but still the datagram's fault: a number too large
      // for a double ("1e999") is out_of_range 406. A sender must not be able
      // to end the watch by sending one (found by fuzz/live_fuzz.cc).
      return Error{.line = line_number, .message = "invalid JSON: " + ExceptionText(e.what())};
    }
    try {
      out.push_back(DecodeObject(doc));
    } catch (const LineError& e) {
      return Error{.line = line_number, .message = e.message};
    } catch (const json::exception& e) {
      return Error{.line = line_number, .message = ExceptionText(e.what())};
    }
  }
  return {};
}

Status DecodeDatagram(std::string_view datagram, std::vector<FrameRecord>& out) {
  if (!datagram.empty() && datagram[0] == '#') return DecodeOscBundle(datagram, out);
  if (!datagram.empty() && datagram[0] == '/') {
    return Error{.message =
                     "an OSC message outside a bundle: send each frame as one bundle "
                     "(/cookgraph/frame, then /cookgraph/cook per node)"};
  }
  return DecodeJsonLines(datagram, out);
}

}  // namespace cookgraph
