// The plain pieces of the Chrome trace reader's records: interned strings and
// microsecond timestamps turned into exact nanoseconds.

#include "adapters/chrome_trace_records.h"

#include <cmath>
#include <cstdlib>
#include <limits>

namespace cookgraph::chrome {

uint32_t Interner::Intern(std::string_view text) {
  if (auto it = index_.find(text); it != index_.end()) return it->second;
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  index_.emplace(strings_.back(), id);
  return id;
}

uint32_t Interner::Find(std::string_view text) const {
  auto it = index_.find(text);
  return it == index_.end() ? kNone : it->second;
}

std::optional<int64_t> MicrosToNanos(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative || (i < text.size() && text[i] == '+')) ++i;
  constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 - 1;
  int64_t micros = 0, nanos = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    if (micros > (kMaxMicros - (text[i] - '0')) / 10) return std::nullopt;
    micros = micros * 10 + (text[i] - '0');
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    int place = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits, ++place) {
      if (place < 3) nanos = nanos * 10 + (text[i] - '0');
      if (place == 3 && text[i] >= '5') ++nanos;  // rounds the fourth decimal
    }
    for (; place < 3; ++place) nanos *= 10;
  }
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    // Exponent notation: through double, rounded to the ns.
    std::string copy(text);
    char* end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(value)) return std::nullopt;
    const double ns = value * 1000;
    if (std::fabs(ns) >= static_cast<double>(kMaxMicros) * 1000) return std::nullopt;
    return std::llround(ns);
  }
  if (i != text.size()) return std::nullopt;
  const int64_t total = micros * 1000 + nanos;
  return negative ? -total : total;
}

}  // namespace cookgraph::chrome
