#ifndef COOKGRAPH_TESTS_ADVISOR_LLM_CHAT_CLIENT_FIXTURE_H_
#define COOKGRAPH_TESTS_ADVISOR_LLM_CHAT_CLIENT_FIXTURE_H_

// The fixture of ChatClient's tests: tests/tools/fake_llm_server.py on
// 127.0.0.1, endpoints with short timeouts (connect 2 s, idle 1 s), and a Run
// that records the waits between attempts instead of sleeping, times the call
// and checks that the API key appears in no result or error.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "advisor/llm/chat_client.h"
#include "tests/fake_llm_server.h"

namespace cookgraph::testing {

inline constexpr const char* kKey = "sk-test-SECRET-0123456789abcdef";

/// What one Complete call gave.
struct Outcome {
  Result<ChatResult> result = Error{};
  std::vector<std::string> deltas;
  std::vector<double> waits;  // seconds the client asked to sleep
  double seconds = 0;         // wall time of the call
};

class ChatClientTest : public FakeServerSuite {
 protected:
  static void SetUpTestSuite() {
    // Loopback only, whatever proxy the environment names.
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    FakeServerSuite::SetUpTestSuite();
  }

  Endpoint MakeEndpoint(const std::string& name) const {
    return Endpoint{.base_url = server->Base(name, Id()),
                    .api_key = kKey,
                    .connect_timeout_s = 2,
                    .idle_timeout_s = 1};
  }

  static ChatRequest MakeRequest() {
    return ChatRequest{.model = "fake-model",
                       .messages = {{"system", "Be brief."}, {"user", "Say hello."}},
                       .temperature = 0.2,
                       .max_output_tokens = 100};
  }

  /// `real_sleep`: wait for real between attempts instead of recording the waits.
  static Outcome Run(const Endpoint& endpoint, const ChatRequest& request,
                     bool real_sleep = false) {
    Outcome out;
    ChatClient::Sleeper sleeper;
    if (!real_sleep) sleeper = [&out](double s) { out.waits.push_back(s); };
    const ChatClient client(endpoint, sleeper);
    const auto start = std::chrono::steady_clock::now();
    out.result = client.Complete(request, [&](std::string_view s) { out.deltas.emplace_back(s); });
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // The key is in no output, whatever happened.
    if (out.result.ok()) {
      EXPECT_EQ(out.result->content.find(kKey), std::string::npos);
      EXPECT_EQ(out.result->reasoning.find(kKey), std::string::npos);
    } else {
      EXPECT_EQ(out.result.error().Format().find(kKey), std::string::npos)
          << out.result.error().Format();
      EXPECT_TRUE(IsEndpointError(out.result.error()));
    }
    return out;
  }

  Outcome Run(const std::string& name) const { return Run(MakeEndpoint(name), MakeRequest()); }

  std::vector<nlohmann::json> Requests(const std::string& name) const {
    return server->Requests(name, Id());
  }

  /// The test's name: a fresh request count per test.
  static std::string Id() {
    return ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  std::string Url(const std::string& name) const {
    return server->Base(name, Id()) + "/chat/completions";
  }
};

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_ADVISOR_LLM_CHAT_CLIENT_FIXTURE_H_
