#ifndef COOKGRAPH_ADVISOR_CONVERSATION_H_
#define COOKGRAPH_ADVISOR_CONVERSATION_H_

// Conversations about one network (docs/architecture.md#conversations): turns
// of questions and answers, each answer free to call the functions of
// advisor/tools.h over the loaded analysis, every request fitted to the token
// budget; and the session file that saves and resumes one.
//
// A request of turn k holds, in this order: the system message; the earlier
// turns' questions and answers (their function calls are not repeated), the
// oldest left out first when the budget is tight; the data message, built
// again for this turn within what is left (advisor/prompt.h), with a line
// saying which turns are above and which were left out, then the question;
// then this turn's function calls and their results so far. Its token count
// by CountRequestTokens never exceeds the budget.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/llm/chat_client.h"
#include "advisor/llm/chat_request.h"
#include "advisor/llm/chat_response.h"
#include "advisor/prompt.h"
#include "advisor/settings.h"
#include "advisor/tokens/token_counter.h"
#include "advisor/tools.h"
#include "base/error.h"

namespace cookgraph {

/// One function call the model made and what cookgraph answered.
struct ToolExchange {
  ToolCall call;
  std::string result;              // compact JSON, as sent back
  std::vector<std::string> nodes;  // the node ids it looked at
};

/// One round of calls: the assistant message that made them (its text, often
/// empty) and the calls in its order.
struct ToolRound {
  std::string content;
  std::vector<ToolExchange> calls;
};

/// One question and its answer.
struct Turn {
  std::string question;
  std::string answer;
  std::vector<ToolRound> rounds;
  bool stopped = false;  // the user stopped the answer (Ctrl-C): `answer` is what came
};

/// A conversation, as the session file holds it (docs/formats.md#session-files).
struct Session {
  std::string input;  // the input as the user named it
  std::string model;
  std::vector<Turn> turns;
};

/// The session as its file holds it: JSON, two-space indented, keys in a fixed
/// order, ending in a newline. The same session always gives the same bytes.
std::string SessionJson(const Session& session);

/// A session file's contents; errors name `file` and the member
/// ("turns[2].question") or the line and column of bad JSON.
Result<Session> ParseSession(std::string_view text, const std::string& file);

/// Reads a session file; a file that does not exist is an empty session.
Result<Session> LoadSession(const std::string& path);

/// Writes the session file atomically (nothing half-written is ever left).
Status SaveSession(const std::string& path, const Session& session);

/// How long AppendSessionTurns waits for another writer of the same file.
inline constexpr std::chrono::milliseconds kSessionLockWait{10000};

/// Adds `turns` to the session file at `path` without losing what others
/// added since it was read (docs/commands.md#conversations): under an
/// exclusive flock(2) on `path` + ".lock" (created when missing, never
/// removed), the file is read again, `turns` are appended to the turns it
/// holds now, its input and model become `input` and `model`, and it is
/// written atomically (SaveSession). A second writer waits for the lock at most
/// `wait`, then fails with an error naming the file; nothing is written then.
Status AppendSessionTurns(const std::string& path, const std::string& input,
                          const std::string& model, const std::vector<Turn>& turns,
                          std::chrono::milliseconds wait = kSessionLockWait);

/// A message's tokens by the rule of docs/formats.md#token-counts: 3, its role
/// and content, a tool message's tool_call_id, and for each call 3, its id,
/// name and arguments.
size_t MessageTokens(const TokenCounter& counter, const ChatMessage& message);

/// The offered functions' tokens: for each, 3, its name, description and
/// parameters as sent (compact JSON).
size_t ToolsTokens(const TokenCounter& counter, const std::vector<ToolSpec>& tools);

/// The whole request's tokens: 3 that prime the reply, every message's, and
/// the functions'. For a request without functions this is CountChatTokens.
size_t CountRequestTokens(const TokenCounter& counter, const ChatRequest& request);

/// Bounds of one turn.
struct ConversationLimits {
  size_t budget_tokens = kDefaultBudgetTokens;
  int max_tool_rounds = 4;      // rounds of calls in one turn; then an answer is asked for
  size_t max_calls = 8;         // calls answered in one round; the others get an error
  size_t tool_result_tokens = 0;  // each result's budget; 0 = min(1500, budget / 10)
};

/// The default of ConversationLimits::tool_result_tokens for a budget.
size_t DefaultToolResultTokens(size_t budget_tokens);

/// One request of a turn, ready to send.
struct TurnRequest {
  ChatRequest request;
  size_t tokens = 0;           // CountRequestTokens(request)
  Prompt prompt;               // the system and data messages
  size_t earlier_sent = 0;     // earlier turns in the request (the newest)
  size_t earlier_left_out = 0; // the oldest turns left out for the budget
  bool tools_offered = false;
};

/// The request for the question `input.question`, after the turns `earlier`
/// and this turn's `rounds` so far, offering `tools` (empty = none; they are
/// also left out when the budget cannot hold them). Fails as BuildPrompt does
/// when even the parts that always go in do not fit.
Result<TurnRequest> BuildTurnRequest(PromptInput input, const std::vector<Turn>& earlier,
                                     const std::vector<ToolRound>& rounds,
                                     const std::vector<ToolSpec>& tools,
                                     const AdvisorSettings& settings,
                                     const TokenCounter& counter,
                                     const ConversationLimits& limits);

/// What AskTurn tells its caller as it goes.
struct TurnEvents {
  std::function<void(std::string_view)> on_content;        // answer text as it streams
  std::function<void(const TurnRequest&)> on_request;      // before each request is sent
  std::function<void(const ToolExchange&)> on_tool;        // after each call was run
};

/// How a turn ended.
struct TurnOutcome {
  Turn turn;                        // always set: a failed turn holds what came
  std::optional<ChatResult> result; // the last request's, when it succeeded
  std::optional<Error> error;       // the endpoint failed, or the user stopped (kStoppedWhere)
  bool tools_refused = false;       // the server refused the functions: offer none again
  size_t requests = 0;
  size_t max_request_tokens = 0;    // the largest request's count
  size_t last_request_tokens = 0;   // the last request's count
};

/// One turn as steps, for a caller that sends the requests itself (AskTurn
/// over a ChatClient; the page, through the browser's fetch): Next() gives
/// the request to send, Content() each piece of answer text as it streams,
/// Take() what the endpoint answered, until Next() gives none. The analysis
/// behind `base` and `tools` and the counter must outlive it.
class TurnDriver {
 public:
  TurnDriver(const AnalysisTools* tools, const PromptInput& base, Session session,
             const std::string& question, const AdvisorSettings& settings,
             const TokenCounter& counter, const ConversationLimits& limits);

  /// The next request to send; none once the turn has ended (outcome() says how).
  std::optional<TurnRequest> Next();
  /// A piece of the answer as it streams in.
  void Content(std::string_view piece);
  /// What the endpoint answered to the request Next() gave: the answer ends
  /// the turn; calls are run (`events.on_tool` after each) for the next
  /// request; a server that refused the functions is asked the same round
  /// again without them; any other error ends the turn. `stop` set after the
  /// calls ran ends it as stopped.
  void Take(Result<ChatResult> result, const TurnEvents& events,
            const std::atomic<bool>* stop = nullptr);
  bool done() const { return done_; }
  const TurnOutcome& outcome() const { return out_; }
  TurnOutcome TakeOutcome() { return std::move(out_); }

 private:
  const AnalysisTools* tools_;
  PromptInput input_;
  Session session_;
  AdvisorSettings settings_;
  const TokenCounter& counter_;
  ConversationLimits limits_;
  bool offer_;                // functions are still offered
  size_t result_budget_;      // each result's tokens at most
  size_t rounds_cap_;         // this turn's calls and results take at most a third of the budget
  int round_ = 0;             // rounds of calls answered
  bool tools_offered_ = false;  // the last request offered them
  bool done_ = false;
  TurnOutcome out_;
};

/// Asks `question` as the turn after `session.turns`: sends a request, runs the
/// functions the model calls with `tools` (null = none offered) and sends
/// their results back, at most `limits.max_tool_rounds` times, then returns
/// the answer. A server that refuses the functions (kToolsRefusedWhere) is
/// asked again without them, the data given the room they took. `base` is
/// the prompt input for the network (its question is replaced). `stop`, when
/// set, ends it (the outcome's error is kStoppedWhere). Native builds only
/// (advisor/ask_turn.cc: the client is libcurl's).
TurnOutcome AskTurn(const ChatClient& client, const AnalysisTools* tools, const PromptInput& base,
                    const Session& session, const std::string& question,
                    const AdvisorSettings& settings, const TokenCounter& counter,
                    const ConversationLimits& limits, const TurnEvents& events,
                    const std::atomic<bool>* stop = nullptr);

/// The node ids a turn's functions looked at, each once, in the order first seen.
std::vector<std::string> NodesLookedAt(const Turn& turn);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_CONVERSATION_H_
