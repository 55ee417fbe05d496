// The floor for any JSON tool: simdjson's on-demand API reading, from every
// node, sample and event, the fields cookgraph needs and nothing more, with no
// storage and no analysis. bench/run.sh times it on the same files as
// `cookgraph score`; cookgraph's time over this one is the "vs simdjson" ratio.
//
//   simdjson_floor [--strict] FILE...
//
// Native snapshots (an object with "cookgraph"): per node id, type, family,
// parent, params, inputs, refs, feedback, edges, output; frames.index,
// frames.frame_ms and every value of every series (a double, or null).
// Chrome traces (an array of events, or an object with "traceEvents"): per
// event ph, name, cat, pid, tid, ts, dur, id, bp; `args` and the rest are
// skipped unread, as on-demand parsing allows. Plain JSON only (no gzip).
// --strict reads a trace event's ph, name, ts and dur alone: the strict floor
// of issue 39, below which no reader of traces can go.
//
// Prints, per file, what it read and a checksum (so nothing is optimised
// away); exit 1 on any parse error, naming the file.

#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace {

using simdjson::ondemand::array;
using simdjson::ondemand::json_type;
using simdjson::ondemand::object;
using simdjson::ondemand::value;

// What was read from one file: counts and sums that depend on every field.
struct Tally {
  uint64_t strings = 0;       // strings read
  uint64_t string_bytes = 0;  // their unescaped length
  uint64_t numbers = 0;       // numbers read
  uint64_t nulls = 0;         // null samples
  uint64_t events = 0;        // nodes or trace events
  double sum = 0;             // of every number read
};

void String(value v, Tally& t) {
  std::string_view s = v.get_string();
  ++t.strings;
  t.string_bytes += s.size();
}

void Number(value v, Tally& t) {
  if (v.type() == json_type::null) {
    ++t.nulls;
    return;
  }
  t.sum += v.get_double();
  ++t.numbers;
}

// A pid, tid or flow id: a number or a string.
void Id(value v, Tally& t) {
  if (v.type() == json_type::string) {
    String(v, t);
  } else {
    Number(v, t);
  }
}

void Strings(array a, Tally& t) {
  for (value v : a) String(v, t);
}

void Node(object node, Tally& t) {
  ++t.events;
  for (auto field : node) {
    std::string_view key = field.unescaped_key();
    value v = field.value();
    if (key == "id" || key == "type" || key == "family" || key == "parent") {
      String(v, t);
    } else if (key == "inputs" || key == "refs" || key == "feedback") {
      Strings(v.get_array(), t);
    } else if (key == "params") {
      for (auto param : v.get_object()) {
        t.string_bytes += std::string_view(param.unescaped_key()).size();
        String(param.value(), t);
      }
    } else if (key == "edges") {
      for (value edge : v.get_array()) {
        object e = edge.get_object();
        for (auto f : e) {
          std::string_view k = f.unescaped_key();
          if (k == "from" || k == "kind") String(f.value(), t);
        }
      }
    } else if (key == "output") {
      t.numbers += bool(v.get_bool());
    }
  }
}

void Frames(object frames, Tally& t) {
  for (auto field : frames) {
    std::string_view key = field.unescaped_key();
    value v = field.value();
    if (key == "index") {
      for (value x : v.get_array()) {
        t.sum += double(int64_t(x.get_int64()));
        ++t.numbers;
      }
    } else if (key == "frame_ms") {
      for (value x : v.get_array()) Number(x, t);
    } else if (key == "series") {
      for (auto node : v.get_object()) {
        t.string_bytes += std::string_view(node.unescaped_key()).size();
        for (auto metric : node.value().get_object()) {
          t.string_bytes += std::string_view(metric.unescaped_key()).size();
          for (value x : metric.value().get_array()) Number(x, t);
        }
      }
    }
  }
}

void Event(object event, Tally& t) {
  ++t.events;
  for (auto field : event) {
    std::string_view key = field.unescaped_key();
    if (key.empty() || key.size() > 4) continue;  // args, and keys cookgraph ignores
    value v = field.value();
    if (key == "ph" || key == "name" || key == "cat" || key == "bp") {
      String(v, t);
    } else if (key == "ts" || key == "dur") {
      Number(v, t);
    } else if (key == "pid" || key == "tid" || key == "id") {
      Id(v, t);
    }
  }
}

// --strict: `ph`, `name`, `ts` and `dur` alone, the least any trace tool reads.
void StrictEvent(object event, Tally& t) {
  ++t.events;
  for (auto field : event) {
    std::string_view key = field.unescaped_key();
    if (key.empty() || key.size() > 4) continue;
    if (key == "ph" || key == "name") {
      String(field.value(), t);
    } else if (key == "ts" || key == "dur") {
      Number(field.value(), t);
    }
  }
}

bool strict = false;

void Events(array events, Tally& t) {
  for (value e : events) {
    if (strict) {
      StrictEvent(e.get_object(), t);
    } else {
      Event(e.get_object(), t);
    }
  }
}

// `parser` is reused from file to file, as a tool reading a batch would.
Tally Read(const char* path, simdjson::ondemand::parser& parser) {
  simdjson::padded_string json = simdjson::padded_string::load(path);
  simdjson::ondemand::document doc = parser.iterate(json);
  Tally t;
  if (doc.type() == json_type::array) {
    Events(doc.get_array(), t);
    return t;
  }
  for (auto field : doc.get_object()) {
    std::string_view key = field.unescaped_key();
    if (key == "nodes") {
      for (value n : field.value().get_array()) Node(n.get_object(), t);
    } else if (key == "frames") {
      Frames(field.value().get_object(), t);
    } else if (key == "traceEvents") {
      Events(field.value().get_array(), t);
    }
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1;
  if (argc > 1 && std::string_view(argv[1]) == "--strict") {
    strict = true;
    first = 2;
  }
  if (argc <= first) {
    std::fprintf(stderr, "usage: simdjson_floor [--strict] FILE...\n");
    return 2;
  }
  int status = 0;
  simdjson::ondemand::parser parser;
  for (int i = first; i < argc; ++i) {
    try {
      Tally t = Read(argv[i], parser);
      std::printf(
          "%s: %llu nodes/events, %llu numbers, %llu nulls, %llu strings (%llu bytes), sum %.6g\n",
          argv[i], static_cast<unsigned long long>(t.events),
          static_cast<unsigned long long>(t.numbers), static_cast<unsigned long long>(t.nulls),
          static_cast<unsigned long long>(t.strings),
          static_cast<unsigned long long>(t.string_bytes), t.sum);
    } catch (const simdjson::simdjson_error& e) {
      std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
      status = 1;
    }
  }
  return status;
}
