#include "advisor/conversation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "base/text.h"

namespace cookgraph {
namespace {

using ojson = nlohmann::ordered_json;

// A call's arguments longer than this are not run, and not sent back as
// they are: the request that follows must stay within the budget.
constexpr size_t kMaxCallArgumentBytes = 2000;
// Below this many tokens a result cannot say anything useful.
constexpr size_t kMinResultTokens = 48;

/// The earlier turn as the assistant message that repeats it.
std::string EarlierAnswer(const Turn& turn) {
  std::string answer = turn.answer.empty() ? "(no answer)" : turn.answer;
  if (turn.stopped) answer += "\n[the user stopped this answer before its end]";
  return answer;
}

/// The messages of this turn's rounds: each assistant message with its calls,
/// then one tool message per call.
std::vector<ChatMessage> RoundMessages(const std::vector<ToolRound>& rounds) {
  std::vector<ChatMessage> out;
  for (const ToolRound& round : rounds) {
    ChatMessage assistant{.role = "assistant", .content = round.content};
    for (const ToolExchange& e : round.calls) assistant.tool_calls.push_back(e.call);
    out.push_back(std::move(assistant));
    for (const ToolExchange& e : round.calls) {
      out.push_back(ChatMessage{.role = "tool", .content = e.result, .tool_call_id = e.call.id});
    }
  }
  return out;
}

/// The line before the question: which earlier turns are above, which were
/// left out (with their questions, short).
std::string ConversationNote(const std::vector<Turn>& earlier, size_t left_out) {
  if (earlier.empty()) return "";
  const size_t turn = earlier.size() + 1;
  std::string note = fmt::format("This is turn {} of a conversation about this network.", turn);
  if (left_out < earlier.size()) {
    note += left_out == 0
                ? " The earlier questions and answers are above."
                : fmt::format(" Turns {} to {} are above.", left_out + 1, earlier.size());
  }
  if (left_out > 0) {
    note += left_out == 1 ? " Turn 1 was left out for the token budget; its question was: "
                          : fmt::format(" Turns 1 to {} were left out for the token budget; "
                                        "their questions were: ",
                                        left_out);
    // The newest of them matter most: at most five, each short.
    const size_t first = left_out > 5 ? left_out - 5 : 0;
    if (first > 0) note += "…; ";
    for (size_t i = first; i < left_out; ++i) {
      if (i > first) note += "; ";
      note += "\"" + ClipCodePoints(earlier[i].question, 80) + "\"";
    }
    note += ".";
  }
  return note;
}

bool IsBudgetError(const Error& e) { return e.where == "--budget-tokens"; }

// A call's id as it is sent back: at most this long, of [A-Za-z0-9_-].
constexpr size_t kMaxIdBytes = 64;
// A function name longer than this names none of ours: cut, so that it cannot
// take the budget when sent back.
constexpr size_t kMaxNameBytes = 64;

bool SaneId(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdBytes) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

/// The model's calls as they are answered and sent back: the first
/// `max_calls` (the others are dropped, not echoed), each id unique within the
/// turn and sane (else one is made: "call_<round>_<i>", numbered past any
/// taken), names cut to kMaxNameBytes.
std::vector<ToolCall> SaneCalls(std::vector<ToolCall> calls, const Turn& turn, int round,
                                size_t max_calls) {
  if (calls.size() > max_calls) calls.resize(max_calls);
  std::set<std::string> taken;
  for (const ToolRound& r : turn.rounds) {
    for (const ToolExchange& e : r.calls) taken.insert(e.call.id);
  }
  size_t next = 1;
  for (ToolCall& call : calls) {
    if (call.name.size() > kMaxNameBytes) {
      size_t at = 0;  // cut on a code point: the name is sent back as UTF-8
      while (at < call.name.size() &&
             at + std::max<size_t>(1, Utf8Length(call.name, at)) <= kMaxNameBytes) {
        at += std::max<size_t>(1, Utf8Length(call.name, at));
      }
      call.name.resize(at);
    }
    if (!SaneId(call.id) || taken.count(call.id) > 0) {
      do {
        call.id = fmt::format("call_{}_{}", round + 1, next++);
      } while (taken.count(call.id) > 0);
    }
    taken.insert(call.id);
  }
  return calls;
}

}  // namespace

size_t MessageTokens(const TokenCounter& counter, const ChatMessage& message) {
  size_t tokens = 3 + counter.Count(message.role) + counter.Count(message.content);
  if (message.role == "tool") tokens += counter.Count(message.tool_call_id);
  for (const ToolCall& call : message.tool_calls) {
    tokens += 3 + counter.Count(call.id) + counter.Count(call.name) + counter.Count(call.arguments);
  }
  return tokens;
}

size_t ToolsTokens(const TokenCounter& counter, const std::vector<ToolSpec>& tools) {
  size_t tokens = 0;
  for (const ToolSpec& spec : tools) {
    // As RequestBody sends it: parsed, then written compactly.
    const std::string parameters =
        ojson::parse(spec.parameters, nullptr, /*allow_exceptions=*/false).dump();
    tokens += 3 + counter.Count(spec.name) + counter.Count(spec.description) +
              counter.Count(parameters);
  }
  return tokens;
}

size_t CountRequestTokens(const TokenCounter& counter, const ChatRequest& request) {
  size_t tokens = 3;
  for (const ChatMessage& m : request.messages) tokens += MessageTokens(counter, m);
  return tokens + ToolsTokens(counter, request.tools);
}

size_t DefaultToolResultTokens(size_t budget_tokens) {
  return std::min<size_t>(1500, budget_tokens / 10);
}

Result<TurnRequest> BuildTurnRequest(PromptInput input, const std::vector<Turn>& earlier,
                                     const std::vector<ToolRound>& rounds,
                                     const std::vector<ToolSpec>& tools,
                                     const AdvisorSettings& settings,
                                     const TokenCounter& counter,
                                     const ConversationLimits& limits) {
  const size_t budget = limits.budget_tokens;
  const std::vector<ChatMessage> round_messages = RoundMessages(rounds);
  size_t rounds_tokens = 0;
  for (const ChatMessage& m : round_messages) rounds_tokens += MessageTokens(counter, m);

  // The earlier turns as message pairs, and what each pair costs.
  std::vector<size_t> pair_tokens(earlier.size());
  for (size_t i = 0; i < earlier.size(); ++i) {
    pair_tokens[i] =
        MessageTokens(counter, ChatMessage{.role = "user", .content = earlier[i].question}) +
        MessageTokens(counter, ChatMessage{.role = "assistant", .content = EarlierAnswer(earlier[i])});
  }
  // The newest turns go in while they take at most a third of the budget.
  size_t left_out = earlier.size(), earlier_tokens = 0;
  while (left_out > 0 && earlier_tokens + pair_tokens[left_out - 1] <= budget / 3) {
    earlier_tokens += pair_tokens[--left_out];
  }

  bool offer = !tools.empty();
  for (;;) {
    const size_t tools_tokens = offer ? ToolsTokens(counter, tools) : 0;
    const size_t fixed = tools_tokens + rounds_tokens + earlier_tokens;
    input.tools = offer;
    input.conversation_note = ConversationNote(earlier, left_out);
    Result<Prompt> prompt =
        fixed < budget ? BuildPrompt(input, counter, budget - fixed)
                       : Result<Prompt>(Error{.where = "--budget-tokens",
                                              .message = "no room left for the data"});
    if (!prompt) {
      if (!IsBudgetError(prompt.error())) return prompt.error();
      if (left_out < earlier.size()) {  // the oldest turn still in goes
        earlier_tokens -= pair_tokens[left_out++];
        continue;
      }
      if (offer) {  // then the functions
        offer = false;
        continue;
      }
      if (!rounds.empty()) {
        return Error{.where = "--budget-tokens",
                     .message = fmt::format(
                         "this turn's function calls and results ({} tokens) leave no room for "
                         "the network's data in the {} budget: raise --budget-tokens",
                         Thousands(rounds_tokens), Thousands(budget))};
      }
      return prompt.error();
    }
    TurnRequest out;
    out.prompt = std::move(*prompt);
    out.earlier_sent = earlier.size() - left_out;
    out.earlier_left_out = left_out;
    out.tools_offered = offer;
    ChatRequest request = MakeChatRequest(settings, out.prompt);
    std::vector<ChatMessage> messages;
    messages.push_back(out.prompt.messages.at(0));
    for (size_t i = left_out; i < earlier.size(); ++i) {
      messages.push_back(ChatMessage{.role = "user", .content = earlier[i].question});
      messages.push_back(ChatMessage{.role = "assistant", .content = EarlierAnswer(earlier[i])});
    }
    messages.push_back(out.prompt.messages.at(1));
    messages.insert(messages.end(), round_messages.begin(), round_messages.end());
    request.messages = std::move(messages);
    if (offer) request.tools = tools;
    out.tokens = CountRequestTokens(counter, request);
    if (out.tokens > budget) {  // by construction it cannot be: say so if it is
      return Error{.where = "--budget-tokens",
                   .message = fmt::format("internal: the request counts {} tokens, over the {} "
                                          "budget it was built for",
                                          out.tokens, budget)};
    }
    out.request = std::move(request);
    return out;
  }
}

TurnDriver::TurnDriver(const AnalysisTools* tools, const PromptInput& base, Session session,
                       const std::string& question, const AdvisorSettings& settings,
                       const TokenCounter& counter, const ConversationLimits& limits)
    : tools_(tools),
      input_(base),
      session_(std::move(session)),
      settings_(settings),
      counter_(counter),
      limits_(limits),
      offer_(tools != nullptr && !tools->specs().empty()),
      result_budget_(limits.tool_result_tokens > 0 ? limits.tool_result_tokens
                                                   : DefaultToolResultTokens(limits.budget_tokens)),
      rounds_cap_(limits.budget_tokens / 3) {
  out_.turn.question = question;
  input_.question = question;
}

std::optional<TurnRequest> TurnDriver::Next() {
  if (done_) return std::nullopt;
  static const std::vector<ToolSpec> kNone;
  const bool last = round_ >= limits_.max_tool_rounds;
  Result<TurnRequest> request =
      BuildTurnRequest(input_, session_.turns, out_.turn.rounds,
                       offer_ && !last ? tools_->specs() : kNone, settings_, counter_, limits_);
  if (!request) {
    out_.error = request.error();
    done_ = true;
    return std::nullopt;
  }
  ++out_.requests;
  out_.max_request_tokens = std::max(out_.max_request_tokens, request->tokens);
  out_.last_request_tokens = request->tokens;
  tools_offered_ = request->tools_offered;
  return std::move(*request);
}

void TurnDriver::Content(std::string_view piece) { out_.turn.answer += piece; }

void TurnDriver::Take(Result<ChatResult> result, const TurnEvents& events,
                      const std::atomic<bool>* stop) {
  if (done_) return;
  if (!result && result.error().where == kToolsRefusedWhere && tools_offered_) {
    out_.tools_refused = true;  // the same round again, without them
    offer_ = false;
    return;
  }
  if (!result) {
    out_.turn.stopped = result.error().where == kStoppedWhere;
    out_.error = result.error();
    done_ = true;
    return;
  }
  // Calls made when none were offered (or after the last round) are not run.
  if (result->tool_calls.empty() || !tools_offered_) {
    out_.turn.answer = result->content;
    out_.result = std::move(*result);
    done_ = true;
    return;
  }
  const int round = round_++;
  // The text that came with the calls is not the answer.
  out_.turn.answer.clear();
  ToolRound r{.content = result->content};
  size_t used = 0;
  for (const ChatMessage& m : RoundMessages(out_.turn.rounds)) used += MessageTokens(counter_, m);
  std::vector<ToolCall> calls = SaneCalls(std::move(result->tool_calls), out_.turn, round,
                                          limits_.max_calls);
  std::vector<bool> too_long(calls.size(), false);
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].arguments.size() > kMaxCallArgumentBytes) {
      too_long[i] = true;
      calls[i].arguments = "{}";  // sent back short: the next request stays within budget
    }
  }
  ChatMessage assistant{.role = "assistant", .content = r.content};
  assistant.tool_calls = calls;
  used += MessageTokens(counter_, assistant);
  if (used >= rounds_cap_) {
    // The model's own message leaves no room (a long text with its calls):
    // the round is left out, and the next request asks for the answer.
    offer_ = false;
    return;
  }
  // Each result's share of what is left, within its own budget; the tool
  // message's framing counted apart.
  const size_t share = (rounds_cap_ - used) / std::max<size_t>(1, calls.size());
  const size_t framing = 3 + counter_.Count("tool") + kMaxIdBytes;
  const size_t per_result = std::min(result_budget_, share > framing ? share - framing : 0);
  const bool out_of_room = per_result < kMinResultTokens;
  for (size_t i = 0; i < calls.size(); ++i) {
    ToolExchange e{.call = calls[i]};
    if (out_of_room) {
      e.result = R"({"error":"no token budget left for function results: answer with the data you have"})";
    } else if (too_long[i]) {
      e.result = fmt::format(R"({{"error":"the arguments are longer than {} bytes"}})",
                             kMaxCallArgumentBytes);
    } else {
      ToolResult tr = tools_->Run(e.call.name, e.call.arguments, counter_, per_result);
      e.result = std::move(tr.content);
      e.nodes = std::move(tr.nodes);
    }
    if (events.on_tool) events.on_tool(e);
    r.calls.push_back(std::move(e));
  }
  out_.turn.rounds.push_back(std::move(r));
  if (out_of_room) offer_ = false;  // the next request asks for the answer
  if (stop != nullptr && stop->load()) {
    out_.turn.stopped = true;
    out_.error = Error{.where = kStoppedWhere, .message = "stopped"};
    done_ = true;
  }
}

std::vector<std::string> NodesLookedAt(const Turn& turn) {
  std::vector<std::string> nodes;
  std::set<std::string> seen;
  for (const ToolRound& r : turn.rounds) {
    for (const ToolExchange& e : r.calls) {
      for (const std::string& n : e.nodes) {
        if (seen.insert(n).second) nodes.push_back(n);
      }
    }
  }
  return nodes;
}

}  // namespace cookgraph
