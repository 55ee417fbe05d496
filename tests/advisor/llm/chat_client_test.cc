// ChatClient against tests/tools/fake_llm_server.py, a chat-completions server
// on 127.0.0.1 that misbehaves on request (fixture:
// tests/advisor/llm/chat_client_fixture.h). Each case asserts how it ends and how
// long that took (idle timeout 1 s), and that the API key appears in no
// result or error.

#include "advisor/llm/chat_client.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/advisor/llm/chat_client_fixture.h"

namespace cookgraph::testing {
namespace {

using nlohmann::json;

TEST_F(ChatClientTest, StreamWithKeepAlivesAndEventsSplitMidLineGivesTheAnswer) {
  const Outcome out = Run("stream");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_EQ(out.deltas, (std::vector<std::string>{"Hel", "lo, wor", "ld!"}));
  EXPECT_EQ(out.result->finish_reason, "stop");
  ASSERT_TRUE(out.result->usage);  // from the chunk with "choices": []
  EXPECT_EQ(out.result->usage->prompt_tokens, 12);
  EXPECT_EQ(out.result->usage->total_tokens, 16);
  EXPECT_EQ(out.result->attempts, 1);
  EXPECT_LT(out.seconds, 2.0);
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["headers"]["authorization"], std::string("Bearer ") + kKey);
  EXPECT_EQ(requests[0]["headers"]["accept"], "text/event-stream");
  EXPECT_FALSE(requests[0]["headers"].contains("api-key"));
  EXPECT_EQ(requests[0]["body"]["model"], "fake-model");
  EXPECT_EQ(requests[0]["body"]["max_completion_tokens"], 100);
  EXPECT_EQ(requests[0]["body"]["stream_options"]["include_usage"], true);
}

TEST_F(ChatClientTest, CrLfLineEndsGiveTheSameAnswer) {
  const Outcome out = Run("crlf");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_TRUE(out.result->usage);
}

TEST_F(ChatClientTest, NoStreamReadsOneJsonAnswerAndPassesItOnOnce) {
  ChatRequest request = MakeRequest();
  request.stream = false;
  request.max_tokens_field = "max_tokens";
  const Outcome out = Run(MakeEndpoint("stream"), request);
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_EQ(out.deltas, std::vector<std::string>{"Hello, world!"});
  EXPECT_EQ(out.result->usage->completion_tokens, 4);
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["body"]["stream"], false);
  EXPECT_EQ(requests[0]["body"]["max_tokens"], 100);
  EXPECT_FALSE(requests[0]["body"].contains("stream_options"));
  EXPECT_EQ(requests[0]["headers"]["accept"], "application/json");
}

TEST_F(ChatClientTest, RetryAfterOfOneSecondIsObeyedForReal) {
  const Outcome out = Run(MakeEndpoint("retry-after"), MakeRequest(), /*real_sleep=*/true);
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_EQ(out.result->attempts, 2);
  EXPECT_GE(out.seconds, 0.95);
  EXPECT_LT(out.seconds, 3.0);
  EXPECT_EQ(Requests("retry-after").size(), 2u);
}

TEST_F(ChatClientTest, ServerErrorIsRetriedWithBackoffThenAnswers) {
  const Outcome out = Run("flaky500");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->attempts, 2);
  ASSERT_EQ(out.waits.size(), 1u);
  EXPECT_GT(out.waits[0], 0.375 - 1e-9);  // 0.5 s less up to a quarter of jitter
  EXPECT_LE(out.waits[0], 0.5);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientTest, PersistentServerErrorGivesUpAfterTwoRetries) {
  const Outcome out = Run("always500");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("always500") +
                ": HTTP 500: The server had an error while processing your request. (after 3 "
                "attempts)");
  ASSERT_EQ(out.waits.size(), 2u);
  EXPECT_LE(out.waits[0], 0.5);
  EXPECT_GT(out.waits[1], 0.75 - 1e-9);
  EXPECT_LE(out.waits[1], 1.0);
  EXPECT_EQ(Requests("always500").size(), 3u);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientTest, ShouldRetryFalseFromTheServerStopsRetries) {
  const Outcome out = Run("no-retry");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("no-retry") + ": HTTP 503: Overloaded, and retrying will not help");
  EXPECT_TRUE(out.waits.empty());
  EXPECT_EQ(Requests("no-retry").size(), 1u);
}

TEST_F(ChatClientTest, UnauthorizedNamesEndpointStatusAndMessageButNotTheKey) {
  const Outcome out = Run("unauthorized");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("unauthorized") +
                ": HTTP 401: Incorrect API key provided: [redacted]. You can find your API key "
                "at https://platform.openai.com/account/api-keys. (check the API key)");
  EXPECT_EQ(out.result.error().where, "endpoint");
  EXPECT_TRUE(out.waits.empty());
  EXPECT_LT(out.seconds, 1.0);
}

TEST_F(ChatClientTest, HtmlErrorPageGivesItsTitle) {
  const Outcome out = Run("html404");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("html404") +
                ": HTTP 404: 404 Not Found (check the base URL, which usually ends in /v1, and "
                "the model name)");
}

TEST_F(ChatClientTest, StringErrorIsShownAsIs) {
  const Outcome out = Run("string-error");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("string-error") + ": HTTP 400: model 'fake-model' not found");
}

TEST_F(ChatClientTest, StreamCutAfterContentIsAnErrorAndNotSentAgain) {
  const Outcome out = Run("cut");
  ASSERT_FALSE(out.result.ok());
  EXPECT_TRUE(out.result.error().message.starts_with(Url("cut") + ": stream ended before [DONE]"))
      << out.result.error().message;
  EXPECT_EQ(out.result.error().message.find("attempts"), std::string::npos);
  EXPECT_EQ(out.deltas, std::vector<std::string>{"Hel"});
  EXPECT_EQ(Requests("cut").size(), 1u);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientTest, StreamCutBeforeAnyContentIsRetried) {
  const Outcome out = Run("cut-early");
  ASSERT_FALSE(out.result.ok());
  EXPECT_TRUE(
      out.result.error().message.starts_with(Url("cut-early") + ": stream ended before [DONE]"));
  EXPECT_TRUE(out.result.error().message.ends_with("(after 3 attempts)"));
  EXPECT_EQ(Requests("cut-early").size(), 3u);
}

TEST_F(ChatClientTest, StallPastTheIdleTimeoutFailsWithinItsBound) {
  const Outcome out = Run("stall");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("stall") + ": stream stalled: no data for 1 s (idle timeout)");
  EXPECT_EQ(out.deltas, std::vector<std::string>{"Hel"});
  EXPECT_GE(out.seconds, 1.0);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientTest, SilenceBeforeTheResponseIsRetriedThenFails) {
  Endpoint endpoint = MakeEndpoint("stall-head");
  endpoint.max_retries = 1;
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("stall-head") + ": no data for 1 s (idle timeout) (after 2 attempts)");
  EXPECT_EQ(out.waits.size(), 1u);
  EXPECT_GE(out.seconds, 2.0);
  EXPECT_LT(out.seconds, 3.5);
}

TEST_F(ChatClientTest, ErrorObjectMidStreamIsAnError) {
  const Outcome out = Run("midstream-error");
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("midstream-error") + ": stream error: Upstream provider overloaded");
  EXPECT_EQ(Requests("midstream-error").size(), 1u);
}

TEST_F(ChatClientTest, ReasoningIsKeptOutOfTheContent) {
  const Outcome out = Run("reasoning");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Answer.");
  EXPECT_EQ(out.result->reasoning, "Let me think. More.");
  EXPECT_EQ(out.deltas, std::vector<std::string>{"Answer."});
}

TEST_F(ChatClientTest, StreamOptionsRefusedIsSentAgainWithoutThem) {
  const Outcome out = Run("stream-options-400");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_EQ(out.result->attempts, 2);
  EXPECT_FALSE(out.result->usage);  // not asked for the second time
  EXPECT_TRUE(out.waits.empty());
  const std::vector<json> requests = Requests("stream-options-400");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(requests[0]["body"].contains("stream_options"));
  EXPECT_FALSE(requests[1]["body"].contains("stream_options"));
}

TEST_F(ChatClientTest, JsonAnswerToAStreamRequestIsAccepted) {
  const Outcome out = Run("json-for-stream");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_EQ(out.deltas, std::vector<std::string>{"Hello, world!"});
}

TEST_F(ChatClientTest, CleanEndAfterTheFinishReasonNeedsNoDone) {
  const Outcome out = Run("no-done");
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  EXPECT_EQ(out.result->content, "Hello, world!");
  EXPECT_EQ(out.result->finish_reason, "stop");
}

TEST_F(ChatClientTest, AzureSendsApiKeyAndApiVersion) {
  Endpoint endpoint = MakeEndpoint("stream");
  endpoint.azure = true;
  endpoint.api_version = "2024-10-21";
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_TRUE(out.result.ok()) << out.result.error().Format();
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0]["headers"]["api-key"], kKey);
  EXPECT_FALSE(requests[0]["headers"].contains("authorization"));
  EXPECT_EQ(requests[0]["query"], "api-version=2024-10-21");
}

TEST_F(ChatClientTest, NoKeyMeansNoCredentialsHeader) {
  Endpoint endpoint = MakeEndpoint("stream");
  endpoint.api_key.clear();
  ASSERT_TRUE(Run(endpoint, MakeRequest()).result.ok());
  const std::vector<json> requests = Requests("stream");
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0]["headers"].contains("authorization"));
  EXPECT_FALSE(requests[0]["headers"].contains("api-key"));
}

TEST_F(ChatClientTest, RefusedConnectionIsRetriedThenNamesTheEndpoint) {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  Endpoint endpoint{.base_url = "http://127.0.0.1:1/v1", .api_key = kKey, .idle_timeout_s = 1};
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  const std::string& message = out.result.error().message;
  EXPECT_TRUE(message.starts_with("http://127.0.0.1:1/v1/chat/completions: ")) << message;
  EXPECT_TRUE(message.ends_with("(after 3 attempts)")) << message;
  EXPECT_EQ(out.waits.size(), 2u);
  EXPECT_LT(out.seconds, 2.0);
}

TEST_F(ChatClientTest, KeyWithALineBreakIsRefusedWithoutSendingOrShowingIt) {
  Endpoint endpoint = MakeEndpoint("stream");
  endpoint.api_key = std::string(kKey) + "\r\nX-Injected: 1";
  const Outcome out = Run(endpoint, MakeRequest());
  ASSERT_FALSE(out.result.ok());
  EXPECT_EQ(out.result.error().message,
            Url("stream") + ": the API key contains a control character (a line break?)");
  EXPECT_TRUE(Requests("stream").empty());
}

}  // namespace
}  // namespace cookgraph::testing
