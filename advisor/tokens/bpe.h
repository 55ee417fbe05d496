#ifndef COOKGRAPH_ADVISOR_TOKENS_BPE_H_
#define COOKGRAPH_ADVISOR_TOKENS_BPE_H_

// Byte-pair merging by rank, the second stage of a tiktoken encoder (the first
// is the pre-tokenizer regex in tiktoken.cc). Internal to advisor/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace cookgraph {

/// The mergeable tokens of an encoding: token bytes -> rank. A lower rank
/// merges first.
class BpeRanks {
 public:
  /// Adds a token; false when its bytes are already there.
  bool Add(std::string bytes, uint32_t rank);
  size_t size() const { return ranks_.size(); }

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
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ranks_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOKENS_BPE_H_
