#include "web/charconv_compat.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

namespace cookgraph::web_internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// `word` at `p` (before `last`), in any case.
bool StartsWithWord(const char* p, const char* last, const char* word) {
  const size_t n = std::strlen(word);
  if (static_cast<size_t>(last - p) < n) return false;
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i] >= 'A' && p[i] <= 'Z' ? static_cast<char>(p[i] - 'A' + 'a') : p[i];
    if (c != word[i]) return false;
  }
  return true;
}

std::to_chars_result Put(char* first, char* last, const std::string& text) {
  if (static_cast<size_t>(last - first) < text.size()) return {last, std::errc::value_too_large};
  std::memcpy(first, text.data(), text.size());
  return {first + text.size(), std::errc()};
}

}  // namespace

std::to_chars_result ShortestToChars(char* first, char* last, double value) {
  const bool negative = std::signbit(value);
  std::string out = negative ? "-" : "";
  if (std::isnan(value)) return Put(first, last, out + "nan");
  if (std::isinf(value)) return Put(first, last, out + "inf");
  if (value == 0) return Put(first, last, out + "0");
  // fmt's "{}" has the shortest digits that read back as `value`, the ones
  // closest to it among those (Dragonbox; libstdc++ has them from Ryu): here
  // they are the integer `digits` times 10^`exponent`, laid out as
  // libstdc++'s to_chars lays them out.
  const std::string text = fmt::format("{}", std::fabs(value));
  std::string digits;
  int exponent = 0;
  int after_point = -1;  // digits after the '.' so far; -1 = no '.' yet
  size_t i = 0;
  for (; i < text.size() && text[i] != 'e'; ++i) {
    if (text[i] == '.') {
      after_point = 0;
    } else {
      digits += text[i];
      if (after_point >= 0) ++after_point;
    }
  }
  if (i < text.size()) exponent = std::atoi(text.c_str() + i + 1);
  if (after_point > 0) exponent -= after_point;
  digits.erase(0, digits.find_first_not_of('0'));
  while (digits.back() == '0') {
    digits.pop_back();
    ++exponent;
  }
  const int n = static_cast<int>(digits.size());
  const int scientific_exponent = n - 1 + exponent;  // d.ddd × 10^scientific_exponent
  const std::string exponent_text =
      fmt::format("{}{:02}", scientific_exponent < 0 ? '-' : '+', std::abs(scientific_exponent));
  const int scientific_length = n + (n > 1 ? 1 : 0) + 1 + static_cast<int>(exponent_text.size());
  const int fixed_length = exponent >= 0               ? n + exponent
                           : scientific_exponent >= 0 ? n + 1
                                                      : n + 1 - scientific_exponent;
  if (scientific_length < fixed_length) {
    out += digits[0];
    if (n > 1) out += '.' + digits.substr(1);
    out += 'e' + exponent_text;
  } else if (exponent >= 0) {
    // A whole number in full: every digit of the double's exact value (for
    // 2^60, 1152921504606846976, not 1152921504606847000), as printf's %.0f.
    out += fmt::format("{:.0f}", std::fabs(value));
  } else if (scientific_exponent >= 0) {
    const auto whole = static_cast<size_t>(scientific_exponent + 1);
    out += digits.substr(0, whole) + '.' + digits.substr(whole);
  } else {
    out += "0." + std::string(static_cast<size_t>(-scientific_exponent - 1), '0') + digits;
  }
  return Put(first, last, out);
}

std::from_chars_result GeneralFromChars(const char* first, const char* last, double& value) {
  const char* p = first;
  const bool negative = p != last && *p == '-';
  if (negative) ++p;
  const char* start = p;
  while (p != last && IsDigit(*p)) ++p;
  bool any_digit = p != start;
  if (p != last && *p == '.') {
    const char* q = p + 1;
    while (q != last && IsDigit(*q)) ++q;
    if (any_digit || q != p + 1) {
      any_digit = true;
      p = q;
    }
  }
  if (!any_digit) {
    // inf, infinity, nan and nan(letters, digits, _).
    if (StartsWithWord(p, last, "inf")) {
      value = negative ? -HUGE_VAL : HUGE_VAL;
      return {p + (StartsWithWord(p, last, "infinity") ? 8 : 3), std::errc()};
    }
    if (StartsWithWord(p, last, "nan")) {
      p += 3;
      if (p != last && *p == '(') {
        const char* q = p + 1;
        while (q != last && (IsDigit(*q) || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                             *q == '_')) {
          ++q;
        }
        if (q != last && *q == ')') p = q + 1;
      }
      value = negative ? -std::nan("") : std::nan("");
      return {p, std::errc()};
    }
    return {first, std::errc::invalid_argument};
  }
  if (p != last && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    if (q != last && (*q == '+' || *q == '-')) ++q;
    if (q != last && IsDigit(*q)) {
      while (q != last && IsDigit(*q)) ++q;
      p = q;
    }
  }
  // strtod rounds correctly, as from_chars does; it tells overflow by
  // infinity and underflow by zero from digits that are not all zeros.
  const std::string text(first, p);
  const double parsed = std::strtod(text.c_str(), nullptr);
  const size_t mantissa_end = text.find_first_of("eE");
  const bool zero_digits =
      text.find_first_of("123456789") >= mantissa_end;  // npos when no exponent
  if (std::isinf(parsed) || (parsed == 0 && !zero_digits)) {
    return {p, std::errc::result_out_of_range};
  }
  value = parsed;
  return {p, std::errc()};
}

}  // namespace cookgraph::web_internal
