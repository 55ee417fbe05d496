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

/// A 400 from a server that does not know stream_options (Azure before
/// 2024-10-21, old Ollama) names it in the message.
bool RefusesStreamOptions(const ChatAttempt& attempt) {
  if (attempt.status != 400) return false;
  std::string body = attempt.body;
  for (char& c : body) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return body.find("stream_options") != std::string::npos;
}

/// A 400 (or 422) from a server that takes no tools, to a request that offers
/// them and holds no call yet: its message names them ("tool", "function")
/// and says why ("does not support tools" from Ollama, "tools param requires
/// --jinja flag" from llama.cpp, "tool choice requires
/// --enable-auto-tool-choice" from vLLM, "Unrecognized request argument" from
/// proxies). A 400 about the calls themselves (a bad tool_call_id) or about the
/// context length is not one.
bool RefusesTools(const ChatRequest& request, const ChatAttempt& attempt) {
  if (request.tools.empty() || (attempt.status != 400 && attempt.status != 422)) return false;
  for (const ChatMessage& m : request.messages) {
    if (!m.tool_calls.empty() || m.role == "tool") return false;
  }
  std::string body = attempt.body;
  for (char& c : body) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool names = body.find("tool") != std::string::npos ||
                     body.find("function") != std::string::npos;
  if (!names || body.find("context") != std::string::npos) return false;
  for (std::string_view why : {"support", "requires", "unrecognized", "unknown", "extra",
                               "not allowed", "not permitted", "unexpected"}) {
    if (body.find(why) != std::string::npos) return true;
  }
  return false;
}

/// What to do about a status the user can fix.
std::string Hint(const ChatAttempt& attempt) {
  switch (attempt.status) {
    case 401:
    case 403:
      return " (check the API key)";
    case 404:
      return " (check the base URL, which usually ends in /v1, and the model name)";
    case 301:
    case 302:
    case 307:
    case 308:
      return attempt.location.empty() ? ""
                                      : fmt::format(" (redirected to {}: use that as the base URL)",
                                                    UrlForMessages(attempt.location));
    default:
      return "";
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
    if (RefusesTools(sent, attempt)) {
      return Error{.where = kToolsRefusedWhere,
                   .message = Redact(UrlForMessages(url) + ": " + attempt.problem,
                                     endpoint_.api_key)};
    }
    if (sent.stream && sent.include_usage && !dropped_stream_options &&
        RefusesStreamOptions(attempt)) {
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
