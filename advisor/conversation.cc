#include "advisor/conversation.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "base/text.h"
#include "writers/atomic_file.h"

namespace cookgraph {
namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

constexpr int kSessionVersion = 1;
constexpr size_t kMaxSessionBytes = size_t{64} << 20;
// A call's arguments longer than this are not run, and not sent back as
// they are: the request that follows must stay within the budget.
constexpr size_t kMaxCallArgumentBytes = 2000;
// Below this many tokens a result cannot say anything useful.
constexpr size_t kMinResultTokens = 48;

/// `text` cut to at most `max` code points, "…" marking the cut.
std::string ClipText(std::string_view text, size_t max) {
  size_t at = 0, points = 0;
  while (at < text.size() && points < max) {
    at += std::max<size_t>(1, Utf8Length(text, at));
    ++points;
  }
  if (at >= text.size()) return std::string(text);
  return std::string(text.substr(0, at)) + "…";
}

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
      note += "\"" + ClipText(earlier[i].question, 80) + "\"";
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

// ---- session files ---------------------------------------------------------

ojson ExchangeJson(const ToolExchange& e) {
  ojson j;
  j["id"] = e.call.id;
  j["name"] = e.call.name;
  j["arguments"] = e.call.arguments;
  j["result"] = e.result;
  j["nodes"] = e.nodes;
  return j;
}

/// Reads the session's members, naming the one that is wrong.
class SessionReader {
 public:
  explicit SessionReader(const std::string& file) : file_(file) {}

  Error Bad(const std::string& where, const std::string& what) const {
    return Error{.file = file_, .where = where, .message = what};
  }

  Result<std::string> String(const json& object, const char* key, const std::string& where,
                             bool required = true) const {
    const auto it = object.find(key);
    if (it == object.end()) {
      if (!required) return std::string();
      return Bad(where, fmt::format("\"{}\" is missing", key));
    }
    if (!it->is_string()) return Bad(where + "." + key, "must be a string");
    return it->get<std::string>();
  }

  Result<bool> Bool(const json& object, const char* key, const std::string& where) const {
    const auto it = object.find(key);
    if (it == object.end()) return false;
    if (!it->is_boolean()) return Bad(where + "." + key, "must be true or false");
    return it->get<bool>();
  }

  Status Known(const json& object, std::initializer_list<std::string_view> keys,
               const std::string& where) const {
    for (const auto& [key, value] : object.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        const std::string shown = Printable(key);
        return Bad(where.empty() ? shown : where + "." + shown,
                   "is not a member of a session file");
      }
    }
    return {};
  }

 private:
  std::string file_;
};

}  // namespace

std::string SessionJson(const Session& session) {
  ojson j;
  j["cookgraph_session"] = kSessionVersion;
  j["input"] = session.input;
  j["model"] = session.model;
  ojson turns = ojson::array();
  for (const Turn& t : session.turns) {
    ojson turn;
    turn["question"] = t.question;
    turn["answer"] = t.answer;
    turn["stopped"] = t.stopped;
    ojson rounds = ojson::array();
    for (const ToolRound& r : t.rounds) {
      ojson round;
      round["content"] = r.content;
      ojson calls = ojson::array();
      for (const ToolExchange& e : r.calls) calls.push_back(ExchangeJson(e));
      round["calls"] = std::move(calls);
      rounds.push_back(std::move(round));
    }
    turn["rounds"] = std::move(rounds);
    turns.push_back(std::move(turn));
  }
  j["turns"] = std::move(turns);
  return j.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

Result<Session> ParseSession(std::string_view text, const std::string& file) {
  if (text.size() > kMaxSessionBytes) {
    return Error{.file = file,
                 .message = fmt::format("a session file is at most {} MiB; this one is larger",
                                        kMaxSessionBytes >> 20)};
  }
  if (const size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos) {
    return Error{.file = file, .message = fmt::format("byte {} is not UTF-8", bad)};
  }
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's byte offset, as line and column.
    const size_t at = std::min(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
    const size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
    const size_t column = at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    return Error{.file = file,
                 .line = static_cast<int64_t>(line),
                 .column = static_cast<int64_t>(column),
                 .message = "not JSON: a session file is what `ask --session` wrote"};
  } catch (const json::exception&) {  // a number out of range, ...
    return Error{.file = file,
                 .message = "not a session file: it holds a value JSON cannot read "
                            "(a number out of range?)"};
  }
  const SessionReader r(file);
  if (!j.is_object()) return r.Bad("", "a session file is a JSON object");
  const auto version = j.find("cookgraph_session");
  if (version == j.end()) {
    return r.Bad("", "\"cookgraph_session\" is missing: not a session file of `ask --session`");
  }
  // Only a number is shown: any other value could be arbitrarily deep.
  if (!version->is_number_integer()) {
    return r.Bad("cookgraph_session", fmt::format("must be the number {}", kSessionVersion));
  }
  if (version->get<int64_t>() != kSessionVersion) {
    return r.Bad("cookgraph_session", fmt::format("version {} is not one this cookgraph reads ({})",
                                                  version->get<int64_t>(), kSessionVersion));
  }
  if (Status s = r.Known(j, {"cookgraph_session", "input", "model", "turns"}, ""); !s) {
    return s.error();
  }
  Session session;
  auto input = r.String(j, "input", "", /*required=*/false);
  if (!input) return input.error();
  session.input = *input;
  auto model = r.String(j, "model", "", /*required=*/false);
  if (!model) return model.error();
  session.model = *model;
  const auto turns = j.find("turns");
  if (turns == j.end() || !turns->is_array()) return r.Bad("turns", "must be a list");
  for (size_t i = 0; i < turns->size(); ++i) {
    const json& t = (*turns)[i];
    const std::string where = fmt::format("turns[{}]", i);
    if (!t.is_object()) return r.Bad(where, "must be an object");
    if (Status s = r.Known(t, {"question", "answer", "stopped", "rounds"}, where); !s) {
      return s.error();
    }
    Turn turn;
    auto q = r.String(t, "question", where);
    if (!q) return q.error();
    if (q->find_first_not_of(" \t\r\n") == std::string::npos) {
      return r.Bad(where + ".question", "is empty");
    }
    turn.question = *q;
    auto a = r.String(t, "answer", where);
    if (!a) return a.error();
    turn.answer = *a;
    auto stopped = r.Bool(t, "stopped", where);
    if (!stopped) return stopped.error();
    turn.stopped = *stopped;
    if (const auto rounds = t.find("rounds"); rounds != t.end()) {
      if (!rounds->is_array()) return r.Bad(where + ".rounds", "must be a list");
      for (size_t k = 0; k < rounds->size(); ++k) {
        const json& rj = (*rounds)[k];
        const std::string rw = fmt::format("{}.rounds[{}]", where, k);
        if (!rj.is_object()) return r.Bad(rw, "must be an object");
        if (Status s = r.Known(rj, {"content", "calls"}, rw); !s) return s.error();
        ToolRound round;
        auto content = r.String(rj, "content", rw, /*required=*/false);
        if (!content) return content.error();
        round.content = *content;
        const auto calls = rj.find("calls");
        if (calls == rj.end() || !calls->is_array()) return r.Bad(rw + ".calls", "must be a list");
        for (size_t c = 0; c < calls->size(); ++c) {
          const json& cj = (*calls)[c];
          const std::string cw = fmt::format("{}.calls[{}]", rw, c);
          if (!cj.is_object()) return r.Bad(cw, "must be an object");
          if (Status s = r.Known(cj, {"id", "name", "arguments", "result", "nodes"}, cw); !s) {
            return s.error();
          }
          ToolExchange e;
          for (auto [key, out] : {std::pair{"id", &e.call.id}, std::pair{"name", &e.call.name},
                                  std::pair{"arguments", &e.call.arguments},
                                  std::pair{"result", &e.result}}) {
            auto v = r.String(cj, key, cw);
            if (!v) return v.error();
            *out = *v;
          }
          if (const auto nodes = cj.find("nodes"); nodes != cj.end()) {
            if (!nodes->is_array()) return r.Bad(cw + ".nodes", "must be a list of node ids");
            for (const json& n : *nodes) {
              if (!n.is_string()) return r.Bad(cw + ".nodes", "must be a list of node ids");
              e.nodes.push_back(n.get<std::string>());
            }
          }
          round.calls.push_back(std::move(e));
        }
        turn.rounds.push_back(std::move(round));
      }
    }
    session.turns.push_back(std::move(turn));
  }
  return session;
}

Result<Session> LoadSession(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error{.file = path, .message = "is a folder, not a session file"};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return Session{};
    return Error{.file = path, .message = fmt::format("cannot read: {}", std::strerror(errno))};
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{.file = path, .message = "cannot read"};
  return ParseSession(text.str(), path);
}

Status SaveSession(const std::string& path, const Session& session) {
  return WriteFileAtomically(path, SessionJson(session));
}

Status AppendSessionTurns(const std::string& path, const std::string& input,
                          const std::string& model, const std::vector<Turn>& turns,
                          std::chrono::milliseconds wait) {
  // The lock is a separate file that stays: the session file itself is
  // replaced by every save (a rename), so a lock on it would be on a file
  // that is gone; and removing the lock file after use would let a writer
  // that opened the old one and a writer that created a new one hold "the"
  // lock at once. Its existence means nothing: flock(2) is held by an open
  // descriptor and let go when the process ends, however it ends.
  const std::string lock_path = path + ".lock";
  int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0 && (errno == EACCES || errno == EROFS)) {
    fd = open(lock_path.c_str(), O_RDONLY | O_CLOEXEC);  // flock needs no write access
  }
  if (fd < 0) {
    return Error{.file = path,
                 .message = fmt::format("cannot open the session's lock file {}: {}", lock_path,
                                        std::strerror(errno))};
  }
  struct Closer {
    int fd;
    ~Closer() { close(fd); }  // also lets go of the lock
  } closer{fd};
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      return Error{.file = path,
                   .message = fmt::format("cannot lock the session's lock file {}: {}", lock_path,
                                          std::strerror(errno))};
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{
          .file = path,
          .message = fmt::format(
              "another process held the session's lock ({}) for {:g} s, so this turn was not "
              "saved; ask again when it is done",
              lock_path, std::chrono::duration<double>(wait).count())};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // Under the lock: what the file holds now, which other runs may have added to.
  Result<Session> current = LoadSession(path);
  if (!current) return current.error();
  current->input = input;
  current->model = model;
  current->turns.insert(current->turns.end(), turns.begin(), turns.end());
  return SaveSession(path, *current);
}

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
