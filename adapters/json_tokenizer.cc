// JSON into events, by a streaming tokenizer of our own over large blocks of
// the input. It replaced nlohmann's SAX parser, whose byte-at-a-time lexer and
// strtod held every reader to 20-40 MB/s (issue 5): here whitespace and
// numbers are scanned in tight loops, strings sixteen bytes at a time (SSE2),
// strings without escapes reach the handler without a copy, and numbers are
// converted by std::from_chars (libstdc++'s fast_float). The grammar is strict
// RFC 8259: no comments, no trailing commas, UTF-8 validated, lone surrogates
// refused. No recursion: nesting depth costs one byte of stack per level, up
// to the depth limit; strings and numbers are bounded by name-length (keys)
// and string-length (values) while they are scanned (adapters/input_limits.h).
//
// size: the reader stays whole in one translation unit so that its scanners
// (Value, SkipBlanks, ScanLiteral, DecodeString) inline into Parse: split
// across files they become a call per token in the project's hottest loop.

#include <emmintrin.h>
#include <fmt/format.h>

#include <atomic>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/events.h"
#include "adapters/input_limits.h"
#include "base/text.h"

namespace cookgraph {
namespace {

constexpr size_t kBlockBytes = 1 << 20;  // read at a time; a longer token grows the buffer
constexpr size_t kMinBlockBytes = 4096;  // the least read at a time
constexpr size_t kPadBytes = 64;         // zeros after the data: 16-byte loads stay inside

// The bytes read at a time from `source`: kBlockBytes, or less where the
// input is known to be smaller, in a buffer that holds all of it. (A gzip
// file read block by block has its compressed size as stored size: the
// buffer then holds a part, refilled as for a large input.) A 1 MiB buffer
// zero-filled for a 1 KB snapshot cost each run about 250 page faults, and
// the tests that read small texts thousands of times their minutes under
// AddressSanitizer (docs/performance.md#small-inputs-small-buffers).
size_t BlockFor(const ByteSource& source) {
  const uint64_t size = source.stored_size();  // 0 where not known (standard input)
  if (size == 0 || size >= kBlockBytes) return kBlockBytes;
  return std::max(std::bit_ceil(static_cast<size_t>(size) + 1), kMinBlockBytes);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// How many ASCII digits start at `p`, eight bytes at a time: the buffer's
// zeros after the data end every run, and a load past them stays inside. A
// byte is a digit when its high nibble is 3 and stays 3 with 6 added; a carry
// out of a byte over 0xF9 only spoils the bytes after a non-digit.
size_t DigitRun(const char* p) {
  constexpr uint64_t kHigh = 0xF0F0F0F0F0F0F0F0u, kThrees = 0x3030303030303030u;
  for (size_t n = 0;; n += 8) {
    uint64_t x;
    std::memcpy(&x, p + n, 8);
    const uint64_t other =
        ((x & kHigh) ^ kThrees) | (((x + 0x0606060606060606u) & kHigh) ^ kThrees);
    if (other != 0) return n + static_cast<size_t>(std::countr_zero(other) >> 3);
  }
}

// A well-formed JSON number's value, from what its scan found: its sign, its
// digits as one integer (exact up to 19 of them), how many digits, and the
// power of ten that scales them. kOverflow past a double's range; kInvalid
// should not happen for well-formed text.
enum class NumberStatus { kOk, kOverflow, kInvalid };
NumberStatus NumberValue(std::string_view text, bool negative, uint64_t mantissa, size_t digits,
                         int64_t scale, double& value) {
  // Clinger's fast path: a mantissa below 2^53 and a power of ten up to 22
  // are both exact doubles, so one correctly rounded multiplication or
  // division gives the correctly rounded value. Other numbers (more than
  // 19 digits, leading zeros of a fraction included) go to from_chars,
  // which rounds correctly too: the value never depends on the path.
  static constexpr double kPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (digits <= 19 && mantissa <= (uint64_t{1} << 53) && scale >= -22 && scale <= 22) {
    const auto m = static_cast<double>(mantissa);
    value = scale < 0 ? m / kPowers[-scale] : m * kPowers[scale];
    if (negative) value = -value;
    return NumberStatus::kOk;
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow too; strtod tells the two apart.
    value = std::strtod(std::string(text).c_str(), nullptr);
    return std::isfinite(value) ? NumberStatus::kOk : NumberStatus::kOverflow;
  }
  return ec != std::errc() || ptr != text.data() + text.size() ? NumberStatus::kInvalid
                                                               : NumberStatus::kOk;
}

// NumberValue from a well-formed number's text alone: for a number the
// reader scanned without converting (the pipeline's worker leaves that to
// the thread that replays it; a number nobody reads is converted only when it
// may overflow).
NumberStatus NumberValueOf(std::string_view text, double& value) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative) ++i;
  uint64_t mantissa = 0;
  size_t digits = 0;
  int64_t scale = 0;
  for (; i < text.size() && IsDigit(text[i]); ++i, ++digits) {
    mantissa = mantissa * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && IsDigit(text[i]); ++i, ++digits, --scale) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(text[i] - '0');
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool minus = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    int64_t exponent = 0;
    for (; i < text.size() && IsDigit(text[i]) && exponent < 100000; ++i) {
      exponent = exponent * 10 + (text[i] - '0');
    }
    scale += minus ? -exponent : exponent;
  }
  return NumberValue(text, negative, mantissa, digits, scale, value);
}

// A byte as a message shows it: 'x' when printable, else its code.
std::string Shown(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7F) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02X}", u);
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Four hex digits at `p`, or -1.
int32_t Hex4(const char* p) {
  int32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char c = p[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

class SplitParse;

// Where the second half of a split parse ended: the offset of the byte that
// closes its array (or of the end of the input), and the lines it read.
struct RestEnd {
  uint64_t offset = 0;
  int64_t lines = 1;             // 1 + the line breaks it read
  uint64_t last_line_start = 0;  // offset of its last line's first byte (lines > 1)
};

class JsonReader {
 public:
  JsonReader(ByteSource& source, EventHandler& handler)
      : source_(source), handler_(handler), block_(BlockFor(source)) {
    buf_.assign(block_ + kPadBytes, 0);
  }

  Status Parse(bool* ended_early);

  // The first half of a split parse: reading stops at split.at() until Parse()
  // gets there (with everything before it read) and `split` says whether the
  // second half's events stand in for the ones from there on.
  void StopAt(SplitParse& split);
  // The second half: the source is at `offset`, inside the containers `open`
  // (outermost first, the innermost an array), before one of its values.
  // Parse() then ends where that array closes, or at the end of the input
  // after a value, and rest_end() says where; `cancel` stops it early.
  void StartInside(std::string_view open, uint64_t offset, const std::atomic<bool>& cancel);
  const RestEnd& rest_end() const { return rest_end_; }

 private:
  enum class Next : uint8_t { kValue, kValueOrClose, kAfterValue, kKey, kKeyOrClose };

  // Where the byte at index `i` of the buffer is.
  Location At(size_t i) const { return {line_, static_cast<int64_t>(base_ + i - line_start_) + 1}; }
  Location Here() const { return At(pos_); }

  // Reads more input, keeping the bytes from `keep` (<= pos_) on, which move
  // to the front: indexes into the buffer shift down by `keep`. False when no
  // byte was added (the end, or a read error: see source_.failed()), or, when
  // `may_pause`, at the stop of a split parse (Paused()).
  bool Refill(size_t keep, bool may_pause = false);
  // Skips whitespace, counting lines. False at the end of the input (or at a
  // split parse's stop, when `may_pause`). Most tokens follow another with no
  // blank or one space between: those cases are decided here, inline.
  bool SkipBlank(bool may_pause = false) {
    if (pos_ != end_ && static_cast<unsigned char>(buf_[pos_]) > ' ') return true;
    // One space, as after a ':' or ',' (the byte after the data is a zero).
    if (buf_[pos_] == ' ' && static_cast<unsigned char>(buf_[pos_ + 1]) > ' ') {
      ++pos_;
      return true;
    }
    return SkipBlanks(may_pause);
  }
  bool SkipBlanks(bool may_pause);
  // True when the data ends at the stop of a split parse.
  bool Paused() const { return split_ != nullptr && base_ + end_ == stop_at_ && !eof_; }
  // At the stop (`between`: where the halves meet, Between()): true when the
  // second half's events were taken and the reader is after them; false when
  // the split is given up and the reader reads on from here.
  bool Join(bool between);
  void GiveUpSplit();
  // A split whose second half places it (JsonSplit::inflating): stop_at_
  // from where it placed it, or no split at all when it found no place.
  void FollowPlacement();
  static constexpr uint64_t kNoStop = std::numeric_limits<uint64_t>::max();
  // Where the two halves of a split parse meet: before a value of their
  // innermost array, or before a key of their innermost object.
  Next Between() const;
  // Makes at least `n` bytes available at pos_ unless the input ends first.
  void Want(size_t n) {
    while (end_ - pos_ < n && !eof_ && Refill(pos_)) {
    }
  }

  bool Fail(size_t at, std::string message) {
    if (!error_) {
      error_ = Error{.file = source_.name(),
                     .line = line_,
                     .column = At(at).column,
                     .message = "invalid JSON: " + std::move(message)};
    }
    return false;
  }
  // A limit of source_.limits() passed at buffer index `at`: not a syntax
  // error, so without "invalid JSON".
  bool FailLimit(size_t at, uint64_t InputLimits::*limit, std::string_view what) {
    if (!error_) {
      error_ = Error{.file = source_.name(),
                     .line = line_,
                     .column = At(at).column,
                     .message = LimitMessage(source_.limits(), limit, what)};
    }
    return false;
  }
  // The string (an object key when `key`) that starts at `start` passed
  // name-length (keys) or string-length.
  bool FailTooLong(size_t start, bool key) {
    return key ? FailLimit(start, &InputLimits::name_length, "an object key is longer than")
               : FailLimit(start, &InputLimits::string_length, "a string is longer than");
  }
  bool FailEnd(std::string_view expected) {
    ended_ = true;
    return Fail(end_, fmt::format("unexpected end of input; expected {}", expected));
  }
  bool Unexpected(std::string_view expected) {
    return Fail(pos_, fmt::format("unexpected {}; expected {}", Shown(buf_[pos_]), expected));
  }

  // Scans the string whose opening quote is at pos_ and leaves pos_ after its
  // closing quote; `out` is its decoded value (in the buffer or in scratch_).
  // An object key is a name: its bound is name-length, else string-length;
  // a longer string is refused before it is buffered whole.
  bool ScanString(std::string_view& out, bool key);
  bool DecodeString(size_t from, size_t to, std::string_view& out);
  bool ScanNumber();
  bool ScanLiteral();
  bool Value();
  // Moves past the closing bracket at pos_ (the innermost container's) and
  // tells the handler.
  bool Close() {
    ++pos_;
    const bool object = stack_.back() == '{';
    stack_.pop_back();
    if (Muted()) {
      if (stack_.size() == mute_depth_) mute_depth_ = kNotMuted;  // the skipped value ends
      return true;
    }
    return object ? handler_.EndObject(Here()) : handler_.EndArray(Here());
  }
  // Skipping a value the handler said it does not read (SkipsValue): its
  // tokens are checked, not handed over, until the stack is back at
  // mute_depth_.
  bool Muted() const { return mute_depth_ != kNotMuted; }
  static constexpr size_t kNotMuted = SIZE_MAX;

  ByteSource& source_;
  EventHandler& handler_;
  const size_t block_;        // read at a time (BlockFor)
  std::vector<char> buf_;     // data in [0, end_), then kPadBytes zeros
  size_t pos_ = 0, end_ = 0;  // next byte; end of the data
  uint64_t base_ = 0;         // offset in the input of buf_[0]
  uint64_t line_start_ = 0;   // offset of the current line's first byte
  int64_t line_ = 1;
  bool eof_ = false;
  bool ended_ = false;       // the error is the input's end
  std::vector<char> stack_;  // '{' or '[' per open container
  std::string scratch_;      // decoded strings with escapes
  std::optional<Error> error_;

  SplitParse* split_ = nullptr;  // the first half of a split parse, until it stops
  uint64_t stop_at_ = 0;         // where it stops
  bool placed_later_ = false;    // by the second half (FollowPlacement)
  // The second half of a split parse: the containers open where it starts
  // (stack_ never falls below them), where it ended, and its cancel flag.
  size_t rest_depth_ = 0;
  RestEnd rest_end_;
  const std::atomic<bool>* cancel_ = nullptr;
  size_t mute_depth_ = kNotMuted;
  const bool doubles_ = handler_.ReadsNumberValues();
};

bool JsonReader::Refill(size_t keep, bool may_pause) {
  if (eof_) return false;
  size_t kept = end_ - keep;
  if (keep > 0) std::memmove(buf_.data(), buf_.data() + keep, kept);
  base_ += keep;
  pos_ -= keep;
  end_ = kept;
  std::memset(buf_.data() + end_, 0,
              kPadBytes);  // the zeros after the data, also when no byte comes
  if (buf_.size() - kPadBytes - end_ < block_ / 2) buf_.resize(buf_.size() * 2);
  size_t n = 0;
  for (;;) {
    size_t room = buf_.size() - kPadBytes - end_;
    if (split_ != nullptr && placed_later_) FollowPlacement();
    if (split_ != nullptr) {
      const uint64_t left = stop_at_ - (base_ + end_);
      if (left == 0 && may_pause) return false;  // Parse() joins the halves
      if (left == 0) {
        GiveUpSplit();  // a token goes on past the stop: it is not where the split assumed
      } else {
        room = std::min<uint64_t>(room, left);
      }
    }
    if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
      eof_ = true;
      return Fail(end_, "the second half of a split parse was cancelled");
    }
    n = source_.Read(buf_.data() + end_, room);
    // A source inflating in the background gives nothing at the stop its
    // second half placed (this thread sees the placement once the read has
    // found the stop), or at its end, where the second half can place none
    // (it holds reads only where none were handed out): given up.
    if (n > 0 || split_ == nullptr || !placed_later_ || stop_at_ != kNoStop) break;
    FollowPlacement();
    if (split_ != nullptr && stop_at_ == kNoStop) GiveUpSplit();
  }
  end_ += n;
  std::memset(buf_.data() + end_, 0, kPadBytes);
  if (n == 0) eof_ = true;
  return n > 0;
}

bool JsonReader::SkipBlanks(bool may_pause) {
  // Sixteen bytes at a time: pretty-printed traces are a quarter indentation.
  // The zeros after the data are not blank, so a scan stops at end_.
  const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
  const __m128i cr = _mm_set1_epi8('\r'), lf = _mm_set1_epi8('\n');
  for (;;) {
    const char* b = buf_.data();
    while (pos_ < end_) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + pos_));
      const __m128i newline = _mm_cmpeq_epi8(v, lf);
      const __m128i blank =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                       _mm_or_si128(_mm_cmpeq_epi8(v, cr), newline));
      const auto not_blank = static_cast<unsigned>(~_mm_movemask_epi8(blank) & 0xFFFF);
      const size_t run = not_blank == 0 ? 16 : static_cast<size_t>(__builtin_ctz(not_blank));
      if (auto lines = static_cast<unsigned>(_mm_movemask_epi8(newline)) &
                       ((1u << run) - 1)) {  // the line breaks within the run
        line_start_ = base_ + pos_ + static_cast<size_t>(31 - __builtin_clz(lines)) + 1;
        for (; lines != 0; lines &= lines - 1) ++line_;  // one or two: no popcnt call
      }
      pos_ += run;
      if (run < 16) {
        if (pos_ < end_) return true;
        break;
      }
    }
    if (!Refill(pos_, may_pause)) return false;
  }
}

bool JsonReader::ScanString(std::string_view& out, bool key) {
  const uint64_t most = key ? source_.limits().name_length : source_.limits().string_length;
  size_t start = pos_;  // the opening quote
  size_t i = start + 1;
  bool plain = true;  // no escape and no byte above 0x7F: the bytes are the value
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  for (;;) {
    const char* b = buf_.data();
    // The next quote, backslash or control byte; the zeros after the data are
    // control bytes, so the loop never passes end_.
    for (;;) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i));
      __m128i stop =
          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                       _mm_cmpeq_epi8(_mm_max_epu8(v, control), control));
      int high = _mm_movemask_epi8(v);
      int mask = _mm_movemask_epi8(stop);
      if (mask != 0) {
        int first = __builtin_ctz(static_cast<unsigned>(mask));
        if ((high & ((1 << first) - 1)) != 0) plain = false;
        i += static_cast<size_t>(first);
        break;
      }
      if (high != 0) plain = false;
      i += 16;
    }
    char c = b[i];
    if (i >= end_) {
      if (i - start - 1 > most) {
        return FailTooLong(start, key);
      }
      if (eof_ || !Refill(start)) {
        pos_ = end_;
        return FailEnd("the rest of a string and its closing quote");
      }
      i -= start;
      start = 0;
      continue;
    }
    if (c == '"') break;
    if (c == '\\') {
      plain = false;
      if (i + 1 >= end_) {
        if (eof_ || !Refill(start)) {
          pos_ = end_;
          return FailEnd("the rest of a string and its closing quote");
        }
        i -= start;
        start = 0;
        continue;
      }
      i += 2;  // the escaped byte is checked when decoding
      continue;
    }
    return Fail(i, fmt::format("invalid string: control character U+{:04X} must be escaped",
                               static_cast<unsigned char>(c)));
  }
  if (i - start - 1 > most) {
    return FailTooLong(start, key);
  }
  pos_ = i + 1;
  if (plain) {
    out = std::string_view(buf_.data() + start + 1, i - start - 1);
    return true;
  }
  return DecodeString(start + 1, i, out);
}

bool JsonReader::DecodeString(size_t from, size_t to, std::string_view& out) {
  scratch_.clear();
  const char* b = buf_.data();
  size_t i = from;
  while (i < to) {
    auto u = static_cast<unsigned char>(b[i]);
    if (u >= 0x80) {
      size_t n = Utf8Length(std::string_view(b + i, to - i), 0);
      if (n == 0) return Fail(i, fmt::format("invalid string: ill-formed UTF-8 byte 0x{:02X}", u));
      scratch_.append(b + i, n);
      i += n;
      continue;
    }
    if (b[i] != '\\') {
      scratch_ += b[i++];
      continue;
    }
    char e = b[i + 1];
    switch (e) {
      case '"':
        scratch_ += '"';
        break;
      case '\\':
        scratch_ += '\\';
        break;
      case '/':
        scratch_ += '/';
        break;
      case 'b':
        scratch_ += '\b';
        break;
      case 'f':
        scratch_ += '\f';
        break;
      case 'n':
        scratch_ += '\n';
        break;
      case 'r':
        scratch_ += '\r';
        break;
      case 't':
        scratch_ += '\t';
        break;
      case 'u': {
        int32_t cp = i + 6 <= to ? Hex4(b + i + 2) : -1;
        if (cp < 0) return Fail(i, "invalid string: '\\u' must be followed by 4 hex digits");
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return Fail(i, fmt::format("invalid string: lone low surrogate U+{:04X}", cp));
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          int32_t low = i + 12 <= to && b[i + 6] == '\\' && b[i + 7] == 'u' ? Hex4(b + i + 8) : -1;
          if (low < 0xDC00 || low > 0xDFFF) {
            return Fail(i, fmt::format("invalid string: high surrogate U+{:04X} must be followed "
                                       "by a low surrogate",
                                       cp));
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          i += 6;
        }
        AppendUtf8(scratch_, static_cast<uint32_t>(cp));
        i += 6;
        continue;
      }
      default:
        return Fail(i, fmt::format("invalid string: forbidden escape '\\{}'",
                                   e == '\0' ? std::string("\\0") : std::string(1, e)));
    }
    i += 2;
  }
  out = scratch_;
  return true;
}

bool JsonReader::ScanNumber() {
  for (;;) {
    const char* b = buf_.data();
    size_t i = pos_;
    bool negative = b[i] == '-';
    if (negative) ++i;
    bool integer = true;
    // The digits before and after the point; value = those digits as one
    // integer (the mantissa) × 10^scale, where scale = exponent - fraction digits.
    const size_t int_from = i;
    size_t int_to = i, frac_from = i, frac_to = i;
    int64_t scale = 0;
    // The digits as one integer, built as they are scanned when the value is
    // read (exact up to 19 digits, and only read then: past that it wraps,
    // unsigned); skipped eight at a time when it is not.
    const bool convert = doubles_ && !Muted();
    uint64_t mantissa = 0;
    auto digits_from = [&](size_t& at) {
      if (!convert) {
        at += DigitRun(b + at);
        return;
      }
      for (; IsDigit(b[at]); ++at) mantissa = mantissa * 10 + static_cast<uint64_t>(b[at] - '0');
    };
    if (b[i] == '0') {
      int_to = ++i;
    } else if (b[i] >= '1' && b[i] <= '9') {
      digits_from(i);
      int_to = i;
    } else if (i < end_ || eof_) {
      return i < end_ ? Fail(i, fmt::format("invalid number: {} after '-'", Shown(b[i])))
                      : (pos_ = end_, FailEnd("a digit"));
    }
    frac_from = frac_to = i;
    if (b[i] == '.') {
      integer = false;
      ++i;
      if (!IsDigit(b[i]) && (i < end_ || eof_)) {
        return i < end_ ? Fail(i, "invalid number: a digit must follow '.'")
                        : (pos_ = end_, FailEnd("a digit"));
      }
      frac_from = i;
      digits_from(i);
      frac_to = i;
      scale = -static_cast<int64_t>(frac_to - frac_from);
    }
    if (b[i] == 'e' || b[i] == 'E') {
      integer = false;
      ++i;
      bool minus = b[i] == '-';
      if (b[i] == '+' || b[i] == '-') ++i;
      int64_t exponent = 0;
      for (size_t k = i; IsDigit(b[k]) && exponent < 100000; ++k)
        exponent = exponent * 10 + (b[k] - '0');
      scale += minus ? -exponent : exponent;
      if (!IsDigit(b[i]) && (i < end_ || eof_)) {
        return i < end_ ? Fail(i, "invalid number: a digit must follow the exponent")
                        : (pos_ = end_, FailEnd("a digit"));
      }
      while (IsDigit(b[i])) ++i;
    }
    if (i - pos_ > source_.limits().string_length) {
      return FailLimit(pos_, &InputLimits::string_length, "a number is longer than");
    }
    if (i >= end_ && !eof_) {  // the number may go on in the next block
      Refill(pos_);  // at the end (or on a read error), eof_ is set and the scan ends there
      continue;
    }
    std::string_view text(b + pos_, i - pos_);
    Location at = Here();
    pos_ = i;
    const size_t digits = (int_to - int_from) + (frac_to - frac_from);
    if (!convert && static_cast<int64_t>(digits) + scale <= 308) {
      // Not read, and a finite double whatever its digits: below
      // 10^digits × 10^scale <= 10^308 (an underflow to zero is no error).
      return Muted() || handler_.Number(0.0, text, integer, at);
    }
    // Read: from the digits gathered as they were scanned. Not read but it may
    // overflow: converted from its text, to say so where it does.
    double value = 0;
    switch (convert ? NumberValue(text, negative, mantissa, digits, scale, value)
                    : NumberValueOf(text, value)) {
      case NumberStatus::kOk:
        break;
      case NumberStatus::kOverflow:
        error_ =
            Error{.file = source_.name(),
                  .line = at.line,
                  .column = at.column,
                  .message = fmt::format("invalid JSON: number overflow parsing '{}'",
                                         text.size() > 40 ? std::string(text.substr(0, 37)) + "..."
                                                          : std::string(text))};
        return false;
      case NumberStatus::kInvalid:
        return Fail(pos_, fmt::format("invalid number '{}'", text));
    }
    return Muted() || handler_.Number(value, text, integer, at);
  }
}

bool JsonReader::ScanLiteral() {
  Want(5);
  const char* p = buf_.data() + pos_;
  size_t left = end_ - pos_;
  auto is = [&](std::string_view word) {
    return left >= word.size() && std::memcmp(p, word.data(), word.size()) == 0;
  };
  if (is("true")) {
    pos_ += 4;
    return Muted() || handler_.Bool(true, Here());
  }
  if (is("false")) {
    pos_ += 5;
    return Muted() || handler_.Bool(false, Here());
  }
  if (is("null")) {
    pos_ += 4;
    return Muted() || handler_.Null(Here());
  }
  size_t n = 0;
  while (n < left && n < 8 && std::isalpha(static_cast<unsigned char>(p[n]))) ++n;
  if (n == left && eof_) {
    pos_ = end_;
    return FailEnd("the rest of a literal (true, false or null)");
  }
  return Fail(pos_,
              fmt::format("invalid literal '{}'", std::string_view(p, std::max<size_t>(n, 1))));
}

// One scalar, or the opening bracket of a container.
bool JsonReader::Value() {
  char c = buf_[pos_];
  if ((c == '{' || c == '[') && stack_.size() >= source_.limits().depth) {
    return FailLimit(pos_, &InputLimits::depth, "arrays and objects nest deeper than");
  }
  switch (c) {
    case '{':
      ++pos_;
      stack_.push_back('{');
      return Muted() || handler_.BeginObject(Here());
    case '[':
      ++pos_;
      stack_.push_back('[');
      return Muted() || handler_.BeginArray(Here());
    case '"': {
      std::string_view s;
      return ScanString(s, false) && (Muted() || handler_.String(s, Here()));
    }
    case 't':
    case 'f':
    case 'n':
      return ScanLiteral();
    default:
      if (c == '-' || IsDigit(c)) return ScanNumber();
      return Unexpected("a value (an object, array, string, number, true, false or null)");
  }
}

Status JsonReader::Parse(bool* ended_early) {
  auto result = [&](bool ok) -> Status {
    if (ended_early != nullptr) *ended_early = ended_;
    if (source_.failed()) return Error{.file = source_.name(), .message = source_.error()};
    if (error_) return *error_;
    if (!ok) return Error{.file = source_.name()};  // stopped by the handler
    return {};
  };
  Refill(0, true);
  if (base_ == 0 && end_ >= 3 &&
      std::memcmp(buf_.data(), "\xEF\xBB\xBF", 3) == 0) {  // a UTF-8 byte-order mark
    pos_ = 3;
    line_start_ = 3;
  }
  const Next between = Between();
  Next next = rest_depth_ > 0 ? between : Next::kValue;
  for (;;) {
    if (!SkipBlank(true)) {
      if (Paused()) {
        if (Join(next == between)) next = Next::kAfterValue;  // after the second half's last value
        continue;
      }
      if (source_.failed()) return result(false);
      if (next == Next::kAfterValue && stack_.size() == rest_depth_) {
        if (rest_depth_ > 0) rest_end_ = {base_ + end_, line_, line_start_};
        return result(true);
      }
      switch (next) {
        case Next::kValue:
          return result(FailEnd("a value"));
        case Next::kValueOrClose:
          return result(FailEnd("a value or ']'"));
        case Next::kKey:
          return result(FailEnd("a string (an object key)"));
        case Next::kKeyOrClose:
          return result(FailEnd("a string (an object key) or '}'"));
        case Next::kAfterValue:
          return result(FailEnd(stack_.back() == '{' ? "',' or '}'" : "',' or ']'"));
      }
    }
    char c = buf_[pos_];
    switch (next) {
      case Next::kValueOrClose:
        if (c == ']') {
          if (!Close()) return result(false);
          next = Next::kAfterValue;
          continue;
        }
        [[fallthrough]];
      case Next::kValue:
        if (!Value()) return result(false);
        next = c == '{' ? Next::kKeyOrClose : c == '[' ? Next::kValueOrClose : Next::kAfterValue;
        if (next == Next::kAfterValue && stack_.size() == mute_depth_) mute_depth_ = kNotMuted;
        continue;
      case Next::kKeyOrClose:
        if (c == '}') {
          if (!Close()) return result(false);
          next = Next::kAfterValue;
          continue;
        }
        [[fallthrough]];
      case Next::kKey: {
        if (c != '"') return result(Unexpected("a string (an object key)"));
        std::string_view key;
        if (!ScanString(key, true)) return result(false);
        if (!Muted()) {
          if (!handler_.Key(key, Here())) return result(false);
          if (handler_.SkipsValue()) mute_depth_ = stack_.size();
        }
        if (!SkipBlank()) return result(!source_.failed() && FailEnd("':'"));
        if (buf_[pos_] != ':') return result(Unexpected("':' after an object key"));
        ++pos_;
        next = Next::kValue;
        continue;
      }
      case Next::kAfterValue:
        if (stack_.empty()) {
          return result(Unexpected("the end of the input after the document"));
        }
        if (c == ',') {
          ++pos_;
          next = stack_.back() == '{' ? Next::kKey : Next::kValue;
          continue;
        }
        if (stack_.back() == '{' ? c != '}' : c != ']') {
          return result(Unexpected(stack_.back() == '{' ? "',' or '}'" : "',' or ']'"));
        }
        if (stack_.size() == rest_depth_) {  // the second half's array closes here
          rest_end_ = {base_ + pos_, line_, line_start_};
          return result(true);
        }
        if (!Close()) return result(false);
        continue;
    }
  }
}

// The second half of a split parse, on its own thread from Start() on.
class SplitParse {
 public:
  // at() before a later placement (JsonSplit::inflating), and where none was
  // found.
  static constexpr uint64_t kLater = std::numeric_limits<uint64_t>::max();
  static constexpr uint64_t kNowhere = kLater - 1;

  explicit SplitParse(JsonSplit& split)
      : split_(split), at_(split.inflating != nullptr ? kLater : split.at) {}
  ~SplitParse() { Cancel(); }
  SplitParse(const SplitParse&) = delete;
  SplitParse& operator=(const SplitParse&) = delete;

  uint64_t at() const { return at_.load(std::memory_order_acquire); }
  bool placed_later() const { return split_.inflating != nullptr; }
  std::string_view open() const { return split_.open; }
  bool AtBoundary() const { return !split_.at_boundary || split_.at_boundary(); }

  void Start() {
    worker_ = std::thread([this] {
      try {
        if (placed_later() && !Place()) return;
        JsonReader reader(*split_.rest, *split_.rest_handler);
        reader.StartInside(split_.open, split_.at, cancel_);
        ok_ = static_cast<bool>(reader.Parse(nullptr));
        end_ = reader.rest_end();
      } catch (...) {
        ok_ = false;  // out of memory, say: the first half reads this part itself
      }
    });
  }
  // The first half is at `at` (the place of the split's offset), in the
  // state the split assumed: where the second half ended, when it ended well
  // and the caller took its events.
  std::optional<RestEnd> Join(Location at) {
    Wait();
    if (!ok_ || !split_.join(at)) return std::nullopt;
    split_.joined = true;
    return end_;
  }
  // Tells the second half to stop (it stops at its next block of input),
  // and lets the first half read past the split.
  void CancelSoon() {
    cancel_.store(true, std::memory_order_relaxed);
    if (placed_later()) split_.inflating->ReleaseStop();
  }
  void Cancel() {
    CancelSoon();
    Wait();
  }

 private:
  void Wait() {
    if (worker_.joinable()) worker_.join();
  }
  // Once the first half's source is inflated: the split at an event halfway
  // from what the first half has been handed to the end (FindSplitPoint),
  // the first half's reads held there, and the second half's source over
  // the text from there. False, with at() kNowhere, when the inflate failed
  // or there is no such event before the first half gets there.
  bool Place() {
    ByteSource& first = *split_.inflating;
    const std::optional<std::string_view> text = first.AwaitInflated();
    std::optional<uint64_t> at;
    std::unique_ptr<ByteSource> rest;
    if (text && !cancel_.load(std::memory_order_relaxed)) {
      const uint64_t read = first.HandedOut();
      rest = ByteSource::FromString(*text, first.name(), first.limits());
      at = FindSplitPoint(*rest, read + (text->size() - read) / 2);
    }
    const bool placed = at && *at >= 3 && rest->SkipTo(*at) &&
                        first.StopReadsAt(*at, [&] { at_.store(*at, std::memory_order_release); });
    if (placed) {
      split_.at = *at;  // for this thread only: the first half reads at()
      split_.rest = std::move(rest);
    } else {
      at_.store(kNowhere, std::memory_order_release);
    }
    return placed;
  }

  JsonSplit& split_;
  std::atomic<uint64_t> at_;
  std::atomic<bool> cancel_{false};
  std::thread worker_;
  bool ok_ = false;  // written by the worker before it ends; read after Wait()
  RestEnd end_;
};

void JsonReader::StopAt(SplitParse& split) {
  split_ = &split;
  stop_at_ = split.at();
  placed_later_ = split.placed_later();
}

void JsonReader::FollowPlacement() {
  const uint64_t at = split_->at();
  if (at == SplitParse::kNowhere) {
    split_ = nullptr;  // no second half: this one reads on to the end
  } else {
    stop_at_ = at;  // kNoStop while the second half has not placed it
  }
}

void JsonReader::StartInside(std::string_view open, uint64_t offset,
                             const std::atomic<bool>& cancel) {
  stack_.assign(open.begin(), open.end());
  rest_depth_ = open.size();
  base_ = line_start_ = offset;
  cancel_ = &cancel;
}

JsonReader::Next JsonReader::Between() const {
  const std::string_view open =
      split_ != nullptr ? split_->open() : std::string_view(stack_.data(), rest_depth_);
  return !open.empty() && open.back() == '{' ? Next::kKey : Next::kValue;
}

void JsonReader::GiveUpSplit() {
  split_->CancelSoon();
  split_ = nullptr;
}

bool JsonReader::Join(bool between) {
  if (!between || std::string_view(stack_.data(), stack_.size()) != split_->open() || Muted() ||
      !split_->AtBoundary()) {
    GiveUpSplit();
    return false;
  }
  SplitParse& split = *split_;
  split_ = nullptr;  // reads are no longer held at the stop
  const std::optional<RestEnd> rest = split.Join(Here());
  if (!rest) return false;
  // On an I/O error the source has failed(): the next read ends the parse
  // with that error.
  source_.SkipTo(rest->offset);
  base_ = rest->offset;
  pos_ = end_ = 0;
  std::memset(buf_.data(), 0, kPadBytes);
  if (rest->lines > 1) line_start_ = rest->last_line_start;
  line_ += rest->lines - 1;
  return true;
}

// Two threads: the reader on a worker thread records events into batches
// (strings copied into the batch), and the calling thread replays them into
// the handler, so scanning JSON and handling events overlap. The handler sees
// exactly the events a one-thread parse gives it, in the same order, and the
// same status at the end.
class Pipeline {
 public:
  Pipeline(ByteSource& source, EventHandler& handler) : source_(source), handler_(handler) {}

  Status Parse(bool* ended_early) {
    bool ended = false;
    Status status;
    std::exception_ptr failed;
    std::thread worker([&] {
      try {
        Recorder recorder(*this);
        JsonReader reader(source_, recorder);
        status = reader.Parse(&ended);
        recorder.Flush();
      } catch (...) {
        failed = std::current_exception();
      }
      Finish();
    });
    bool stopped = false;
    while (std::unique_ptr<Batch> batch = Take()) {
      if (!stopped && !Replay(*batch)) {
        stopped = true;
        Stop();
      }
      Recycle(std::move(batch));
    }
    worker.join();
    if (failed) std::rethrow_exception(failed);
    if (ended_early != nullptr) *ended_early = ended && !stopped;  // read ahead of the stop
    if (stopped) return Error{.file = source_.name()};             // the handler holds the message
    return status;
  }

 private:
  // 16 bytes per event, a number as its text: the batches cross from one
  // core to the other, and their size, not the work of recording, set the
  // cost (48-byte events made recording dearer than scanning).
  enum class Type : uint8_t {
    kBeginObject,
    kEndObject,
    kBeginArray,
    kEndArray,
    kKey,
    kNull,
    kTrue,
    kFalse,
    kInteger,
    kFloat,
    kString
  };
  static constexpr uint32_t kTypeBits = 4;
  static constexpr uint32_t kLongText = (uint32_t{1} << (32 - kTypeBits)) - 1;  // see `long_texts`
  struct Event {
    uint32_t line, column;  // clamped to 2^32 - 1
    uint32_t offset;        // of the text in the batch's `text`
    uint32_t length_type;   // length << kTypeBits | type
  };
  struct Batch {
    std::vector<Event> events;
    std::string text;
    // Texts of kLongText bytes or more (and any past 4 GiB of `text`):
    // (offset, length), in order.
    std::vector<std::pair<size_t, size_t>> long_texts;
  };
  static constexpr size_t kBatchEvents = 8192;
  static constexpr size_t kBatchesInFlight = 4;

  class Recorder final : public EventHandler {
   public:
    explicit Recorder(Pipeline& pipeline) : pipeline_(pipeline), batch_(pipeline.Fresh()) {}
    bool BeginObject(Location at) override { return Add(Type::kBeginObject, at); }
    bool EndObject(Location at) override { return Add(Type::kEndObject, at); }
    bool BeginArray(Location at) override { return Add(Type::kBeginArray, at); }
    bool EndArray(Location at) override { return Add(Type::kEndArray, at); }
    bool Key(std::string_view key, Location at) override { return Add(Type::kKey, at, key); }
    bool Null(Location at) override { return Add(Type::kNull, at); }
    bool Bool(bool value, Location at) override {
      return Add(value ? Type::kTrue : Type::kFalse, at);
    }
    // The replaying thread converts what its handler reads: the scan is the
    // slower side of the two, and a number's division took a fifth of it.
    bool ReadsNumberValues() const override { return false; }
    bool Number(double, std::string_view text, bool integer, Location at) override {
      return Add(integer ? Type::kInteger : Type::kFloat, at, text);
    }
    bool String(std::string_view value, Location at) override {
      return Add(Type::kString, at, value);
    }
    void Flush() {
      if (batch_ != nullptr && !batch_->events.empty()) pipeline_.Give(std::move(batch_));
    }

   private:
    static uint32_t Clamp(int64_t v) {
      return v < 0 ? 0 : v > int64_t{UINT32_MAX} ? UINT32_MAX : static_cast<uint32_t>(v);
    }
    bool Add(Type type, Location at, std::string_view text = {}) {
      Batch& b = *batch_;
      const size_t offset = b.text.size();
      uint32_t length = static_cast<uint32_t>(text.size());
      if (text.size() >= kLongText || offset + text.size() > UINT32_MAX) {
        b.long_texts.emplace_back(offset, text.size());
        length = kLongText;
      }
      b.events.push_back(Event{.line = Clamp(at.line),
                               .column = Clamp(at.column),
                               .offset = static_cast<uint32_t>(offset),
                               .length_type = length << kTypeBits | static_cast<uint32_t>(type)});
      b.text.append(text);
      if (b.events.size() < kBatchEvents) return true;
      if (!pipeline_.Give(std::move(batch_))) return false;  // the handler stopped; no batch now
      batch_ = pipeline_.Fresh();
      return true;
    }
    Pipeline& pipeline_;
    std::unique_ptr<Batch> batch_;
  };

  bool Replay(const Batch& batch) {
    size_t long_text = 0;
    const bool doubles = handler_.ReadsNumberValues();
    auto value_of = [doubles](std::string_view number) {
      double value = 0;
      if (doubles)
        NumberValueOf(number, value);  // finite: the worker converted any that may not be
      return value;
    };
    for (const Event& e : batch.events) {
      const Location at{e.line, e.column};
      const uint32_t length = e.length_type >> kTypeBits;
      std::string_view text;
      if (length == kLongText) {
        const auto [offset, size] = batch.long_texts[long_text++];
        text = std::string_view(batch.text.data() + offset, size);
      } else {
        text = std::string_view(batch.text.data() + e.offset, length);
      }
      bool ok = true;
      switch (static_cast<Type>(e.length_type & ((1u << kTypeBits) - 1))) {
        case Type::kBeginObject:
          ok = handler_.BeginObject(at);
          break;
        case Type::kEndObject:
          ok = handler_.EndObject(at);
          break;
        case Type::kBeginArray:
          ok = handler_.BeginArray(at);
          break;
        case Type::kEndArray:
          ok = handler_.EndArray(at);
          break;
        case Type::kKey:
          ok = handler_.Key(text, at);
          break;
        case Type::kNull:
          ok = handler_.Null(at);
          break;
        case Type::kTrue:
          ok = handler_.Bool(true, at);
          break;
        case Type::kFalse:
          ok = handler_.Bool(false, at);
          break;
        case Type::kInteger:
          ok = handler_.Number(value_of(text), text, true, at);
          break;
        case Type::kFloat:
          ok = handler_.Number(value_of(text), text, false, at);
          break;
        case Type::kString:
          ok = handler_.String(text, at);
          break;
      }
      if (!ok) return false;
    }
    return true;
  }

  // Worker side: an empty batch, recycled when one is free.
  std::unique_ptr<Batch> Fresh() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
      auto batch = std::make_unique<Batch>();
      batch->events.reserve(kBatchEvents);
      return batch;
    }
    std::unique_ptr<Batch> batch = std::move(free_.back());
    free_.pop_back();
    batch->events.clear();
    batch->text.clear();
    batch->long_texts.clear();
    return batch;
  }
  // Worker side: hands a full batch over, waiting while too many are queued.
  // False once the handler has stopped: the parse should end.
  bool Give(std::unique_ptr<Batch> batch) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return stop_ || full_.size() < kBatchesInFlight; });
    if (stop_) return false;
    full_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }
  void Finish() {
    std::lock_guard lock(mutex_);
    done_ = true;
    ready_.notify_one();
  }
  // Caller side: the next batch, or nullptr when the worker is done.
  std::unique_ptr<Batch> Take() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !full_.empty() || done_; });
    if (full_.empty()) return nullptr;
    std::unique_ptr<Batch> batch = std::move(full_.front());
    full_.pop_front();
    room_.notify_one();
    return batch;
  }
  void Recycle(std::unique_ptr<Batch> batch) {
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(batch));
  }
  void Stop() {
    std::lock_guard lock(mutex_);
    stop_ = true;
    room_.notify_one();
  }

  ByteSource& source_;
  EventHandler& handler_;
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<std::unique_ptr<Batch>> full_;
  std::vector<std::unique_ptr<Batch>> free_;
  bool done_ = false, stop_ = false;
};

// Inputs from this size on are read by two threads (when two cores exist):
// below it, starting a thread costs more than the overlap saves.
constexpr uint64_t kPipelineBytes = uint64_t{16} << 20;

// A build without threads (COOKGRAPH_SINGLE_THREAD, graph/parallel.h) parses
// every input on the calling thread, whatever is asked.
#ifdef COOKGRAPH_SINGLE_THREAD
constexpr bool kThreads = false;
#else
constexpr bool kThreads = true;
#endif

}  // namespace

std::optional<uint64_t> FindSplitPoint(ByteSource& source, uint64_t from, char first,
                                       const std::function<bool(std::string_view)>& accept) {
  constexpr size_t kWindow = size_t{1} << 20;
  if (!source.SkipTo(from)) return std::nullopt;
  // An input in memory is searched where it lies; another is read into a
  // window no larger than what is left of it, where its size is known
  // (BlockFor's reason).
  std::string copy;
  std::string_view window;
  if (const std::optional<std::string_view> rest = source.InMemoryRest()) {
    window = rest->substr(0, kWindow);
  } else {
    const uint64_t size = source.stored_size();
    copy.assign(size > from ? std::min<uint64_t>(kWindow, size - from) : kWindow, '\0');
    copy.resize(source.Read(copy.data(), copy.size()));
    window = copy;
  }
  std::optional<uint64_t> compact;  // the first `first` after ',' on the same line
  char before = 0;                  // the last byte that is not a blank
  bool line_break = false;          // a line break since then
  for (size_t i = 0; i < window.size(); ++i) {
    const char c = window[i];
    if (c == '\n') {
      line_break = true;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      if (c == first && before == ',' && (!accept || accept(window.substr(i)))) {
        if (line_break) return from + i;
        if (!compact) compact = from + i;
      }
      before = c;
      line_break = false;
    }
  }
  return compact;
}

Status ParseJsonEventsSplit(ByteSource& source, EventHandler& handler, JsonSplit& split,
                            bool* ended_early) {
  if (!kThreads || (split.inflating == nullptr && split.at < 3)) {
    return ParseJsonEvents(source, handler, ended_early, JsonThreads::kOne);
  }
  SplitParse parse(split);
  parse.Start();
  JsonReader reader(source, handler);
  reader.StopAt(parse);
  return reader.Parse(ended_early);  // ~SplitParse stops the second half if it still runs
}

JsonThreads JsonThreadsFromEnvironment() {
  // COOKGRAPH_JSON_THREADS=1 or 2 overrides the choice, for bench/ to
  // measure what the second thread brings.
  const char* forced = std::getenv("COOKGRAPH_JSON_THREADS");
  if (forced != nullptr && (std::string_view(forced) == "1" || std::string_view(forced) == "2")) {
    return forced[0] == '1' ? JsonThreads::kOne : JsonThreads::kTwo;
  }
  return JsonThreads::kAuto;
}

bool UseTwoThreads(const ByteSource& source) {
  return kThreads && source.stored_size() >= kPipelineBytes &&
         std::thread::hardware_concurrency() >= 2;
}

JsonPlan PlanJsonThreads(const ByteSource& source, JsonThreads threads,
                         std::optional<uint64_t> split_from) {
  if (threads == JsonThreads::kAuto) threads = JsonThreadsFromEnvironment();
  if (threads == JsonThreads::kAuto) {
    threads = split_from || UseTwoThreads(source) ? JsonThreads::kTwo : JsonThreads::kOne;
  }
  if (threads == JsonThreads::kOne) return {};
  if (!split_from && source.stored_size() > 0) split_from = source.stored_size() / 2;
  return {.threads = threads, .split_from = split_from};
}

Status ParseJsonEvents(ByteSource& source, EventHandler& handler, bool* ended_early,
                       JsonThreads threads) {
  threads = PlanJsonThreads(source, threads, std::nullopt).threads;
  if (kThreads && threads == JsonThreads::kTwo) {
    return Pipeline(source, handler).Parse(ended_early);
  }
  JsonReader reader(source, handler);
  return reader.Parse(ended_early);
}

}  // namespace cookgraph
