// The exact counter: a .tiktoken rank file, the encoding's pre-tokenizer
// regex (PCRE2), and byte-pair merges (bpe.cc).

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "advisor/tokens/bpe.h"
#include "advisor/tokens/token_counter.h"

namespace cookgraph {
namespace {

// The pre-tokenizers, as tiktoken's openai_public.py writes them (PCRE2 reads
// the possessive quantifiers and the Unicode classes as Rust's fancy-regex
// does). cl100k_base:
constexpr std::string_view kCl100kPattern =
    R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)";
// o200k_base: a word is an optional leading symbol, upper-case letters then
// lower-case ones (so "CamelCase" is two pieces), and an English contraction.
constexpr std::string_view kO200kPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Mergeable tokens in each encoding's published rank file: a file with
// another count is another encoding's (or truncated).
constexpr size_t kO200kTokens = 199998;
constexpr size_t kCl100kTokens = 100256;
// Ranks are dense from 0; a larger one is a typo, not a vocabulary.
constexpr uint32_t kMaxRank = 16 * 1024 * 1024;

struct CodeDeleter {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};
struct MatchContextDeleter {
  void operator()(pcre2_match_context* context) const { pcre2_match_context_free(context); }
};
struct JitStackDeleter {
  void operator()(pcre2_jit_stack* stack) const { pcre2_jit_stack_free(stack); }
};

/// Value of a base64 digit; -1 for anything else.
constexpr std::array<int8_t, 256> kBase64Digits = [] {
  std::array<int8_t, 256> digits{};
  digits.fill(-1);
  for (int i = 0; i < 26; ++i) {
    digits['A' + i] = static_cast<int8_t>(i);
    digits['a' + i] = static_cast<int8_t>(i + 26);
  }
  for (int i = 0; i < 10; ++i) digits['0' + i] = static_cast<int8_t>(i + 52);
  digits['+'] = 62;
  digits['/'] = 63;
  return digits;
}();

int Base64Digit(char c) { return kBase64Digits[static_cast<unsigned char>(c)]; }

/// Decodes standard padded base64, appending to `out`; on failure, the
/// 0-based offset of the first character that is wrong (or text.size() when
/// the length is).
bool DecodeBase64(std::string_view text, std::string* out, size_t* bad_at) {
  if (text.empty() || text.size() % 4 != 0) {
    *bad_at = text.size();
    return false;
  }
  size_t padding = 0;
  if (text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
  const size_t digits = text.size() - padding;
  const size_t start = out->size();
  out->resize(start + text.size() / 4 * 3);
  char* to = out->data() + start;
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t acc = 0;
    for (size_t j = i; j < i + 4; ++j) {
      const int d = j < digits ? Base64Digit(text[j]) : 0;
      if (d < 0) {
        *bad_at = j;
        out->resize(start);
        return false;
      }
      acc = (acc << 6) | static_cast<uint32_t>(d);
    }
    *to++ = static_cast<char>(acc >> 16);
    *to++ = static_cast<char>((acc >> 8) & 0xff);
    *to++ = static_cast<char>(acc & 0xff);
  }
  out->resize(out->size() - padding);
  return true;
}

class TiktokenCounter final : public TokenCounter {
 public:
  TiktokenCounter(std::string description, BpeRanks ranks,
                  std::unique_ptr<pcre2_code, CodeDeleter> regex, bool jit)
      : description_(std::move(description)),
        ranks_(std::move(ranks)),
        regex_(std::move(regex)),
        jit_(jit) {}

  size_t Count(std::string_view text) const override {
    std::unique_ptr<pcre2_match_data, MatchDataDeleter> match(
        pcre2_match_data_create_from_pattern(regex_.get(), nullptr));
    // JIT matching of a long run (a megabyte of spaces) needs more than the
    // default 32 KiB of stack; 64 MiB is reserved, touched only as needed.
    std::unique_ptr<pcre2_match_context, MatchContextDeleter> context(
        pcre2_match_context_create(nullptr));
    std::unique_ptr<pcre2_jit_stack, JitStackDeleter> stack;
    if (jit_) {
      stack.reset(pcre2_jit_stack_create(32 * 1024, 64 * 1024 * 1024, nullptr));
      if (stack) pcre2_jit_stack_assign(context.get(), nullptr, stack.get());
    }
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    size_t count = 0;
    size_t at = 0;
    while (at < text.size()) {
      int rc = pcre2_match(regex_.get(), subject, text.size(), at, 0, match.get(), context.get());
      if (rc == PCRE2_ERROR_NOMATCH) {
        // Only bytes that are not UTF-8 match nothing: a piece of their own.
        count += ranks_.CountPiece(text.substr(at));
        break;
      }
      if (rc < 0) {
        // The matcher gave up (a resource limit): one token per byte left,
        // more than the exact count, never less.
        count += text.size() - at;
        break;
      }
      const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.get());
      size_t begin = ovector[0], end = ovector[1];
      if (begin > at) count += ranks_.CountPiece(text.substr(at, begin - at));
      if (end <= begin) {
        // No alternative matches empty; should one, step over one byte.
        end = begin + 1;
        count += 1;
      } else {
        count += ranks_.CountPiece(text.substr(begin, end - begin));
      }
      at = end;
    }
    return count;
  }

  bool exact() const override { return true; }

  std::string Describe() const override { return description_; }

 private:
  std::string description_;
  BpeRanks ranks_;
  std::unique_ptr<pcre2_code, CodeDeleter> regex_;
  bool jit_;
};

/// Line `number` (1-based) of `text`, without its line end.
std::string_view LineOf(std::string_view text, int64_t number) {
  size_t at = 0;
  for (int64_t n = 1; n < number && at < text.size(); ++n) {
    const size_t eol = text.find('\n', at);
    at = eol == std::string_view::npos ? text.size() : eol + 1;
  }
  std::string_view line = text.substr(at, text.find('\n', at) - at);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

Error FileError(const std::string& file, int64_t line, int64_t column, std::string message) {
  Error e;
  e.file = file;
  e.line = line;
  e.column = column;
  e.message = std::move(message);
  return e;
}

}  // namespace

Result<std::unique_ptr<TokenCounter>> ParseTiktoken(std::string_view contents,
                                                    const std::string& file, Encoding encoding,
                                                    const std::string& origin) {
  const size_t expected = encoding == Encoding::kO200k ? kO200kTokens : kCl100kTokens;
  // Offsets and line numbers below are 32-bit; a rank file is a few MB.
  if (contents.size() > (size_t{1} << 30)) {
    return FileError(file, 0, 0, "is over 1 GiB: is this a .tiktoken rank file?");
  }
  BpeRanks ranks;
  // Room for the whole table at once: a line is at least 6 bytes ("IQ== 0"),
  // and token bytes at most 3/4 of their base64.
  const size_t lines = std::min(expected, contents.size() / 6 + 1);
  ranks.Reserve(lines, 0);
  std::vector<uint32_t> line_of_rank;  // line that gave each rank; 0 = none yet
  // The tokens, decoded one after the other into `bytes`, then added at once
  // (BpeRanks::AddAll); the line of each, for errors.
  std::string bytes;
  bytes.reserve(contents.size() / 4 * 3);
  std::vector<BpeRanks::Token> tokens;
  std::vector<uint32_t> line_of_token;
  tokens.reserve(lines);
  line_of_token.reserve(lines);
  int64_t line_number = 0;
  size_t at = 0;
  while (at < contents.size()) {
    size_t eol = contents.find('\n', at);
    if (eol == std::string_view::npos) eol = contents.size();
    std::string_view line = contents.substr(at, eol - at);
    at = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    size_t space = line.find(' ');
    if (space == std::string_view::npos) {
      return FileError(file, line_number, static_cast<int64_t>(line.size()) + 1,
                       "expected 'base64-token rank', found no rank");
    }
    size_t bad_at = 0;
    const size_t offset = bytes.size();
    if (!DecodeBase64(line.substr(0, space), &bytes, &bad_at)) {
      return FileError(file, line_number, static_cast<int64_t>(bad_at) + 1,
                       "the token is not base64: is this a .tiktoken rank file?");
    }
    std::string_view rank_text = line.substr(space + 1);
    uint32_t rank = 0;
    auto [end, ec] = std::from_chars(rank_text.data(), rank_text.data() + rank_text.size(), rank);
    if (rank_text.empty() || ec != std::errc() || end != rank_text.data() + rank_text.size() ||
        rank >= kMaxRank) {
      return FileError(file, line_number, static_cast<int64_t>(space) + 2,
                       "the rank '" + std::string(rank_text) + "' is not a number below " +
                           std::to_string(kMaxRank));
    }
    if (line_of_rank.size() <= rank) line_of_rank.resize(std::max<size_t>(rank + 1, lines), 0);
    if (line_of_rank[rank] != 0) {
      return FileError(file, line_number, static_cast<int64_t>(space) + 2,
                       "rank " + std::to_string(rank) + " is given twice (first on line " +
                           std::to_string(line_of_rank[rank]) + ")");
    }
    line_of_rank[rank] = static_cast<uint32_t>(line_number);
    tokens.push_back(
        {static_cast<uint32_t>(offset), static_cast<uint32_t>(bytes.size() - offset), rank});
    line_of_token.push_back(static_cast<uint32_t>(line_number));
  }
  if (size_t refused = ranks.AddAll(std::move(bytes), tokens); refused < tokens.size()) {
    const int64_t line = line_of_token[refused];
    std::string_view text = LineOf(contents, line);
    return FileError(
        file, line, 1,
        "the token '" + std::string(text.substr(0, text.find(' '))) + "' is given twice");
  }
  if (ranks.size() != expected) {
    return FileError(file, 0, 0,
                     "has " + std::to_string(ranks.size()) + " tokens where " +
                         std::string(EncodingName(encoding)) + " has " + std::to_string(expected) +
                         ": is it the rank file of another encoding, or cut short?");
  }

  std::string_view pattern = encoding == Encoding::kO200k ? kO200kPattern : kCl100kPattern;
  int error_code = 0;
  PCRE2_SIZE error_offset = 0;
  std::unique_ptr<pcre2_code, CodeDeleter> regex(pcre2_compile(
      reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
      PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &error_code, &error_offset, nullptr));
  if (!regex) {
    // Only a PCRE2 built without Unicode support gets here.
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error_code, message, sizeof message);
    Error e;
    e.where = std::string(EncodingName(encoding)) + " pre-tokenizer";
    e.message = "PCRE2 refuses the pattern at offset " + std::to_string(error_offset) + ": " +
                reinterpret_cast<const char*>(message);
    return e;
  }
  bool jit = pcre2_jit_compile(regex.get(), PCRE2_JIT_COMPLETE) == 0;
  std::string description(EncodingName(encoding));
  description += origin.empty() ? " from " + file : " (" + origin + ")";
  std::unique_ptr<TokenCounter> counter = std::make_unique<TiktokenCounter>(
      std::move(description), std::move(ranks), std::move(regex), jit);
  return counter;
}

Result<std::unique_ptr<TokenCounter>> LoadTiktoken(const std::string& rank_file, Encoding encoding,
                                                   const std::string& origin) {
  std::ifstream in(rank_file, std::ios::binary);
  if (!in) {
    return FileError(rank_file, 0, 0,
                     "cannot read the rank file; give another with --tokenizer, or leave it out "
                     "to estimate token counts");
  }
  // Read whole, in one piece (a rank file is a few MB).
  std::string contents;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    contents.append(buffer, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return FileError(rank_file, 0, 0, "reading the rank file failed");
  return ParseTiktoken(contents, rank_file, encoding, origin);
}

}  // namespace cookgraph
