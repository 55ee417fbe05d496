#include "advisor/llm/printable_stream.h"

#include "base/text.h"

namespace cookgraph {
namespace {

/// Bytes at the end of `s` that start a UTF-8 character without finishing it
/// (a lead byte and fewer continuation bytes than it announces); 0 = none.
size_t UnfinishedTail(std::string_view s) {
  for (size_t k = 1; k <= 3 && k <= s.size(); ++k) {
    const auto byte = static_cast<unsigned char>(s[s.size() - k]);
    if (byte >= 0x80 && byte <= 0xBF) continue;  // a continuation byte: look further back
    const size_t length = byte >= 0xF0 && byte <= 0xF4   ? 4
                          : byte >= 0xE0 && byte <= 0xEF ? 3
                          : byte >= 0xC2 && byte <= 0xDF ? 2
                                                         : 0;
    return length > k ? k : 0;
  }
  return 0;
}

}  // namespace

std::string PrintableStream::Feed(std::string_view piece) {
  held_ += piece;
  const size_t keep = UnfinishedTail(held_);
  const std::string_view ready(held_.data(), held_.size() - keep);
  std::string out = Printable(ready, "\n\t");
  held_.erase(0, ready.size());
  return out;
}

std::string PrintableStream::Finish() {
  std::string rest = Printable(held_);
  held_.clear();
  return rest;
}

}  // namespace cookgraph
