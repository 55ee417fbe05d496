#include "advisor/llm/chat_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <random>
#include <thread>

#include "advisor/llm/chat_transfer.h"
#include "advisor/llm/retry_policy.h"

namespace cookgraph {
namespace {

/// What to do about a status the user can fix.
std::string Hint(const ChatAttempt& attempt) {
  switch (attempt.status) {
    case 301:
    case 302:
    case 307:
    case 308:
      return attempt.location.empty() ? ""
                                      : fmt::format(" (redirected to {}: use that as the base URL)",
                                                    UrlForMessages(attempt.location));
    default:
      return StatusHint(attempt.status);
  }
}

}  // namespace

ChatClient::ChatClient(Endpoint endpoint, Sleeper sleep)
    : endpoint_(std::move(endpoint)), sleep_(std::move(sleep)) {
  if (!sleep_) {
    sleep_ = [](double seconds) {
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    };
  }
}

Result<ChatResult> ChatClient::Complete(const ChatRequest& request,
                                        const ContentCallback& on_content,
                                        const std::atomic<bool>* stop) const {
  const std::string url = ChatUrl(endpoint_);
  const auto fail = [&](const std::string& problem, int attempts) -> Error {
    std::string message = UrlForMessages(url) + ": " + problem;
    if (attempts > 1) message += fmt::format(" (after {} attempts)", attempts);
    return Error{.where = kEndpointErrorWhere, .message = Redact(message, endpoint_.api_key)};
  };
  // A line break in the key would end the header early and smuggle in others.
  if (std::any_of(endpoint_.api_key.begin(), endpoint_.api_key.end(),
                  [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    return fail("the API key contains a control character (a line break?)", 0);
  }

  ChatRequest sent = request;
  std::string body = RequestBody(sent);
  std::mt19937_64 random(std::random_device{}());
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  bool dropped_stream_options = false;
  int retries = 0;
  for (int attempts = 1;; ++attempts) {
    ChatAttempt attempt = PerformChatAttempt(endpoint_, url, body, sent.stream, on_content, stop);
    if (attempt.ok) {
      attempt.result.attempts = attempts;
      return std::move(attempt.result);
    }
    if (attempt.stopped) return Error{.where = kStoppedWhere, .message = "stopped"};
    if (RefusesTools(sent, attempt.status, attempt.body)) {
      return Error{.where = kToolsRefusedWhere,
                   .message = Redact(UrlForMessages(url) + ": " + attempt.problem,
                                     endpoint_.api_key)};
    }
    if (sent.stream && sent.include_usage && !dropped_stream_options &&
        RefusesStreamOptions(attempt.status, attempt.body)) {
      dropped_stream_options = true;  // once, and not counted as a retry
      sent.include_usage = false;
      body = RequestBody(sent);
      continue;
    }
    // A stream that already passed content on is never sent again: the caller
    // has shown it, and a second answer would not continue the first.
    const bool retriable =
        !attempt.delivered &&
        (attempt.transient ||
         (attempt.status >= 300 && ShouldRetryStatus(attempt.status, attempt.retry)));
    if (!retriable || retries >= endpoint_.max_retries) {
      return fail(attempt.problem + Hint(attempt), attempts);
    }
    const double wait = RetryWaitSeconds(attempt.retry, retries, unit(random), std::time(nullptr));
    if (stop == nullptr) {
      sleep_(wait);
    } else {  // in slices, so that a stop ends the wait too
      for (double left = wait; left > 0 && !stop->load(); left -= 0.1) sleep_(std::min(left, 0.1));
      if (stop->load()) return Error{.where = kStoppedWhere, .message = "stopped"};
    }
    ++retries;
  }
}

}  // namespace cookgraph
