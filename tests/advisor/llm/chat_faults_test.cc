// ChatClient against endpoints that fail below HTTP or never stop: nothing
// listening, a name that does not resolve, a self-signed certificate, a reset
// mid-stream, a drip under the rate floor, an endless stream, a 10 MB answer,
// invalid UTF-8. Each must end within its bound with one message naming the
// URL and what happened; the retries are counted where the fault is transient.
// A watchdog ends the test binary if a call ever hangs.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <numeric>
#include <string>
#include <vector>

#include "advisor/llm/chat_client.h"
#include "tests/advisor/llm/chat_client_fixture.h"
#include "tests/temp_dir.h"

namespace cookgraph::testing {
namespace {

using ::testing::EndsWith;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

class ChatClientFaults : public ChatClientTest {
 protected:
  static void SetUpTestSuite() {
    ChatClientTest::SetUpTestSuite();
    // Straight to the resolver for the .invalid name, whatever proxy the environment names.
    setenv("no_proxy", "*", 1);
    setenv("NO_PROXY", "*", 1);
  }

  // SIGALRM's default action ends the binary: a hung call fails the test
  // instead of holding the suite until ctest's own timeout.
  void SetUp() override { alarm(60); }
  void TearDown() override { alarm(0); }

  static size_t Delivered(const Outcome& out) {
    return std::accumulate(out.deltas.begin(), out.deltas.end(), size_t{0},
                           [](size_t n, const std::string& d) { return n + d.size(); });
  }
};

TEST_F(ChatClientFaults, RefusedConnectionIsRetriedAndSaysSo) {
  const std::string base = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/v1";
  const Outcome out = Run(Endpoint{.base_url = base, .api_key = kKey}, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            base +
                "/chat/completions: could not connect: connection refused (is the server "
                "running, and on this port?) (after 3 attempts)");
  EXPECT_EQ(out.waits.size(), 2u);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientFaults, UnresolvableHostFailsWithinTheConnectTimeout) {
  // RFC 6761: no name under .invalid resolves. Offline, the resolver may
  // instead wait; the connect timeout covers resolution as well.
  const std::string base = "http://cookgraph-test.invalid/v1";
  const Outcome out =
      Run(Endpoint{.base_url = base, .api_key = kKey, .connect_timeout_s = 1}, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  const std::string& message = out.result.error().message;
  EXPECT_THAT(message, StartsWith(base + "/chat/completions: could not resolve the host name "
                                         "cookgraph-test.invalid "));
  EXPECT_THAT(message, EndsWith("(after 3 attempts)"));
  EXPECT_LT(out.seconds, 3 * 1 + 1.0);  // three attempts of at most 1 s each
}

TEST_F(ChatClientFaults, SelfSignedCertificateIsRefusedUnlessItsCaIsGiven) {
  TempDir dir;
  ASSERT_TRUE(MakeSelfSignedCertificate(dir.path())) << "the openssl command failed";
  FakeServer tls;
  tls.UseTls(dir / "cert.pem", dir / "key.pem");
  ASSERT_TRUE(tls.Start());
  Endpoint endpoint = MakeEndpoint("stream");
  endpoint.base_url = tls.Base("stream", Id());
  const Outcome refused = Run(endpoint, MakeRequest());
  ASSERT_FALSE(refused.result.ok());
  EXPECT_EQ(refused.result.error().message,
            endpoint.base_url +
                "/chat/completions: TLS: the server's certificate is not trusted (SSL certificate "
                "problem: self-signed certificate); if a private CA signed it, set "
                "llm.ca_bundle to that CA's PEM file");
  EXPECT_TRUE(refused.waits.empty());  // not retried: another attempt would meet the same
  EXPECT_TRUE(tls.Requests("stream", Id()).empty());

  endpoint.ca_bundle = dir / "cert.pem";  // verification stays on, against this CA
  const Outcome trusted = Run(endpoint, MakeRequest());
  ASSERT_TRUE(trusted.result.ok()) << trusted.result.error().message;
  EXPECT_EQ(trusted.result->content, "Hello, world!");
  EXPECT_EQ(tls.Requests("stream", Id()).size(), 1u);
  tls.Stop();
}

TEST_F(ChatClientFaults, ResetMidStreamKeepsWhatWasDeliveredAndIsNotSentAgain) {
  const Outcome out = Run("reset");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("reset") + ": stream ended before [DONE]: the server reset the connection");
  EXPECT_EQ(out.deltas, std::vector<std::string>{"Hel"});
  EXPECT_EQ(Requests("reset").size(), 1u);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientFaults, DripUnderTheRateFloorEndsEachAttemptWithinTwoWindows) {
  Endpoint endpoint = MakeEndpoint("drip");  // idle timeout 1 s: a byte every 0.3 s beats it
  endpoint.rate_window_s = 0.5;
  endpoint.max_retries = 1;
  const Outcome out = Run(endpoint, MakeRequest(), /*real_sleep=*/true);
  ASSERT_FALSE(out.result.ok());
  // About 3.3 bytes/s; the first window also holds the response head, so the
  // second is the one judged too slow.
  EXPECT_THAT(out.result.error().message,
              MatchesRegex(".*/chat/completions: the response is trickling in at [0-9.]+ "
                           "bytes/s, below the floor of 16 bytes/s over 0.5 s "
                           "\\(llm\\.min_bytes_per_s, llm\\.rate_window_s\\) \\(after 2 "
                           "attempts\\)"));
  EXPECT_TRUE(out.deltas.empty());
  EXPECT_EQ(Requests("drip").size(), 2u);
  EXPECT_GE(out.seconds, 2.0);  // two windows of 0.5 s per attempt, and the wait between
  EXPECT_LT(out.seconds, 5.0);
}

TEST_F(ChatClientFaults, ATricklingErrorResponseIsRetriedOnlyIfItsStatusIs) {
  Endpoint endpoint = MakeEndpoint("drip-401");
  endpoint.rate_window_s = 0.5;
  endpoint.max_retries = 1;
  const Outcome out = Run(endpoint, MakeRequest(), /*real_sleep=*/true);
  ASSERT_FALSE(out.result.ok());
  EXPECT_THAT(out.result.error().message,
              MatchesRegex(".*/chat/completions: HTTP 401, and the response is trickling in at "
                           "[0-9.]+ bytes/s, below the floor of 16 bytes/s over 0.5 s "
                           "\\(llm\\.min_bytes_per_s, llm\\.rate_window_s\\) \\(check the "
                           "API key\\)"));
  EXPECT_EQ(Requests("drip-401").size(), 1u);  // a 401 is not asked again, however it arrives
  EXPECT_LT(out.seconds, 3.0);
}

TEST_F(ChatClientFaults, EndlessStreamStopsAtTheAnswerCap) {
  Endpoint endpoint = MakeEndpoint("endless");
  endpoint.max_answer_bytes = 256 << 10;
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("endless") +
                ": the answer is longer than 0.25 MiB (llm.max_answer_mib); stopped reading it");
  EXPECT_LE(Delivered(out), endpoint.max_answer_bytes);
  EXPECT_GT(Delivered(out), endpoint.max_answer_bytes - 2048);
  EXPECT_EQ(Requests("endless").size(), 1u);
}

TEST_F(ChatClientFaults, EndlessStreamStopsAtTheResponseCap) {
  // The SSE framing makes the response outgrow the answer: this cap comes first.
  Endpoint endpoint = MakeEndpoint("endless");
  endpoint.max_response_bytes = 256 << 10;
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("endless") +
                ": the response is larger than 0.25 MiB (llm.max_response_mib); stopped reading "
                "it");
  EXPECT_LT(Delivered(out), endpoint.max_response_bytes);
}

TEST_F(ChatClientFaults, EndlessErrorBodyStopsAtTheResponseCapAndKeepsTheStatus) {
  Endpoint endpoint = MakeEndpoint("endless-error");
  endpoint.max_response_bytes = 2 << 20;  // more than the 1 MiB of an error body kept
  endpoint.max_retries = 0;
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("endless-error") +
                ": HTTP 500, and the response is larger than 2 MiB (llm.max_response_mib); "
                "stopped reading it");
}

TEST_F(ChatClientFaults, TenMegabyteAnswerIsRefusedAtTheDefaultCapStreamedOrNot) {
  const Outcome streamed = Run("big");
  ASSERT_FALSE(streamed.result.ok());
  EXPECT_EQ(streamed.result.error().message,
            Url("big") +
                ": the answer is longer than 4 MiB (llm.max_answer_mib); stopped "
                "reading it");
  EXPECT_LE(Delivered(streamed), size_t{4} << 20);

  ChatRequest whole = MakeRequest();
  whole.stream = false;
  const Outcome at_once = Run(MakeEndpoint("big"), whole);
  ASSERT_FALSE(at_once.result.ok());
  EXPECT_EQ(at_once.result.error().message, streamed.result.error().message);
  EXPECT_TRUE(at_once.deltas.empty());
  EXPECT_EQ(Requests("big").size(), 2u);  // neither retried
}

TEST_F(ChatClientFaults, InvalidUtf8NamesTheEventStreamedOrNot) {
  const Outcome streamed = Run("bad-utf8");
  ASSERT_FALSE(streamed.result.ok());
  EXPECT_THAT(streamed.result.error().message,
              MatchesRegex(".*/chat/completions: the server sent invalid UTF-8 in stream event "
                           "4, at byte [0-9]+ of its data \\(0xFF\\)"));
  EXPECT_EQ(streamed.deltas, (std::vector<std::string>{"Hel", "lo, wor"}));

  ChatRequest whole = MakeRequest();
  whole.stream = false;
  const Outcome at_once = Run(MakeEndpoint("bad-utf8"), whole);
  ASSERT_FALSE(at_once.result.ok());
  EXPECT_THAT(at_once.result.error().message,
              MatchesRegex(".*/chat/completions: the server sent invalid UTF-8 in the answer, at "
                           "byte [0-9]+ of the body \\(0xFF\\)"));
  EXPECT_EQ(Requests("bad-utf8").size(), 2u);  // neither retried
}

}  // namespace
}  // namespace cookgraph::testing
