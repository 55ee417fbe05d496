#include "advisor/llm/chat_response.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace cookgraph {
namespace {

using nlohmann::json;

/// `text` on one line: runs of whitespace become one space, control bytes '?',
/// at most `max_chars` code points (the rest becomes "…").
std::string OneLine(std::string_view raw, std::string_view secret, size_t max_chars) {
  const std::string text = Redact(std::string(raw), secret);
  std::string collapsed;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      space = true;
      continue;
    }
    if (space && !collapsed.empty()) collapsed += ' ';
    space = false;
    collapsed += c;
  }
  const std::string printable = Printable(collapsed);
  size_t i = 0;
  for (size_t chars = 0; i < printable.size() && chars < max_chars; ++chars) {
    i += std::max<size_t>(1, Utf8Length(printable, i));
  }
  return i < printable.size() ? printable.substr(0, i) + "…" : printable;
}

/// An HTML page's <title>, else its text without the tags.
std::string HtmlText(std::string_view html) {
  const std::string lower = AsciiLower(html);
  if (size_t open = lower.find("<title"); open != std::string::npos) {
    const size_t start = lower.find('>', open);
    const size_t end = lower.find("</title", open);
    if (start != std::string::npos && end != std::string::npos && start < end) {
      std::string title(html.substr(start + 1, end - start - 1));
      if (title.find_first_not_of(" \t\r\n") != std::string::npos) return title;
    }
  }
  std::string text;
  bool in_tag = false;
  for (char c : html) {
    if (c == '<') {
      in_tag = true;
      text += ' ';
    } else if (c == '>') {
      in_tag = false;
    } else if (!in_tag) {
      text += c;
    }
  }
  return text;
}

/// "the server sent invalid UTF-8 in <where>, at byte N of <whole> (0xFF)".
std::string InvalidUtf8(std::string_view where, std::string_view whole, std::string_view data,
                        size_t at) {
  return fmt::format("the server sent invalid UTF-8 in {}, at byte {} of {} (0x{:02X})", where,
                     at + 1, whole, static_cast<unsigned char>(data[at]));
}

bool LooksLikeHtml(std::string_view body) {
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || body[first] != '<') return false;
  const std::string head = AsciiLower(body.substr(first, 512));
  return head.find("<html") != std::string::npos || head.find("<!doctype") != std::string::npos ||
         head.find("<head") != std::string::npos || head.find("<title") != std::string::npos ||
         head.find("<body") != std::string::npos;
}

std::string StringOr(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// Message content: a string, null, or (some servers) an array of text parts.
std::string ContentText(const json& object) {
  const auto it = object.find("content");
  if (it == object.end()) return {};
  if (it->is_string()) return it->get<std::string>();
  std::string text;
  if (it->is_array()) {
    for (const json& part : *it) {
      if (part.is_object()) text += StringOr(part, "text");
    }
  }
  return text;
}

/// Reasoning text: "reasoning_content" (DeepSeek, vLLM, llama.cpp) or
/// "reasoning" (OpenRouter, Ollama).
std::string ReasoningText(const json& object) {
  std::string text = StringOr(object, "reasoning_content");
  return text.empty() ? StringOr(object, "reasoning") : text;
}

int64_t Count(const json& usage, const char* key) {
  const auto it = usage.find(key);
  return it != usage.end() && it->is_number() ? it->get<int64_t>() : 0;
}

std::optional<Usage> ReadUsage(const json& chunk) {
  const auto it = chunk.find("usage");
  if (it == chunk.end() || !it->is_object()) return std::nullopt;  // absent or null
  return Usage{.prompt_tokens = Count(*it, "prompt_tokens"),
               .completion_tokens = Count(*it, "completion_tokens"),
               .total_tokens = Count(*it, "total_tokens")};
}

bool HasError(const json& j) {
  if (!j.is_object()) return false;
  const auto it = j.find("error");
  return it != j.end() && !it->is_null();
}

/// The first choice (index 0, or no index): servers asked for one send one.
const json* FirstChoice(const json& chunk) {
  const auto it = chunk.find("choices");
  if (it == chunk.end() || !it->is_array()) return nullptr;
  for (const json& choice : *it) {
    if (!choice.is_object()) continue;
    const auto index = choice.find("index");
    if (index == choice.end() || !index->is_number() || index->get<int64_t>() == 0) return &choice;
  }
  return nullptr;
}

/// The calls of one answer that are kept; pieces of further calls are dropped.
constexpr size_t kMaxToolCalls = 128;

/// The "tool_calls" of a whole message: those with a function name, at most
/// kMaxToolCalls.
std::vector<ToolCall> ToolCalls(const json& message) {
  std::vector<ToolCall> calls;
  const auto it = message.find("tool_calls");
  if (it == message.end() || !it->is_array()) return calls;
  for (const json& call : *it) {
    if (!call.is_object()) continue;
    const auto function = call.find("function");
    if (function == call.end() || !function->is_object()) continue;
    ToolCall c{.id = StringOr(call, "id"),
               .name = StringOr(*function, "name"),
               .arguments = StringOr(*function, "arguments")};
    if (!c.name.empty()) calls.push_back(std::move(c));
    if (calls.size() == kMaxToolCalls) break;
  }
  return calls;
}

/// Bytes of the calls' text, against the answer's cap.
size_t CallBytes(const std::vector<ToolCall>& calls) {
  size_t bytes = 0;
  for (const ToolCall& c : calls) bytes += c.id.size() + c.name.size() + c.arguments.size();
  return bytes;
}

}  // namespace

std::string Redact(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  static constexpr std::string_view kMask = "[redacted]";
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + kMask.size())) {
    text.replace(at, secret.size(), kMask);
  }
  return text;
}

std::string ServerMessage(std::string_view body, std::string_view secret, size_t max_chars) {
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    if (const auto it = j.find("error"); it != j.end() && !it->is_null()) {
      if (it->is_string()) return OneLine(it->get<std::string>(), secret, max_chars);
      if (it->is_object()) {
        const std::string message = StringOr(*it, "message");
        if (!message.empty()) return OneLine(message, secret, max_chars);
      }
      return OneLine(it->dump(-1, ' ', false, json::error_handler_t::replace), secret, max_chars);
    }
    for (const char* key : {"message", "detail"}) {
      const std::string message = StringOr(j, key);
      if (!message.empty()) return OneLine(message, secret, max_chars);
    }
  }
  if (LooksLikeHtml(body)) return OneLine(HtmlText(body), secret, max_chars);
  return OneLine(body, secret, max_chars);
}

std::string ShowMebibytes(size_t bytes) {
  return fmt::format("{:g} MiB", static_cast<double>(bytes) / (1 << 20));
}

std::string AnswerTooLong(size_t cap) {
  return fmt::format("the answer is longer than {} (llm.max_answer_mib); stopped reading it",
                     ShowMebibytes(cap));
}

bool RefusesStreamOptions(long status, std::string_view body) {
  return status == 400 && AsciiLower(body).find("stream_options") != std::string::npos;
}

bool RefusesTools(const ChatRequest& request, long status, std::string_view body) {
  if (request.tools.empty() || (status != 400 && status != 422)) return false;
  for (const ChatMessage& m : request.messages) {
    if (!m.tool_calls.empty() || m.role == "tool") return false;
  }
  const std::string text = AsciiLower(body);
  const bool names = text.find("tool") != std::string::npos ||
                     text.find("function") != std::string::npos;
  if (!names || text.find("context") != std::string::npos) return false;
  for (std::string_view why : {"support", "requires", "unrecognized", "unknown", "extra",
                               "not allowed", "not permitted", "unexpected"}) {
    if (text.find(why) != std::string::npos) return true;
  }
  return false;
}

std::string StatusHint(long status) {
  switch (status) {
    case 401:
    case 403:
      return " (check the API key)";
    case 404:
      return " (check the base URL, which usually ends in /v1, and the model name)";
    default:
      return "";
  }
}

Result<ChatResult> ParseCompletion(std::string_view body, std::string_view secret) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Error{.message = "the answer is empty"};
  }
  if (const size_t bad = FirstInvalidUtf8(body); bad != std::string_view::npos) {
    return Error{.message = InvalidUtf8("the answer", "the body", body, bad)};
  }
  const json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return Error{.message = "the answer is not JSON: " + ServerMessage(body, secret)};
  }
  if (HasError(j)) return Error{.message = "error in the answer: " + ServerMessage(body, secret)};
  const json* choice = FirstChoice(j);
  if (choice == nullptr) return Error{.message = "the answer has no choices"};
  ChatResult result;
  if (const auto message = choice->find("message");
      message != choice->end() && message->is_object()) {
    result.content = ContentText(*message);
    result.reasoning = ReasoningText(*message);
    result.tool_calls = ToolCalls(*message);
  }
  result.finish_reason = StringOr(*choice, "finish_reason");
  result.usage = ReadUsage(j);
  return result;
}

void ChatStream::OnEvent(const SseEvent& event, const ContentCallback& on_content) {
  if (done_ || failed()) return;
  ++events_;
  std::string_view data = event.data;
  while (!data.empty() && std::isspace(static_cast<unsigned char>(data.back()))) {
    data.remove_suffix(1);
  }
  if (event.event == "error") {
    error_ = "stream error: " + ServerMessage(data, secret_);
    return;
  }
  if (data == "[DONE]") {
    done_ = true;
    return;
  }
  if (data.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  // Checked before JSON parsing, whose message would not say where.
  if (const size_t bad = FirstInvalidUtf8(data); bad != std::string_view::npos) {
    error_ = InvalidUtf8(fmt::format("stream event {}", events_), "its data", data, bad);
    return;
  }
  const json chunk = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (!chunk.is_object()) {
    error_ = "malformed stream chunk: " + ServerMessage(data, secret_);
    return;
  }
  if (HasError(chunk)) {
    error_ = "stream error: " + ServerMessage(data, secret_);
    return;
  }
  // The usage chunk has "choices": [] and "usage"; other chunks may carry
  // "usage": null, which ReadUsage skips.
  if (std::optional<Usage> usage = ReadUsage(chunk)) result_.usage = usage;
  const json* choice = FirstChoice(chunk);
  if (choice == nullptr) return;
  if (const auto delta = choice->find("delta"); delta != choice->end() && delta->is_object()) {
    const std::string reasoning = ReasoningText(*delta);
    const std::string content = ContentText(*delta);
    const size_t held = result_.content.size() + result_.reasoning.size() +
                        CallBytes(result_.tool_calls);  // <= the cap
    size_t call_bytes = 0;
    const auto calls = delta->find("tool_calls");
    const bool has_calls = calls != delta->end() && calls->is_array();
    if (has_calls) {
      for (const json& piece : *calls) {
        if (!piece.is_object()) continue;
        call_bytes += StringOr(piece, "id").size();
        if (const auto f = piece.find("function"); f != piece.end() && f->is_object()) {
          call_bytes += StringOr(*f, "name").size() + StringOr(*f, "arguments").size();
        }
      }
    }
    if (reasoning.size() + content.size() + call_bytes > max_answer_bytes_ - held) {
      answer_too_long_ = true;
      error_ = AnswerTooLong(max_answer_bytes_);
      return;
    }
    // A call arrives in pieces that share its "index": the first names the
    // id and the function, the others add to the arguments. A piece without
    // an index belongs to the last call, unless it brings another id (a
    // server that sends whole calls, one a chunk, without indexes). At most kMaxToolCalls calls are kept.
    if (has_calls) {
      for (const json& piece : *calls) {
        if (!piece.is_object()) continue;
        const auto index = piece.find("index");
        const std::string piece_id = StringOr(piece, "id");
        size_t at = 0;
        if (index != piece.end() && index->is_number_unsigned()) {
          at = index->get<size_t>();
        } else if (call_index_.empty()) {
          at = 0;
        } else {
          const ToolCall& last = result_.tool_calls.back();
          const bool another = !piece_id.empty() && !last.id.empty() && piece_id != last.id;
          at = another ? call_index_.back() + 1 : call_index_.back();
        }
        size_t slot = 0;
        while (slot < call_index_.size() && call_index_[slot] != at) ++slot;
        if (slot == call_index_.size()) {
          if (call_index_.size() >= kMaxToolCalls) continue;
          call_index_.push_back(at);
          result_.tool_calls.emplace_back();
        }
        ToolCall& call = result_.tool_calls[slot];
        // Some servers repeat the id and the name in every piece.
        if (call.id.empty()) call.id = StringOr(piece, "id");
        if (const auto f = piece.find("function"); f != piece.end() && f->is_object()) {
          if (call.name.empty()) call.name = StringOr(*f, "name");
          call.arguments += StringOr(*f, "arguments");
        }
      }
    }
    result_.reasoning += reasoning;
    if (!content.empty()) {
      result_.content += content;
      delivered_ = true;
      if (on_content) on_content(content);
    }
  }
  if (std::string reason = StringOr(*choice, "finish_reason"); !reason.empty()) {
    result_.finish_reason = std::move(reason);
  }
}

}  // namespace cookgraph
