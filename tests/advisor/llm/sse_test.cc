#include "advisor/llm/sse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cookgraph {
namespace {

std::vector<SseEvent> ParseWhole(std::string_view text) {
  std::vector<SseEvent> events;
  SseParser parser;
  parser.Feed(text, [&](const SseEvent& e) { events.push_back(e); });
  return events;
}

/// The same text fed one byte at a time gives the same events.
std::vector<SseEvent> ParseByteByByte(std::string_view text) {
  std::vector<SseEvent> events;
  SseParser parser;
  for (char c : text) {
    parser.Feed(std::string_view(&c, 1), [&](const SseEvent& e) { events.push_back(e); });
  }
  return events;
}

std::vector<std::string> Data(const std::vector<SseEvent>& events) {
  std::vector<std::string> out;
  for (const SseEvent& e : events) out.push_back(e.data);
  return out;
}

TEST(SseParser, DataLinesAreJoinedWithNewlines) {
  const std::string text = "data: {\"a\":\ndata: 1}\n\ndata: [DONE]\n\n";
  EXPECT_EQ(Data(ParseWhole(text)), (std::vector<std::string>{"{\"a\":\n1}", "[DONE]"}));
  EXPECT_EQ(Data(ParseByteByByte(text)), (std::vector<std::string>{"{\"a\":\n1}", "[DONE]"}));
}

TEST(SseParser, CommentsAndKeepAlivesAreIgnoredAndCounted) {
  SseParser parser;
  std::vector<std::string> data;
  parser.Feed(": ping\n\n: OPENROUTER PROCESSING\n\ndata: x\n: inside\n\n",
              [&](const SseEvent& e) { data.push_back(e.data); });
  EXPECT_EQ(data, std::vector<std::string>{"x"});
  EXPECT_EQ(parser.comments(), 3);
}

TEST(SseParser, AllThreeLineEndsWorkEvenWhenSplitBetweenReads) {
  const std::string text = "data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n";
  const std::vector<std::string> expected = {"a", "b", "c", "d"};
  EXPECT_EQ(Data(ParseWhole(text)), expected);
  EXPECT_EQ(Data(ParseByteByByte(text)), expected);
}

TEST(SseParser, EventSplitAtEveryPossibleByteGivesTheSameResult) {
  const std::string text = ": ping\r\n\r\nevent: delta\r\ndata: {\"x\": \"é\"}\r\nid: 7\r\n\r\n";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    std::vector<SseEvent> events;
    SseParser parser;
    auto add = [&](const SseEvent& e) { events.push_back(e); };
    parser.Feed(std::string_view(text).substr(0, cut), add);
    parser.Feed(std::string_view(text).substr(cut), add);
    ASSERT_EQ(events.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(events[0].data, "{\"x\": \"é\"}");
    EXPECT_EQ(events[0].event, "delta");
    EXPECT_EQ(events[0].id, "7");
  }
}

TEST(SseParser, FieldWithoutColonHasAnEmptyValueAndOnlyOneSpaceIsDropped) {
  const auto events = ParseWhole("data\ndata:  two spaces\ndata:none\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "\n two spaces\nnone");
}

TEST(SseParser, EventWithoutDataIsNotDispatchedAndItsTypeDoesNotLeak) {
  const auto events = ParseWhole("event: error\n\ndata: x\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "");
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseParser, UnfinishedEventAtTheEndIsReportedNotDispatched) {
  SseParser parser;
  int count = 0;
  parser.Feed("data: {\"choices\": [", [&](const SseEvent&) { ++count; });
  EXPECT_EQ(count, 0);
  EXPECT_TRUE(parser.has_partial_event());
  parser.Feed("]}\n\n", [&](const SseEvent&) { ++count; });
  EXPECT_EQ(count, 1);
  EXPECT_FALSE(parser.has_partial_event());
}

TEST(SseParser, LeadingByteOrderMarkIsSkipped) {
  EXPECT_EQ(Data(ParseByteByByte("\xEF\xBB\xBF"
                                 "data: x\n\n")),
            std::vector<std::string>{"x"});
}

TEST(SseParser, RetryAndUnknownFieldsAreIgnored) {
  EXPECT_EQ(Data(ParseWhole("retry: 100\nfoo: bar\ndata: x\n\n")), std::vector<std::string>{"x"});
}

}  // namespace
}  // namespace cookgraph
