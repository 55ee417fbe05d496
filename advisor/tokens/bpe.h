#ifndef COOKGRAPH_ADVISOR_TOKENS_BPE_H_
#define COOKGRAPH_ADVISOR_TOKENS_BPE_H_

// Byte-pair merging by rank, the second stage of a tiktoken encoder (the first
// is the pre-tokenizer regex in tiktoken.cc). Internal to advisor/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cookgraph {

/// The mergeable tokens of an encoding: token bytes -> rank. A lower rank
/// merges first.
class BpeRanks {
 public:
  /// Room for `tokens` tokens of `bytes` bytes in all, so that adding them
  /// does not grow the table (a rank file's size is known before it is read).
  void Reserve(size_t tokens, size_t bytes);

  /// Adds a token; false when its bytes are already there (or `rank` is kNone).
  bool Add(std::string_view bytes, uint32_t rank);

  /// A token for AddAll: the `length` bytes at `offset` of AddAll's `bytes`.
  struct Token {
    uint32_t offset, length, rank;
  };
  /// Adds `tokens` in order, as Add does one by one but faster (each slot is
  /// fetched into the cache ahead of its turn, and `bytes` is kept, not
  /// copied, by a table still empty): the index of the first that Add would
  /// refuse (it and those after are not added), else tokens.size().
  size_t AddAll(std::string bytes, const std::vector<Token>& tokens);
  size_t size() const { return size_; }

  /// The rank of `bytes`; kNone when they are not a token.
  uint32_t Rank(std::string_view bytes) const;
  static constexpr uint32_t kNone = UINT32_MAX;

  /// Tokens `piece` byte-pair encodes to: start from single bytes and merge
  /// the adjacent pair of lowest rank (the leftmost of equals) until no pair
  /// is a token. A piece that is a token is one token.
  size_t CountPiece(std::string_view piece) const;

  /// The two merge loops CountPiece chooses between by length, exposed so
  /// tests can check that they agree. Quadratic (scan for the minimum after
  /// each merge, cheap for short pieces) and O(n log n) (a heap of pairs).
  size_t CountPieceByScan(std::string_view piece) const;
  size_t CountPieceByHeap(std::string_view piece) const;

 private:
  // An open-addressing table over one buffer of token bytes: loading a rank
  // file is 200,000 insertions, which a node-based map (an allocation each,
  // and as many frees at exit) made most of `ask --dry-run`'s time.
  struct Slot {
    uint32_t offset = 0;  // of the token's bytes in bytes_
    uint32_t length = 0;
    uint32_t rank = kNone;  // kNone = an empty slot
    uint32_t hash = 0;      // the low 32 bits of the token's hash, compared before its bytes
  };
  static uint64_t HashOf(std::string_view bytes);
  std::string_view BytesOf(const Slot& slot) const {
    return std::string_view(bytes_).substr(slot.offset, slot.length);
  }
  /// Where the search for a token of hash `hash` starts.
  size_t FirstSlot(uint64_t hash) const {
    return static_cast<size_t>((hash >> 32) ^ hash) & (slots_.size() - 1);
  }
  /// The index of the slot holding `bytes`, or of the empty one where they would go.
  size_t SlotOf(std::string_view bytes, uint64_t hash) const;
  void Grow(size_t slots);

  std::string bytes_;
  std::vector<Slot> slots_;  // a power of two in size, at most half full
  size_t size_ = 0;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOKENS_BPE_H_
