#include "adapters/chrome/chrome_trace.h"

#include "adapters/chrome/records.h"

// The entry points of the Chrome trace reader and its content sniffing; the
// stages are in tokenizer.cc and build.cc.

namespace cookgraph {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The position after the blanks (and a UTF-8 byte order mark) from `i`.
size_t SkipBlanks(std::string_view text, size_t i) {
  if (i == 0 && text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < text.size() && IsBlank(text[i])) ++i;
  return i;
}

// True when `"key"` occurs in `text` followed by a colon and then `next`
// (or any value when `next` is 0).
bool HasKey(std::string_view text, std::string_view key, char next) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  for (size_t at = text.find(quoted); at != std::string_view::npos;
       at = text.find(quoted, at + 1)) {
    size_t i = SkipBlanks(text, at + quoted.size());
    if (i >= text.size() || text[i] != ':') continue;
    i = SkipBlanks(text, i + 1);
    if (next == 0 || (i < text.size() && text[i] == next)) return true;
  }
  return false;
}

}  // namespace

Result<Snapshot> ReadChromeTrace(ByteSource& source, const ChromeTraceOptions& options) {
  auto records = chrome::TokenizeChromeTrace(source);
  if (!source.Settle()) {
    // Inflated in the background, the file proved corrupt after its first
    // bytes were read: read again block by block, whose error says where.
    auto blocks = ByteSource::Open(source.name(), source.limits(), GzipRead::kBlocks);
    if (!blocks) return blocks.error();
    records = chrome::TokenizeChromeTrace(**blocks);
  }
  if (!records) return records.error();
  return chrome::BuildChromeSnapshot(std::move(*records), options, source.name(), source.limits());
}

Result<Snapshot> ReadChromeTraceFile(const std::string& path, const ChromeTraceOptions& options,
                                     const InputLimits& limits) {
  auto opened = ByteSource::Open(path, limits, GzipRead::kWholeInBackground);
  if (!opened) return opened.error();
  ByteSource& source = **opened;
  const char first = source.PeekNonBlank();
  if (source.failed()) return Error{.file = path, .message = source.error()};
  if (first == 0 && source.HeadIsWholeInput()) {
    return Error{.file = path, .message = "the file is empty"};
  }
  return ReadChromeTrace(source, options);
}

Result<Snapshot> ParseChromeTrace(std::string_view text, const ChromeTraceOptions& options,
                                  const std::string& file, const InputLimits& limits) {
  auto source = ByteSource::FromString(text, file, limits);
  return ReadChromeTrace(*source, options);
}

bool LooksLikeChromeTrace(std::string_view first_bytes) {
  size_t i = SkipBlanks(first_bytes, 0);
  if (i >= first_bytes.size()) return false;
  if (first_bytes[i] == '[') {
    // A bare array of events: its first element is an object with a phase.
    i = SkipBlanks(first_bytes, i + 1);
    return i < first_bytes.size() && first_bytes[i] == '{' &&
           HasKey(first_bytes.substr(i), "ph", '"');
  }
  if (first_bytes[i] != '{') return false;
  const size_t key = SkipBlanks(first_bytes, i + 1);
  const std::string_view rest = first_bytes.substr(key);
  if (rest.starts_with("\"cookgraph\"")) return false;  // the native format
  return HasKey(first_bytes, "traceEvents", '[') || rest.starts_with("\"schemaVersion\"");
}

}  // namespace cookgraph
