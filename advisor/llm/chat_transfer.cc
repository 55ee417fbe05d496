#include "advisor/llm/chat_transfer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>

#include "advisor/llm/curl_api.h"
#include "advisor/llm/curl_problem.h"
#include "advisor/llm/rate_floor.h"
#include "advisor/llm/sse.h"
#include "base/text.h"

namespace cookgraph {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxErrorBody = size_t{1} << 20;  // bytes kept of an error body
constexpr long kPollMs = 50;  // how often the idle clock is checked while nothing happens

struct EasyDeleter {
  void operator()(CURL* h) const { Curl().easy_cleanup(h); }
};
struct MultiDeleter {
  void operator()(CURLM* h) const { Curl().multi_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { Curl().slist_free_all(l); }
};


long OsErrno(CURL* easy) {
  long os_errno = 0;
  Curl().easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
  return os_errno;
}

/// State of one transfer, shared with libcurl's callbacks.
struct Transfer {
  CURL* easy = nullptr;
  const Endpoint* endpoint = nullptr;
  bool stream_requested = false;
  const std::function<void(std::string_view)>* on_content = nullptr;

  // Response head; reset when another head starts (a proxy's CONNECT, a 100 Continue).
  RetryHeaders retry;
  std::string content_type;
  std::string location;
  std::string reason;  // the status line's reason phrase

  enum class Mode { kUndecided, kEvents, kBody } mode = Mode::kUndecided;
  long status = 0;
  std::string body;  // the JSON answer or the error body
  SseParser sse;
  ChatStream stream;  // built with the API key to redact and the answer's cap

  // The bounds on what arrives; crossing one ends the transfer at once (a
  // callback's refusal, CURLE_WRITE_ERROR) with its flag set.
  size_t received = 0;  // bytes of the response, head and body, against max_response_bytes
  RateFloor rate;
  bool response_too_big = false;
  bool too_slow = false;

  const Clock::time_point start = Clock::now();
  Clock::time_point last_activity = start;
  curl_off_t uploaded = 0;

  /// Counts `bytes` that just arrived; false when a bound was crossed.
  bool Arrived(size_t bytes) {
    const Clock::time_point now = Clock::now();
    last_activity = now;
    received += bytes;
    if (received > endpoint->max_response_bytes) {
      response_too_big = true;
      return false;
    }
    if (!rate.Record(bytes, std::chrono::duration<double>(now - start).count())) {
      too_slow = true;
      return false;
    }
    return true;
  }
};

/// Which of the transfer's bounds ended it, and how.
std::string BoundCrossed(const Transfer& t) {
  const Endpoint& e = *t.endpoint;
  const bool error_status = t.status != 0 && (t.status < 200 || t.status >= 300);
  const std::string status = error_status ? fmt::format("HTTP {}, and ", t.status) : "";
  if (t.too_slow) {
    return fmt::format(
        "{}the response is trickling in at {:.2g} bytes/s, below the floor of {:g} bytes/s over "
        "{} (llm.min_bytes_per_s, llm.rate_window_s)",
        status, t.rate.last_rate(), e.min_bytes_per_s, Seconds(e.rate_window_s));
  }
  return fmt::format("{}the response is larger than {} (llm.max_response_mib); stopped reading it",
                     status, ShowMebibytes(e.max_response_bytes));
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  if (!t.Arrived(line.size())) return 0;  // ends the transfer with CURLE_WRITE_ERROR
  if (line.starts_with("HTTP/")) {
    t.retry = {};
    t.content_type.clear();
    t.location.clear();
    // "HTTP/1.1 404 Not Found": the reason follows the second space.
    const size_t first = line.find(' ');
    const size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
    t.reason = second == std::string_view::npos ? "" : std::string(TrimSpace(line.substr(second + 1)));
    return line.size();
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return line.size();
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string value(TrimSpace(line.substr(colon + 1)));
  if (name == "x-should-retry") {
    t.retry.should_retry = value;
  } else if (name == "retry-after-ms") {
    t.retry.retry_after_ms = value;
  } else if (name == "retry-after") {
    t.retry.retry_after = value;
  } else if (name == "content-type") {
    t.content_type = value;
  } else if (name == "location") {
    t.location = value;
  }
  return line.size();
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string_view bytes(data, size * count);
  if (!t.Arrived(bytes.size())) return 0;  // ends the transfer with CURLE_WRITE_ERROR
  if (t.mode == Transfer::Mode::kUndecided) {
    Curl().easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.status);
    // A stream request answered with one JSON document (servers that ignore
    // "stream") is read as a whole answer; any other success type as events.
    const bool events = t.status >= 200 && t.status < 300 && t.stream_requested &&
                        t.content_type.find("application/json") == std::string::npos;
    t.mode = events ? Transfer::Mode::kEvents : Transfer::Mode::kBody;
  }
  if (t.mode == Transfer::Mode::kBody) {
    // An answer is kept whole (Arrived bounds it); of an error body, the start.
    const bool success = t.status >= 200 && t.status < 300;
    const size_t room =
        success ? bytes.size() : kMaxErrorBody - std::min(kMaxErrorBody, t.body.size());
    t.body.append(bytes.substr(0, room));
    return bytes.size();
  }
  t.sse.Feed(bytes, [&t](const SseEvent& event) { t.stream.OnEvent(event, *t.on_content); });
  if (t.stream.done() || t.stream.failed()) {
    // Nothing after [DONE] matters; a server that keeps the connection open
    // after it must not turn a complete answer into an idle timeout.
    return 0;
  }
  return bytes.size();
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t ulnow) {
  auto& t = *static_cast<Transfer*>(user);
  if (ulnow != t.uploaded) {  // sending a long prompt is activity too
    t.uploaded = ulnow;
    t.last_activity = Clock::now();
  }
  return 0;
}

/// Runs the transfer, failing it when no byte arrived for `idle_s` once
/// connected. Returns libcurl's result, or CURLE_OPERATION_TIMEDOUT with
/// `idle` set.
CURLcode Run(CURL* easy, Transfer& t, double idle_s, bool& idle, const std::atomic<bool>* stop,
             bool& stopped) {
  std::unique_ptr<CURLM, MultiDeleter> multi(Curl().multi_init());
  if (!multi || Curl().multi_add_handle(multi.get(), easy) != CURLM_OK) return CURLE_OUT_OF_MEMORY;
  // idle_s <= 0: no idle timeout; the loop then only polls.
  const auto idle_limit = std::chrono::duration<double>(idle_s > 0 ? idle_s : 1.0);
  CURLcode result = CURLE_OK;
  for (int running = 1; running;) {
    if (Curl().multi_perform(multi.get(), &running) != CURLM_OK) {
      result = CURLE_FAILED_INIT;
      break;
    }
    if (!running) break;
    if (stop != nullptr && stop->load()) {
      stopped = true;
      result = CURLE_ABORTED_BY_CALLBACK;
      break;
    }
    const auto now = Clock::now();
    curl_off_t pretransfer = 0;
    Curl().easy_getinfo(easy, CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
    // Before the request goes out the connect timeout is in charge.
    if (pretransfer == 0) t.last_activity = now;
    const std::chrono::duration<double> left =
        idle_s > 0 ? std::chrono::duration<double>(idle_limit - (now - t.last_activity))
                   : idle_limit;
    if (idle_s > 0 && left <= std::chrono::duration<double>::zero()) {
      idle = true;
      result = CURLE_OPERATION_TIMEDOUT;
      break;
    }
    const long left_ms =
        static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(left).count());
    Curl().multi_poll(multi.get(), nullptr, 0, static_cast<int>(std::clamp(left_ms + 1, 1L, kPollMs)),
                    nullptr);
  }
  if (!idle && !stopped) {
    int left = 0;
    while (CURLMsg* msg = Curl().multi_info_read(multi.get(), &left)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) result = msg->data.result;
    }
  }
  Curl().multi_remove_handle(multi.get(), easy);
  return result;
}

// The request's headers: JSON in, the answer streamed or whole, the key.
curl_slist* RequestHeaders(const Endpoint& endpoint, bool stream) {
  curl_slist* headers = nullptr;
  headers = Curl().slist_append(headers, "Content-Type: application/json");
  headers =
      Curl().slist_append(headers, stream ? "Accept: text/event-stream" : "Accept: application/json");
  headers = Curl().slist_append(headers, "Expect:");  // no 100-continue wait for long prompts
  if (!endpoint.api_key.empty()) {
    const std::string auth =
        (endpoint.azure ? "api-key: " : "Authorization: Bearer ") + endpoint.api_key;
    headers = Curl().slist_append(headers, auth.c_str());
  }
  return headers;
}

// The request on `h`: POST `body` to `url`, the endpoint's timeouts and CAs,
// the transfer `t`'s callbacks, errors into `error_buffer`.
void SetRequestOptions(CURL* h, const Endpoint& endpoint, const std::string& url,
                       const std::string& body, curl_slist* headers, char* error_buffer,
                       Transfer& t) {
  Curl().easy_setopt(h, CURLOPT_URL, url.c_str());
  Curl().easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  Curl().easy_setopt(h, CURLOPT_POST, 1L);
  Curl().easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
  Curl().easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  Curl().easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  Curl().easy_setopt(h, CURLOPT_USERAGENT, "cookgraph");
  Curl().easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  Curl().easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  Curl().easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::max(1.0, endpoint.connect_timeout_s * 1000)));
  // TLS verification stays as libcurl sets it: on. Only the trusted CAs may change.
  if (endpoint.ca_bundle) Curl().easy_setopt(h, CURLOPT_CAINFO, endpoint.ca_bundle->c_str());
  Curl().easy_setopt(h, CURLOPT_ERRORBUFFER, error_buffer);
  Curl().easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
  Curl().easy_setopt(h, CURLOPT_HEADERDATA, &t);
  Curl().easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  Curl().easy_setopt(h, CURLOPT_WRITEDATA, &t);
  Curl().easy_setopt(h, CURLOPT_XFERINFOFUNCTION, OnProgress);
  Curl().easy_setopt(h, CURLOPT_XFERINFODATA, &t);
  Curl().easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
}

}  // namespace

ChatAttempt PerformChatAttempt(const Endpoint& endpoint, const std::string& url,
                               const std::string& body, bool stream,
                               const std::function<void(std::string_view)>& on_content,
                               const std::atomic<bool>* stop) {
  ChatAttempt attempt;
  std::unique_ptr<CURL, EasyDeleter> easy(Curl().easy_init());
  if (!easy) {
    attempt.problem = "could not start libcurl";
    return attempt;
  }
  Transfer t{.endpoint = &endpoint,
             .stream = ChatStream(endpoint.api_key, endpoint.max_answer_bytes),
             .rate = RateFloor(endpoint.min_bytes_per_s, endpoint.rate_window_s)};
  t.easy = easy.get();
  t.stream_requested = stream;
  const std::function<void(std::string_view)> no_callback;
  t.on_content = on_content ? &on_content : &no_callback;

  std::unique_ptr<curl_slist, SlistDeleter> header_list(RequestHeaders(endpoint, stream));

  char error_buffer[CURL_ERROR_SIZE] = {};
  CURL* h = easy.get();
  SetRequestOptions(h, endpoint, url, body, header_list.get(), error_buffer, t);

  bool idle = false, stopped = false;
  const CURLcode code = Run(h, t, endpoint.idle_timeout_s, idle, stop, stopped);
  Curl().easy_getinfo(h, CURLINFO_RESPONSE_CODE, &t.status);
  attempt.status = t.status;
  attempt.retry = t.retry;
  attempt.location = t.location;
  attempt.delivered = t.stream.delivered();
  if (stopped) {
    attempt.stopped = true;
    attempt.problem = "stopped";
    return attempt;
  }
  const bool success_status = t.status >= 200 && t.status < 300;

  // Built only for a failure: it parses the URL again.
  const auto failure = [&] {
    return CurlFailure{
        .code = code, .os_errno = OsErrno(h), .detail = error_buffer, .host = UrlHost(url)};
  };
  if (t.too_slow || t.response_too_big) {
    attempt.problem = BoundCrossed(t);
    // A trickle is transient like a timeout (the caller still checks
    // `delivered`), unless it brings an error status, which decides alone.
    attempt.transient = t.too_slow && (t.status == 0 || success_status);
    return attempt;
  }
  if (t.mode == Transfer::Mode::kEvents) {
    ChatStream& s = t.stream;
    if (s.failed()) {
      attempt.problem = s.error();
    } else if (s.done() || (code == CURLE_OK && !s.result().finish_reason.empty())) {
      // A clean end after the finish reason is accepted without [DONE]:
      // some servers leave it out, and nothing of the answer is missing.
      attempt.ok = true;
      attempt.result = std::move(s.result());
      std::erase_if(attempt.result.tool_calls, [](const ToolCall& c) { return c.name.empty(); });
    } else {
      attempt.problem = idle
                            ? fmt::format("stream stalled: no data for {} (idle timeout)",
                                          Seconds(endpoint.idle_timeout_s))
                            : "stream ended before [DONE]" + DescribeStreamCut(failure(), endpoint);
      attempt.transient = true;  // the caller still checks `delivered`
    }
    return attempt;
  }
  if (idle) {
    attempt.problem =
        fmt::format("no data for {} (idle timeout)", Seconds(endpoint.idle_timeout_s));
    attempt.transient = true;
    return attempt;
  }
  if (code != CURLE_OK) {
    attempt.problem = DescribeCurlFailure(failure(), endpoint);
    attempt.transient = TransientCurlError(code);
    return attempt;
  }
  if (!success_status) {
    attempt.body = std::move(t.body);
    const std::string message = ServerMessage(attempt.body, endpoint.api_key);
    attempt.problem = fmt::format("HTTP {}", t.status);
    if (!message.empty() || !t.reason.empty())
      attempt.problem +=
          ": " + (message.empty() ? ServerMessage(t.reason, endpoint.api_key) : message);
    return attempt;
  }
  Result<ChatResult> parsed = ParseCompletion(t.body, endpoint.api_key);
  if (!parsed.ok()) {
    attempt.problem = parsed.error().message;
    return attempt;
  }
  if (parsed->content.size() + parsed->reasoning.size() > endpoint.max_answer_bytes) {
    attempt.problem = AnswerTooLong(endpoint.max_answer_bytes);
    return attempt;
  }
  attempt.ok = true;
  attempt.result = std::move(parsed).value();
  if (on_content && !attempt.result.content.empty()) on_content(attempt.result.content);
  return attempt;
}

}  // namespace cookgraph
