#ifndef COOKGRAPH_ADVISOR_LLM_CHAT_CLIENT_H_
#define COOKGRAPH_ADVISOR_LLM_CHAT_CLIENT_H_

// The client of an OpenAI-compatible chat-completions endpoint over libcurl:
// streaming by default, retries as OpenAI's Python client does them, a
// connect timeout and an idle-read timeout (no total timeout), a rate floor
// and caps on the answer and the response (Endpoint), TLS verification
// always on, proxies from the usual environment variables (https_proxy,
// no_proxy, ...) through libcurl.

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "advisor/llm/chat_request.h"
#include "advisor/llm/chat_response.h"
#include "base/error.h"

namespace cookgraph {

/// Error::where of every error ChatClient::Complete returns: the endpoint
/// failed or refused (the CLI's exit code 3). The message starts with the URL
/// (credentials in it masked) and says what happened: "HTTP 401: <server's
/// message>", "could not connect: connection refused (...)", "stream ended
/// before [DONE]: the server reset the connection", "the answer is longer
/// than 4 MiB (llm.max_answer_mib); ...", ...,
/// with "(after N attempts)" when retries were made. It never holds the API
/// key: any occurrence, also in text the server echoed, becomes "[redacted]".
inline constexpr const char* kEndpointErrorWhere = "endpoint";

/// True for the errors ChatClient::Complete returns.
inline bool IsEndpointError(const Error& error) { return error.where == kEndpointErrorWhere; }

/// Error::where when the caller's stop flag ended the request (Ctrl-C).
inline constexpr const char* kStoppedWhere = "stopped";

/// Error::where when the server refused the request's functions: a 400 (or
/// 422) whose message names "tool" or "function". The caller asks again
/// without them (advisor/conversation.h does).
inline constexpr const char* kToolsRefusedWhere = "tools refused";

/// Sends chat requests to one endpoint. Thread-compatible: one Complete at a
/// time per client; several clients may run in parallel threads.
class ChatClient {
 public:
  /// How the client waits between attempts, in seconds; tests pass one that
  /// records instead of sleeping.
  using Sleeper = std::function<void(double seconds)>;
  using ContentCallback = std::function<void(std::string_view)>;

  /// `sleep` unset = really sleep.
  explicit ChatClient(Endpoint endpoint, Sleeper sleep = {});

  /// Sends `request` and returns the answer. With `request.stream`, each piece
  /// of content is passed to `on_content` as it arrives (a non-streamed answer
  /// is passed whole, once). Retries on 408, 409, 429, >= 500, timeouts and
  /// connection errors (at most endpoint.max_retries, the server's
  /// x-should-retry and Retry-After obeyed), never once content was passed
  /// on; a 400 that names stream_options is sent again once without it. A
  /// request with tools that the server refuses is an Error whose where is
  /// kToolsRefusedWhere. `stop`, when not null, ends the request as soon as
  /// it is set: an Error whose where is kStoppedWhere.
  Result<ChatResult> Complete(const ChatRequest& request, const ContentCallback& on_content = {},
                              const std::atomic<bool>* stop = nullptr) const;

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  Endpoint endpoint_;
  Sleeper sleep_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_CHAT_CLIENT_H_
