#include "advisor/llm/retry_policy.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "advisor/llm/curl_api.h"

namespace cookgraph {
namespace {

constexpr double kInitialDelayS = 0.5;
constexpr double kMaxDelayS = 8;
constexpr double kMaxServerWaitS = 120;  // a longer Retry-After is ignored, not obeyed

/// A whole string as a finite number, surrounding spaces allowed.
std::optional<double> Number(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(value)) return std::nullopt;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0') return std::nullopt;
  return value;
}

}  // namespace

bool ShouldRetryStatus(long status, const RetryHeaders& headers) {
  if (headers.should_retry == "true") return true;
  if (headers.should_retry == "false") return false;
  return status == 408 || status == 409 || status == 429 || status >= 500;
}

std::optional<double> ServerRetryAfter(const RetryHeaders& headers, std::time_t now) {
  std::optional<double> seconds;
  if (headers.retry_after_ms) {
    if (std::optional<double> ms = Number(*headers.retry_after_ms)) seconds = *ms / 1000;
  }
  if (!seconds && headers.retry_after) {
    seconds = Number(*headers.retry_after);
    if (!seconds) {
      // curl_getdate reads the three HTTP date forms (RFC 9110 §5.6.7).
      const std::time_t date = Curl().getdate(headers.retry_after->c_str(), nullptr);
      if (date != -1) seconds = static_cast<double>(date - now);
    }
  }
  if (seconds && *seconds > 0 && *seconds <= kMaxServerWaitS) return seconds;
  return std::nullopt;
}

double BackoffSeconds(int retries_done, double random01) {
  const double delay =
      std::min(kInitialDelayS * std::pow(2.0, std::clamp(retries_done, 0, 1000)), kMaxDelayS);
  return std::max(0.0, delay * (1 - 0.25 * random01));
}

double RetryWaitSeconds(const RetryHeaders& headers, int retries_done, double random01,
                        std::time_t now) {
  if (std::optional<double> server = ServerRetryAfter(headers, now)) return *server;
  return BackoffSeconds(retries_done, random01);
}

}  // namespace cookgraph
