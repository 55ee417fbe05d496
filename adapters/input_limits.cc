#include "adapters/input_limits.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <limits>

namespace cookgraph {
namespace {

struct LimitKey {
  std::string_view name;
  uint64_t InputLimits::*field;
  bool size;  // a number of bytes (suffixes allowed), else a count
};

constexpr std::array<LimitKey, 7> kKeys = {{
    {"input-size", &InputLimits::input_size, true},
    {"depth", &InputLimits::depth, false},
    {"nodes", &InputLimits::nodes, false},
    {"name-length", &InputLimits::name_length, true},
    {"string-length", &InputLimits::string_length, true},
    {"samples", &InputLimits::samples, false},
    {"dot-size", &InputLimits::dot_size, true},
}};

static_assert(sizeof(InputLimits) == kKeys.size() * sizeof(uint64_t),
              "every limit has its key in kKeys (LimitMessage looks the field up there)");

const LimitKey* FindKey(std::string_view name) {
  for (const LimitKey& key : kKeys) {
    if (key.name == name) return &key;
  }
  return nullptr;
}

// The shift of a binary suffix ("K" = 10, "MiB" = 20, ...); -1 when `suffix`
// is none of them. "" is 0.
int SuffixShift(std::string_view suffix) {
  if (suffix.empty() || suffix == "B") return 0;
  static constexpr std::string_view kLetters = "KMGT";
  const size_t letter = kLetters.find(static_cast<char>(suffix[0] & ~0x20));  // either case
  if (letter == std::string_view::npos) return -1;
  const std::string_view rest = suffix.substr(1);
  if (!rest.empty() && rest != "B" && rest != "iB") return -1;
  return 10 * static_cast<int>(letter + 1);
}

// `value` as `--limit` takes it: "64G", "1000", "256".
std::string Spelled(const LimitKey& key, uint64_t value) {
  if (!key.size) return fmt::format("{}", value);
  static constexpr std::string_view kLetters = "KMGT";
  for (int i = static_cast<int>(kLetters.size()) - 1; i >= 0; --i) {
    const int shift = 10 * (i + 1);
    if (value % (uint64_t{1} << shift) == 0)
      return fmt::format("{}{}", value >> shift, kLetters[i]);
  }
  return fmt::format("{}", value);
}

}  // namespace

std::string SpellLimits(const InputLimits& limits) {
  std::string out;
  for (const LimitKey& key : kKeys) {
    out +=
        fmt::format("{}{}={}", out.empty() ? "" : " ", key.name, Spelled(key, limits.*(key.field)));
  }
  return out;
}

std::string_view LimitNames() {
  return "input-size, depth, nodes, name-length, string-length, samples, dot-size";
}

std::string ShowSize(uint64_t bytes) {
  static constexpr std::array<std::string_view, 4> kUnits = {"KiB", "MiB", "GiB", "TiB"};
  for (int i = static_cast<int>(kUnits.size()) - 1; i >= 0; --i) {
    const int shift = 10 * (i + 1);
    if (bytes >= (uint64_t{1} << shift) && bytes % (uint64_t{1} << shift) == 0) {
      return fmt::format("{} {}", bytes >> shift, kUnits[i]);
    }
  }
  return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
}

Status SetLimit(InputLimits& limits, std::string_view key_equals_value) {
  const size_t eq = key_equals_value.find('=');
  const std::string_view name = key_equals_value.substr(0, eq);
  const LimitKey* key = FindKey(name);
  if (eq == std::string_view::npos || key == nullptr) {
    return Error{.message = fmt::format("expected KEY=VALUE with KEY one of {}, got '{}'",
                                        LimitNames(), key_equals_value.substr(0, 60))};
  }
  const std::string_view text = key_equals_value.substr(eq + 1);
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const int shift = key->size ? SuffixShift(text.substr(end - text.data())) : 0;
  const bool whole = ec == std::errc() && (key->size || end == text.data() + text.size());
  if (!whole || shift < 0 || value == 0 ||
      value > (std::numeric_limits<uint64_t>::max() >> shift)) {
    return Error{.message = fmt::format(
                     "{} must be {} >= 1, got '{}'", name,
                     key->size ? "a number of bytes (with an optional K, M, G or T suffix)"
                               : "a whole number",
                     text.substr(0, 40))};
  }
  limits.*(key->field) = value << shift;
  return {};
}

std::string LimitMessage(const InputLimits& limits, uint64_t InputLimits::*limit,
                         std::string_view what) {
  const LimitKey* found = &kKeys[0];
  while (found->field != limit) ++found;  // every field has its key
  const std::string_view key = found->name;
  const uint64_t value = limits.*limit;
  const uint64_t raised = value > std::numeric_limits<uint64_t>::max() / 4
                              ? std::numeric_limits<uint64_t>::max()
                              : value * 4;
  return fmt::format("{} the {} limit of {}; if the input is genuine, raise it with --limit {}={}",
                     what, key, found->size ? ShowSize(value) : fmt::format("{}", value), key,
                     Spelled(*found, raised));
}

std::string NameTooLong(const InputLimits& limits, std::string_view what, uint64_t bytes) {
  return LimitMessage(limits, &InputLimits::name_length,
                      fmt::format("{} is {} bytes long, longer than", what, bytes));
}

}  // namespace cookgraph
