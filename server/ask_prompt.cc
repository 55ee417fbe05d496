#include "server/ask_prompt.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/text.h"

namespace cookgraph::server {
namespace {

using nlohmann::json;

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

constexpr const char* kAskShape =
    R"(send {"question": "...", "history": [{"question": "...", "answer": "..."}, ...]})";

}  // namespace

std::variant<AskBody, Refusal> ParseAskBody(const std::string& text, const AskBounds& o,
                                            bool question_required) {
  const json body = json::parse(text, nullptr, false);
  if (!body.is_object()) return Refusal{400, kAskShape};
  AskBody out;
  if (const auto q = body.find("question"); q != body.end()) {
    if (!q->is_string()) return Refusal{400, kAskShape};
    out.question = q->get<std::string>();
  } else if (question_required) {
    return Refusal{400, kAskShape};
  }
  if (question_required && out.question.empty()) return Refusal{400, "the question is empty"};
  if (out.question.size() > o.max_question_chars) {
    return Refusal{413, fmt::format("the question is longer than {} bytes", o.max_question_chars)};
  }
  const auto h = body.find("history");
  if (h == body.end()) return out;
  if (!h->is_array()) {
    return Refusal{
        400,
        R"(history: give a list of the earlier turns, each {"question": "...", "answer": "..."})"};
  }
  if (h->size() > o.max_history_turns) {
    return Refusal{413, fmt::format("history: {} turns; at most {} (leave the oldest out)",
                                    h->size(), o.max_history_turns)};
  }
  for (size_t i = 0; i < h->size(); ++i) {
    const json& t = (*h)[i];
    const std::string where = fmt::format("history[{}]", i);
    if (!t.is_object()) {
      return Refusal{400, where + R"(: give {"question": "...", "answer": "..."})"};
    }
    for (const auto& [key, value] : t.items()) {
      if (key != "question" && key != "answer" && key != "stopped") {
        return Refusal{
            400,
            fmt::format("{}: unknown member {}", where,
                        json(ClipBytes(key, 40)).dump(-1, ' ', false, json::error_handler_t::replace))};
      }
    }
    Turn turn;
    for (const char* key : {"question", "answer"}) {
      const auto v = t.find(key);
      if (v == t.end() || !v->is_string()) {
        return Refusal{400, fmt::format("{}.{}: give a string", where, key)};
      }
    }
    turn.question = t["question"].get<std::string>();
    turn.answer = t["answer"].get<std::string>();
    if (turn.question.empty()) return Refusal{400, where + ".question: empty"};
    if (turn.question.size() > o.max_question_chars) {
      return Refusal{413,
                     fmt::format("{}.question: longer than {} bytes", where, o.max_question_chars)};
    }
    if (turn.answer.size() > o.max_answer_bytes) {
      return Refusal{413,
                     fmt::format("{}.answer: longer than {} bytes", where, o.max_answer_bytes)};
    }
    if (const auto stopped = t.find("stopped"); stopped != t.end()) {
      if (!stopped->is_boolean()) return Refusal{400, where + ".stopped: give true or false"};
      turn.stopped = stopped->get<bool>();
    }
    out.history.push_back(std::move(turn));
  }
  return out;
}


PromptInput AskBase(const View& v, Persona persona) {
  return PromptInput{.file = v.file,
                     .snapshot = v.snapshot,
                     .analysis = v.analysis,
                     .pack = v.pack,
                     .findings = v.findings,
                     .question = "",
                     .persona = persona,
                     .gains = &v.gains};
}

Result<PromptPreview> PreviewRequest(const View& view, const std::string& question,
                                     const std::vector<Turn>& history,
                                     const AdvisorSettings& settings, const TokenCounter& counter,
                                     const ConversationLimits& limits, const AnalysisTools* tools) {
  PromptInput input = AskBase(view, settings.persona);
  input.question = question;
  static const std::vector<ToolSpec> kNone;
  Result<TurnRequest> request = BuildTurnRequest(input, history, {}, tools ? tools->specs() : kNone,
                                                 settings, counter, limits);
  if (!request) return request.error();
  return PromptPreview{.text = PreviewText(request->request),
                       .tokens = request->tokens,
                       .budget_tokens = settings.budget_tokens,
                       .model = settings.model,
                       .earlier_sent = request->earlier_sent,
                       .earlier_left_out = request->earlier_left_out,
                       .tools = request->request.tools.size()};
}

std::string PreviewJson(const PromptPreview& p) {
  return json{{"text", p.text},
              {"tokens", p.tokens},
              {"budget_tokens", p.budget_tokens},
              {"model", p.model},
              {"earlier_sent", p.earlier_sent},
              {"earlier_left_out", p.earlier_left_out},
              {"tools", p.tools}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace cookgraph::server
