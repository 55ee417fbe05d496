#include "store/store.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "store/postgres_store.h"
#include "store/sqlite_store.h"

namespace cookgraph {
namespace {

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), s.begin(), [](char lower, char c) {
           return std::tolower(static_cast<unsigned char>(c)) == lower;
         });
}

// Where the passwords of a URL are: [begin, end) of the password of its
// user info (postgresql://user:PASSWORD@host) and of every password=VALUE of
// its query.
std::vector<std::pair<size_t, size_t>> PasswordSpans(std::string_view url) {
  std::vector<std::pair<size_t, size_t>> spans;
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return spans;
  const size_t authority = scheme + 3;
  size_t authority_end = url.find_first_of("/?", authority);
  if (authority_end == std::string_view::npos) authority_end = url.size();
  const size_t at = url.rfind('@', authority_end);
  if (at != std::string_view::npos && at >= authority) {
    const size_t colon = url.find(':', authority);
    if (colon < at) spans.emplace_back(colon + 1, at);
  }
  const size_t query = url.find('?', authority);
  if (query != std::string_view::npos) {
    size_t p = query + 1;
    while (p <= url.size()) {
      size_t end = url.find('&', p);
      if (end == std::string_view::npos) end = url.size();
      const std::string_view param = url.substr(p, end - p);
      if (StartsWithNoCase(param, "password=")) spans.emplace_back(p + 9, end);
      p = end + 1;
    }
  }
  return spans;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string PercentDecoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

void ReplaceAll(std::string& text, const std::string& what, std::string_view with) {
  if (what.empty()) return;
  for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + with.size())) {
    text.replace(p, what.size(), with);
  }
}

}  // namespace

bool IsPostgresTarget(const std::string& target) {
  return StartsWithNoCase(target, "postgresql://") || StartsWithNoCase(target, "postgres://");
}

std::string DisplayTarget(const std::string& target) {
  if (!IsPostgresTarget(target)) return target;
  std::string out = target;
  auto spans = PasswordSpans(target);
  // From the back, so that earlier spans keep their offsets.
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
    out.replace(it->first, it->second - it->first, "***");
  }
  return out;
}

std::string HidePassword(const std::string& text, const std::string& url) {
  std::string out = text;
  for (const auto& [begin, end] : PasswordSpans(url)) {
    const std::string raw = url.substr(begin, end - begin);
    ReplaceAll(out, raw, "***");
    ReplaceAll(out, PercentDecoded(raw), "***");
  }
  return out;
}

Result<std::unique_ptr<RunStore>> OpenRunStore(const std::string& target, StoreAccess access) {
  if (target.empty())
    return Error{.where = "--store", .message = "the history database's name is empty"};
  if (IsPostgresTarget(target)) return OpenPostgresStore(target, access);
  return OpenSqliteStore(target, access);
}

}  // namespace cookgraph
