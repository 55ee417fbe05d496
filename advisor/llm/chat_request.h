#ifndef COOKGRAPH_ADVISOR_LLM_CHAT_REQUEST_H_
#define COOKGRAPH_ADVISOR_LLM_CHAT_REQUEST_H_

// What is sent to an OpenAI-compatible chat-completions endpoint: the request
// body and the URL (docs/formats.md#openai-compatible-chat-completions).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cookgraph {

/// A function the model asked to call (OpenAI's "tool_calls"): `arguments`
/// is the JSON text as the model wrote it.
struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;
};

/// One message of the conversation. Roles: "system", "user", "assistant",
/// "tool" ("developer" is refused by many non-OpenAI servers: send "system").
/// An assistant message may carry `tool_calls` (its content then may be
/// empty, sent as null); a "tool" message answers the call `tool_call_id`.
struct ChatMessage {
  std::string role;
  std::string content;
  std::vector<ToolCall> tool_calls;
  std::string tool_call_id;
};

/// A function offered to the model (docs/architecture.md#tools-the-model-can-call):
/// `parameters` is its JSON schema as compact JSON text, sent as it is.
struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters;
};

/// One chat completion to ask for.
struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<double> temperature;         // unset = the server's default
  std::optional<int64_t> max_output_tokens;  // unset = no limit sent
  // Name of the output-token limit: newer OpenAI models refuse "max_tokens",
  // some other servers refuse "max_completion_tokens".
  std::string max_tokens_field = "max_completion_tokens";
  bool stream = true;         // server-sent events; false = one JSON answer
  bool include_usage = true;  // with `stream`: stream_options.include_usage
  // Offered as "tools" with "tool_choice": "auto"; empty = none offered.
  std::vector<ToolSpec> tools;
};

/// Where to send it.
struct Endpoint {
  std::string base_url;     // e.g. "https://api.openai.com/v1", "http://localhost:11434/v1"
  std::string api_key;      // empty = no credentials header (local servers)
  bool azure = false;       // "api-key: KEY" instead of "Authorization: Bearer KEY"
  std::string api_version;  // Azure: sent as ?api-version=; empty = none
  double connect_timeout_s = 5;
  // No byte received for this long, once connected, fails the attempt. Not a
  // total timeout: a long streamed answer is fine while it keeps coming. With
  // `stream` off the whole generation is one silence, so give it more. <= 0 = none.
  double idle_timeout_s = 60;
  int max_retries = 2;                   // retries after the first attempt
  std::optional<std::string> ca_bundle;  // PEM file of trusted CAs; unset = the system's
  // The rate floor (advisor/llm/rate_floor.h): bytes that keep coming, but slower
  // than this, fail the attempt once rate_window_s seconds of trickle were
  // judged. Silence does not count against it (that is idle_timeout_s's job).
  // bytes/s; <= 0 = no floor.
  double min_bytes_per_s = 16;
  double rate_window_s = 30;  // seconds of trickle judged at a time
  // Caps, so that an endless or huge response ends: the answer's text
  // (content and reasoning) and the response body's bytes (SSE framing and
  // keep-alives included). Reaching one fails the attempt, not retried.
  size_t max_answer_bytes = size_t{4} << 20;
  size_t max_response_bytes = size_t{64} << 20;
};

/// The request as JSON, deterministic: keys in a fixed order (model, messages,
/// temperature, the token limit, stream, stream_options, tools, tool_choice),
/// numbers in their
/// shortest round-trip form, invalid UTF-8 replaced by U+FFFD. The same
/// request always gives the same bytes.
std::string RequestBody(const ChatRequest& request);

/// base_url + "/chat/completions": trailing '/' removed, a base that already
/// ends with "/chat/completions" kept as it is, a query in the base kept, and
/// for Azure "api-version=" added unless the base has one.
std::string ChatUrl(const Endpoint& endpoint);

/// `url` for messages: any "user:password@" replaced by "***@", and the value
/// of every query parameter whose name holds "key", "token", "secret", "sig",
/// "pass", "auth" or "cred" (any case) replaced by "***".
std::string UrlForMessages(const std::string& url);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_CHAT_REQUEST_H_
