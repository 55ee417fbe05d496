// YAML into events, through libyaml's event parser: a stream, like the JSON
// side, with the line and column of every event and of every syntax error.

#include <yaml.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "adapters/events.h"

namespace cookgraph {
namespace {

constexpr std::string_view kCoreTag = "tag:yaml.org,2002:";

int ReadHandler(void* data, unsigned char* buffer, size_t size, size_t* size_read) {
  auto* source = static_cast<ByteSource*>(data);
  *size_read = source->Read(reinterpret_cast<char*>(buffer), size);
  return source->failed() ? 0 : 1;
}

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
    yaml_parser_set_input(&parser_, ReadHandler, &source_);
  }
  ~YamlReader() { yaml_parser_delete(&parser_); }

  Status Run() {
    int documents = 0;
    for (;;) {
      yaml_event_t event;
      if (!yaml_parser_parse(&parser_, &event)) return SyntaxError();
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
        if (!BeforeNode(at)) return Stopped();
        stack_.push_back({true, true});
        return handler_.BeginObject(at) ? Status() : Stopped();
      case YAML_MAPPING_END_EVENT:
        stack_.pop_back();
        return handler_.EndObject(at) ? Status() : Stopped();
      case YAML_SEQUENCE_START_EVENT:
        if (event.data.sequence_start.anchor) return Fail(at, "YAML anchors (&name) are not supported");
        if (!BeforeNode(at)) return Stopped();
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
    std::string message = "invalid YAML: ";
    message += parser_.problem ? parser_.problem : "syntax error";
    if (parser_.context) message += std::string(" ") + parser_.context;
    Location at = At(parser_.problem_mark);
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
};

}  // namespace

Status ParseYamlEvents(ByteSource& source, EventHandler& handler) {
  return YamlReader(source, handler).Run();
}

}  // namespace cookgraph
