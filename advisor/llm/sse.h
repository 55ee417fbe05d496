#ifndef COOKGRAPH_ADVISOR_LLM_SSE_H_
#define COOKGRAPH_ADVISOR_LLM_SSE_H_

// An incremental parser for server-sent events (the WHATWG "text/event-stream"
// format), as chat-completion streams use them. Bytes arrive in arbitrary
// pieces (a read may end in the middle of a line, of a "\r\n" pair, or of a
// UTF-8 sequence); an event is handed over only once the blank line that ends
// it has arrived.

#include <functional>
#include <string>
#include <string_view>

namespace cookgraph {

/// One complete event.
struct SseEvent {
  std::string event;  // the last "event:" field; empty = the default type ("message")
  std::string data;   // the "data:" lines joined with '\n'
  std::string id;     // the last "id:" field; empty when none
};

/// Turns a byte stream into events. Lines end with "\r\n", "\r" or "\n";
/// lines starting with ':' are comments (keep-alives such as ": ping") and are
/// ignored; a line without ':' is a field with an empty value; one space after
/// the colon is dropped; an event without any "data:" line is not dispatched
/// (as in browsers); "retry:" and unknown fields are ignored.
class SseParser {
 public:
  using Callback = std::function<void(const SseEvent&)>;

  /// Parses `bytes` and calls `on_event` for every event they complete.
  void Feed(std::string_view bytes, const Callback& on_event);

  /// Comment lines seen so far (keep-alives).
  int64_t comments() const { return comments_; }

  /// True when bytes of an unfinished event are buffered: at the end of the
  /// stream they are discarded, as the format says.
  bool has_partial_event() const { return !line_.empty() || has_data_ || !event_.event.empty(); }

 private:
  void Line(const Callback& on_event);

  std::string line_;          // the current line, without its end
  bool skip_lf_ = false;      // the previous byte was '\r': a '\n' right after it is the same end
  bool has_data_ = false;     // a "data:" line was seen for the current event
  bool bom_checked_ = false;  // a UTF-8 byte-order mark at the very start is skipped
  SseEvent event_;            // the event being built; data_ has a '\n' after each line
  int64_t comments_ = 0;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_SSE_H_
