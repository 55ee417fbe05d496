// The estimate used without a rank file. It splits text roughly as the
// pre-tokenizers of o200k_base and cl100k_base do (words, runs of digits,
// runs of symbols, whitespace), and charges each piece what such a piece
// costs in the worse of the two, calibrated on cookgraph's own output (score
// tables as md, csv and json; graphs; snapshots; prose; ids; see
// tests/advisor/tokens/tokens_reference_test.cc), then adds a margin. On that
// corpus it comes to 1.07 to 1.45 times the larger exact count.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "advisor/tokens/token_counter.h"

namespace cookgraph {
namespace {

enum class Kind { kLower, kUpper, kDigit, kSpace, kNewline, kSymbol, kOther };

Kind KindOf(unsigned char c) {
  if (c >= 'a' && c <= 'z') return Kind::kLower;
  if (c >= 'A' && c <= 'Z') return Kind::kUpper;
  if (c >= '0' && c <= '9') return Kind::kDigit;
  if (c == ' ' || c == '\t') return Kind::kSpace;
  if (c == '\n' || c == '\r') return Kind::kNewline;
  if (c < 0x80) return Kind::kSymbol;
  return Kind::kOther;
}

bool IsLetter(Kind k) { return k == Kind::kLower || k == Kind::kUpper; }
bool IsVowel(unsigned char c) {
  switch (c | 0x20) {
    case 'a':
    case 'e':
    case 'i':
    case 'o':
    case 'u':
    case 'y':
      return true;
    default:
      return false;
  }
}
bool IsHexLetter(unsigned char c) { return (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// Length of the UTF-8 sequence that starts with `lead`; 1 for a stray byte.
size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xF0 && lead < 0xF8) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

class Estimator final : public TokenCounter {
 public:
  size_t Count(std::string_view text) const override {
    // Tokens in tenths, so that per-piece costs can be fractional.
    uint64_t tenths = 0;
    size_t i = 0;
    const size_t n = text.size();
    auto at = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    while (i < n) {
      const Kind kind = KindOf(at(i));
      size_t j = i + 1;
      if (IsLetter(kind)) {
        // A word: its case changes (o200k splits "CamelCase" in two), and
        // whether it reads like hex digits between numbers.
        size_t segments = 1;
        size_t consonants = 0, clustered = 0;  // consonants in a row; beyond the 2nd
        bool hex = IsHexLetter(at(i));
        for (size_t k = i; k < n && IsLetter(KindOf(at(k))); ++k) {
          consonants = IsVowel(at(k)) ? 0 : consonants + 1;
          if (consonants > 2) ++clustered;
        }
        while (j < n && IsLetter(KindOf(at(j)))) {
          if (KindOf(at(j)) == Kind::kUpper && KindOf(at(j - 1)) == Kind::kLower) ++segments;
          hex = hex && IsHexLetter(at(j));
          ++j;
        }
        const size_t length = j - i;
        const bool by_digits = (i > 0 && KindOf(at(i - 1)) == Kind::kDigit) ||
                               (j < n && KindOf(at(j)) == Kind::kDigit);
        if (hex && by_digits) {
          tenths += 10 * length;  // "3fa9c2": about a token a character
        } else {
          // Common words are one token, long ones a token per 4 letters
          // beyond the first 5; fragments of machine names ("xmma",
          // "nhwckrsc") read badly: half a token per consonant beyond the
          // second in a row.
          tenths += 10 * segments + (length > 5 ? (length - 5) * 10 / 4 : 0) + 5 * clustered;
        }
      } else if (kind == Kind::kDigit) {
        while (j < n && KindOf(at(j)) == Kind::kDigit) ++j;
        tenths += 10 * ((j - i + 2) / 3);  // a token per 1 to 3 digits
      } else if (kind == Kind::kSpace || kind == Kind::kNewline) {
        bool newline = kind == Kind::kNewline;
        while (j < n && (KindOf(at(j)) == Kind::kSpace || KindOf(at(j)) == Kind::kNewline)) {
          newline = newline || KindOf(at(j)) == Kind::kNewline;
          ++j;
        }
        // One space before a word or symbol joins it; longer runs, runs with
        // line breaks and spaces before digits are tokens of their own.
        const size_t length = j - i;
        const bool before_digit = j < n && KindOf(at(j)) == Kind::kDigit;
        if (length > 1 || newline || before_digit || j == n) tenths += 10 + length * 10 / 8;
      } else if (kind == Kind::kSymbol) {
        size_t backslashes = at(i) == '\\';
        while (j < n && KindOf(at(j)) == Kind::kSymbol) backslashes += at(j++) == '\\';
        tenths += 10 * backslashes;  // escapes ("\\_", "\\\"") split where others merge
        // A token per 2 symbols ("\":\"", ",\""); a symbol before a word often
        // joins it ("/bin", "_frame"), so counts half.
        const size_t symbols = j - i;
        const bool before_word = j < n && IsLetter(KindOf(at(j)));
        tenths += before_word ? symbols * 10 / 2 : 10 + (symbols - 1) * 10 / 2;
      } else {
        // Other scripts, emoji, typographic marks: a token a character at
        // least, two for 3- and 4-byte characters (CJK, emoji).
        const size_t length = SequenceLength(at(i));
        j = i + length < n ? i + length : n;
        tenths += length >= 3 ? 20 : 10;
        if (length >= 4) tenths += 10;
      }
      i = j;
    }
    // Margin: 15% and a token. Without it the pieces above come to 0.95 of
    // the exact count on the tightest corpus file (a wide text table).
    return static_cast<size_t>((tenths * 115 + 999) / 1000) + (text.empty() ? 0 : 1);
  }

  bool exact() const override { return false; }

  std::string Describe() const override {
    return "estimate (no rank file: at or above the exact count for o200k_base and cl100k_base)";
  }
};

}  // namespace

std::unique_ptr<TokenCounter> MakeEstimator() { return std::make_unique<Estimator>(); }

}  // namespace cookgraph
