#include "advisor/llm/chat_response.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/text.h"

namespace cookgraph {
namespace {

TEST(ServerMessage, ReadsTheOpenAiErrorObject) {
  EXPECT_EQ(ServerMessage(R"({"error": {"message": "Incorrect API key provided", "type":
            "invalid_request_error", "param": null, "code": "invalid_api_key"}})"),
            "Incorrect API key provided");
}

TEST(ServerMessage, ReadsAStringErrorAndAnIntegerCode) {
  EXPECT_EQ(ServerMessage(R"({"error": "model 'llama9' not found"})"), "model 'llama9' not found");
  EXPECT_EQ(ServerMessage(R"({"error": {"code": 503, "type": "unavailable"}})"),
            R"({"code":503,"type":"unavailable"})");
  EXPECT_EQ(ServerMessage(R"({"detail": "Not authenticated"})"), "Not authenticated");
}

TEST(ServerMessage, TakesTheTitleOfAnHtmlPage) {
  EXPECT_EQ(ServerMessage("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>"
                          "<body><h1>404 Not Found</h1></body></html>"),
            "404 Not Found");
  EXPECT_EQ(ServerMessage("<html><body><h1>Bad   Gateway</h1>\n<p>nginx</p></body></html>"),
            "Bad Gateway nginx");
}

TEST(ServerMessage, RawTextBecomesOneShortPrintableLine) {
  EXPECT_EQ(ServerMessage("upstream\r\n  timed out\x1b[31m"), "upstream timed out?[31m");
  const std::string long_text(500, 'x');
  const std::string message = ServerMessage(long_text);
  // Spelled without `string(n, c) + "..."`, which g++ 12 warns about wrongly
  // (-Warray-bounds, GCC bug 105329).
  EXPECT_EQ(message, long_text.substr(0, 200) + "…");
  EXPECT_EQ(ServerMessage(""), "");
  // Cut on a code point, not inside one.
  std::string accents;
  for (int i = 0; i < 300; ++i) accents += "é";
  EXPECT_EQ(ServerMessage(accents, {}, 3), "ééé…");
}

TEST(ServerMessage, RedactsTheKeyBeforeCuttingTheLine) {
  const std::string key = "sk-proj-0123456789abcdef";
  const std::string body = R"({"error": {"message": ")" + std::string(195, 'x') + key + R"("}})";
  const std::string message = ServerMessage(body, key);
  EXPECT_EQ(message, body.substr(body.find('x'), 195) + "[reda…");
  EXPECT_EQ(message.find("sk-"), std::string::npos);
  EXPECT_EQ(Redact("a KEY b KEY", "KEY"), "a [redacted] b [redacted]");
  EXPECT_EQ(Redact("text", ""), "text");
}

TEST(ParseCompletion, ReadsContentFinishReasonUsageAndReasoning) {
  const Result<ChatResult> r = ParseCompletion(
      R"({"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi",
      "reasoning_content": "think"}, "finish_reason": "length"}],
      "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}, "timings": {}})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->content, "Hi");
  EXPECT_EQ(r->reasoning, "think");
  EXPECT_EQ(r->finish_reason, "length");
  ASSERT_TRUE(r->usage);
  EXPECT_EQ(r->usage->total_tokens, 7);
}

TEST(ParseCompletion, NullContentIsEmptyAndTextPartsAreJoined) {
  Result<ChatResult> r =
      ParseCompletion(R"({"choices": [{"message": {"content": null}, "finish_reason": "stop"}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->content, "");
  r = ParseCompletion(
      R"({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->content, "ab");
}

TEST(ParseCompletion, ErrorsSayWhatIsWrong) {
  EXPECT_EQ(ParseCompletion("<html>oops</html>").error().message, "the answer is not JSON: oops");
  EXPECT_EQ(ParseCompletion(R"({"error": {"message": "quota exceeded"}})").error().message,
            "error in the answer: quota exceeded");
  EXPECT_EQ(ParseCompletion(R"({"choices": []})").error().message, "the answer has no choices");
  EXPECT_EQ(ParseCompletion(" \n").error().message, "the answer is empty");
}

SseEvent Data(std::string data) { return SseEvent{.data = std::move(data)}; }

TEST(ChatStream, AssemblesContentReasoningFinishReasonAndUsage) {
  ChatStream stream;
  std::vector<std::string> pieces;
  auto on = [&](std::string_view s) { pieces.emplace_back(s); };
  stream.OnEvent(Data(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""}}],)"
                      R"("usage":null})"),
                 on);
  EXPECT_FALSE(stream.delivered());
  stream.OnEvent(Data(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"","reasoning":" ok"}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"Hel"}}],"obfuscation":"zz"})"), on);
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"lo"},"finish_reason":null}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"delta":{},"finish_reason":"stop"}]})"), on);
  stream.OnEvent(Data(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,)"
                      R"("total_tokens":5}})"),
                 on);
  EXPECT_FALSE(stream.done());
  stream.OnEvent(Data("[DONE]"), on);
  EXPECT_TRUE(stream.done());
  EXPECT_FALSE(stream.failed());
  EXPECT_TRUE(stream.delivered());
  EXPECT_EQ(pieces, (std::vector<std::string>{"Hel", "lo"}));
  EXPECT_EQ(stream.result().content, "Hello");
  EXPECT_EQ(stream.result().reasoning, "hmm ok");
  EXPECT_EQ(stream.result().finish_reason, "stop");
  ASSERT_TRUE(stream.result().usage);
  EXPECT_EQ(stream.result().usage->prompt_tokens, 3);
}

TEST(ChatStream, OnlyTheFirstChoiceCounts) {
  ChatStream stream;
  stream.OnEvent(Data(R"({"choices":[{"index":1,"delta":{"content":"B"}},)"
                      R"({"index":0,"delta":{"content":"A"}}]})"),
                 {});
  EXPECT_EQ(stream.result().content, "A");
}

TEST(ChatStream, AnErrorChunkFailsTheStreamAndLaterEventsAreIgnored) {
  ChatStream stream;
  stream.OnEvent(Data(R"({"error":{"message":"Upstream overloaded","code":502}})"), {});
  EXPECT_TRUE(stream.failed());
  EXPECT_EQ(stream.error(), "stream error: Upstream overloaded");
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"late"}}]})"), {});
  EXPECT_EQ(stream.result().content, "");
}

TEST(ChatStream, AnErrorEventAndMalformedDataFailTheStream) {
  ChatStream by_event;
  by_event.OnEvent(SseEvent{.event = "error", .data = "rate limited"}, {});
  EXPECT_EQ(by_event.error(), "stream error: rate limited");
  ChatStream malformed;
  malformed.OnEvent(Data("{\"choices\": [tru"), {});
  EXPECT_EQ(malformed.error(), "malformed stream chunk: {\"choices\": [tru");
}

TEST(ChatStream, InvalidUtf8NamesTheEventAndTheByteAndIsNotPassedOn) {
  ChatStream stream;
  std::vector<std::string> pieces;
  const auto on = [&](std::string_view s) { pieces.emplace_back(s); };
  stream.OnEvent(Data(R"({"choices":[{"delta":{"role":"assistant"}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"caf\u00e9"}}]})"), on);
  // Byte 36 of the data is 0xFF; the é written raw before it is valid.
  stream.OnEvent(Data("{\"choices\":[{\"delta\":{\"content\":\"\xC3\xA9\xFF\xFE\"}}]}"), on);
  EXPECT_EQ(stream.error(),
            "the server sent invalid UTF-8 in stream event 3, at byte 36 of its data (0xFF)");
  EXPECT_EQ(pieces, std::vector<std::string>{"café"});
  // A lone surrogate escape is not UTF-8 either; the JSON parser refuses it.
  ChatStream surrogate;
  surrogate.OnEvent(Data(R"({"choices":[{"delta":{"content":"\udc80"}}]})"), {});
  EXPECT_TRUE(surrogate.error().starts_with("malformed stream chunk: ")) << surrogate.error();
}

TEST(ParseCompletion, InvalidUtf8NamesTheByte) {
  const Result<ChatResult> r =
      ParseCompletion("{\"choices\":[{\"message\":{\"content\":\"ok \xE2\x82\"}}]}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "the server sent invalid UTF-8 in the answer, at byte 39 of the body (0xE2)");
}

TEST(FirstInvalidUtf8, FindsTheFirstByteThatIsNotPartOfUtf8) {
  EXPECT_EQ(FirstInvalidUtf8(""), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("plain, é, 😀"), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("ab\xFF"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("\xC0\xAF"), 0u);       // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("x\xED\xA0\x80"), 1u);  // a surrogate, U+D800
  EXPECT_EQ(FirstInvalidUtf8("é\xE2\x82"), 2u);      // cut short
}

TEST(ChatStream, TextPastTheAnswerCapFailsTheStreamAndIsNotPassedOn) {
  ChatStream stream({}, 10);
  std::string shown;
  const auto on = [&](std::string_view s) { shown += s; };
  stream.OnEvent(Data(R"({"choices":[{"delta":{"reasoning_content":"hmm "}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"123456"}}]})"), on);  // 10 in all
  EXPECT_FALSE(stream.failed());
  stream.OnEvent(Data(R"({"choices":[{"delta":{"content":"7"}}]})"), on);
  EXPECT_TRUE(stream.failed());
  EXPECT_TRUE(stream.answer_too_long());
  EXPECT_EQ(shown, "123456");
  EXPECT_EQ(stream.result().content, "123456");
}

TEST(ChatStream, EmptyDataIsSkipped) {
  ChatStream stream;
  stream.OnEvent(Data(""), {});
  stream.OnEvent(Data(" \n"), {});
  EXPECT_FALSE(stream.failed());
}

// OpenAI's function calls: whole, and streamed in pieces that share an index.
TEST(ParseCompletion, ReadsToolCalls) {
  Result<ChatResult> r = ParseCompletion(R"({"choices":[{"index":0,"message":{"role":"assistant",
      "content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"node",
      "arguments":"{\"id\":\"/a\"}"}},{"id":"x","type":"function","function":{"arguments":"{}"}},
      "junk"]},"finish_reason":"tool_calls"}]})");
  ASSERT_TRUE(r) << r.error().Format();
  ASSERT_EQ(r->tool_calls.size(), 1u);  // the call without a name is left out
  EXPECT_EQ(r->tool_calls[0].id, "call_1");
  EXPECT_EQ(r->tool_calls[0].name, "node");
  EXPECT_EQ(r->tool_calls[0].arguments, R"({"id":"/a"})");
  EXPECT_EQ(r->finish_reason, "tool_calls");
  EXPECT_EQ(r->content, "");
}

TEST(ChatStream, JoinsStreamedToolCallsByIndex) {
  ChatStream stream;
  std::string shown;
  auto on = [&](std::string_view s) { shown += s; };
  stream.OnEvent(Data(R"({"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[
      {"index":0,"id":"call_a","type":"function","function":{"name":"node","arguments":""}}]}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"index":0,"delta":{"tool_calls":[
      {"index":0,"function":{"arguments":"{\"id\":"}}]}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"index":0,"delta":{"tool_calls":[
      {"index":1,"id":"call_b","function":{"name":"whatif","arguments":"{}"}},
      {"index":0,"id":"call_a","function":{"name":"node","arguments":"\"/a\"}"}}]}}]})"), on);
  stream.OnEvent(Data(R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"), on);
  stream.OnEvent(Data("[DONE]"), on);
  ASSERT_FALSE(stream.failed()) << stream.error();
  const auto& calls = stream.result().tool_calls;
  ASSERT_EQ(calls.size(), 2u);
  // An id or name repeated in a later piece (some servers do) is not doubled.
  EXPECT_EQ(calls[0].id, "call_a");
  EXPECT_EQ(calls[0].name, "node");
  EXPECT_EQ(calls[0].arguments, R"({"id":"/a"})");
  EXPECT_EQ(calls[1].name, "whatif");
  EXPECT_EQ(stream.result().finish_reason, "tool_calls");
  EXPECT_EQ(shown, "");  // calls are not answer text
  EXPECT_FALSE(stream.delivered());
}

// Servers that send each whole call in a chunk of its own, without "index".
TEST(ChatStream, PiecesWithoutAnIndexStartACallWhenTheyBringAnotherId) {
  ChatStream stream;
  for (const char* data : {
           R"({"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"node","arguments":"{\"id\":"}}]}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"\"/x\"}"}}]}}]})",
           R"({"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"whatif","arguments":"{}"}}]}}]})"}) {
    stream.OnEvent(Data(data), {});
  }
  const auto& calls = stream.result().tool_calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].arguments, R"({"id":"/x"})");
  EXPECT_EQ(calls[1].id, "b");
  EXPECT_EQ(calls[1].arguments, "{}");
}

// A hostile stream of ever new indexes keeps 128 calls, in linear time.
TEST(ChatStream, KeepsAtMost128Calls) {
  ChatStream stream;
  for (int i = 0; i < 5000; ++i) {
    stream.OnEvent(Data(R"({"choices":[{"delta":{"tool_calls":[{"index":)" + std::to_string(i) +
                        R"(,"id":"c","function":{"name":"f"}}]}}]})"),
                   {});
  }
  EXPECT_FALSE(stream.failed());
  EXPECT_EQ(stream.result().tool_calls.size(), 128u);
}

TEST(ChatStream, ToolCallArgumentsCountAgainstTheAnswersCap) {
  ChatStream stream({}, 16);
  stream.OnEvent(Data(R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c",
      "function":{"name":"f","arguments":"0123456789abcdef"}}]}}]})"), {});
  EXPECT_TRUE(stream.failed());
  EXPECT_TRUE(stream.answer_too_long());
}

}  // namespace
}  // namespace cookgraph
