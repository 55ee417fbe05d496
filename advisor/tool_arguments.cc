#include "advisor/tool_run.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

// The validator of the tools' arguments and the text helpers of their
// messages (tool_run.h).

namespace cookgraph::tools_internal {

// Iterative, with one backtracking point: O(|p| x |s|) at worst.
bool Matcher::Glob(std::string_view p, std::string_view s) {
  size_t pi = 0, si = 0, star = std::string_view::npos, mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::string ErrorJson(std::string_view message) {
  JsonWriter w;
  w.BeginObject();
  w.StringField("error", message);
  w.EndObject();
  return w.Take();
}

std::string Echo(std::string_view s) { return "'" + ClipBytes(s, kEchoBytes) + "'"; }

std::string TypeName(const nlohmann::json& v) {
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

std::optional<std::string> Arguments::String(std::string_view key) {
  if (!Has(key)) return std::nullopt;
  const nlohmann::json& v = json_.at(key);
  if (!v.is_string()) return Refuse(Wrong(key, "a string", v));
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > kMaxStringBytes) {
    return Refuse(fmt::format("{}: argument '{}' is {} bytes; at most {}", tool_, key, s.size(),
                              kMaxStringBytes));
  }
  return s;
}

// An integer in [min, max]; a number with a fraction, or out of range, is
// refused with `what` ("an integer >= 1").
std::optional<int64_t> Arguments::Integer(std::string_view key, int64_t min, int64_t max,
                               std::string_view what) {
  if (!Has(key)) return std::nullopt;
  const nlohmann::json& v = json_.at(key);
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(max) || (min > 0 && u < static_cast<uint64_t>(min))) {
      return Refuse(Range(key, what, v));
    }
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) {
    const int64_t i = v.get<int64_t>();
    if (i < min || i > max) return Refuse(Range(key, what, v));
    return i;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(min) ||
        d > static_cast<double>(max)) {
      return Refuse(Range(key, what, v));
    }
    return static_cast<int64_t>(d);
  }
  return Refuse(Wrong(key, what, v));
}

std::optional<double> Arguments::Number(std::string_view key, std::string_view what) {
  if (!Has(key)) return std::nullopt;
  const nlohmann::json& v = json_.at(key);
  if (!v.is_number()) return Refuse(Wrong(key, what, v));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) return Refuse(Range(key, what, v));
  return d;
}

std::optional<bool> Arguments::Bool(std::string_view key) {
  if (!Has(key)) return std::nullopt;
  const nlohmann::json& v = json_.at(key);
  if (!v.is_boolean()) return Refuse(Wrong(key, "a boolean", v));
  return v.get<bool>();
}

void Arguments::Parse(std::string_view text, std::initializer_list<std::string_view> allowed) {
  if (text.size() > kMaxArgumentBytes) {
    Refuse(fmt::format("{}: the arguments are {} bytes; at most {}", tool_, text.size(),
                       kMaxArgumentBytes));
    return;
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return;  // none at all: {}
  if (JsonNestsDeeperThan(text, kMaxDepth)) {
    Refuse(fmt::format("{}: the arguments nest more than {} levels deep", tool_, kMaxDepth));
    return;
  }
  try {
    json_ = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const size_t at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
    Refuse(fmt::format("{}: the arguments are not valid JSON: {}", tool_, ClipBytes(what, 160)));
    return;
  } catch (const std::exception&) {
    Refuse(fmt::format("{}: the arguments could not be read", tool_));
    return;
  }
  if (!json_.is_object()) {
    Refuse(fmt::format("{}: the arguments must be a JSON object, not {}", tool_,
                       TypeName(json_)));
    return;
  }
  for (const auto& [key, value] : json_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string names;
      for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      Refuse(fmt::format("{}: unknown argument {}; it takes {}", tool_, Echo(key),
                         names.empty() ? std::string("none") : names));
      return;
    }
  }
}

}  // namespace cookgraph::tools_internal
