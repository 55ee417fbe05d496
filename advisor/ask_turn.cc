// AskTurn: a TurnDriver's requests sent by the libcurl client. Native builds
// only; the page sends them with the browser's fetch (web/cookgraph_web.cc).
#include "advisor/conversation.h"

namespace cookgraph {

TurnOutcome AskTurn(const ChatClient& client, const AnalysisTools* tools, const PromptInput& base,
                    const Session& session, const std::string& question,
                    const AdvisorSettings& settings, const TokenCounter& counter,
                    const ConversationLimits& limits, const TurnEvents& events,
                    const std::atomic<bool>* stop) {
  TurnDriver turn(tools, base, session, question, settings, counter, limits);
  while (std::optional<TurnRequest> request = turn.Next()) {
    if (events.on_request) events.on_request(*request);
    Result<ChatResult> result = client.Complete(
        request->request,
        [&](std::string_view piece) {
          turn.Content(piece);
          if (events.on_content) events.on_content(piece);
        },
        stop);
    turn.Take(std::move(result), events, stop);
  }
  return turn.TakeOutcome();
}

}  // namespace cookgraph
