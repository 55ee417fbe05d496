#ifndef COOKGRAPH_BASE_JSON_WRITER_H_
#define COOKGRAPH_BASE_JSON_WRITER_H_

// The one way cookgraph writes its own JSON documents
// (docs/architecture.md#writing-json): a streaming writer that places the
// commas, with no white space unless asked to indent. nlohmann/json stays for
// reading JSON.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cookgraph {

/// How a document spells its numbers and strings. Two spellings, because the
/// documents had two before this writer and their bytes stay as they were.
enum class JsonStyle {
  /// `score --format json` and the tools over an analysis: doubles in the
  /// shortest text that reads back (std::to_chars, "1e+05"), ".0" on whole
  /// ones; C0 controls and DEL as \u00XX; each invalid UTF-8 byte as U+FFFD.
  kShortest,
  /// As nlohmann::json::dump(-1, ' ', false, error_handler_t::replace) writes:
  /// doubles by its Grisu2 ("100000.0", exponents below 1e-4 and from 1e15);
  /// \b \f \n \r \t and \u00XX for the other C0 controls, DEL raw; one U+FFFD
  /// per maximal invalid UTF-8 subpart.
  kNlohmann,
  /// The explorer's graph document (server/explorer_graph.cc), which fmt
  /// wrote: doubles as fmt's "{}" writes them (the shortest text that reads
  /// back, no ".0" on whole ones: "2"); strings as kShortest.
  kFmt,
};

/// One value: null, a string, a double (null when not finite), an unsigned or
/// signed integer, or a boolean.
using JsonValue = std::variant<std::monostate, std::string_view, double, uint64_t, int64_t, bool>;

/// Appends `s` as a JSON string literal spelled as `style` spells it.
void AppendJsonString(std::string& out, std::string_view s, JsonStyle style);
/// Appends a finite `v` as `style` spells it, "null" when not finite.
void AppendJsonNumber(std::string& out, double v, JsonStyle style);

/// A streaming JSON writer: the caller opens and closes containers and writes
/// keys and values in order; the writer places the commas and colons.
class JsonWriter {
 public:
  explicit JsonWriter(JsonStyle style = JsonStyle::kShortest) : style_(style) {}
  /// Indented by `indent` spaces a level as nlohmann's dump(indent) lays a
  /// document out: each item on its own line, ": " after a key, empty
  /// containers as {} and [].
  JsonWriter(JsonStyle style, int indent) : style_(style), indent_(indent) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key);
  void Write(const JsonValue& v);
  void Null() { Write(JsonValue()); }
  void String(std::string_view s) { Write(JsonValue(s)); }
  void Number(double v) { Write(JsonValue(v)); }
  void Count(uint64_t v) { Write(JsonValue(v)); }
  void Int(int64_t v) { Write(JsonValue(v)); }
  void Bool(bool v) { Write(JsonValue(v)); }
  /// A value written elsewhere, as it is: `json` must be one whole JSON value
  /// in this writer's style (an id or schema the caller dumped itself). Not
  /// re-indented.
  void Raw(std::string_view json);

  // A key and its value in one call.
  void Field(std::string_view key, const JsonValue& v) {
    Key(key);
    Write(v);
  }
  void StringField(std::string_view key, std::string_view v) { Field(key, JsonValue(v)); }
  void NumberField(std::string_view key, double v) { Field(key, JsonValue(v)); }
  void CountField(std::string_view key, uint64_t v) { Field(key, JsonValue(v)); }
  void IntField(std::string_view key, int64_t v) { Field(key, JsonValue(v)); }
  void BoolField(std::string_view key, bool v) { Field(key, JsonValue(v)); }

  /// What was written so far.
  const std::string& text() const { return out_; }
  /// The text written, moved out: the writer is spent.
  std::string Take() { return std::move(out_); }
  /// For a document written in pieces: the text so far, moved out; the
  /// writer goes on where it was, its text starting empty.
  std::string TakeSoFar();
  /// TakeSoFar with the comma that Raw would write before a value: the caller
  /// puts the value (written elsewhere, as for Raw) after it, and this writer
  /// goes on as after Raw.
  std::string TakeBeforeRaw() {
    Separate();
    return TakeSoFar();
  }

 private:
  void Open(char c);
  void Close(char c);
  void Separate();
  void NewLine(size_t depth);

  JsonStyle style_;
  int indent_ = -1;  // spaces a level; -1: no white space
  std::string out_;
  std::vector<bool> has_item_;  // per open container: something was written in it
  bool after_key_ = false;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_BASE_JSON_WRITER_H_
