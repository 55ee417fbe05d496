#ifndef COOKGRAPH_ADVISOR_PROMPT_H_
#define COOKGRAPH_ADVISOR_PROMPT_H_

// The prompt builder (docs/architecture.md#the-prompt-and-its-token-budget): one chat request that
// holds what an LLM needs to answer a question about one network, within a token budget.
//
// Two messages. The system message: the advisor's role, the persona, how to
// read the data, and the engine's guidelines from the knowledge pack. The user
// message: the network as data, fenced (a "```data" fence longer than any run
// of backticks inside it) and labelled as data, not instructions: the summary
// (engine, nodes by family, frames, fps, frame time against the budget), the
// predicted gains when given (docs/architecture.md#advice-ordered-by-impact;
// the system message then asks to prioritise by them), the
// findings, the loops, the critical path, the ranked nodes with inputs,
// outputs, key parameters and statistics, and one line per kind of thing left
// out for the budget; then the question.
//
// What goes in, in which order, and how it is fitted to the token budget:
// advisor/token_budget.h. The final request never exceeds the budget by the
// counter given (an exact one, or the estimator, which never undercounts). The
// same inputs always give the same bytes.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/findings.h"
#include "advisor/llm/chat_request.h"
#include "advisor/pack.h"
#include "advisor/token_budget.h"
#include "advisor/tokens/token_counter.h"
#include "base/error.h"
#include "metrics/analysis.h"
#include "model/snapshot.h"

namespace cookgraph {

/// How the advisor answers (docs/architecture.md#the-prompt-and-its-token-budget).
enum class Persona : uint8_t { kDebugger, kExplainer, kMinimalist, kGpuOptimizer };

/// "debugger", "explainer", "minimalist", "gpu-optimizer".
std::string_view PersonaName(Persona persona);
std::optional<Persona> ParsePersona(std::string_view name);
/// How the persona answers, as the system message says it ("Persona: debugger. ...").
std::string_view PersonaText(Persona persona);
/// "debugger|explainer|minimalist|gpu-optimizer", for messages.
std::string PersonaNames();

/// What a prompt is built from. References must outlive BuildPrompt.
struct PromptInput {
  std::string file;  // the input as the user named it; shown in the summary
  const Snapshot& snapshot;
  const Analysis& analysis;  // Analyse(snapshot)
  const KnowledgePack& pack;
  const std::vector<Finding>& findings;  // Evaluate(pack, snapshot, analysis)
  std::string question;
  Persona persona = Persona::kDebugger;
  /// The nodes that pay most to fix (Judged::gains, advisor/gains.h); null =
  /// no predicted-gains section.
  const TopGains* gains = nullptr;
  /// The functions of advisor/tools.h are offered with the request: the system
  /// message says what they reach (docs/architecture.md#tools-the-model-can-call).
  bool tools = false;
  /// In a conversation (docs/architecture.md#conversations): a line before
  /// the question saying which earlier turns are above and which were left
  /// out for the budget; "" = none. It always goes in.
  std::string conversation_note;
};

struct Prompt {
  std::vector<ChatMessage> messages;  // system, then user
  size_t tokens = 0;                  // CountChatTokens of `messages` by the counter given
  size_t nodes_ranked = 0;            // nodes that cooked (the ranking's length)
  size_t nodes_included = 0;          // the top `nodes_included` of the ranking are listed
  double left_out_share = 0;          // frame-time share of the ranked nodes left out
  std::string_view frame_word = "frame";  // the engine's word (SnapshotInfo::frame_word)
  size_t findings_included = 0;
  size_t gains_included = 0;          // rows of the predicted-gains section
  bool guidelines_complete = false;   // every paragraph of the pack's guidelines went in
};

/// Builds the request's messages within `budget_tokens` as `counter` counts
/// them. Fails (where "--budget-tokens") when even the parts that always go in
/// do not fit, saying how many tokens they take; and when the question is empty.
Result<Prompt> BuildPrompt(const PromptInput& input, const TokenCounter& counter,
                           size_t budget_tokens);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_PROMPT_H_
