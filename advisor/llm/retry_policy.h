#ifndef COOKGRAPH_ADVISOR_LLM_RETRY_POLICY_H_
#define COOKGRAPH_ADVISOR_LLM_RETRY_POLICY_H_

// The retry policy of OpenAI's official Python client (docs/architecture.md#the-llm-client-and-its-retry-policy):
// which answers are worth another attempt and how long to wait before it.

#include <ctime>
#include <optional>
#include <string>

namespace cookgraph {

/// The response headers the policy reads; unset = the header was absent.
struct RetryHeaders {
  std::optional<std::string> should_retry;    // x-should-retry: "true" / "false"
  std::optional<std::string> retry_after_ms;  // retry-after-ms: milliseconds, may have a fraction
  std::optional<std::string> retry_after;     // Retry-After: seconds or an HTTP date
};

/// Whether an HTTP error status deserves a retry: x-should-retry "true" or
/// "false" decides when present; otherwise 408, 409, 429 and >= 500 do.
bool ShouldRetryStatus(long status, const RetryHeaders& headers);

/// Seconds the server asked to wait (retry-after-ms first, then Retry-After as
/// seconds or as an HTTP date relative to `now`); unset when absent,
/// unparsable, or outside (0, 120] s, which the policy does not obey.
std::optional<double> ServerRetryAfter(const RetryHeaders& headers, std::time_t now);

/// The policy's own wait before retry number `retries_done` + 1:
/// min(0.5 * 2^retries_done, 8) * (1 - 0.25 * random01) seconds, `random01` in [0, 1).
double BackoffSeconds(int retries_done, double random01);

/// Seconds to wait before the next attempt: the server's value when it gave a
/// usable one, else the backoff.
double RetryWaitSeconds(const RetryHeaders& headers, int retries_done, double random01,
                        std::time_t now);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_RETRY_POLICY_H_
