#ifndef COOKGRAPH_WRITERS_JSON_OUT_H_
#define COOKGRAPH_WRITERS_JSON_OUT_H_

// Not a public header, like score_columns.h: the compact JSON that
// `score --format json` writes (docs/commands.md#cookgraph-score), written the
// same way by the tools the model can call
// (docs/architecture.md#tools-the-model-can-call), so that a node's numbers are
// the same bytes in both.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "writers/score_columns.h"

namespace cookgraph::score_internal {

/// A streaming JSON writer that places the commas and writes no white space:
/// strings escaped (invalid UTF-8 as U+FFFD), doubles shortest-round-trip with
/// ".0" on whole ones (as nlohmann writes them), non-finite numbers as null.
class JsonOut {
 public:
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key);
  void Write(const Value& v);
  void String(std::string_view s) { Write(Value(s)); }
  void Number(double v) { Write(Value(v)); }
  void Count(uint64_t v) { Write(Value(v)); }

  // A key and its value in one call.
  void Field(std::string_view key, const Value& v) {
    Key(key);
    Write(v);
  }
  void StringField(std::string_view key, std::string_view v) { Field(key, Value(v)); }
  void NumberField(std::string_view key, double v) { Field(key, Value(v)); }
  void CountField(std::string_view key, uint64_t v) { Field(key, Value(v)); }
  void IntField(std::string_view key, int64_t v) { Field(key, Value(v)); }
  void BoolField(std::string_view key, bool v) { Field(key, Value(v)); }

  /// What was written so far.
  const std::string& text() const { return out_; }
  /// The text written, moved out: the writer is spent.
  std::string Take() { return std::move(out_); }

 private:
  void Open(char c);
  void Close(char c);
  void Separate();

  std::string out_;
  std::vector<bool> has_item_;  // per open container: something was written in it
  bool after_key_ = false;
};

}  // namespace cookgraph::score_internal

#endif  // COOKGRAPH_WRITERS_JSON_OUT_H_
