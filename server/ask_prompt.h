#ifndef COOKGRAPH_SERVER_ASK_PROMPT_H_
#define COOKGRAPH_SERVER_ASK_PROMPT_H_

// What the ask box sends and shows, shared by the server's routes
// (server/http_server.cc, server/ask_hooks.cc) and the page's module
// (web/cookgraph_web.cc): the body of a question with the thread before it,
// the prompt input of a view, and the preview of the next request.

#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "advisor/conversation.h"
#include "advisor/settings.h"
#include "server/explorer.h"

namespace cookgraph::server {

/// A question and the thread before it, as the page sends them
/// (docs/commands.md#the-explorers-api).
struct AskBody {
  std::string question;
  std::vector<Turn> history;
};

/// The bounds of an AskBody (ServeOptions holds the server's).
struct AskBounds {
  size_t max_question_chars = 4000;    // bytes of a question, also of an earlier one
  size_t max_history_turns = 50;       // earlier turns sent with a question
  size_t max_answer_bytes = 64 << 10;  // bytes of an earlier answer
};

/// Why a body was refused: the HTTP status and the reason the page shows.
struct Refusal {
  int status = 400;
  std::string message;
};

/// The body of an ask or a preview, checked: {"question": "...", "history":
/// [{"question", "answer", "stopped"?}, ...]}, strings only, each within its
/// bound. A question may be empty only when `question_required` is false.
std::variant<AskBody, Refusal> ParseAskBody(const std::string& text, const AskBounds& bounds,
                                            bool question_required);

/// The prompt input for questions about `view` (its question empty).
PromptInput AskBase(const View& view, Persona persona);

/// The first request of the next turn after `history`, as the ask box shows
/// it (`tools` null = no functions offered).
Result<PromptPreview> PreviewRequest(const View& view, const std::string& question,
                                     const std::vector<Turn>& history,
                                     const AdvisorSettings& settings, const TokenCounter& counter,
                                     const ConversationLimits& limits, const AnalysisTools* tools);

/// The preview as the page reads it: {"text", "tokens", "budget_tokens",
/// "model", "earlier_sent", "earlier_left_out", "tools"}.
std::string PreviewJson(const PromptPreview& preview);

}  // namespace cookgraph::server

#endif  // COOKGRAPH_SERVER_ASK_PROMPT_H_
