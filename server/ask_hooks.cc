#include "server/ask_hooks.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

#include "advisor/conversation.h"
#include "advisor/llm/chat_client.h"
#include "advisor/llm/chat_response.h"
#include "advisor/llm/secret_filter.h"
#include "advisor/prompt.h"
#include "advisor/tokens/token_counter.h"

namespace cookgraph::server {
namespace {

/// What every question of one server shares.
struct Shared {
  AdvisorSettings settings;
  ConversationLimits limits;
  bool tools = true;
  /// Set once the endpoint refused the functions: they are not offered again
  /// (as `ask --chat` does for its session; here, for the server's life).
  std::atomic<bool> tools_refused{false};

  /// The token counter, opened on first use and then shared (TokenCounter's
  /// Count is const and keeps no state). A counter that cannot be opened is
  /// tried again at the next question, its error given each time.
  Result<const TokenCounter*> Counter() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!counter) {
      Result<std::unique_ptr<TokenCounter>> opened = OpenTokenCounter(settings);
      if (!opened) return opened.error();
      counter = std::move(*opened);
    }
    return counter.get();
  }

  const AnalysisTools* Tools(const View& v) const {
    return tools && !tools_refused.load() ? &v.tools() : nullptr;
  }

  PromptInput Base(const View& v) const {
    return PromptInput{.file = v.file,
                       .snapshot = v.snapshot,
                       .analysis = v.analysis,
                       .pack = v.pack,
                       .findings = v.findings,
                       .question = "",
                       .persona = settings.persona,
                       .gains = &v.gains};
  }

  std::mutex mutex;
  std::unique_ptr<const TokenCounter> counter;
};

/// The request as the ask box shows it: each message under its role, then
/// the functions offered with their parameters as sent.
std::string PreviewText(const ChatRequest& request) {
  std::string text;
  for (const ChatMessage& m : request.messages)
    text += "## " + m.role + "\n\n" + m.content + "\n\n";
  if (!request.tools.empty()) {
    text += "## functions offered\n\n";
    for (const ToolSpec& t : request.tools) {
      text += "- " + t.name + ": " + t.description + "\n  parameters: " + t.parameters + "\n";
    }
  }
  return text;
}

}  // namespace

AskHooks EndpointAskHooks(const AdvisorSettings& settings, bool offer_tools) {
  auto shared = std::make_shared<Shared>();
  shared->settings = settings;
  shared->limits = ConversationLimits{.budget_tokens = settings.budget_tokens};
  shared->tools = offer_tools;
  AskHooks hooks;
  hooks.preview = [shared](const View& v, const std::string& question,
                           const std::vector<Turn>& history) -> Result<PromptPreview> {
    Result<const TokenCounter*> counter = shared->Counter();
    if (!counter) return counter.error();
    PromptInput input = shared->Base(v);
    input.question = question;
    static const std::vector<ToolSpec> kNone;
    const AnalysisTools* tools = shared->Tools(v);
    Result<TurnRequest> request =
        BuildTurnRequest(input, history, {}, tools ? tools->specs() : kNone, shared->settings,
                         **counter, shared->limits);
    if (!request) return request.error();
    return PromptPreview{.text = PreviewText(request->request),
                         .tokens = request->tokens,
                         .budget_tokens = shared->settings.budget_tokens,
                         .model = shared->settings.model,
                         .earlier_sent = request->earlier_sent,
                         .earlier_left_out = request->earlier_left_out,
                         .tools = request->request.tools.size()};
  };
  if (settings.endpoint.base_url.empty() || settings.model.empty()) return hooks;
  hooks.ask = [shared](const View& v, const std::string& question, const std::vector<Turn>& history,
                       const AskEvents& ev, std::atomic<bool>& stop) -> Result<AskSummary> {
    Result<const TokenCounter*> counter = shared->Counter();
    if (!counter) return counter.error();
    const AdvisorSettings& s = shared->settings;
    Session session{.input = v.file, .model = s.model, .turns = history};
    // The key never reaches the page: an endpoint that echoes it has it
    // replaced (also across pieces); a cut stream drops the held-back tail.
    SecretFilter filter(s.endpoint.api_key);
    AskSummary summary;
    bool open = true;
    auto piece = [&](std::string_view text) {
      if (open && !text.empty() && !ev.on_piece(text)) open = false;
      if (!open) stop.store(true);
    };
    bool round_flushed = false;
    TurnEvents events;
    events.on_request = [&](const TurnRequest& r) {
      summary.earlier_left_out = std::max(summary.earlier_left_out, r.earlier_left_out);
      round_flushed = false;  // a new request: its text is new
    };
    events.on_content = [&](std::string_view text) { piece(filter.Feed(text)); };
    events.on_tool = [&](const ToolExchange& e) {
      // The text that came with the calls was complete: its held-back tail
      // goes first, then the call.
      ++summary.tool_calls;
      if (!round_flushed) piece(filter.Finish());
      round_flushed = true;
      if (open && ev.on_tool &&
          !ev.on_tool(Redact(e.call.name, s.endpoint.api_key),
                      Redact(e.call.arguments, s.endpoint.api_key))) {
        open = false;
      }
      if (!open) stop.store(true);
    };
    TurnOutcome outcome = AskTurn(ChatClient(s.endpoint), shared->Tools(v), shared->Base(v),
                                  session, question, s, **counter, shared->limits, events, &stop);
    if (outcome.tools_refused) shared->tools_refused.store(true);
    if (outcome.error) return *outcome.error;
    piece(filter.Finish());
    if (!outcome.result || outcome.result->content.empty()) {
      return Error{.message = s.model + " sent no answer text"};
    }
    summary.nodes = NodesLookedAt(outcome.turn);
    summary.tokens = outcome.max_request_tokens;
    summary.requests = outcome.requests;
    return summary;
  };
  return hooks;
}

}  // namespace cookgraph::server
