#include "advisor/llm/chat_request.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "base/text.h"

namespace cookgraph {

std::string RequestBody(const ChatRequest& request) {
  // ordered_json keeps insertion order, so the key order is the one written here.
  nlohmann::ordered_json body;
  body["model"] = request.model;
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const ChatMessage& m : request.messages) {
    nlohmann::ordered_json message;
    message["role"] = m.role;
    if (m.tool_calls.empty() || !m.content.empty()) {
      message["content"] = m.content;
    } else {
      message["content"] = nullptr;  // an assistant message that only calls tools
    }
    if (!m.tool_calls.empty()) {
      nlohmann::ordered_json calls = nlohmann::ordered_json::array();
      for (const ToolCall& call : m.tool_calls) {
        nlohmann::ordered_json c;
        c["id"] = call.id;
        c["type"] = "function";
        c["function"]["name"] = call.name;
        c["function"]["arguments"] = call.arguments;
        calls.push_back(std::move(c));
      }
      message["tool_calls"] = std::move(calls);
    }
    if (m.role == "tool") message["tool_call_id"] = m.tool_call_id;
    messages.push_back(std::move(message));
  }
  body["messages"] = std::move(messages);
  if (request.temperature) body["temperature"] = *request.temperature;
  if (request.max_output_tokens) {
    const std::string& field =
        request.max_tokens_field.empty() ? "max_completion_tokens" : request.max_tokens_field;
    body[field] = *request.max_output_tokens;
  }
  body["stream"] = request.stream;
  if (request.stream && request.include_usage) {
    body["stream_options"]["include_usage"] = true;
  }
  if (!request.tools.empty()) {
    nlohmann::ordered_json tools = nlohmann::ordered_json::array();
    for (const ToolSpec& spec : request.tools) {
      nlohmann::ordered_json tool;
      tool["type"] = "function";
      tool["function"]["name"] = spec.name;
      tool["function"]["description"] = spec.description;
      // The schema is ours and valid JSON; parsed so that it is sent as an object.
      tool["function"]["parameters"] =
          nlohmann::ordered_json::parse(spec.parameters, nullptr, /*allow_exceptions=*/false);
      tools.push_back(std::move(tool));
    }
    body["tools"] = std::move(tools);
    body["tool_choice"] = "auto";
  }
  // nlohmann writes doubles in their shortest round-trip form (Grisu2).
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string ChatUrl(const Endpoint& endpoint) {
  std::string path = endpoint.base_url;
  std::string query;
  if (const size_t q = path.find('?'); q != std::string::npos) {
    query = path.substr(q + 1);
    path.resize(q);
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  // A common mistake: the full URL given as the base.
  if (!EndsWith(path, "/chat/completions")) path += "/chat/completions";
  if (endpoint.azure && !endpoint.api_version.empty() &&
      query.find("api-version=") == std::string::npos) {
    if (!query.empty()) query += '&';
    query += "api-version=" + endpoint.api_version;
  }
  return query.empty() ? path : path + '?' + query;
}

namespace {

// A query parameter whose name says it holds a credential ("api-key", "key",
// "access_token", "sig", "password", ...), compared in lower case.
bool NamesASecret(std::string name) {
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view word : {"key", "token", "secret", "sig", "pass", "auth", "cred"}) {
    if (name.find(word) != std::string::npos) return true;
  }
  return false;
}

// `query` (without '?' and '#...') with the values of such parameters as "***".
std::string MaskQuery(std::string_view query) {
  std::string out;
  for (size_t start = 0; start <= query.size();) {
    size_t end = std::min(query.find('&', start), query.size());
    std::string_view pair = query.substr(start, end - start);
    const size_t equals = pair.find('=');
    if (equals != std::string_view::npos && NamesASecret(std::string(pair.substr(0, equals)))) {
      out.append(pair.substr(0, equals + 1)).append("***");
    } else {
      out.append(pair);
    }
    if (end < query.size()) out += '&';
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string UrlForMessages(const std::string& url) {
  std::string out = url;
  if (const size_t q = out.find('?'); q != std::string::npos) {
    const size_t fragment = std::min(out.find('#', q), out.size());
    out = out.substr(0, q + 1) + MaskQuery(std::string_view(out).substr(q + 1, fragment - q - 1)) +
          out.substr(fragment);
  }
  const size_t scheme = out.find("://");
  if (scheme == std::string::npos) return out;
  const size_t host = scheme + 3;
  const size_t end = out.find_first_of("/?#", host);
  const size_t at = out.rfind('@', end == std::string::npos ? std::string::npos : end);
  if (at == std::string::npos || at < host) return out;
  return out.substr(0, host) + "***" + out.substr(at);
}

}  // namespace cookgraph
