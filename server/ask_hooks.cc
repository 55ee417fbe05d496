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
#include "server/ask_prompt.h"

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


  std::mutex mutex;
  std::unique_ptr<const TokenCounter> counter;
};

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
    return PreviewRequest(v, question, history, shared->settings, **counter, shared->limits,
                          shared->Tools(v));
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
    TurnOutcome outcome = AskTurn(ChatClient(s.endpoint), shared->Tools(v), AskBase(v, s.persona),
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
