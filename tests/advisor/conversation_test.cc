// Conversations (advisor/conversation.h): the session file round trip and its
// errors, the token rule of a request with functions, and how turns, the data
// and this turn's function calls share the budget.
#include "advisor/conversation.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adapters/native/snapshot_reader.h"
#include "advisor/judge.h"
#include "advisor/tools.h"
#include "pipeline/pipeline.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

Session Sample() {
  Session s{.input = "examples/pytorch_model.json", .model = "gpt-4o"};
  Turn one{.question = "What should I fix first?", .answer = "Fix /a: it takes 3 ms."};
  ToolRound round{.content = ""};
  round.calls.push_back(ToolExchange{
      .call = {.id = "call_1", .name = "node", .arguments = R"({"id":"/a"})"},
      .result = R"({"id":"/a"})",
      .nodes = {"/a"}});
  one.rounds.push_back(round);
  s.turns.push_back(one);
  s.turns.push_back(Turn{.question = "And \"quotes\", ünïcode?", .answer = "", .stopped = true});
  return s;
}

TEST(SessionFile, RoundTripsByteForByte) {
  const Session s = Sample();
  const std::string text = SessionJson(s);
  Result<Session> back = ParseSession(text, "s.json");
  ASSERT_TRUE(back) << back.error().Format();
  EXPECT_EQ(SessionJson(*back), text);
  ASSERT_EQ(back->turns.size(), 2u);
  EXPECT_EQ(back->turns[0].rounds.at(0).calls.at(0).call.arguments, R"({"id":"/a"})");
  EXPECT_TRUE(back->turns[1].stopped);
  EXPECT_EQ(text.back(), '\n');
}

TEST(SessionFile, SavesAtomicallyAndLoadsAMissingFileAsEmpty) {
  testing::TempDir dir;
  Result<Session> folder = LoadSession(dir.path());
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().Format().find("is a folder, not a session file"), std::string::npos);
  const std::string path = dir.path() + "/chat.json";
  Result<Session> empty = LoadSession(path);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->turns.empty());
  ASSERT_TRUE(SaveSession(path, Sample()));
  Result<Session> loaded = LoadSession(path);
  ASSERT_TRUE(loaded) << loaded.error().Format();
  EXPECT_EQ(SessionJson(*loaded), SessionJson(Sample()));
}

// A turn is added to what the file holds at the time of saving, under the
// lock file; a writer that cannot get the lock waits, then fails naming the
// file, and writes nothing.
TEST(SessionFile, AppendingAddsToWhatTheFileHoldsNowUnderABoundedLock) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/chat.json";
  const Turn mine{.question = "Mine?", .answer = "Yes."};
  ASSERT_TRUE(AppendSessionTurns(path, "a.json", "m1", {mine}));
  // Another run saved its turns since this one read the file.
  Session other = Sample();
  other.turns.insert(other.turns.begin(), mine);
  ASSERT_TRUE(SaveSession(path, other));
  ASSERT_TRUE(AppendSessionTurns(path, "b.json", "m2", {mine, mine}));
  Result<Session> loaded = LoadSession(path);
  ASSERT_TRUE(loaded) << loaded.error().Format();
  EXPECT_EQ(loaded->input, "b.json");
  EXPECT_EQ(loaded->model, "m2");
  ASSERT_EQ(loaded->turns.size(), 5u);
  EXPECT_EQ(loaded->turns[1].question, "What should I fix first?");
  EXPECT_EQ(loaded->turns[4].question, "Mine?");
  const std::string before = SessionJson(*loaded);

  const int held = open((path + ".lock").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(held, 0) << "the lock file stays";
  ASSERT_EQ(flock(held, LOCK_EX), 0);
  const auto start = std::chrono::steady_clock::now();
  const Status busy =
      AppendSessionTurns(path, "b.json", "m2", {mine}, std::chrono::milliseconds(300));
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().file, path);
  EXPECT_NE(busy.error().message.find("held the session's lock (" + path + ".lock) for 0.3 s"),
            std::string::npos)
      << busy.error().message;
  EXPECT_NE(busy.error().message.find("this turn was not saved"), std::string::npos);
  EXPECT_GE(waited, 0.3);
  EXPECT_LT(waited, 5.0);
  Result<Session> unchanged = LoadSession(path);
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(SessionJson(*unchanged), before);

  close(held);  // lets go of the lock
  ASSERT_TRUE(AppendSessionTurns(path, "b.json", "m2", {mine}, std::chrono::milliseconds(300)));
  Result<Session> after = LoadSession(path);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->turns.size(), 6u);
}

TEST(SessionFile, ErrorsNameTheFileAndTheMember) {
  struct Case {
    std::string text, expected;
  } cases[] = {
      {"{", "s.json:1:2: not JSON"},
      {"[]", "s.json: a session file is a JSON object"},
      {R"({"turns":[]})", "\"cookgraph_session\" is missing"},
      {R"({"cookgraph_session":2,"turns":[]})", "cookgraph_session: version 2"},
      {R"({"cookgraph_session":1,"turns":{}})", "turns: must be a list"},
      {R"({"cookgraph_session":1,"turns":[{"answer":"x"}]})", "turns[0]: \"question\" is missing"},
      {R"({"cookgraph_session":1,"turns":[{"question":" ","answer":""}]})",
       "turns[0].question: is empty"},
      {R"({"cookgraph_session":1,"turns":[{"question":"q","answer":1}]})",
       "turns[0].answer: must be a string"},
      {R"({"cookgraph_session":1,"turns":[{"question":"q","answer":"","extra":1}]})",
       "turns[0].extra: is not a member"},
      {R"({"cookgraph_session":1,"turns":[{"question":"q","answer":"","rounds":[{"calls":[{"id":"1"}]}]}]})",
       "turns[0].rounds[0].calls[0]: \"name\" is missing"},
      {"{\"cookgraph_session\":1,\"turns\":[],\"input\":\"\xff\"}", "byte 43 is not UTF-8"},
      {R"({"cookgraph_session":1e400,"turns":[]})", "s.json: not a session file: it holds a value"},
      {R"({"cookgraph_session":[[[[1]]]],"turns":[]})", "cookgraph_session: must be the number 1"},
  };
  for (const Case& c : cases) {
    Result<Session> r = ParseSession(c.text, "s.json");
    ASSERT_FALSE(r) << c.text;
    EXPECT_NE(r.error().Format().find(c.expected), std::string::npos)
        << c.text << " gave " << r.error().Format();
  }
}

// Counts one token per byte: easy to reason about, and exact enough for the
// budget arithmetic (the rule is what matters, not the tokenizer).
class ByteCounter : public TokenCounter {
 public:
  size_t Count(std::string_view text) const override { return text.size(); }
  bool exact() const override { return true; }
  std::string Describe() const override { return "bytes"; }
};

TEST(RequestTokens, FollowTheDocumentedRule) {
  const ByteCounter c;
  ChatRequest r;
  r.messages.push_back({.role = "user", .content = "hello"});
  ChatMessage a{.role = "assistant", .content = ""};
  a.tool_calls.push_back({.id = "c1", .name = "node", .arguments = "{}"});
  r.messages.push_back(a);
  r.messages.push_back({.role = "tool", .content = "{\"x\":1}", .tool_call_id = "c1"});
  r.tools.push_back({.name = "f", .description = "d", .parameters = "{ \"type\" : \"object\" }"});
  // 3 + (3+4+5) + (3+9+0 + 3+2+4+2) + (3+4+7+2) + (3+1+1+17: parameters as sent, compact)
  EXPECT_EQ(CountRequestTokens(c, r), 3u + 12 + 23 + 16 + 22);
  // The body carries the parameters as the count has them.
  EXPECT_NE(RequestBody(r).find(R"("parameters":{"type":"object"})"), std::string::npos);
}

struct Loaded {
  Judged judged;
  PromptInput Input(const std::string& question) const {
    return PromptInput{.file = "pytorch_model.json",
                       .snapshot = judged.snapshot,
                       .analysis = judged.analysis,
                       .pack = judged.pack,
                       .findings = judged.findings,
                       .question = question,
                       .gains = &judged.gains};
  }
};

std::unique_ptr<Loaded> Load(const std::string& name) {
  auto l = std::make_unique<Loaded>();
  Result<Snapshot> s =
      ReadSnapshotFile(std::string(COOKGRAPH_SOURCE_DIR) + "/examples/" + name + ".json");
  EXPECT_TRUE(s) << s.error().Format();
  if (s) l->judged.snapshot = std::move(*s);
  EXPECT_TRUE(pipeline::JudgeSnapshot(l->judged, AnalysisOptions{.gains = true}, ""));
  return l;
}

std::vector<Turn> LongTurns(size_t n, size_t answer_bytes) {
  std::vector<Turn> turns;
  for (size_t i = 0; i < n; ++i) {
    turns.push_back(Turn{.question = "question " + std::to_string(i + 1),
                         .answer = std::string(answer_bytes, 'a')});
  }
  return turns;
}

TEST(TurnRequest, StaysWithinTheBudgetAndLeavesTheOldestTurnsOut) {
  const auto l = Load("pytorch_model");
  const auto est = MakeEstimator();
  AdvisorSettings s;
  s.model = "gpt-4o";
  const AnalysisTools tools(l->judged, "pytorch_model.json");
  const std::vector<Turn> earlier = LongTurns(6, 4000);
  for (size_t budget : {6000u, 12000u, 20000u, 60000u}) {
    const ConversationLimits limits{.budget_tokens = budget};
    Result<TurnRequest> r = BuildTurnRequest(l->Input("and now?"), earlier, {}, tools.specs(), s,
                                             *est, limits);
    ASSERT_TRUE(r) << budget << ": " << r.error().Format();
    EXPECT_LE(r->tokens, budget);
    EXPECT_EQ(r->tokens, CountRequestTokens(*est, r->request));
    EXPECT_EQ(r->earlier_sent + r->earlier_left_out, 6u);
    // The newest turns are the ones kept, in order, before the data message.
    const auto& m = r->request.messages;
    ASSERT_EQ(m.size(), 2 + 2 * r->earlier_sent);
    EXPECT_EQ(m.front().role, "system");
    if (r->earlier_sent > 0) {
      EXPECT_EQ(m[1].content, "question " + std::to_string(r->earlier_left_out + 1));
      EXPECT_EQ(m[m.size() - 3].content, "question 6");
    }
    const std::string& data = m.back().content;
    EXPECT_NE(data.find("This is turn 7 of a conversation"), std::string::npos);
    if (r->earlier_left_out > 0) {
      EXPECT_NE(data.find("left out for the token budget; "), std::string::npos) << budget;
    }
    EXPECT_TRUE(data.ends_with("Question: and now?\n"));
  }
  // A small budget keeps fewer turns than a large one.
  Result<TurnRequest> small = BuildTurnRequest(l->Input("q"), earlier, {}, tools.specs(), s, *est,
                                               ConversationLimits{.budget_tokens = 6000});
  Result<TurnRequest> large = BuildTurnRequest(l->Input("q"), earlier, {}, tools.specs(), s, *est,
                                               ConversationLimits{.budget_tokens = 60000});
  ASSERT_TRUE(small && large);
  EXPECT_LT(small->earlier_sent, large->earlier_sent);
  EXPECT_EQ(large->earlier_left_out, 0u);
}

TEST(TurnRequest, ThisTurnsCallsFollowTheDataAndTheFunctionsGoWhenNothingElseFits) {
  const auto l = Load("touchdesigner_feedback");
  const auto est = MakeEstimator();
  AdvisorSettings s;
  s.model = "gpt-4o";
  const AnalysisTools tools(l->judged, "td.json");
  ToolRound round;
  round.calls.push_back(ToolExchange{.call = {.id = "c1", .name = "node", .arguments = "{}"},
                                     .result = R"({"error":"x"})"});
  Result<TurnRequest> r = BuildTurnRequest(l->Input("q"), {}, {round}, tools.specs(), s, *est,
                                           ConversationLimits{.budget_tokens = 20000});
  ASSERT_TRUE(r) << r.error().Format();
  const auto& m = r->request.messages;
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[2].role, "assistant");
  EXPECT_EQ(m[2].tool_calls.at(0).id, "c1");
  EXPECT_EQ(m[3].role, "tool");
  EXPECT_EQ(m[3].tool_call_id, "c1");
  EXPECT_TRUE(r->tools_offered);
  EXPECT_EQ(r->request.tools.size(), tools.specs().size());
  // The body says so in OpenAI's words.
  const nlohmann::json body = nlohmann::json::parse(RequestBody(r->request));
  EXPECT_TRUE(body["messages"][2]["content"].is_null());
  EXPECT_EQ(body["messages"][2]["tool_calls"][0]["function"]["name"], "node");
  EXPECT_EQ(body["messages"][3]["tool_call_id"], "c1");
  EXPECT_EQ(body["tool_choice"], "auto");
  // Without functions offered, the same request holds none.
  Result<TurnRequest> plain = BuildTurnRequest(l->Input("q"), {}, {}, {}, s, *est,
                                               ConversationLimits{.budget_tokens = 20000});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->tools_offered);
  EXPECT_FALSE(nlohmann::json::parse(RequestBody(plain->request)).contains("tools"));
  // The first turn without functions is the one-shot prompt, byte for byte.
  Result<Prompt> prompt = BuildPrompt(l->Input("q"), *est, 20000);
  ASSERT_TRUE(prompt);
  ASSERT_EQ(plain->request.messages.size(), 2u);
  EXPECT_EQ(plain->request.messages[1].content, prompt->messages[1].content);
  EXPECT_EQ(plain->tokens, prompt->tokens);
}

}  // namespace
}  // namespace cookgraph
