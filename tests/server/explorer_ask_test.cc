// The explorer's ask box as a conversation (docs/commands.md#the-explorers-api):
// the thread the page sends with each question, checked as hostile input; the
// request it becomes (the earlier turns as user and assistant messages before
// the data message, the functions offered, the calls the model makes, a
// server that refuses them); and a page that leaves stopping the request to
// the endpoint, whether text is coming or not.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "server/ask_hooks.h"
#include "server/explorer.h"
#include "server/http_server.h"
#include "tests/fake_llm_server.h"
#include "tests/server/views.h"
#include "pipeline/pipeline.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace cookgraph::server {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// The events of a server-sent-event stream, in order.
std::vector<std::pair<std::string, json>> Events(const std::string& body) {
  std::vector<std::pair<std::string, json>> out;
  size_t at = 0;
  while (at < body.size()) {
    size_t end = body.find("\n\n", at);
    if (end == std::string::npos) end = body.size();
    std::string event = "message", data;
    size_t line = at;
    while (line < end) {
      size_t eol = body.find('\n', line);
      if (eol == std::string::npos || eol > end) eol = end;
      const std::string_view l(body.data() + line, eol - line);
      if (l.starts_with("event: ")) event = l.substr(7);
      if (l.starts_with("data: ")) data += l.substr(6);
      line = eol + 1;
    }
    if (!data.empty()) out.emplace_back(event, json::parse(data));
    at = end + 2;
  }
  return out;
}

std::string Pieces(const std::vector<std::pair<std::string, json>>& events) {
  std::string text;
  for (const auto& [name, data] : events) {
    if (name == "piece") text += data["text"].get<std::string>();
  }
  return text;
}

const json* Find(const std::vector<std::pair<std::string, json>>& events, const std::string& name) {
  for (const auto& [n, data] : events) {
    if (n == name) return &data;
  }
  return nullptr;
}

// What the stub hooks were given.
struct Seen {
  std::mutex mutex;
  std::vector<std::string> questions;
  std::vector<std::vector<Turn>> histories;
  size_t calls() {
    std::lock_guard<std::mutex> lock(mutex);
    return questions.size();
  }
};

AskHooks StubHooks(std::shared_ptr<Seen> seen) {
  AskHooks hooks;
  hooks.preview = [seen](const View&, const std::string& q,
                         const std::vector<Turn>& history) -> Result<PromptPreview> {
    std::lock_guard<std::mutex> lock(seen->mutex);
    seen->questions.push_back(q);
    seen->histories.push_back(history);
    return PromptPreview{
        .text = "p", .tokens = 1, .budget_tokens = 2, .model = "m", .earlier_sent = history.size()};
  };
  hooks.ask = [seen](const View&, const std::string& q, const std::vector<Turn>& history,
                     const AskEvents& events, std::atomic<bool>&) -> Result<AskSummary> {
    {
      std::lock_guard<std::mutex> lock(seen->mutex);
      seen->questions.push_back(q);
      seen->histories.push_back(history);
    }
    events.on_piece("ok");
    return AskSummary{.nodes = {"/a"}, .tokens = 5};
  };
  return hooks;
}

Explorer TdWith(AskHooks hooks) {
  Dataset d;
  d.views.push_back(LoadView(kTd));
  return Explorer(std::move(d), std::move(hooks));
}

json Turns(size_t n, size_t answer_bytes = 10) {
  json h = json::array();
  for (size_t i = 0; i < n; ++i) {
    h.push_back(
        {{"question", "q" + std::to_string(i)}, {"answer", std::string(answer_bytes, 'a')}});
  }
  return h;
}

TEST(ExplorerAsk, TheThreadIsCheckedBeforeAnythingIsAsked) {
  auto seen = std::make_shared<Seen>();
  Explorer ex = TdWith(StubHooks(seen));
  ExplorerServer server(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(server.Start());
  httplib::Client client("127.0.0.1", server.port());
  const ServeOptions o;
  struct Case {
    json history;
    int status;
    std::string says;
  };
  json long_question = Turns(1);
  long_question[0]["question"] = std::string(o.max_question_chars + 1, 'q');
  const std::vector<Case> cases = {
      {"not a list", 400, "history: give a list"},
      {json::object(), 400, "history: give a list"},
      {nullptr, 400, "history: give a list"},
      {42, 400, "history: give a list"},
      {Turns(o.max_history_turns + 1), 413, "history: 51 turns; at most 50"},
      {Turns(1, o.max_answer_bytes + 1), 413, "history[0].answer: longer than 65536 bytes"},
      {json::array({"q"}), 400, "history[0]: give"},
      {json::array({json::array({"q", "a"})}), 400, "history[0]: give"},
      {json::array({{{"question", 1}, {"answer", "a"}}}), 400,
       "history[0].question: give a string"},
      {json::array({{{"question", "q"}, {"answer", nullptr}}}), 400,
       "history[0].answer: give a string"},
      {json::array({{{"question", "q"}, {"answer", json::array({"a"})}}}), 400,
       "history[0].answer: give a string"},
      {json::array({{{"question", "q"}}}), 400, "history[0].answer: give a string"},
      {json::array({{{"question", ""}, {"answer", "a"}}}), 400, "history[0].question: empty"},
      {json::array({{{"question", "q"}, {"answer", "a"}, {"role", "system"}}}), 400,
       "history[0]: unknown member \"role\""},
      {json::array({{{"question", "q"}, {"answer", "a"}, {"stopped", "yes"}}}), 400,
       "history[0].stopped: give true or false"},
      {long_question, 413, "history[0].question: longer than 4000 bytes"},
  };
  for (const char* route : {"/api/v/0/ask", "/api/v/0/prompt"}) {
    for (const Case& c : cases) {
      const std::string body = json{{"question", "why?"}, {"history", c.history}}.dump();
      auto r = client.Post(route, body, "application/json");
      ASSERT_TRUE(r) << route;
      EXPECT_EQ(r->status, c.status) << route << " " << body.substr(0, 120);
      const json error = json::parse(r->body, nullptr, false);
      ASSERT_TRUE(error.is_object()) << r->body.substr(0, 200);
      EXPECT_NE(error.value("error", "").find(c.says), std::string::npos)
          << route << ": " << error.value("error", "") << " (expected " << c.says << ")";
    }
  }
  EXPECT_EQ(seen->calls(), 0u) << "a refused thread reached the hooks";

  // A question that is not a string, and a body past the bound.
  auto r = client.Post("/api/v/0/ask", R"({"question": ["why?"]})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = client.Post("/api/v/0/ask",
                  json{{"question", "q"}, {"pad", std::string(o.max_body_bytes, 'x')}}.dump(),
                  "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);

  // At the bounds: 50 turns, a 64 KiB answer, a stopped one; each reaches
  // the hooks as the turns sent, in order.
  json fifty = Turns(o.max_history_turns, 100);
  fifty[0]["answer"] = std::string(o.max_answer_bytes, 'b');
  fifty[49]["stopped"] = true;
  for (const char* route : {"/api/v/0/ask", "/api/v/0/prompt"}) {
    r = client.Post(route, json{{"question", "why?"}, {"history", fifty}}.dump(),
                    "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << route << ": " << r->body.substr(0, 200);
  }
  ASSERT_EQ(seen->calls(), 2u);
  for (const std::vector<Turn>& h : seen->histories) {
    ASSERT_EQ(h.size(), 50u);
    EXPECT_EQ(h[0].answer.size(), o.max_answer_bytes);
    EXPECT_EQ(h[1].question, "q1");
    EXPECT_FALSE(h[48].stopped);
    EXPECT_TRUE(h[49].stopped);
  }
  // Without a history (as before conversations): no earlier turn.
  r = client.Post("/api/v/0/ask", R"({"question": "why?"})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const auto events = Events(r->body);
  EXPECT_EQ(Pieces(events), "ok");
  const json* done = Find(events, "done");
  ASSERT_NE(done, nullptr) << r->body;
  EXPECT_EQ((*done)["nodes"], json::array({"/a"}));
  EXPECT_EQ((*done)["tokens"], 5);
  EXPECT_TRUE(seen->histories.back().empty());
  server.Stop();
}

class ExplorerAskEndpoint : public testing::FakeServerSuite {};

AdvisorSettings FakeSettings(const std::string& base_url) {
  AdvisorSettings s;
  s.endpoint.base_url = base_url;
  s.endpoint.api_key = "sk-test-explorer-key";
  s.endpoint.max_retries = 0;
  s.model = "fake-model";
  return s;
}

TEST_F(ExplorerAskEndpoint, EarlierTurnsGoAsUserAndAssistantMessagesBeforeTheDataMessage) {
  Explorer ex = TdWith(EndpointAskHooks(FakeSettings(server->Base("echo-question", "thread"))));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  httplib::Client client("127.0.0.1", http.port());
  const json history = json::array({
      {{"question", "Which node costs most?"}, {"answer", "The **feedback** loop."}},
      {{"question", "And the second?"},
       {"answer", "The blur, before you stopped me"},
       {"stopped", true}},
  });
  const std::string body =
      json{{"question", "What should I fix first?"}, {"history", history}}.dump();

  // The preview shows that request: the earlier turns, then the data message.
  auto p = client.Post("/api/v/0/prompt", body, "application/json");
  ASSERT_TRUE(p);
  ASSERT_EQ(p->status, 200) << p->body;
  const json preview = json::parse(p->body);
  EXPECT_EQ(preview["earlier_sent"], 2);
  EXPECT_EQ(preview["earlier_left_out"], 0);
  EXPECT_EQ(preview["tools"], 8);  // the tools that apply to the TouchDesigner example
  const std::string text = preview["text"];
  const size_t first = text.find("## user\n\nWhich node costs most?");
  const size_t answer = text.find("## assistant\n\nThe **feedback** loop.");
  const size_t data = text.find("Question: What should I fix first?");
  EXPECT_NE(first, std::string::npos) << text.substr(0, 2000);
  EXPECT_LT(first, answer);
  EXPECT_LT(answer, data);
  EXPECT_NE(text.find("## functions offered"), std::string::npos);
  EXPECT_LE(preview["tokens"].get<size_t>(), preview["budget_tokens"].get<size_t>());

  auto r = client.Post("/api/v/0/ask", body, "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const auto events = Events(r->body);
  EXPECT_EQ(Pieces(events), "What should I fix first?\n");  // echoed: the data message's end
  const json* done = Find(events, "done");
  ASSERT_NE(done, nullptr) << r->body;
  EXPECT_EQ((*done)["nodes"], json::array());
  EXPECT_EQ((*done)["earlier_left_out"], 0);
  EXPECT_EQ((*done)["requests"], 1);
  EXPECT_GT((*done)["tokens"].get<size_t>(), 0u);
  EXPECT_EQ((*done)["tokens"], preview["tokens"]) << "the preview is not the request sent";

  const std::vector<json> sent = server->Requests("echo-question", "thread");
  ASSERT_EQ(sent.size(), 1u);
  const json& messages = sent[0]["body"]["messages"];
  ASSERT_EQ(messages.size(), 6u) << messages.dump().substr(0, 2000);
  const std::vector<std::string> roles = {"system", "user",      "assistant",
                                          "user",   "assistant", "user"};
  for (size_t i = 0; i < roles.size(); ++i) EXPECT_EQ(messages[i]["role"], roles[i]) << i;
  EXPECT_EQ(messages[1]["content"], "Which node costs most?");
  EXPECT_EQ(messages[2]["content"], "The **feedback** loop.");
  EXPECT_EQ(messages[3]["content"], "And the second?");
  const std::string stopped = messages[4]["content"];
  EXPECT_TRUE(stopped.starts_with("The blur, before you stopped me")) << stopped;
  EXPECT_NE(stopped.find("stopped", std::string("The blur, before you stopped me").size()),
            std::string::npos)
      << "the request does not say the answer was stopped: " << stopped;
  const std::string last = messages[5]["content"];
  EXPECT_NE(last.find("/project1"), std::string::npos) << "the data message holds no network";
  EXPECT_TRUE(last.ends_with("Question: What should I fix first?\n"))
      << last.substr(last.size() - 200);
  ASSERT_EQ(sent[0]["body"]["tools"].size(), 8u);
  EXPECT_EQ(sent[0]["body"]["tools"][2]["function"]["name"], "node");
  EXPECT_EQ(sent[0]["body"]["tool_choice"], "auto");
  // The key went to the endpoint only.
  EXPECT_EQ(r->body.find("sk-test-explorer-key"), std::string::npos);
  EXPECT_EQ(p->body.find("sk-test-explorer-key"), std::string::npos);
  http.Stop();
}

// The page's follow-up is the request `ask --chat` sends after the same
// turn, byte for byte: the CLI asks two questions (its session file keeps the
// first answer), the explorer the second after that turn, with the settings
// the CLI resolves from the same environment.
TEST_F(ExplorerAskEndpoint, AFollowUpIsTheRequestAskChatSendsByteForByte) {
  const cookgraph::testing::TempDir dir;
  const std::map<std::string, std::string> env = {
      {"COOKGRAPH_BASE_URL", server->Base("echo-question", "cli")},
      {"COOKGRAPH_MODEL", "fake-model"},
      {"OPENAI_API_KEY", "sk-test-same-request"},
      {"OPENAI_BASE_URL", ""},
      {"HOME", dir.path()},
      {"XDG_CONFIG_HOME", dir.path()},
  };
  std::string command;
  for (const auto& [name, value] : env)
    command += name + "=" + cookgraph::testing::Quote(value) + " ";
  command += std::string(COOKGRAPH_BINARY) + " ask " + kTd + " --chat --session " +
             cookgraph::testing::Quote(dir / "chat.json") + " >/dev/null 2>" +
             cookgraph::testing::Quote(dir / "err") +
             " <<'EOF'\nWhich node costs most?\nAnd the second?\nEOF\n";
  ASSERT_EQ(std::system(command.c_str()), 0) << cookgraph::testing::Slurp(dir / "err");
  const json session = json::parse(cookgraph::testing::Slurp(dir / "chat.json"));
  ASSERT_EQ(session["turns"].size(), 2u);
  const std::vector<json> cli = server->Requests("echo-question", "cli");
  ASSERT_EQ(cli.size(), 2u);

  const Getenv getenv = [&env](const char* name) -> std::optional<std::string> {
    if (const auto it = env.find(name); it != env.end()) {
      return it->second.empty() ? std::nullopt : std::optional<std::string>(it->second);
    }
    return ProcessEnvironment()(name);
  };
  Result<AdvisorSettings> settings = ResolveSettings({}, getenv);
  ASSERT_TRUE(settings) << settings.error().Format();
  settings->endpoint.base_url = server->Base("echo-question", "page");
  // The view as `cookgraph serve` makes it: judged with the gains, as `ask` judges.
  Judged judged;
  const pipeline::Outcome read =
      pipeline::ReadAndJudge(Input{{std::string(COOKGRAPH_SOURCE_DIR) + "/" + kTd}}, {},
                             AnalysisOptions{.gains = true}, "", judged);
  ASSERT_TRUE(read) << read.failure().error.Format();
  Dataset data;
  data.views.push_back(MakeView(kTd, std::move(judged)));
  Explorer ex(std::move(data), EndpointAskHooks(*settings));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  httplib::Client client("127.0.0.1", http.port());
  const json& first = session["turns"][0];
  const json history =
      json::array({{{"question", first["question"]}, {"answer", first["answer"]}}});
  auto r = client.Post("/api/v/0/ask",
                       json{{"question", "And the second?"}, {"history", history}}.dump(),
                       "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::vector<json> page = server->Requests("echo-question", "page");
  ASSERT_EQ(page.size(), 1u);
  EXPECT_EQ(page[0]["raw"], cli[1]["raw"]) << "the page's follow-up is not ask --chat's";
  EXPECT_EQ(page[0]["body"]["messages"].size(), 4u);
  http.Stop();
}

TEST_F(ExplorerAskEndpoint, ATightBudgetLeavesTheOldestTurnsOutAndSaysSo) {
  AdvisorSettings s = FakeSettings(server->Base("echo-question", "tight"));
  s.budget_tokens = 6000;
  Explorer ex = TdWith(EndpointAskHooks(s, /*offer_tools=*/false));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  httplib::Client client("127.0.0.1", http.port());
  json history = json::array();
  for (int i = 0; i < 20; ++i) {
    std::string answer;
    for (int w = 0; w < 300; ++w) answer += "word" + std::to_string(i * 1000 + w) + " ";
    history.push_back({{"question", "question " + std::to_string(i)}, {"answer", answer}});
  }
  auto r = client.Post("/api/v/0/ask", json{{"question", "Last?"}, {"history", history}}.dump(),
                       "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  const auto events = Events(r->body);
  const json* done = Find(events, "done");
  ASSERT_NE(done, nullptr) << r->body.substr(0, 500);
  const size_t left_out = (*done)["earlier_left_out"];
  EXPECT_GT(left_out, 0u);
  EXPECT_LT(left_out, 19u) << "too tight a budget for the test: raise it";
  EXPECT_LE((*done)["tokens"].get<size_t>(), 6000u);
  const std::vector<json> sent = server->Requests("echo-question", "tight");
  ASSERT_EQ(sent.size(), 1u);
  const json& messages = sent[0]["body"]["messages"];
  EXPECT_FALSE(sent[0]["body"].contains("tools"));
  // The newest turns are kept, the oldest left out.
  ASSERT_EQ(messages.size(), 2 + 2 * (20 - left_out));
  EXPECT_EQ(messages[1]["content"], "question " + std::to_string(left_out));
  EXPECT_EQ(messages[messages.size() - 3]["content"], "question 19");
  EXPECT_NE(messages.back()["content"].get<std::string>().find("left out"), std::string::npos)
      << "the data message does not say which turns were left out";
  http.Stop();
}

// A chat-completions endpoint in this process that plays a model: it calls
// the tool `node` on `node` while functions are offered and no result came back yet,
// then answers; with `refuse_tools`, any request offering functions gets the
// 400 of a server without them.
class Model {
 public:
  Model(std::string node, bool refuse_tools) : node_(std::move(node)), refuse_(refuse_tools) {
    http_.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
      const json body = json::parse(req.body);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(body);
      }
      if (refuse_ && body.contains("tools")) {
        res.status = 400;
        res.set_content(
            R"({"error":{"message":"tools is not supported by this model","type":"invalid_request_error"}})",
            "application/json");
        return;
      }
      bool answered = false;
      for (const json& m : body["messages"]) answered |= m["role"] == "tool";
      json message = {{"role", "assistant"}, {"content", "The answer: " + node_ + " costs most."}};
      std::string finish = "stop";
      if (body.contains("tools") && !answered) {
        message = {
            {"role", "assistant"},
            {"content", "Let me look."},
            {"tool_calls",
             json::array({{{"id", "call_1"},
                           {"type", "function"},
                           {"function",
                            {{"name", "node"}, {"arguments", json{{"id", node_}}.dump()}}}}})}};
        finish = "tool_calls";
      }
      res.set_content(
          json{{"id", "x"},
               {"object", "chat.completion"},
               {"choices",
                json::array({{{"index", 0}, {"message", message}, {"finish_reason", finish}}})}}
              .dump(),
          "application/json");
    });
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
  }
  ~Model() {
    http_.stop();
    thread_.join();
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::vector<json> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }

 private:
  std::string node_;
  bool refuse_;
  httplib::Server http_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<json> requests_;
};

TEST(ExplorerAskTools, TheModelsCallsAreRunOnTheViewAndShownAsTheyHappen) {
  Explorer probe = TdWith({});
  const View& v = *probe.data()->views[0];
  const std::string top = v.snapshot.network.node(v.rank[5]).id;  // not the first: any node
  Model model(top, /*refuse_tools=*/false);
  AdvisorSettings s = FakeSettings(model.base());
  s.stream = false;
  Explorer ex = TdWith(EndpointAskHooks(s));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  httplib::Client client("127.0.0.1", http.port());
  auto r = client.Post("/api/v/0/ask", R"({"question": "Which node?"})", "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  const auto events = Events(r->body);
  // The words before the call come first, then the call, then the answer.
  std::vector<std::string> order;
  for (const auto& [name, data] : events) order.push_back(name);
  ASSERT_GE(order.size(), 4u) << r->body;
  EXPECT_EQ(order.front(), "piece");
  EXPECT_EQ(events[0].second["text"], "Let me look.");
  const json* tool = Find(events, "tool");
  ASSERT_NE(tool, nullptr) << r->body;
  EXPECT_EQ((*tool)["name"], "node");
  EXPECT_EQ(json::parse((*tool)["arguments"].get<std::string>()), json({{"id", top}}));
  EXPECT_EQ(order.back(), "done");
  std::string after;  // the answer: the text after the call
  for (size_t i = 0, seen_tool = 0; i < events.size(); ++i) {
    if (events[i].first == "tool") seen_tool = 1;
    if (seen_tool && events[i].first == "piece")
      after += events[i].second["text"].get<std::string>();
  }
  EXPECT_EQ(after, "The answer: " + top + " costs most.");
  const json* done = Find(events, "done");
  EXPECT_EQ((*done)["nodes"], json::array({top}));
  EXPECT_EQ((*done)["requests"], 2);
  EXPECT_EQ((*done)["tool_calls"], 1);
  // The second request carried the result: the node's statistics from this view.
  const std::vector<json> sent = model.requests();
  ASSERT_EQ(sent.size(), 2u);
  const json& result = sent[1]["messages"].back();
  EXPECT_EQ(result["role"], "tool");
  EXPECT_EQ(result["tool_call_id"], "call_1");
  const json object = json::parse(result["content"].get<std::string>());
  EXPECT_EQ(object["id"], top) << "not the node's object: " << result["content"];
  EXPECT_EQ(object["rank"], 6);
  http.Stop();
}

TEST(ExplorerAskTools, AServerThatRefusesFunctionsIsAskedWithoutThemFromThenOn) {
  Model model("/project1/x", /*refuse_tools=*/true);
  AdvisorSettings s = FakeSettings(model.base());
  s.stream = false;
  Explorer ex = TdWith(EndpointAskHooks(s));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  httplib::Client client("127.0.0.1", http.port());
  for (int i = 0; i < 2; ++i) {
    auto r = client.Post("/api/v/0/ask", R"({"question": "Which node?"})", "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200);
    EXPECT_NE(Find(Events(r->body), "done"), nullptr) << r->body;
  }
  const std::vector<json> sent = model.requests();
  ASSERT_EQ(sent.size(), 3u);  // with, then without; then without at once
  EXPECT_TRUE(sent[0].contains("tools"));
  EXPECT_FALSE(sent[1].contains("tools"));
  EXPECT_FALSE(sent[2].contains("tools"));
  // The preview no longer offers them either.
  auto p = client.Post("/api/v/0/prompt", R"({"question": "q"})", "application/json");
  ASSERT_TRUE(p);
  EXPECT_EQ(json::parse(p->body)["tools"], 0);
  http.Stop();
}

// An endpoint in this process that streams a piece every 50 ms for 30 s
// (`silent`: sends nothing at all for 30 s) and notes when its client left.
class SlowModel {
 public:
  explicit SlowModel(bool silent) {
    http_.Post(
        "/v1/chat/completions", [this, silent](const httplib::Request&, httplib::Response& res) {
          requests_.fetch_add(1);
          res.set_chunked_content_provider(
              "text/event-stream", [this, silent](size_t, httplib::DataSink& sink) {
                const std::string piece =
                    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"more \"}}]}\n\n";
                for (int i = 0; i < 600 && !release_.load(); ++i) {
                  if (!silent && !sink.write(piece.data(), piece.size())) {
                    std::lock_guard<std::mutex> lock(mutex_);
                    client_left_ = Clock::now();
                    return false;
                  }
                  std::this_thread::sleep_for(std::chrono::milliseconds(50));
                }
                return false;
              });
        });
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
  }
  ~SlowModel() {
    release_.store(true);
    http_.stop();
    thread_.join();
  }
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int requests() const { return requests_.load(); }
  std::optional<Clock::time_point> client_left() {
    std::lock_guard<std::mutex> lock(mutex_);
    return client_left_;
  }

 private:
  httplib::Server http_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> release_{false};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::optional<Clock::time_point> client_left_;
};

// Opens /api/v/0/ask as a page would, reads until `until` came (or 20 s), and
// closes the connection: the page has gone.
void AskAndLeave(int port, const std::string& until) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{.sin_family = AF_INET,
                      .sin_port = htons(static_cast<uint16_t>(port)),
                      .sin_addr = {htonl(INADDR_LOOPBACK)}};
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string body = R"({"question": "Tell me everything."})";
  const std::string request =
      "POST /api/v/0/ask HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  ASSERT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  timeval timeout{.tv_sec = 20, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  std::string got;
  char buffer[4096];
  while (got.find(until) == std::string::npos) {
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    got.append(buffer, static_cast<size_t>(n));
  }
  EXPECT_NE(got.find(until), std::string::npos) << got.substr(0, 500);
  close(fd);
}

// Runs the endpoint's hooks under a wrapper that notes how the ask ended.
struct Watched {
  std::mutex mutex;
  std::optional<Clock::time_point> ended;
  std::optional<Error> error;
};

AskHooks WatchedHooks(AskHooks inner, std::shared_ptr<Watched> w) {
  AskHooks hooks = inner;
  hooks.ask = [inner, w](const View& v, const std::string& q, const std::vector<Turn>& h,
                         const AskEvents& e, std::atomic<bool>& stop) -> Result<AskSummary> {
    Result<AskSummary> r = inner.ask(v, q, h, e, stop);
    std::lock_guard<std::mutex> lock(w->mutex);
    w->ended = Clock::now();
    if (!r) w->error = r.error();
    return r;
  };
  return hooks;
}

void ExpectStoppedSoon(const std::shared_ptr<Watched>& w, Clock::time_point left) {
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard<std::mutex> lock(w->mutex);
      if (w->ended) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::lock_guard<std::mutex> lock(w->mutex);
  ASSERT_TRUE(w->ended) << "the ask went on 10 s after the page left";
  EXPECT_LT(*w->ended - left, std::chrono::seconds(5));
  ASSERT_TRUE(w->error);
  EXPECT_EQ(w->error->where, kStoppedWhere) << w->error->Format();
}

TEST(ExplorerAskStop, APageThatLeavesWhileTheAnswerStreamsStopsTheRequest) {
  std::signal(SIGPIPE, SIG_IGN);
  SlowModel model(/*silent=*/false);
  auto watched = std::make_shared<Watched>();
  Explorer ex = TdWith(WatchedHooks(EndpointAskHooks(FakeSettings(model.base()), false), watched));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  AskAndLeave(http.port(), "event: piece");
  const Clock::time_point left = Clock::now();
  ExpectStoppedSoon(watched, left);
  // The endpoint saw its client go: the request ended, not only the stream to the page.
  for (int i = 0; i < 100 && !model.client_left(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(model.client_left()) << "the request to the endpoint went on";
  EXPECT_LT(*model.client_left() - left, std::chrono::seconds(5));
  EXPECT_EQ(model.requests(), 1);
  http.Stop();
}

TEST(ExplorerAskStop, APageThatLeavesWhileTheModelIsSilentStopsTheRequest) {
  std::signal(SIGPIPE, SIG_IGN);
  SlowModel model(/*silent=*/true);
  auto watched = std::make_shared<Watched>();
  Explorer ex = TdWith(WatchedHooks(EndpointAskHooks(FakeSettings(model.base()), false), watched));
  ExplorerServer http(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(http.Start());
  // The headers, then the first keep-alive comment after a second of silence.
  AskAndLeave(http.port(), ": waiting");
  const Clock::time_point left = Clock::now();
  ExpectStoppedSoon(watched, left);
  EXPECT_EQ(model.requests(), 1);
  http.Stop();
}

}  // namespace
}  // namespace cookgraph::server
