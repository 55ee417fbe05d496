#ifndef COOKGRAPH_ADVISOR_LLM_CHAT_RESPONSE_H_
#define COOKGRAPH_ADVISOR_LLM_CHAT_RESPONSE_H_

// What comes back from a chat-completions endpoint: a whole JSON answer, a
// stream of chunks, or an error body in one of its many shapes. Pure: no I/O;
// messages here do not name the endpoint, the client adds it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/llm/chat_request.h"
#include "advisor/llm/sse.h"
#include "base/error.h"

namespace cookgraph {

/// Token counts the server reported.
struct Usage {
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  int64_t total_tokens = 0;
};

/// The answer.
struct ChatResult {
  std::string content;        // the assistant's text
  std::string reasoning;      // "reasoning_content" / "reasoning" text, kept out of `content`
  std::string finish_reason;  // "stop", "length", "content_filter", ...; empty = not reported
  std::optional<Usage> usage;
  int attempts = 0;  // HTTP requests made, retries included
  // The functions the model asked to call, in its order ("tool_calls"); a
  // streamed call's pieces joined by their index. Calls without a name are
  // left out.
  std::vector<ToolCall> tool_calls;
};

/// `text` with every occurrence of `secret` replaced by "[redacted]".
std::string Redact(std::string text, std::string_view secret);

/// The server's message in an error body, as one printable line of at most
/// `max_chars` code points: {"error": {"message": ...}}, {"error": "..."},
/// {"message"|"detail": "..."}, an HTML page's <title> (or its text), else the
/// raw text. `secret` (the API key, which servers like to echo) is redacted
/// before the line is cut, so no part of it survives. Empty when the body is.
std::string ServerMessage(std::string_view body, std::string_view secret = {},
                          size_t max_chars = 200);

/// A 400 from a server that does not know stream_options (Azure before
/// 2024-10-21, old Ollama): its message names it. The request is sent again
/// without it.
bool RefusesStreamOptions(long status, std::string_view body);

/// A 400 (or 422) from a server that takes no tools, to a request that offers
/// them and holds no call yet: its message names them ("tool", "function")
/// and says why ("does not support tools" from Ollama, "tools param requires
/// --jinja flag" from llama.cpp, "tool choice requires
/// --enable-auto-tool-choice" from vLLM, "Unrecognized request argument" from
/// proxies). A 400 about the calls themselves (a bad tool_call_id) or about the
/// context length is not one.
bool RefusesTools(const ChatRequest& request, long status, std::string_view body);

/// What to do about an error status the user can fix: " (check the API
/// key)" for 401 and 403, the base URL and the model for 404; else "".
std::string StatusHint(long status);

/// A whole (non-streamed) answer: choices[0].message.content, reasoning,
/// finish_reason, usage. An "error" member, bytes that are not UTF-8 (the
/// message gives the first one's offset), unparsable JSON or no choices is
/// an Error whose message says so (`secret` redacted from it).
Result<ChatResult> ParseCompletion(std::string_view body, std::string_view secret = {});

/// A size as the llm settings' messages show it: "4 MiB", "0.25 MiB".
std::string ShowMebibytes(size_t bytes);

/// "the answer is longer than 4 MiB (llm.max_answer_mib); stopped reading it".
std::string AnswerTooLong(size_t cap);

/// Builds the answer from a stream's events, one at a time.
class ChatStream {
 public:
  using ContentCallback = std::function<void(std::string_view)>;

  /// `secret` is redacted from the messages of error chunks. The answer's
  /// text (content and reasoning together) may reach `max_answer_bytes`.
  explicit ChatStream(std::string secret = {}, size_t max_answer_bytes = SIZE_MAX)
      : secret_(std::move(secret)), max_answer_bytes_(max_answer_bytes) {}

  /// Applies one event: content deltas are appended and passed to
  /// `on_content` (when set); "[DONE]" ends the stream; a chunk with an
  /// "error" member (or an "event: error"), data that is not UTF-8 or not
  /// JSON, or text that would take the answer past its cap fails it (the
  /// failing chunk's text is not passed on). Events after the end are ignored.
  void OnEvent(const SseEvent& event, const ContentCallback& on_content);

  bool done() const { return done_; }  // "[DONE]" arrived
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  /// The failure was the answer's cap (error() is AnswerTooLong's).
  bool answer_too_long() const { return answer_too_long_; }
  /// Content was handed to the caller: the request must not be sent again.
  bool delivered() const { return delivered_; }
  ChatResult& result() { return result_; }

 private:
  std::string secret_;
  size_t max_answer_bytes_;
  ChatResult result_;
  std::vector<size_t> call_index_;  // the stream's "index" of each of result_.tool_calls
  std::string error_;
  int64_t events_ = 0;  // events applied, for messages: "event 5"
  bool done_ = false;
  bool delivered_ = false;
  bool answer_too_long_ = false;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_CHAT_RESPONSE_H_
