// JSON into events, through nlohmann::json's SAX interface: it never builds a
// document tree, and its lexer reports the line and column of syntax errors.

#include <charconv>
#include <cstdio>
#include <iterator>
#include <nlohmann/json.hpp>

#include "adapters/events.h"

namespace cookgraph {
namespace {

// An input iterator over a ByteSource, for nlohmann's iterator input adapter
// (which needs value_type char, ++, * and comparison with the end iterator).
class SourceIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  SourceIterator() = default;  // the end
  explicit SourceIterator(ByteSource* source) : source_(source) {}

  char operator*() const { return source_->Current(); }
  SourceIterator& operator++() {
    source_->Advance();
    return *this;
  }
  // Only ever compared with the end iterator.
  bool operator==(const SourceIterator& other) const { return AtEnd() == other.AtEnd(); }
  bool operator!=(const SourceIterator& other) const { return !(*this == other); }

 private:
  bool AtEnd() const { return source_ == nullptr || source_->AtEnd(); }
  ByteSource* source_ = nullptr;
};

class SaxBridge {
 public:
  using json = nlohmann::json;
  SaxBridge(ByteSource& source, EventHandler& handler) : source_(source), handler_(handler) {}

  bool null() { return handler_.Null(Here()); }
  bool boolean(bool value) { return handler_.Bool(value, Here()); }
  bool number_integer(json::number_integer_t value) { return Integer(value); }
  bool number_unsigned(json::number_unsigned_t value) { return Integer(value); }
  bool number_float(json::number_float_t value, const std::string& text) {
    return handler_.Number(value, text, false, NumberStart(text.size()));
  }
  bool string(std::string& value) { return handler_.String(value, Here()); }
  bool binary(json::binary_t&) { return true; }  // never produced by the JSON lexer
  bool start_object(std::size_t) { return handler_.BeginObject(Here()); }
  bool key(std::string& key) { return handler_.Key(key, Here()); }
  bool end_object() { return handler_.EndObject(Here()); }
  bool start_array(std::size_t) { return handler_.BeginArray(Here()); }
  bool end_array() { return handler_.EndArray(Here()); }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) {
    // what() reads "[json.exception.parse_error.101] parse error at line L, column C: msg",
    // or "[json.exception.out_of_range.406] msg" for numbers out of range.
    std::string message = ex.what();
    if (size_t bracket = message.find("] "); bracket != std::string::npos) {
      message.erase(0, bracket + 2);
    }
    long long line = source_.line(), column = source_.column();
    if (message.rfind("parse error at line ", 0) == 0) {
      std::sscanf(message.c_str(), "parse error at line %lld, column %lld", &line, &column);
      if (size_t colon = message.find(": "); colon != std::string::npos) message.erase(0, colon + 2);
    }
    // The lexer quotes what it read, which can be a whole overlong token.
    if (message.size() > 160) message = message.substr(0, 157) + "...";
    syntax_error_ = Error{.file = source_.name(),
                          .line = line,
                          .column = column,
                          .message = "invalid JSON: " + message};
    return false;
  }

  const std::optional<Error>& syntax_error() const { return syntax_error_; }

 private:
  template <typename Int>
  bool Integer(Int value) {
    char text[24];
    auto end = std::to_chars(text, text + sizeof text, value).ptr;
    return handler_.Number(static_cast<double>(value), std::string_view(text, end - text), true,
                           NumberStart(static_cast<size_t>(end - text)));
  }
  // The place just after the token that produced the event.
  Location Here() const { return {source_.line(), source_.column()}; }
  // Where a number of `length` characters began: the lexer has read one byte
  // past it to see where it ends (none at the end of the input).
  Location NumberStart(size_t length) const {
    auto [line, column] = source_.PositionBack(length + (source_.ReachedEnd() ? 0 : 1));
    return {line, column};
  }

  ByteSource& source_;
  EventHandler& handler_;
  std::optional<Error> syntax_error_;
};

}  // namespace

Status ParseJsonEvents(ByteSource& source, EventHandler& handler) {
  SaxBridge bridge(source, handler);
  bool ok = nlohmann::json::sax_parse(SourceIterator(&source), SourceIterator(), &bridge,
                                      nlohmann::json::input_format_t::json, /*strict=*/true);
  if (source.failed()) return Error{.file = source.name(), .message = source.error()};
  if (bridge.syntax_error()) return *bridge.syntax_error();
  if (!ok) return Error{.file = source.name()};  // stopped by the handler
  return {};
}

}  // namespace cookgraph
