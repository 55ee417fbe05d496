#include "writers/json_out.h"

#include <cmath>
#include <utility>
#include <variant>

#include "base/text.h"

namespace cookgraph::score_internal {
namespace {

// One value's text (json_out.h).
struct Put {
  std::string& out;

  void operator()(std::monostate) const { out += "null"; }
  void operator()(std::string_view s) const { AppendJsonString(out, s); }
  void operator()(double v) const {
    if (std::isfinite(v)) {
      const size_t start = out.size();
      AppendNumber(out, v);
      // "8" -> "8.0": a measurement stays a float for typed readers (as nlohmann writes it).
      if (out.find_first_of(".eE", start) == std::string::npos) out += ".0";
    } else {
      out += "null";
    }
  }
  void operator()(uint64_t v) const { AppendNumber(out, v); }
  void operator()(int64_t v) const { AppendNumber(out, v); }
  void operator()(bool v) const { out += v ? "true" : "false"; }
};

}  // namespace

void JsonOut::Key(std::string_view key) {
  Separate();
  AppendJsonString(out_, key);
  out_ += ':';
  after_key_ = true;
}

void JsonOut::Write(const Value& v) {
  Separate();
  std::visit(Put{out_}, v);
}

void JsonOut::Open(char c) {
  Separate();
  out_ += c;
  has_item_.push_back(false);
}

void JsonOut::Close(char c) {
  out_ += c;
  has_item_.pop_back();
}

// A comma before every value and key but the first of its container; none
// between a key and its value.
void JsonOut::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_item_.empty()) {
    if (has_item_.back()) out_ += ',';
    has_item_.back() = true;
  }
}

}  // namespace cookgraph::score_internal
