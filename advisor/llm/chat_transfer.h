#ifndef COOKGRAPH_ADVISOR_LLM_CHAT_TRANSFER_H_
#define COOKGRAPH_ADVISOR_LLM_CHAT_TRANSFER_H_

// One HTTP exchange with a chat-completions endpoint over libcurl, without
// retries (ChatClient decides those). Internal to the advisor library.

#include <atomic>
#include <functional>
#include <string>
#include <string_view>

#include "advisor/llm/chat_request.h"
#include "advisor/llm/chat_response.h"
#include "advisor/llm/retry_policy.h"

namespace cookgraph {

/// How one attempt ended.
struct ChatAttempt {
  bool ok = false;
  ChatResult result;     // when ok (attempts not set)
  long status = 0;       // HTTP status of the response; 0 = none arrived
  RetryHeaders retry;    // for the retry policy
  std::string location;  // Location header of a redirect; empty when none
  std::string body;      // body of an error response, at most 1 MiB
  std::string problem;   // what went wrong, without the URL: "HTTP 500: ...", "no data for 1 s ..."
  bool transient = false;  // a timeout or connection failure: another attempt may work
  bool delivered = false;  // content was passed to the caller: never send again
  bool stopped = false;    // `stop` was set: the caller gave up (Ctrl-C)
};

/// Posts `body` to `url` once. `stream` says what the request asked for; a
/// server that answers a stream request with one JSON document is accepted.
/// `stop` (when not null) is read while waiting: once true the transfer ends
/// within kPollMs and the attempt is `stopped`.
ChatAttempt PerformChatAttempt(const Endpoint& endpoint, const std::string& url,
                               const std::string& body, bool stream,
                               const std::function<void(std::string_view)>& on_content,
                               const std::atomic<bool>* stop = nullptr);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_CHAT_TRANSFER_H_
