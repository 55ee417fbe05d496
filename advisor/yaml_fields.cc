#include "advisor/yaml_fields.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "advisor/pack_schema.h"
#include "base/text.h"

namespace cookgraph {

YAML::Node YamlFields::Load(std::string_view yaml) const {
  // YAML is Unicode text, but yaml-cpp passes any bytes through into values
  // (a model name, a pack's guidelines, then a request body): refused here,
  // with the place of the first bad byte.
  if (const size_t bad = FirstInvalidUtf8(yaml); bad != std::string_view::npos) {
    const std::string_view before = yaml.substr(0, bad);
    const size_t line_start = before.rfind('\n') + 1;  // 0 on the first line
    Error error;
    error.file = file_;
    error.line = static_cast<int64_t>(std::count(before.begin(), before.end(), '\n')) + 1;
    error.column = static_cast<int64_t>(bad - line_start) + 1;
    error.message = fmt::format("bad YAML: byte 0x{:02X} is not UTF-8 (YAML files are UTF-8 text)",
                                static_cast<unsigned char>(yaml[bad]));
    throw YamlFailure{std::move(error)};
  }
  try {
    return YAML::Load(std::string(yaml));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own words for it are "bad file".
    Error error = YamlExceptionError(e, file_);
    error.message = fmt::format(
        "bad YAML: mappings and sequences nest deeper than the {} levels yaml-cpp reads",
        e.depth());
    throw YamlFailure{std::move(error)};
  } catch (const YAML::ParserException& e) {
    Error error = YamlExceptionError(e, file_);
    error.message = "bad YAML: " + e.msg;
    throw YamlFailure{std::move(error)};
  }
}

void YamlFields::Fail(const YAML::Node& at, const std::string& where,
                      const std::string& message) const {
  Error error;
  error.file = file_;
  if (at.IsDefined() && at.Mark().line >= 0) {
    error.line = at.Mark().line + 1;
    error.column = at.Mark().column + 1;
  }
  error.where = where;
  error.message = message;
  throw YamlFailure{std::move(error)};
}

std::string YamlFields::Text(const YAML::Node& node, const std::string& where) const {
  if (!node.IsScalar()) Fail(node, where, "expected a text value");
  return node.Scalar();
}

std::vector<std::string> YamlFields::TextList(const YAML::Node& node,
                                              const std::string& where) const {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (const auto& item : node) out.push_back(Text(item, where));
  } else {
    Fail(node, where, "expected a text or a list of texts");
  }
  return out;
}

double YamlFields::Number(const YAML::Node& node, const std::string& where) const {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) {
      // strtod reads "inf", "nan" and 1e400 (as inf): no threshold or setting.
      if (!std::isfinite(v))
        Fail(node, where, "expected a finite number, got '" + s.substr(0, 40) + "'");
      return v;
    }
  }
  Fail(node, where, "expected a number");
}

bool YamlFields::Flag(const YAML::Node& node, const std::string& where) const {
  if (node.IsScalar()) {
    std::string s = node.Scalar();
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
  }
  Fail(node, where, "expected true or false");
}

void YamlFields::CheckKeys(const YAML::Node& map, std::span<const std::string_view> known,
                           const std::string& where) const {
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    Fail(kv.first, where, "unknown key '" + key + "'" + DidYouMean(key, known));
  }
}

Error YamlExceptionError(const YAML::Exception& e, const std::string& file) {
  Error error;
  error.file = file;
  if (e.mark.line >= 0) {
    error.line = e.mark.line + 1;
    error.column = e.mark.column + 1;
  }
  error.message = e.msg;
  return error;
}

}  // namespace cookgraph
