#include "base/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <iterator>
#include <map>
#include <vector>

namespace cookgraph {

size_t Utf8Length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned { return static_cast<unsigned char>(s[k]); };
  const unsigned c = byte(i);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < len; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return len;
}

namespace {
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// How many bytes from `i` start a UTF-8 sequence that could still be valid
// (the lead and the continuation bytes in range, as Utf8Length checks them):
// the "maximal subpart" that nlohmann replaces by one U+FFFD. At least 1.
size_t ValidPrefix(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  size_t k = 1;
  while (k < len && i + k < s.size()) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) break;
    ++k;
  }
  return k;
}

// AppendJsonString, or with `like_nlohmann` nlohmann's spelling
// (AppendNlohmannJsonString).
void AppendQuoted(std::string& out, std::string_view s, bool yaml_safe, bool like_nlohmann) {
  // nlohmann leaves DEL as it is.
  const auto last_plain = static_cast<unsigned char>(like_nlohmann ? 0x7F : 0x7E);
  out += '"';
  for (size_t i = 0; i < s.size();) {
    // Runs of printable ASCII other than '"' and '\\' go in as they are.
    size_t run = i;
    while (run < s.size() && s[run] >= 0x20 && static_cast<unsigned char>(s[run]) <= last_plain &&
           s[run] != '"' && s[run] != '\\') {
      ++run;
    }
    if (run > i) {
      out.append(s, i, run - i);
      i = run;
      continue;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        default:
          if (like_nlohmann && (c == '\b' || c == '\f')) {
            out += c == '\b' ? "\\b" : "\\f";
          } else if (c < 0x20 || c == 0x7F) {
            fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const size_t len = Utf8Length(s, i);
    if (len == 0) {
      out += kReplacement;
      i += like_nlohmann ? ValidPrefix(s, i) : 1;  // nlohmann reads the byte that broke it again
    } else if (yaml_safe && len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      // U+0080..U+009F: YAML refuses them unescaped.
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(s[i + 1]));
      i += 2;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  out += '"';
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s, bool yaml_safe) {
  AppendQuoted(out, s, yaml_safe, /*like_nlohmann=*/false);
}

void AppendNlohmannJsonString(std::string& out, std::string_view s) {
  AppendQuoted(out, s, /*yaml_safe=*/false, /*like_nlohmann=*/true);
}

size_t FirstInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = Utf8Length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

std::string Printable(std::string_view s, std::string_view keep) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      const bool control = (c < 0x20 || c == 0x7F) && keep.find(s[i]) == std::string_view::npos;
      out += control ? '?' : static_cast<char>(c);
      ++i;
      continue;
    }
    const size_t len = Utf8Length(s, i);
    if (len == 0) {
      out += kReplacement;
      ++i;
    } else if (len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      out += '?';  // U+0080..U+009F
      i += 2;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

std::string MarkdownText(std::string_view s) {
  std::string printable = Printable(s);
  std::string out;
  out.reserve(printable.size());
  for (char c : printable) {
    if (std::string_view("\\`*_[]<>|~#&!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

size_t DisplayWidth(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string TruncateMiddle(const std::string& s, size_t width) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  if (starts.size() <= width || width < 2) return s;
  const size_t keep = width - 1;
  const size_t tail = keep / 2;
  const size_t head = keep - tail;
  return s.substr(0, starts[head]) + "…" + s.substr(starts[starts.size() - tail]);
}

std::vector<std::string> TruncateApart(const std::vector<std::string>& texts, size_t width) {
  std::vector<std::string> out;
  out.reserve(texts.size());
  std::map<std::string, std::vector<size_t>> by_cut;  // cut text -> indexes
  for (size_t i = 0; i < texts.size(); ++i) {
    out.push_back(TruncateMiddle(texts[i], width));
    by_cut[out.back()].push_back(i);
  }
  for (const auto& [cut, indexes] : by_cut) {
    std::vector<const std::string*> distinct;  // in order of first appearance
    for (size_t i : indexes) {
      if (std::find_if(distinct.begin(), distinct.end(),
                       [&](const std::string* d) { return *d == texts[i]; }) == distinct.end()) {
        distinct.push_back(&texts[i]);
      }
    }
    if (distinct.size() < 2) continue;
    for (size_t i : indexes) {
      const size_t k = static_cast<size_t>(
          std::find_if(distinct.begin(), distinct.end(),
                       [&](const std::string* d) { return *d == texts[i]; }) -
          distinct.begin());
      const std::string suffix = " #" + std::to_string(k + 1);
      out[i] = TruncateMiddle(texts[i], width > suffix.size() + 2 ? width - suffix.size() : 2) + suffix;
    }
  }
  return out;
}

std::string EscapeHtml(std::string_view s) {
  std::string printable = Printable(s);
  std::string out;
  out.reserve(printable.size());
  for (char c : printable) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string ReplaceInvalidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t bad = FirstInvalidUtf8(text);
    if (bad == std::string_view::npos) break;
    out.append(text.substr(0, bad)).append(kReplacement);
    text.remove_prefix(bad + 1);
  }
  return out.append(text);
}

std::string ClipBytes(std::string_view s, size_t bytes) {
  if (s.size() <= bytes) return std::string(s);
  size_t end = 0;
  while (end < s.size()) {
    const size_t len = std::max<size_t>(1, Utf8Length(s, end));
    if (end + len > bytes) break;
    end += len;
  }
  return std::string(s.substr(0, end)) + "\xE2\x80\xA6";
}

std::string ClipCodePoints(std::string_view s, size_t points) {
  size_t at = 0, taken = 0;
  while (at < s.size() && taken < points) {
    at += std::max<size_t>(1, Utf8Length(s, at));
    ++taken;
  }
  if (at >= s.size()) return std::string(s);
  return std::string(s.substr(0, at)) + "\xE2\x80\xA6";
}

std::string ClipMiddle(std::string_view s, size_t width) {
  return TruncateMiddle(Printable(s), width);
}

namespace {

// `s` with each byte found in `from` replaced by the text at the same place
// in `to`: the core of the escapes for one target language.
std::string ReplaceBytes(std::string_view s, std::string_view from,
                         std::initializer_list<std::string_view> to) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    const size_t k = from.find(c);
    if (k == std::string_view::npos) {
      out += c;
    } else {
      out += *(to.begin() + k);
    }
  }
  return out;
}

}  // namespace

std::string EscapeDot(std::string_view s) {
  return ReplaceBytes(s, "\"\\\n\r", {"\\\"", "\\\\", "\\n", ""});
}

std::string EscapeTabField(std::string_view s) {
  return ReplaceBytes(s, "\\\t\n\r", {"\\\\", "\\t", "\\n", "\\r"});
}

std::string_view TrimSpace(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string Thousands(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

bool JsonNestsDeeperThan(std::string_view text, size_t max_depth) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return true;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace cookgraph
