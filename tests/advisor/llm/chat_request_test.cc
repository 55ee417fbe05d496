#include "advisor/llm/chat_request.h"

#include <gtest/gtest.h>

#include <string>

namespace cookgraph {
namespace {

ChatRequest SampleRequest() {
  ChatRequest request;
  request.model = "gpt-4o-mini";
  request.messages = {{"system", "You are terse."}, {"user", "Why is noise1 slow?\n\"quoted\""}};
  request.temperature = 0.7;
  request.max_output_tokens = 800;
  return request;
}

TEST(RequestBody, HasAFixedKeyOrderAndShortestNumbers) {
  EXPECT_EQ(
      RequestBody(SampleRequest()),
      R"({"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are terse."},)"
      R"({"role":"user","content":"Why is noise1 slow?\n\"quoted\""}],"temperature":0.7,)"
      R"("max_completion_tokens":800,"stream":true,"stream_options":{"include_usage":true}})");
}

TEST(RequestBody, SameInputsGiveIdenticalBytes) {
  EXPECT_EQ(RequestBody(SampleRequest()), RequestBody(SampleRequest()));
  ChatRequest other = SampleRequest();
  other.temperature = 0.1 + 0.2;  // 0.30000000000000004: kept exactly, shortest form
  EXPECT_NE(RequestBody(other).find("\"temperature\":0.30000000000000004"), std::string::npos);
}

TEST(RequestBody, TokenLimitFieldIsConfigurableAndOptionalPartsAreLeftOut) {
  ChatRequest request = SampleRequest();
  request.max_tokens_field = "max_tokens";
  request.stream = false;
  EXPECT_EQ(RequestBody(request),
            R"({"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are terse."},)"
            R"({"role":"user","content":"Why is noise1 slow?\n\"quoted\""}],"temperature":0.7,)"
            R"("max_tokens":800,"stream":false})");
  request.temperature.reset();
  request.max_output_tokens.reset();
  request.stream = true;
  request.include_usage = false;
  EXPECT_EQ(RequestBody(request).substr(RequestBody(request).find("}],")), R"(}],"stream":true})");
}

TEST(RequestBody, InvalidUtf8IsReplacedInsteadOfThrowing) {
  ChatRequest request;
  request.model = "m";
  request.messages = {{"user", "bad \xFF byte"}};
  EXPECT_NE(RequestBody(request).find("bad \xEF\xBF\xBD byte"), std::string::npos);
}

TEST(ChatUrl, AppendsThePathToTheBase) {
  EXPECT_EQ(ChatUrl({.base_url = "https://api.openai.com/v1"}),
            "https://api.openai.com/v1/chat/completions");
  EXPECT_EQ(ChatUrl({.base_url = "http://localhost:11434/v1/"}),
            "http://localhost:11434/v1/chat/completions");
  EXPECT_EQ(ChatUrl({.base_url = "http://localhost:8080/v1//"}),
            "http://localhost:8080/v1/chat/completions");
}

TEST(ChatUrl, RecognisesABaseThatAlreadyEndsWithThePath) {
  EXPECT_EQ(ChatUrl({.base_url = "http://localhost:8080/v1/chat/completions"}),
            "http://localhost:8080/v1/chat/completions");
  EXPECT_EQ(ChatUrl({.base_url = "http://localhost:8080/v1/chat/completions/"}),
            "http://localhost:8080/v1/chat/completions");
}

TEST(ChatUrl, AzureGetsItsApiVersionOnce) {
  Endpoint azure{.base_url = "https://res.openai.azure.com/openai/deployments/gpt4o/",
                 .azure = true,
                 .api_version = "2024-10-21"};
  EXPECT_EQ(ChatUrl(azure),
            "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions"
            "?api-version=2024-10-21");
  azure.base_url = "https://res.openai.azure.com/openai/deployments/gpt4o?api-version=2024-06-01";
  EXPECT_EQ(ChatUrl(azure),
            "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions"
            "?api-version=2024-06-01");
  azure.api_version.clear();
  azure.base_url = "https://res.openai.azure.com/openai/deployments/gpt4o";
  EXPECT_EQ(ChatUrl(azure),
            "https://res.openai.azure.com/openai/deployments/gpt4o/chat/completions");
}

TEST(UrlForMessages, MasksCredentialsInTheUrl) {
  EXPECT_EQ(UrlForMessages("https://user:secret@proxy.example/v1/chat/completions"),
            "https://***@proxy.example/v1/chat/completions");
  EXPECT_EQ(UrlForMessages("https://api.openai.com/v1/chat/completions?x=a@b"),
            "https://api.openai.com/v1/chat/completions?x=a@b");
  EXPECT_EQ(UrlForMessages("no scheme"), "no scheme");
}

TEST(UrlForMessages, MasksCredentialsInTheQuery) {
  EXPECT_EQ(UrlForMessages("https://h/v1/chat/completions?api-version=2024-10-21&api-key=sk%2Fx&"
                           "Access_Token=t#frag?key=k"),
            "https://h/v1/chat/completions?api-version=2024-10-21&api-key=***&Access_Token=***"
            "#frag?key=k");
  EXPECT_EQ(UrlForMessages("http://u:p@h/v1?key=1&x&sig=&model=a=b"),
            "http://***@h/v1?key=***&x&sig=***&model=a=b");
  EXPECT_EQ(UrlForMessages("http://h/v1?"), "http://h/v1?");
}

TEST(RequestBody, CarriesFunctionsCallsAndResultsInOpenAisShape) {
  ChatRequest r{.model = "m", .messages = {{"user", "q"}}};
  ChatMessage call{.role = "assistant", .content = ""};
  call.tool_calls.push_back({.id = "c1", .name = "node", .arguments = R"({"id":"/a"})"});
  r.messages.push_back(call);
  r.messages.push_back({.role = "tool", .content = R"({"ok":1})", .tool_call_id = "c1"});
  r.tools.push_back({.name = "node", .description = "A node.",
                     .parameters = R"({"type":"object","properties":{"id":{"type":"string"}}})"});
  EXPECT_EQ(RequestBody(r),
            R"({"model":"m","messages":[{"role":"user","content":"q"},{"role":"assistant",)"
            R"("content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":)"
            R"("node","arguments":"{\"id\":\"/a\"}"}}]},{"role":"tool","content":"{\"ok\":1}",)"
            R"("tool_call_id":"c1"}],"stream":true,"stream_options":{"include_usage":true},)"
            R"("tools":[{"type":"function","function":{"name":"node","description":"A node.",)"
            R"("parameters":{"type":"object","properties":{"id":{"type":"string"}}}}}],)"
            R"("tool_choice":"auto"})");
}

}  // namespace
}  // namespace cookgraph
