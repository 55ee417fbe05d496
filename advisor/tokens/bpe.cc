#include "advisor/tokens/bpe.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace cookgraph {
namespace {

// Pieces up to this many bytes merge by scanning; longer ones (a run of one
// character, a long hex blob) by heap, where the scan would be quadratic.
constexpr size_t kScanLimit = 256;

}  // namespace

uint64_t BpeRanks::HashOf(std::string_view bytes) { return std::hash<std::string_view>{}(bytes); }

size_t BpeRanks::SlotOf(std::string_view bytes, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const auto tag = static_cast<uint32_t>(hash);
  // Linear probing from a slot the hash's high and low halves choose.
  for (size_t i = FirstSlot(hash);; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.rank == kNone) return i;
    if (slot.hash == tag && BytesOf(slot) == bytes) return i;
  }
}

void BpeRanks::Grow(size_t slots) {
  size_t capacity = 16;
  while (capacity < slots) capacity *= 2;
  if (capacity <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  for (const Slot& slot : old) {
    if (slot.rank == kNone) continue;
    slots_[SlotOf(BytesOf(slot), HashOf(BytesOf(slot)))] = slot;
  }
}

void BpeRanks::Reserve(size_t tokens, size_t bytes) {
  bytes_.reserve(bytes);
  Grow(2 * tokens);
}

bool BpeRanks::Add(std::string_view bytes, uint32_t rank) {
  if (rank == kNone) return false;
  if (2 * (size_ + 1) > slots_.size()) Grow(2 * (size_ + 1));
  const uint64_t hash = HashOf(bytes);
  Slot& slot = slots_[SlotOf(bytes, hash)];
  if (slot.rank != kNone) return false;
  slot = Slot{.offset = static_cast<uint32_t>(bytes_.size()),
              .length = static_cast<uint32_t>(bytes.size()),
              .rank = rank,
              .hash = static_cast<uint32_t>(hash)};
  bytes_.append(bytes);
  ++size_;
  return true;
}

size_t BpeRanks::AddAll(std::string bytes, const std::vector<Token>& tokens) {
  if (2 * (size_ + tokens.size()) > slots_.size()) Grow(2 * (size_ + tokens.size()));
  const size_t base = bytes_.size();
  if (bytes_.empty()) {
    bytes_ = std::move(bytes);
  } else {
    bytes_ += bytes;
  }
  auto bytes_of = [&](const Token& t) {
    return std::string_view(bytes_).substr(base + t.offset, t.length);
  };
  std::vector<uint64_t> hashes(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) hashes[i] = HashOf(bytes_of(tokens[i]));
  // A rank file's tokens land in random slots of a table of megabytes: each
  // insertion is a cache miss unless its slot is fetched well before.
  constexpr size_t kAhead = 16;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i + kAhead < tokens.size()) __builtin_prefetch(&slots_[FirstSlot(hashes[i + kAhead])], 1);
    const Token& t = tokens[i];
    if (t.rank == kNone) return i;
    Slot& slot = slots_[SlotOf(bytes_of(t), hashes[i])];
    if (slot.rank != kNone) return i;
    slot = Slot{.offset = static_cast<uint32_t>(base + t.offset),
                .length = t.length,
                .rank = t.rank,
                .hash = static_cast<uint32_t>(hashes[i])};
    ++size_;
  }
  return tokens.size();
}

uint32_t BpeRanks::Rank(std::string_view bytes) const {
  if (slots_.empty()) return kNone;
  return slots_[SlotOf(bytes, HashOf(bytes))].rank;
}

size_t BpeRanks::CountPiece(std::string_view piece) const {
  if (piece.size() <= 1) return piece.size();
  if (Rank(piece) != kNone) return 1;
  return piece.size() <= kScanLimit ? CountPieceByScan(piece) : CountPieceByHeap(piece);
}

size_t BpeRanks::CountPieceByScan(std::string_view piece) const {
  if (piece.size() <= 1) return piece.size();
  // parts[i].start: where part i begins; parts.back() is a sentinel at the
  // end. parts[i].rank: rank of parts i and i+1 merged; kNone = not a token.
  struct Part {
    size_t start;
    uint32_t rank;
  };
  std::vector<Part> parts;
  parts.reserve(piece.size() + 1);
  for (size_t i = 0; i <= piece.size(); ++i) parts.push_back({i, kNone});
  auto pair_rank = [&](size_t i) {
    if (i + 2 >= parts.size()) return kNone;
    return Rank(piece.substr(parts[i].start, parts[i + 2].start - parts[i].start));
  };
  for (size_t i = 0; i + 2 < parts.size(); ++i) parts[i].rank = pair_rank(i);
  while (parts.size() > 2) {
    size_t best = 0;
    for (size_t i = 1; i + 2 < parts.size(); ++i) {
      if (parts[i].rank < parts[best].rank) best = i;
    }
    if (parts[best].rank == kNone) break;
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    parts[best].rank = pair_rank(best);
    if (best > 0) parts[best - 1].rank = pair_rank(best - 1);
  }
  return parts.size() - 1;
}

size_t BpeRanks::CountPieceByHeap(std::string_view piece) const {
  const size_t n = piece.size();
  if (n <= 1) return n;
  // Part k starts at byte k while it lives; next[k] is where the part after
  // it starts (n = none), prev[k] where the one before starts (n = none), and
  // pair_rank[k] the rank of part k merged with the next (kNone = not a token,
  // or part k was merged into the one before).
  std::vector<size_t> next(n), prev(n);
  std::vector<uint32_t> pair_rank(n, kNone);
  for (size_t k = 0; k < n; ++k) {
    next[k] = k + 1;
    prev[k] = k == 0 ? n : k - 1;
  }
  // Candidates as rank << 40 | start of the left part: the smallest is the
  // lowest rank, leftmost of equals, as the scan picks. A candidate is stale
  // when pair_rank no longer says the same: equal ranks are equal bytes, so a
  // candidate that agrees with pair_rank is the pair now there.
  constexpr int kShift = 40;
  std::vector<uint64_t> heap;
  heap.reserve(n);
  auto add = [&](size_t left) {
    uint32_t rank = kNone;
    if (next[left] < n) rank = Rank(piece.substr(left, next[next[left]] - left));
    pair_rank[left] = rank;
    if (rank != kNone) heap.push_back(static_cast<uint64_t>(rank) << kShift | left);
    return rank != kNone;
  };
  auto push = [&](size_t left) {
    if (add(left)) std::push_heap(heap.begin(), heap.end(), std::greater<>());
  };
  for (size_t k = 0; k < n; ++k) add(k);
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  size_t parts = n;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    uint64_t top = heap.back();
    heap.pop_back();
    size_t left = static_cast<size_t>(top & ((uint64_t{1} << kShift) - 1));
    if (pair_rank[left] != static_cast<uint32_t>(top >> kShift)) continue;
    size_t right = next[left];
    pair_rank[right] = kNone;
    next[left] = next[right];
    if (next[right] < n) prev[next[right]] = left;
    --parts;
    push(left);
    if (prev[left] < n) push(prev[left]);
  }
  return parts;
}

}  // namespace cookgraph
