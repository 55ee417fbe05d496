#include "base/json_writer.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iterator>
#include <nlohmann/detail/conversions/to_chars.hpp>

#include "base/text.h"

namespace cookgraph {
namespace {

// One value's text.
struct Put {
  std::string& out;
  JsonStyle style;

  void operator()(std::monostate) const { out += "null"; }
  void operator()(std::string_view s) const { AppendJsonString(out, s, style); }
  void operator()(double v) const { AppendJsonNumber(out, v, style); }
  void operator()(uint64_t v) const { Integer(v); }
  void operator()(int64_t v) const { Integer(v); }
  void operator()(bool v) const { out += v ? "true" : "false"; }

  template <typename T>
  void Integer(T v) const {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
};

}  // namespace

void AppendJsonString(std::string& out, std::string_view s, JsonStyle style) {
  if (style == JsonStyle::kNlohmann) {
    AppendNlohmannJsonString(out, s);
  } else {
    AppendJsonString(out, s);
  }
}

void AppendJsonNumber(std::string& out, double v, JsonStyle style) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];
  if (style == JsonStyle::kNlohmann) {
    out.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
    return;
  }
  if (style == JsonStyle::kFmt) {
    fmt::format_to(std::back_inserter(out), "{}", v);
    return;
  }
  const char* end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  out += text;
  // "8" -> "8.0": a measurement stays a float for typed readers.
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

void JsonWriter::Key(std::string_view key) {
  Separate();
  AppendJsonString(out_, key, style_);
  out_ += ':';
  if (indent_ >= 0) out_ += ' ';
  after_key_ = true;
}

void JsonWriter::Write(const JsonValue& v) {
  Separate();
  std::visit(Put{out_, style_}, v);
}

void JsonWriter::Raw(std::string_view json) {
  Separate();
  out_ += json;
}

std::string JsonWriter::TakeSoFar() {
  std::string text = std::move(out_);
  out_.clear();
  return text;
}

void JsonWriter::Open(char c) {
  Separate();
  out_ += c;
  has_item_.push_back(false);
}

void JsonWriter::Close(char c) {
  if (indent_ >= 0 && !has_item_.empty() && has_item_.back()) NewLine(has_item_.size() - 1);
  out_ += c;
  has_item_.pop_back();
}

// A comma before every value and key but the first of its container; none
// between a key and its value.
void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_item_.empty()) {
    if (has_item_.back()) out_ += ',';
    has_item_.back() = true;
    if (indent_ >= 0) NewLine(has_item_.size());
  }
}

void JsonWriter::NewLine(size_t depth) {
  out_ += '\n';
  out_.append(depth * static_cast<size_t>(indent_), ' ');
}

}  // namespace cookgraph
