#include "web/page_ask.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "advisor/conversation.h"
#include "advisor/llm/chat_response.h"
#include "advisor/llm/secret_filter.h"
#include "advisor/llm/sse.h"
#include "advisor/settings.h"
#include "base/text.h"
#include "server/ask_prompt.h"

namespace cookgraph::web {
namespace {

// As the server's "done" and "tool" events (server/http_server.cc).
constexpr size_t kMaxDoneNodes = 200;
constexpr size_t kMaxToolArgumentBytes = 2000;
// An error body is read this far, as the native client does.
constexpr size_t kMaxErrorBody = size_t{1} << 20;
// Where the worker writes the rank files the page carries (web/worker.js).
constexpr const char* kRanksDir = "/ranks/";

// The settings the Ask tab gives, over the defaults of `ask` with nothing
// configured (no config file, no environment: the page has neither).
AdvisorSettings SettingsOf(const json& request) {
  const json s = request.value("settings", json::object());
  if (!s.is_object()) throw BadOption{"settings: give an object"};
  static constexpr const char* kKeys[] = {"base_url",      "model",   "api_key",
                                          "budget_tokens", "persona", "tools"};
  for (const auto& item : s.items()) {
    if (std::none_of(std::begin(kKeys), std::end(kKeys),
                     [&item](const char* k) { return item.key() == k; })) {
      throw BadOption{"settings: unknown member '" + item.key().substr(0, 40) +
                      "' (known: base_url, model, api_key, budget_tokens, persona, tools)"};
    }
  }
  AdvisorSettings out;
  if (auto url = Option<std::string>(s, "base_url"); url && !url->empty()) {
    out.endpoint.base_url = *url;
    out.base_url_from = "the page's settings";
  }
  if (auto model = Option<std::string>(s, "model"); model && !model->empty()) {
    out.model = *model;
    out.model_from = "the page's settings";
  }
  if (auto key = Option<std::string>(s, "api_key"); key && !key->empty()) {
    out.endpoint.api_key = *key;
    out.api_key_from = "the page's settings";
  }
  if (auto budget = Option<double>(s, "budget_tokens")) {
    if (!(*budget >= 1 && *budget <= 1e7 && std::floor(*budget) == *budget)) {
      throw BadOption{"budget_tokens: a whole number of tokens from 1 to 10000000"};
    }
    out.budget_tokens = static_cast<size_t>(*budget);
  }
  if (auto persona = Option<std::string>(s, "persona"); persona && !persona->empty()) {
    const std::optional<Persona> p = ParsePersona(*persona);
    if (!p) throw BadOption{"persona: expected " + PersonaNames()};
    out.persona = *p;
  }
  ApplyDefaults(out);
  // The rank file of the model's encoding, as `ask` finds the one installed
  // with cookgraph.
  out.tokenizer =
      std::string(kRanksDir) + std::string(EncodingName(EncodingForModel(out.model))) + ".tiktoken";
  return out;
}

// Token counters, opened once per rank file (a counter keeps no state).
Result<const TokenCounter*> CounterFor(const AdvisorSettings& settings) {
  static std::map<std::string, std::unique_ptr<TokenCounter>> counters;
  auto& slot = counters[settings.tokenizer];
  if (!slot) {
    Result<std::unique_ptr<TokenCounter>> opened = OpenTokenCounter(settings);
    if (!opened) return opened.error();
    slot = std::move(*opened);
  }
  return slot.get();
}

// The view a request names, kept alive while a question about it is answered.
struct ViewRef {
  std::shared_ptr<const server::Dataset> data;
  std::shared_ptr<const server::View> view;
};

std::optional<ViewRef> ViewOf(const server::Explorer* explorer, const json& request,
                              Reply& reply) {
  if (explorer == nullptr) {
    reply.Fail(Error{.message = "no input is open"}, kExitInput);
    return std::nullopt;
  }
  ViewRef ref{.data = explorer->data()};
  const std::optional<double> v = Option<double>(request, "view");
  const double index = v.value_or(0);
  if (!(index >= 0 && std::floor(index) == index && index < ref.data->views.size())) {
    reply.Fail(Error{.message = "no such view"}, kExitInput);
    return std::nullopt;
  }
  ref.view = ref.data->views[static_cast<size_t>(index)];
  return ref;
}

std::optional<server::AskBody> BodyOf(const json& request, bool question_required, Reply& reply) {
  json body = json::object();
  for (const char* key : {"question", "history"}) {
    if (request.contains(key)) body[key] = request[key];
  }
  std::variant<server::AskBody, server::Refusal> parsed =
      server::ParseAskBody(body.dump(), server::AskBounds{}, question_required);
  if (const auto* refused = std::get_if<server::Refusal>(&parsed)) {
    reply.Fail(Error{.where = "ask", .message = refused->message}, kExitInput);
    return std::nullopt;
  }
  return std::get<server::AskBody>(std::move(parsed));
}

// What a preview or a question is asked with: the settings, the view, the
// question and its thread, the counter, whether functions are offered.
struct Question {
  AdvisorSettings settings;
  ViewRef ref;
  server::AskBody body;
  const TokenCounter* counter = nullptr;
  bool tools = true;
};

std::optional<Question> QuestionOf(const server::Explorer* explorer, const json& request,
                                   bool question_required, Reply& reply) {
  Question q{.settings = SettingsOf(request)};
  std::optional<ViewRef> ref = ViewOf(explorer, request, reply);
  if (!ref) return std::nullopt;
  q.ref = std::move(*ref);
  std::optional<server::AskBody> body = BodyOf(request, question_required, reply);
  if (!body) return std::nullopt;
  q.body = std::move(*body);
  Result<const TokenCounter*> counter = CounterFor(q.settings);
  if (!counter) {
    reply.Fail(counter.error(), kExitInput);
    return std::nullopt;
  }
  q.counter = *counter;
  q.tools = Option<bool>(request.value("settings", json::object()), "tools").value_or(true);
  return q;
}

// The question being answered, between the worker's fetches.
struct PageTurn {
  ViewRef ref;
  AdvisorSettings settings;
  std::unique_ptr<TurnDriver> driver;
  SecretFilter filter{""};
  size_t tool_calls = 0;
  size_t earlier_left_out = 0;

  // The request in flight and its response so far.
  ChatRequest sent;
  bool dropped_stream_options = false;
  long status = 0;
  bool events = false;  // read as server-sent events, else as one body
  SseParser sse;
  std::unique_ptr<ChatStream> stream;
  std::string body;     // a whole answer, or the start of an error body
  size_t received = 0;  // bytes of the response
  std::string too_big;  // set once the response crossed its bound

  // What the next reply gives the page.
  std::string text;  // answer text, the key redacted
  json tools = json::array();
  bool round_flushed = false;
};
std::unique_ptr<PageTurn> g_turn;

json SendStep(PageTurn& t) {
  const Endpoint& e = t.settings.endpoint;
  t.status = 0;
  t.events = false;
  t.sse = SseParser();
  t.stream = std::make_unique<ChatStream>(e.api_key, e.max_answer_bytes);
  t.body.clear();
  t.received = 0;
  t.too_big.clear();
  json headers = {{"Content-Type", "application/json"}};
  if (!e.api_key.empty()) {
    if (e.azure) headers["api-key"] = e.api_key;
    else headers["Authorization"] = "Bearer " + e.api_key;
  }
  return json{{"url", ChatUrl(e)}, {"headers", headers}, {"body", RequestBody(t.sent)}};
}

// The next step of the turn: the next request, or how the turn ended.
void Step(Reply& reply) {
  PageTurn& t = *g_turn;
  json step;
  if (std::optional<TurnRequest> next = t.driver->Next()) {
    t.earlier_left_out = std::max(t.earlier_left_out, next->earlier_left_out);
    t.round_flushed = false;  // a new request: its text is new
    t.sent = std::move(next->request);
    if (t.dropped_stream_options) t.sent.include_usage = false;
    step["send"] = SendStep(t);
    step["tokens"] = next->tokens;
  } else {
    const TurnOutcome& out = t.driver->outcome();
    std::optional<Error> error = out.error;
    if (!error && (!out.result || out.result->content.empty())) {
      error = Error{.message = t.settings.model + " sent no answer text"};
    }
    if (error) {
      step["error"] = {{"message", error->Format()}, {"stopped", error->where == kStoppedWhere}};
    } else {
      t.text += t.filter.Finish();
      const std::vector<std::string> nodes = NodesLookedAt(out.turn);
      json listed = json::array();
      for (size_t i = 0; i < nodes.size() && i < kMaxDoneNodes; ++i) listed.push_back(nodes[i]);
      step["done"] = {{"nodes", listed},
                      {"nodes_total", nodes.size()},
                      {"tokens", out.max_request_tokens},
                      {"earlier_left_out", t.earlier_left_out},
                      {"requests", out.requests},
                      {"tool_calls", t.tool_calls}};
    }
  }
  step["text"] = std::exchange(t.text, "");
  step["tools"] = std::exchange(t.tools, json::array());
  if (!step.contains("send")) g_turn.reset();
  reply.text = step.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool Running(Reply& reply) {
  if (g_turn) return true;
  reply.Fail(Error{.where = "ask", .message = "no question is being answered"}, kExitInput);
  return false;
}

// What the response in flight came to: the answer, or why not.
Result<ChatResult> Outcome(PageTurn& t, const json& request) {
  const Endpoint& e = t.settings.endpoint;
  const std::string url = UrlForMessages(ChatUrl(e));
  const auto fail = [&](const std::string& problem) {
    return Error{.where = kEndpointErrorWhere, .message = Redact(url + ": " + problem, e.api_key)};
  };
  if (Option<bool>(request, "stopped").value_or(false)) {
    return Error{.where = kStoppedWhere, .message = "stopped"};
  }
  if (!t.too_big.empty()) return fail(t.too_big);
  if (const auto failed = Option<std::string>(request, "failed")) {
    if (t.status == 0) {
      return fail("the browser could not send the request (" + *failed +
                  "): is the server running, and does it allow requests from this page "
                  "(CORS, docs/web.md#asking-from-the-page)?");
    }
    return fail("the answer stopped before its end (" + *failed + ")");
  }
  const bool success = t.status >= 200 && t.status < 300;
  if (t.events) {
    ChatStream& s = *t.stream;
    if (s.failed()) return fail(s.error());
    // A clean end after the finish reason is accepted without [DONE], as the
    // native client accepts it.
    if (!s.done() && s.result().finish_reason.empty()) return fail("stream ended before [DONE]");
    ChatResult result = std::move(s.result());
    std::erase_if(result.tool_calls, [](const ToolCall& c) { return c.name.empty(); });
    result.attempts = 1;
    return result;
  }
  if (!success) {
    if (RefusesTools(t.sent, t.status, t.body)) {
      return Error{.where = kToolsRefusedWhere,
                   .message = Redact(url + ": " + fmt::format("HTTP {}: {}", t.status,
                                                              ServerMessage(t.body, e.api_key)),
                                     e.api_key)};
    }
    const std::string message = ServerMessage(t.body, e.api_key);
    return fail(fmt::format("HTTP {}", t.status) + (message.empty() ? "" : ": " + message) +
                StatusHint(t.status));
  }
  Result<ChatResult> parsed = ParseCompletion(t.body, e.api_key);
  if (!parsed) return fail(parsed.error().message);
  if (parsed->content.size() + parsed->reasoning.size() > e.max_answer_bytes) {
    return fail(AnswerTooLong(e.max_answer_bytes));
  }
  parsed->attempts = 1;
  // A whole answer is passed on at once, as the native client passes it.
  t.driver->Content(parsed->content);
  t.text += t.filter.Feed(parsed->content);
  return parsed;
}

}  // namespace

void AskPrompt(const server::Explorer* explorer, const json& request, Reply& reply) {
  std::optional<Question> q = QuestionOf(explorer, request, /*question_required=*/false, reply);
  if (!q) return;
  const server::View& view = *q->ref.view;
  Result<server::PromptPreview> preview = server::PreviewRequest(
      view, q->body.question.empty() ? "(your question)" : q->body.question, q->body.history,
      q->settings, *q->counter, ConversationLimits{.budget_tokens = q->settings.budget_tokens},
      q->tools ? &view.tools() : nullptr);
  if (!preview) return reply.Fail(preview.error(), kExitInput);
  reply.text = server::PreviewJson(*preview);
}

void AskStart(const server::Explorer* explorer, const json& request, Reply& reply) {
  std::optional<Question> q = QuestionOf(explorer, request, /*question_required=*/true, reply);
  if (!q) return;
  const Endpoint& e = q->settings.endpoint;
  if (e.base_url.empty()) {
    return reply.Fail(Error{.where = "ask",
                            .message = "give the endpoint's base URL (or an API key for OpenAI's)"},
                      kExitInput);
  }
  if (std::any_of(e.api_key.begin(), e.api_key.end(),
                  [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    return reply.Fail(Error{.where = "ask",
                            .message = "the API key contains a control character (a line break?)"},
                      kExitInput);
  }
  auto turn = std::make_unique<PageTurn>();
  turn->ref = std::move(q->ref);
  turn->settings = std::move(q->settings);
  turn->filter = SecretFilter(turn->settings.endpoint.api_key);
  const server::View& view = *turn->ref.view;
  Session session{.input = view.file, .model = turn->settings.model, .turns = q->body.history};
  turn->driver = std::make_unique<TurnDriver>(
      q->tools ? &view.tools() : nullptr, server::AskBase(view, turn->settings.persona),
      std::move(session), q->body.question, turn->settings, *q->counter,
      ConversationLimits{.budget_tokens = turn->settings.budget_tokens});
  g_turn = std::move(turn);
  Step(reply);
}

void AskHead(const json& request, Reply& reply) {
  if (!Running(reply)) return;
  PageTurn& t = *g_turn;
  t.status = static_cast<long>(Option<double>(request, "status").value_or(0));
  const std::string type = AsciiLower(Option<std::string>(request, "content_type").value_or(""));
  // A stream request answered with one JSON document (servers that ignore
  // "stream") is read as a whole answer; any other success type as events.
  t.events = t.status >= 200 && t.status < 300 && t.sent.stream &&
             type.find("application/json") == std::string::npos;
  reply.text = "{}";
}

void AskFeed(const json& request, Reply& reply) {
  if (!Running(reply)) return;
  PageTurn& t = *g_turn;
  const std::string bytes = Option<std::string>(request, "text").value_or("");
  const Endpoint& e = t.settings.endpoint;
  t.received += bytes.size();
  bool enough = !t.too_big.empty();
  if (!enough && t.received > e.max_response_bytes) {
    const bool error_status = t.status < 200 || t.status >= 300;
    t.too_big = fmt::format("{}the response is larger than {} (llm.max_response_mib); stopped reading it",
                            error_status ? fmt::format("HTTP {}, and ", t.status) : "",
                            ShowMebibytes(e.max_response_bytes));
    enough = true;
  } else if (!enough && t.events) {
    t.sse.Feed(bytes, [&t](const SseEvent& event) {
      t.stream->OnEvent(event, [&t](std::string_view piece) {
        t.driver->Content(piece);
        t.text += t.filter.Feed(piece);
      });
    });
    // Nothing after [DONE] matters.
    enough = t.stream->done() || t.stream->failed();
  } else if (!enough) {
    const bool success = t.status >= 200 && t.status < 300;
    const size_t room = success ? bytes.size() : kMaxErrorBody - std::min(kMaxErrorBody, t.body.size());
    t.body.append(bytes.substr(0, room));
  }
  reply.text = json{{"text", std::exchange(t.text, "")}, {"enough", enough}}.dump(
      -1, ' ', false, json::error_handler_t::replace);
}

void AskEnd(const json& request, Reply& reply) {
  if (!Running(reply)) return;
  PageTurn& t = *g_turn;
  Result<ChatResult> result = Outcome(t, request);
  // A server that does not know stream_options is asked again without it,
  // once, as the native client does.
  if (!result && !t.events && t.sent.stream && t.sent.include_usage &&
      !t.dropped_stream_options && RefusesStreamOptions(t.status, t.body)) {
    t.dropped_stream_options = true;
    t.sent.include_usage = false;
    reply.text = json{{"send", SendStep(t)}, {"text", ""}, {"tools", json::array()}}.dump();
    return;
  }
  TurnEvents events;
  events.on_tool = [&t](const ToolExchange& e) {
    // The text that came with the calls was complete: its held-back tail
    // goes first, then the call.
    ++t.tool_calls;
    if (!t.round_flushed) t.text += t.filter.Finish();
    t.round_flushed = true;
    const std::string& key = t.settings.endpoint.api_key;
    t.tools.push_back(
        {{"name", ClipBytes(Redact(e.call.name, key), 200)},
         {"arguments", ClipBytes(Redact(e.call.arguments, key), kMaxToolArgumentBytes)}});
  };
  t.driver->Take(std::move(result), events);
  Step(reply);
}

}  // namespace cookgraph::web
