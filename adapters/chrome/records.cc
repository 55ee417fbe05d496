// The plain pieces of the Chrome trace reader's records: interned strings and
// microsecond timestamps turned into exact nanoseconds.

#include "adapters/chrome/records.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "graph/parallel.h"

namespace cookgraph::chrome {

namespace {

constexpr uint64_t kEmptySlot = ~uint64_t{0};

// A fast 64-bit hash of short strings: eight bytes at a time, multiply and
// fold (the mixing of MurmurHash3's finaliser).
uint64_t Hash(std::string_view text) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ text.size();
  const char* p = text.data();
  size_t n = text.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  if (n != 0) std::memcpy(&w, p, n);  // an empty view may have no data pointer at all
  h = (h ^ w) * 0xC4CEB9FE1A85EC53ULL;
  return h ^ (h >> 29);
}

}  // namespace

size_t Interner::Slot(std::string_view text, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const uint64_t tag = hash >> 32;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint64_t slot = slots_[i];
    if (slot == kEmptySlot) return i;
    if ((slot >> 32) == tag && strings_[static_cast<uint32_t>(slot)] == text) return i;
  }
}

void Interner::Grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(std::max<size_t>(64, old.size() * 2), kEmptySlot);
  for (uint64_t slot : old) {
    if (slot == kEmptySlot) continue;
    const uint64_t hash = Hash(strings_[static_cast<uint32_t>(slot)]);
    slots_[Slot(strings_[static_cast<uint32_t>(slot)], hash)] = slot;
  }
}

uint32_t Interner::Intern(std::string_view text) {
  if (2 * (strings_.size() + 1) > slots_.size()) Grow();  // load at most one half
  const uint64_t hash = Hash(text);
  const size_t i = Slot(text, hash);
  if (slots_[i] != kEmptySlot) return static_cast<uint32_t>(slots_[i]);
  const auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  slots_[i] = (hash >> 32) << 32 | id;
  return id;
}

uint32_t Interner::Find(std::string_view text) const {
  if (slots_.empty()) return kNone;
  const size_t i = Slot(text, Hash(text));
  return slots_[i] == kEmptySlot ? kNone : static_cast<uint32_t>(slots_[i]);
}

namespace {

// `text` as a whole number below 2^47 written the one way JSON writes it
// (no sign, no leading zero), or nullopt: two ids have the same text exactly
// when they have the same number.
std::optional<uint64_t> CanonicalNumber(std::string_view text) {
  if (text.empty() || text.size() > 15 || (text[0] == '0' && text.size() > 1)) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<uint64_t>(c - '0');
  }
  if (value >> kFlowKeyIdBits) return std::nullopt;
  return value;
}

// The slot of a category in a numbered FlowKey, or nullopt when it has none
// (a category whose text holds the separator, or an id past the slots).
std::optional<uint64_t> CategorySlot(std::string_view cat, uint32_t cat_id, bool bind) {
  if (bind) return 0;
  if (cat.empty()) return 1;
  if (cat.find('\x1F') != std::string_view::npos || uint64_t{cat_id} + 2 >= kFlowKeySlots) {
    return std::nullopt;
  }
  return uint64_t{cat_id} + 2;
}

FlowKey NumberedFlowKey(uint64_t slot, uint64_t number) { return slot << kFlowKeyIdBits | number; }

FlowKey TextFlowKey(Interner& keys, std::string_view cat, std::string_view id, bool bind) {
  std::string text;
  text.reserve(cat.size() + id.size() + 1);
  if (bind) {
    text += '\x1E';
  } else {
    text += cat;
    text += '\x1F';
  }
  text += id;
  return kTextFlowKey | keys.Intern(text);
}

}  // namespace

FlowKey FlowKeyOf(TraceRecords& r, std::string_view cat, uint32_t cat_id, std::string_view id,
                  bool bind, bool& fwdbwd) {
  fwdbwd = !bind && (cat == "fwdbwd" || cat.starts_with("fwdbwd\x1F"));
  const std::optional<uint64_t> number = CanonicalNumber(id);
  const std::optional<uint64_t> slot = CategorySlot(cat, cat_id, bind);
  if (number && slot) return NumberedFlowKey(*slot, *number);
  return TextFlowKey(r.flow_keys, cat, id, bind);
}

std::string EventTally::First() const {
  return fmt::format("traceEvents[{}] at line {}", first_event, first_line);
}

void AppendRecords(TraceRecords& into, TraceRecords&& rest, int64_t line) {
  // rest's strings in the order it interned them: the ones new to `into`
  // get the ids one tokenizer would have given them, in the same order.
  std::vector<uint32_t> id(rest.strings.size());
  for (uint32_t i = 0; i < id.size(); ++i) id[i] = into.strings.Intern(rest.strings.str(i));
  auto map = [&](uint32_t& s) {
    if (s != kNone) s = id[s];
  };
  const auto events = static_cast<uint32_t>(into.events);
  const auto slices = static_cast<uint32_t>(into.slices.size());
  const auto marks = static_cast<uint32_t>(into.marks.size());

  // The slices (most of the bytes) on a second core while the flows' keys are
  // interned and the marks and flows joined here: they share only `id`.
  auto join_slices = [&] {
    into.slices.reserve(into.slices.size() + rest.slices.size());
    const bool tagged = !into.tags.empty() || !rest.tags.empty();
    if (tagged) into.tags.resize(into.slices.size());
    for (size_t i = 0; i < rest.slices.size(); ++i) {
      Slice s = rest.slices[i];
      for (uint32_t* field : {&s.name, &s.cat, &s.thread}) map(*field);
      s.event += events;
      into.slices.push_back(s);
      if (!tagged) continue;
      SliceTags tag = rest.tags.empty() ? SliceTags{} : rest.tags[i];
      map(tag.label);
      map(tag.type);
      into.tags.push_back(tag);
    }
  };
  auto join_flows = [&] {
    into.marks.reserve(into.marks.size() + rest.marks.size());
    for (Mark m : rest.marks) {
      for (uint32_t* field : {&m.thread, &m.name, &m.cat, &m.label, &m.type}) map(*field);
      m.event += events;
      into.marks.push_back(m);
    }
    // A numbered key names its category by id: the category's id in `into`,
    // or, past the slots there, the key's text, as one tokenizer would have
    // made it. Text keys are interned in the order the flows name them.
    std::vector<uint32_t> key_id(rest.flow_keys.size(), kNone);
    into.flows.reserve(into.flows.size() + rest.flows.size());
    for (FlowMark f : rest.flows) {
      if (f.key & kTextFlowKey) {
        uint32_t& joined = key_id[static_cast<uint32_t>(f.key)];
        if (joined == kNone) {
          joined = into.flow_keys.Intern(rest.flow_keys.str(static_cast<uint32_t>(f.key)));
        }
        f.key = kTextFlowKey | joined;
      } else if (const uint64_t slot = f.key >> kFlowKeyIdBits; slot >= 2) {
        const uint64_t number = f.key & ((uint64_t{1} << kFlowKeyIdBits) - 1);
        const uint32_t cat = id[static_cast<uint32_t>(slot - 2)];
        if (uint64_t{cat} + 2 < kFlowKeySlots) {
          f.key = NumberedFlowKey(uint64_t{cat} + 2, number);
        } else {
          bool fwdbwd = false;
          f.key =
              FlowKeyOf(into, into.strings.str(cat), cat, std::to_string(number), false, fwdbwd);
        }
      }
      map(f.thread);
      f.event += events;
      if (f.slice != kNone) f.slice += f.on_mark ? marks : slices;
      into.flows.push_back(f);
    }
  };
  RunBothIf(rest.slices.size() >= kParallelTraceItems, join_flows, join_slices);
  // The first event of a node key wins: `into`'s events came first.
  for (auto& [key, extras] : rest.extras) into.extras.try_emplace(id[key], std::move(extras));
  into.memory.reserve(into.memory.size() + rest.memory.size());
  for (MemoryMark m : rest.memory) {
    map(m.thread);
    into.memory.push_back(m);
  }
  for (auto [pid, name] : rest.process_names) into.process_names.emplace_back(id[pid], id[name]);
  into.waits.reserve(into.waits.size() + rest.waits.size());
  for (WaitMark w : rest.waits) {
    w.event += events;
    into.waits.push_back(w);
  }
  into.pools.reserve(into.pools.size() + rest.pools.size());
  for (PoolMark p : rest.pools) {
    map(p.pool);
    p.event += events;
    into.pools.push_back(p);
  }
  for (auto [mine, theirs] : {std::pair{&into.no_phase, &rest.no_phase},
                              {&into.no_ts, &rest.no_ts},
                              {&into.no_dur, &rest.no_dur},
                              {&into.negative_dur, &rest.negative_dur},
                              {&into.flow_without_id, &rest.flow_without_id},
                              {&into.async, &rest.async}}) {
    if (theirs->count == 0) continue;
    if (mine->count == 0) {
      mine->first_event = theirs->first_event + events;
      mine->first_line = theirs->first_line + line - 1;
    }
    mine->count += theirs->count;
  }
  into.events += rest.events;
}

std::optional<int64_t> MicrosToNanos(std::string_view text) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative || (i < text.size() && text[i] == '+')) ++i;
  constexpr int64_t kMaxMicros = std::numeric_limits<int64_t>::max() / 1000 - 1;
  int64_t micros = 0, nanos = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
    // Fifteen digits are below 10^15, and one more below 10^16: only from the
    // sixteenth on can the µs pass kMaxMicros (9.2 * 10^15).
    if (digits >= 15 && micros > (kMaxMicros - (text[i] - '0')) / 10) return std::nullopt;
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
