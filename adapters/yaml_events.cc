// YAML into events, through libyaml's event parser: a stream, like the JSON
// side, with the line and column of every event and of every syntax error.
//
// Limits (adapters/input_limits.h): libyaml keeps no tree and no recursion, but
// it holds a scalar whole and has no bound of its own, so the bytes it reads
// between two events are counted here and reading stops past string-length
// (plus libyaml's own read-ahead); nesting is counted as events arrive.

#include <fmt/format.h>
#include <yaml.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "adapters/events.h"
#include "adapters/input_limits.h"

namespace cookgraph {
namespace {

constexpr std::string_view kCoreTag = "tag:yaml.org,2002:";

// What libyaml reads ahead of the event it returns: its input buffers hold
// 16 KiB of raw bytes and 48 KiB of decoded text.
constexpr uint64_t kYamlReadAhead = uint64_t{128} << 10;

// libyaml gives a byte offset, not a line, for the errors of its reader
// (bytes that are not UTF-8). It decodes at most a raw buffer behind what it
// has read, so the newlines of the last kYamlReadAhead bytes read place any such
// offset.
class RecentLines {
 public:
  void Add(const unsigned char* bytes, size_t n) {
    for (const void* p = bytes;
         (p = std::memchr(p, '\n', bytes + n - static_cast<const unsigned char*>(p)));
         p = static_cast<const unsigned char*>(p) + 1) {
      newlines_.push_back(read_ +
                          static_cast<uint64_t>(static_cast<const unsigned char*>(p) - bytes));
    }
    read_ += n;
    while (!newlines_.empty() && newlines_.front() + kYamlReadAhead < read_) {
      ++dropped_;
      last_dropped_ = newlines_.front();
      newlines_.pop_front();
    }
  }
  // The line and column of byte `offset`; nullopt when it is too far back.
  std::optional<Location> Place(uint64_t offset) const {
    if (dropped_ > 0 && offset <= last_dropped_) return std::nullopt;
    int64_t line = dropped_ + 1;
    uint64_t start = dropped_ > 0 ? last_dropped_ + 1 : 0;
    for (uint64_t at : newlines_) {
      if (at >= offset) break;
      ++line;
      start = at + 1;
    }
    return Location{line, static_cast<int64_t>(offset - start) + 1};
  }

 private:
  uint64_t read_ = 0;
  std::deque<uint64_t> newlines_;  // offsets of the newlines among the last bytes read
  int64_t dropped_ = 0;            // newlines no longer in newlines_
  uint64_t last_dropped_ = 0;
};

Location At(const yaml_mark_t& mark) {
  return {static_cast<int64_t>(mark.line) + 1, static_cast<int64_t>(mark.column) + 1};
}

bool AllOf(std::string_view s, const char* allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos;
}

// A plain scalar typed by the YAML 1.2 core schema.
struct Typed {
  enum Kind { kNull, kBool, kInt, kFloat, kString } kind = kString;
  bool boolean = false;
  double number = 0;
};

Typed Resolve(std::string_view s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return {Typed::kNull};
  if (s == "true" || s == "True" || s == "TRUE") return {Typed::kBool, true};
  if (s == "false" || s == "False" || s == "FALSE") return {Typed::kBool, false};
  std::string_view body = s;
  bool negative = false;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == ".inf" || body == ".Inf" || body == ".INF") {
    return {Typed::kFloat, false, negative ? -INFINITY : INFINITY};
  }
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return {Typed::kFloat, false, NAN};
  if (AllOf(body, "0123456789")) {
    return {Typed::kInt, false, std::strtod(std::string(s).c_str(), nullptr)};
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    bool hex = s[1] == 'x';
    std::string_view digits = s.substr(2);
    if (AllOf(digits, hex ? "0123456789abcdefABCDEF" : "01234567")) {
      return {Typed::kInt, false,
              static_cast<double>(std::strtoull(std::string(digits).c_str(), nullptr, hex ? 16 : 8))};
    }
  }
  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
  size_t i = 0;
  size_t int_digits = 0, frac_digits = 0;
  while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i, ++int_digits;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0 || (int_digits == 0 && frac_digits == 0)) return {};
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < body.size() && std::isdigit(static_cast<unsigned char>(body[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return {};
  }
  if (i != body.size()) return {};
  return {Typed::kFloat, false, std::strtod(std::string(s).c_str(), nullptr)};
}

class YamlReader {
 public:
  YamlReader(ByteSource& source, EventHandler& handler) : source_(source), handler_(handler) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input(&parser_, ReadHandler, this);
  }
  ~YamlReader() { yaml_parser_delete(&parser_); }

  Status Run() {
    int documents = 0;
    for (;;) {
      yaml_event_t event;
      read_since_event_ = 0;
      if (!yaml_parser_parse(&parser_, &event)) return SyntaxError();
      last_event_end_ = At(event.end_mark);
      bool done = event.type == YAML_STREAM_END_EVENT;
      Status status = Dispatch(event, documents);
      yaml_event_delete(&event);
      if (!status) return status;
      if (done) break;
    }
    if (documents == 0) {
      return Error{.file = source_.name(), .message = "the YAML document is empty"};
    }
    return {};
  }

 private:
  struct Frame {
    bool mapping;
    bool expect_key;  // mappings only: the next node is a key
  };

  static int ReadHandler(void* data, unsigned char* buffer, size_t size, size_t* size_read) {
    auto* reader = static_cast<YamlReader*>(data);
    ByteSource& source = reader->source_;
    // Written so that the largest string-length (2^64 - 1) does not wrap.
    if (reader->read_since_event_ > kYamlReadAhead &&
        reader->read_since_event_ - kYamlReadAhead > source.limits().string_length) {
      reader->too_long_ = true;
      return 0;  // libyaml reports a reader error; SyntaxError() tells ours
    }
    *size_read = source.Read(reinterpret_cast<char*>(buffer), size);
    reader->read_since_event_ += *size_read;
    reader->recent_.Add(buffer, *size_read);
    return source.failed() ? 0 : 1;
  }

  // Before a collection starts: false (with error_) past the depth limit.
  bool Deeper(Location at) {
    if (stack_.size() < source_.limits().depth) return true;
    error_ =
        Fail(at, LimitMessage(source_.limits(), &InputLimits::depth, "mappings and sequences nest deeper than"))
            .error();
    return false;
  }

  Status Dispatch(const yaml_event_t& event, int& documents) {
    Location at = At(event.start_mark);
    switch (event.type) {
      case YAML_DOCUMENT_START_EVENT:
        if (++documents > 1) return Fail(at, "more than one YAML document; a snapshot is one document");
        return {};
      case YAML_ALIAS_EVENT:
        return Fail(at, "YAML aliases (*name) are not supported in snapshots");
      case YAML_MAPPING_START_EVENT:
        if (event.data.mapping_start.anchor) return Fail(at, "YAML anchors (&name) are not supported");
        if (!Deeper(at) || !BeforeNode(at)) return Stopped();
        stack_.push_back({true, true});
        return handler_.BeginObject(at) ? Status() : Stopped();
      case YAML_MAPPING_END_EVENT:
        stack_.pop_back();
        return handler_.EndObject(at) ? Status() : Stopped();
      case YAML_SEQUENCE_START_EVENT:
        if (event.data.sequence_start.anchor) return Fail(at, "YAML anchors (&name) are not supported");
        if (!Deeper(at) || !BeforeNode(at)) return Stopped();
        stack_.push_back({false, false});
        return handler_.BeginArray(at) ? Status() : Stopped();
      case YAML_SEQUENCE_END_EVENT:
        stack_.pop_back();
        return handler_.EndArray(at) ? Status() : Stopped();
      case YAML_SCALAR_EVENT:
        return Scalar(event, at);
      default:
        return {};
    }
  }

  // Keys must be scalars; a collection where a key belongs is refused.
  bool BeforeNode(Location at) {
    if (!stack_.empty() && stack_.back().mapping) {
      if (stack_.back().expect_key) {
        error_ = Fail(at, "a YAML mapping key must be a plain value, not a collection").error();
        return false;
      }
      stack_.back().expect_key = true;
    }
    return true;
  }

  Status Scalar(const yaml_event_t& event, Location at) {
    const auto& scalar = event.data.scalar;
    if (scalar.anchor) return Fail(at, "YAML anchors (&name) are not supported");
    if (scalar.length > source_.limits().string_length) {
      // The read-ahead bound (ReadHandler) lets a scalar pass the limit by up
      // to kYamlReadAhead: the exact check.
      return Fail(at,
                  LimitMessage(source_.limits(), &InputLimits::string_length, "a YAML scalar is longer than"));
    }
    std::string_view text(reinterpret_cast<const char*>(scalar.value), scalar.length);
    if (!stack_.empty() && stack_.back().mapping && stack_.back().expect_key) {
      stack_.back().expect_key = false;
      return handler_.Key(text, at) ? Status() : Stopped();
    }
    if (!stack_.empty() && stack_.back().mapping) stack_.back().expect_key = true;
    Typed typed;
    std::string_view tag = scalar.tag ? reinterpret_cast<const char*>(scalar.tag) : "";
    if (!tag.empty() && tag.rfind(kCoreTag, 0) == 0) {
      // A standard tag (!!int, !!float, !!bool, !!null, !!str) says the type.
      std::string_view type = tag.substr(kCoreTag.size());
      typed = type == "str" ? Typed{} : Resolve(text);
      bool fits = type == "str" || (type == "int" && typed.kind == Typed::kInt) ||
                  (type == "float" && (typed.kind == Typed::kInt || typed.kind == Typed::kFloat)) ||
                  (type == "bool" && typed.kind == Typed::kBool) ||
                  (type == "null" && typed.kind == Typed::kNull);
      if (!fits) return Fail(at, "the value does not match its tag !!" + std::string(type));
      if (type == "float") typed.kind = Typed::kFloat;
    } else if (scalar.style == YAML_PLAIN_SCALAR_STYLE && tag.empty()) {
      typed = Resolve(text);
    } else {
      return handler_.String(text, at) ? Status() : Stopped();  // quoted, or a tag of its own
    }
    bool ok = true;
    switch (typed.kind) {
      case Typed::kNull: ok = handler_.Null(at); break;
      case Typed::kBool: ok = handler_.Bool(typed.boolean, at); break;
      case Typed::kInt: ok = handler_.Number(typed.number, text, true, at); break;
      case Typed::kFloat: ok = handler_.Number(typed.number, text, false, at); break;
      case Typed::kString: ok = handler_.String(text, at); break;
    }
    return ok ? Status() : Stopped();
  }

  Status SyntaxError() {
    if (source_.failed()) return Error{.file = source_.name(), .message = source_.error()};
    if (too_long_) {
      // The value (or comment) that runs on starts after the last event.
      return Fail(last_event_end_,
                  LimitMessage(source_.limits(), &InputLimits::string_length,
                               "a YAML scalar (or comment) after this point is longer than"));
    }
    std::string message = "invalid YAML: ";
    message += parser_.problem ? parser_.problem : "syntax error";
    if (parser_.context) message += std::string(" ") + parser_.context;
    Location at = At(parser_.problem_mark);
    if (parser_.error == YAML_READER_ERROR) {
      // Bytes that are not UTF-8 (or a NUL): placed by their offset.
      if (parser_.problem_value >= 0) {
        message += fmt::format(" (byte 0x{:02X})", parser_.problem_value & 0xFF);
      }
      const std::optional<Location> place = recent_.Place(parser_.problem_offset);
      if (!place) message += fmt::format(" at byte {}", parser_.problem_offset);
      at = place.value_or(Location{});
    }
    return Error{.file = source_.name(), .line = at.line, .column = at.column, .message = message};
  }

  Status Fail(Location at, std::string message) {
    return Error{.file = source_.name(), .line = at.line, .column = at.column, .message = std::move(message)};
  }
  Status Stopped() {
    if (error_) return *error_;
    return Error{.file = source_.name()};
  }

  ByteSource& source_;
  EventHandler& handler_;
  yaml_parser_t parser_;
  std::vector<Frame> stack_;
  std::optional<Error> error_;
  RecentLines recent_;
  uint64_t read_since_event_ = 0;  // bytes handed to libyaml since it was last asked for an event
  bool too_long_ = false;          // reading stopped: read_since_event_ passed string-length
  Location last_event_end_{1, 1};
};

}  // namespace

Status ParseYamlEvents(ByteSource& source, EventHandler& handler) {
  return YamlReader(source, handler).Run();
}

}  // namespace cookgraph
