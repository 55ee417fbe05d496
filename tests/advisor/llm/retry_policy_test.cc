#include "advisor/llm/retry_policy.h"

#include <gtest/gtest.h>

#include <ctime>

namespace cookgraph {
namespace {

TEST(ShouldRetryStatus, RetriesTheTransientStatuses) {
  for (long status : {408L, 409L, 429L, 500L, 502L, 503L, 504L, 529L}) {
    EXPECT_TRUE(ShouldRetryStatus(status, {})) << status;
  }
  for (long status : {400L, 401L, 403L, 404L, 422L}) {
    EXPECT_FALSE(ShouldRetryStatus(status, {})) << status;
  }
}

TEST(ShouldRetryStatus, TheServersHeaderWins) {
  EXPECT_FALSE(ShouldRetryStatus(503, {.should_retry = "false"}));
  EXPECT_TRUE(ShouldRetryStatus(400, {.should_retry = "true"}));
  EXPECT_TRUE(ShouldRetryStatus(500, {.should_retry = "maybe"}));  // neither: the status decides
}

constexpr std::time_t kNow = 1'700'000'000;  // 2023-11-14T22:13:20Z

TEST(ServerRetryAfter, ReadsMillisecondsFirstThenSeconds) {
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after_ms = "1500", .retry_after = "9"}, kNow), 1.5);
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after = "2"}, kNow), 2);
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after = "0.25"}, kNow), 0.25);
  // An unparsable retry-after-ms falls back to Retry-After.
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after_ms = "soon", .retry_after = "3"}, kNow), 3);
}

TEST(ServerRetryAfter, ReadsAnHttpDate) {
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after = "Tue, 14 Nov 2023 22:13:50 GMT"}, kNow), 30);
  // The obsolete forms too (RFC 850, asctime).
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after = "Tuesday, 14-Nov-23 22:13:30 GMT"}, kNow), 10);
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after = "Tue Nov 14 22:13:25 2023"}, kNow), 5);
}

TEST(ServerRetryAfter, IgnoresValuesOutsideTheRange) {
  EXPECT_FALSE(ServerRetryAfter({}, kNow));
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "0"}, kNow));
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "-3"}, kNow));
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "121"}, kNow));
  EXPECT_DOUBLE_EQ(*ServerRetryAfter({.retry_after = "120"}, kNow), 120);
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "Tue, 14 Nov 2023 22:13:00 GMT"}, kNow));  // past
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "Wed, 15 Nov 2023 22:13:20 GMT"}, kNow));  // +1 day
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "later"}, kNow));
  EXPECT_FALSE(ServerRetryAfter({.retry_after = "5 s"}, kNow));
  EXPECT_FALSE(ServerRetryAfter({.retry_after_ms = "nan"}, kNow));
}

TEST(BackoffSeconds, DoublesFromHalfASecondUpToEightWithAQuarterOfJitter) {
  EXPECT_DOUBLE_EQ(BackoffSeconds(0, 0), 0.5);
  EXPECT_DOUBLE_EQ(BackoffSeconds(1, 0), 1);
  EXPECT_DOUBLE_EQ(BackoffSeconds(3, 0), 4);
  EXPECT_DOUBLE_EQ(BackoffSeconds(4, 0), 8);
  EXPECT_DOUBLE_EQ(BackoffSeconds(10, 0), 8);
  EXPECT_DOUBLE_EQ(BackoffSeconds(100000, 0), 8);
  for (int n = 0; n < 6; ++n) {
    for (double r : {0.0, 0.3, 0.999}) {
      const double s = BackoffSeconds(n, r);
      EXPECT_LE(s, BackoffSeconds(n, 0));
      EXPECT_GT(s, 0.75 * BackoffSeconds(n, 0));
    }
  }
}

TEST(RetryWaitSeconds, PrefersTheServersValueWhenUsable) {
  EXPECT_DOUBLE_EQ(RetryWaitSeconds({.retry_after = "1"}, 1, 0, kNow), 1);
  EXPECT_DOUBLE_EQ(RetryWaitSeconds({.retry_after = "600"}, 1, 0, kNow), 1);  // backoff for n=1
  EXPECT_DOUBLE_EQ(RetryWaitSeconds({}, 0, 0.5, kNow), 0.5 * 0.875);
}

}  // namespace
}  // namespace cookgraph
